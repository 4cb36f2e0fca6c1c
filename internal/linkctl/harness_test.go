package linkctl

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/redirect"
	"github.com/seedhq/portal/internal/links/visits"
	"github.com/seedhq/portal/internal/openapi/openapitest"
	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/pkg/client"
)

// testPortal is a real portal router over a bbolt store on 127.0.0.1.
type testPortal struct {
	URL string
	op  *client.Client // signed in as the operator
}

// mustStartPortal serves the real router (link API and operator API) over
// a fresh bbolt store; the short host is the server itself.
func mustStartPortal(t *testing.T) *testPortal {
	t.Helper()
	return mustStartPortalWith(t, links.Config{})
}

// mustStartPortalWith is mustStartPortal with the link service's config,
// e.g. a clock (links.Config.Now) that the rate limit counts windows by.
func mustStartPortalWith(t *testing.T, linksCfg links.Config) *testPortal {
	t.Helper()
	old := password.Cost
	password.Cost = 4
	t.Cleanup(func() { password.Cost = old })

	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"))
	if err != nil {
		t.Fatalf("open bolt: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	ids, err := identity.Open(ctx, st, nil, identity.Config{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := exam.NewService(ctx, st, exam.Config{Tokens: ids.Tokens(), TempDir: t.TempDir()}, logger)
	if err != nil {
		t.Fatalf("new service: %v", err)
	}
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	api := openapitest.Wrap(t, httpapi.New(httpapi.Options{Exam: svc, Identity: ids, Idempotency: idempotency.New(st, idempotency.Options{}),
		Links:       links.NewService(st, linksCfg),
		LinkBaseURL: base, Logger: logger, Registry: prometheus.NewRegistry()}))
	// The short links and QR images are served, as by portal serve, by the
	// redirector on every path outside /api.
	rec, err := visits.NewRecorder(st, visits.Options{Secret: []byte("linkctl-test-visit-secret"), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	recCtx, stopRec := context.WithCancel(context.Background())
	go rec.Run(recCtx)
	t.Cleanup(func() { stopRec(); rec.Close() })
	redir := redirect.New(redirect.Options{Store: st, Recorder: rec, Logger: logger,
		PublicURL: func(*http.Request) string { return base }})
	mux := http.NewServeMux()
	mux.Handle("/api/", api)
	mux.Handle("/", redir)
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	const user, password = "admin", "linkctl-test-password"
	if _, _, err := ids.EnsureAdmin(ctx, user, password); err != nil {
		t.Fatalf("ensure admin: %v", err)
	}
	op, err := client.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	login, _, err := op.Exam.Auth.Login(ctx, user, password)
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	op.SetToken(login.Token)
	return &testPortal{URL: srv.URL, op: op}
}

// mustLinkUser creates a link user through the operator API and returns
// it with its key.
func (p *testPortal) mustLinkUser(t *testing.T, username string) *client.LinkUser {
	t.Helper()
	u, _, err := p.op.Exam.Admin.CreateLinkUser(context.Background(), &client.LinkUserRequest{
		Email: username + "@example.com", Username: username, Plan: "pro", RateLimit: 100000})
	if err != nil {
		t.Fatalf("create link user %s: %v", username, err)
	}
	return u
}

// isolate clears the LINKCTL_* environment and points the default config
// file into a temporary directory.
func isolate(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, EnvPrefix+"_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
}

// result is the outcome of one linkctl run.
type result struct {
	code        int
	out, errOut string
}

// runCLI runs linkctl with args, stdin in.
func runCLI(t *testing.T, in string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, strings.NewReader(in), &out, &errOut)
	return result{code: code, out: out.String(), errOut: errOut.String()}
}

// mustRun runs linkctl and fails the test unless it exits 0.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	r := runCLI(t, "", args...)
	if r.code != 0 {
		t.Fatalf("linkctl %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.out, r.errOut)
	}
	return r.out
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
