package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/pkg/client"
)

func TestNewClientBaseURL(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"http://portal.example", "http://portal.example/"},
		{"https://portal.example/", "https://portal.example/"},
		{"  https://portal.example/prefix  ", "https://portal.example/prefix/"},
		{"https://portal.example/a/b//", "https://portal.example/a/b/"},
	} {
		c := mustClient(t, tc.in)
		if got := c.BaseURL().String(); got != tc.want {
			t.Errorf("NewClient(%q).BaseURL() = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{
		"", "portal.example", "ftp://portal.example", "https://", "https://portal.example/?x=1",
		"https://portal.example/#f", "https://portal.example/api/v1", "https://portal.example/api/", "://",
	} {
		if _, err := client.NewClient(bad); err == nil {
			t.Errorf("NewClient(%q) = nil error, want one", bad)
		}
	}
}

func TestBaseURLIsACopy(t *testing.T) {
	c := mustClient(t, "https://portal.example")
	c.BaseURL().Host = "evil.example"
	if got := c.BaseURL().Host; got != "portal.example" {
		t.Fatalf("BaseURL host = %q after changing a copy", got)
	}
}

func TestPathPrefixIsKept(t *testing.T) {
	f := newFakePortal(t)
	f.json("GET /portal/api/v1/auth/me", 200, map[string]any{"success": true, "user": map[string]any{"id": "u1"}})
	c := mustClient(t, f.srv.URL+"/portal", client.WithToken("t"))
	u, _, err := c.Exam.Auth.Me(context.Background())
	if err != nil || u.ID != "u1" {
		t.Fatalf("Me = %+v, %v", u, err)
	}
}

func TestUserAgentAndHTTPClient(t *testing.T) {
	f := newFakePortal(t)
	f.handle("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })

	if _, err := f.client().Healthz(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := f.last().Header.Get("User-Agent"); got != client.DefaultUserAgent {
		t.Errorf("default User-Agent = %q", got)
	}

	var used bool
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		used = true
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := f.client(client.WithHTTPClient(hc), client.WithUserAgent("labagent/1.2"), client.WithHTTPClient(nil), client.WithUserAgent(""))
	if _, err := c.Healthz(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !used {
		t.Error("WithHTTPClient: the given client was not used")
	}
	if got := f.last().Header.Get("User-Agent"); got != "labagent/1.2" {
		t.Errorf("User-Agent = %q", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Each endpoint gets only the credential it expects.
func TestCredentialsPerEndpoint(t *testing.T) {
	f := newFakePortal(t)
	f.json("POST /api/v1/auth/login", 200, map[string]any{"success": true, "token": "jwt2"})
	f.json("GET /api/v1/auth/me", 200, map[string]any{"success": true, "user": map[string]any{}})
	f.json("GET /api/v1/licenses/public-key", 200, map[string]any{"success": true, "algorithm": "Ed25519", "public_key": strings.Repeat("A", 43) + "="})
	f.json("POST /api/v1/sync/verify-server", 200, map[string]any{"success": true})
	f.json("GET /api/v1/academic-year/active", 200, map[string]any{"success": true, "data": map[string]any{}})
	c := f.client(client.WithToken("jwt1"), client.WithAPIKey("key1"))
	ctx := context.Background()

	check := func(name, wantAuth, wantKey string) {
		t.Helper()
		r := f.last()
		if got := r.Header.Get("Authorization"); got != wantAuth {
			t.Errorf("%s: Authorization = %q, want %q", name, got, wantAuth)
		}
		if got := r.Header.Get("X-API-Key"); got != wantKey {
			t.Errorf("%s: X-API-Key = %q, want %q", name, got, wantKey)
		}
	}
	if _, _, err := c.Exam.Auth.Login(ctx, "u", "p"); err != nil {
		t.Fatal(err)
	}
	check("login", "", "")
	if _, _, err := c.Exam.Auth.Me(ctx); err != nil {
		t.Fatal(err)
	}
	check("me", "Bearer jwt1", "")
	if _, _, err := c.Exam.Licenses.PublicKey(ctx); err != nil {
		t.Fatal(err)
	}
	check("public key", "", "")
	if _, _, err := c.Exam.Sync.VerifyServer(ctx, &client.VerifyServerRequest{}); err != nil {
		t.Fatal(err)
	}
	check("verify server", "", "")
	if _, _, err := c.Exam.Directory.ActiveAcademicYear(ctx); err != nil {
		t.Fatal(err)
	}
	check("active year", "", "key1")

	c.SetToken("jwt2")
	c.SetAPIKey("key2")
	if c.Token() != "jwt2" {
		t.Errorf("Token() = %q", c.Token())
	}
	if _, _, err := c.Exam.Auth.Me(ctx); err != nil {
		t.Fatal(err)
	}
	check("me after SetToken", "Bearer jwt2", "")
	if _, _, err := c.Exam.Directory.ActiveAcademicYear(ctx); err != nil {
		t.Fatal(err)
	}
	check("active year after SetAPIKey", "", "key2")

	c.SetToken("")
	if _, _, err := c.Exam.Auth.Me(ctx); err != nil {
		t.Fatal(err)
	}
	check("me without token", "", "")
}

// SetToken may be called while requests are in flight (run with -race).
func TestSetTokenConcurrent(t *testing.T) {
	f := newFakePortal(t)
	f.json("GET /api/v1/auth/me", 200, map[string]any{"success": true, "user": map[string]any{}})
	c := f.client()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			c.SetToken(fmt.Sprintf("t%d", i))
		}()
		go func() {
			defer wg.Done()
			if _, _, err := c.Exam.Auth.Me(context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, r := range f.requests() {
		if a := r.Header.Get("Authorization"); a != "" && !strings.HasPrefix(a, "Bearer t") {
			t.Errorf("Authorization = %q", a)
		}
	}
}

func TestNewRequestAndDo(t *testing.T) {
	f := newFakePortal(t)
	f.handle("POST /api/v1/custom", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Limit", "100")
		w.Header().Set("X-RateLimit-Remaining", "99")
		w.Header().Set("X-RateLimit-Reset", "1800000000")
		writeJSON(w, 200, map[string]any{"success": true, "n": 7})
	})
	f.json("GET /api/links", 401, map[string]any{"error": 1, "message": "invalid API key"})
	c := f.client(client.WithToken("tok"), client.WithAPIKey("key"))

	req, err := c.NewRequest(http.MethodPost, "api/v1/custom", map[string]int{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ N int }
	resp, err := c.Do(context.Background(), req, &out)
	if err != nil {
		t.Fatal(err)
	}
	if out.N != 7 {
		t.Errorf("decoded n = %d", out.N)
	}
	r := f.last()
	if r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get("X-API-Key") != "key" {
		t.Errorf("NewRequest credentials: %q %q", r.Header.Get("Authorization"), r.Header.Get("X-API-Key"))
	}
	if r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("Content-Type = %q", r.Header.Get("Content-Type"))
	}
	mustEqualJSON(t, r.Body, `{"a":1}`)
	if resp.Rate.Limit != 100 || resp.Rate.Remaining != 99 || !resp.Rate.Reset.Equal(time.Unix(1800000000, 0)) {
		t.Errorf("Rate = %+v", resp.Rate)
	}

	// The link API's envelope is understood by Do.
	req, _ = c.NewRequest(http.MethodGet, "api/links", nil)
	resp, err = c.Do(context.Background(), req, nil)
	var e *client.Error
	if !errors.As(err, &e) || e.Status != 401 || e.Message != "invalid API key" || e.Code != "" {
		t.Fatalf("Do link error = %#v", err)
	}
	if resp == nil || resp.StatusCode != 401 {
		t.Errorf("Do returned response %v with the error", resp)
	}

	if _, err := c.NewRequest(http.MethodGet, "/api/v1/x", nil); err == nil {
		t.Error("NewRequest with an absolute path: nil error")
	}
}

func TestHealth(t *testing.T) {
	f := newFakePortal(t)
	ready := false
	f.handle("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	f.handle("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !ready {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, "store unavailable")
			return
		}
		io.WriteString(w, "ok")
	})
	c := f.client(client.WithToken("t"), client.WithAPIKey("k"))
	ctx := context.Background()
	if _, err := c.Healthz(ctx); err != nil {
		t.Fatalf("Healthz: %v", err)
	}
	if r := f.last(); r.Header.Get("Authorization") != "" || r.Header.Get("X-API-Key") != "" {
		t.Error("health check sent credentials")
	}
	_, err := c.Readyz(ctx)
	if !errors.Is(err, client.ErrUnavailable) || !errors.Is(err, client.ErrServer) {
		t.Fatalf("Readyz not ready = %v, want ErrUnavailable", err)
	}
	var e *client.Error
	if errors.As(err, &e); e.Message != "store unavailable" || e.Code != "" {
		t.Errorf("Readyz error = %#v", e)
	}
	ready = true
	if _, err := c.Readyz(ctx); err != nil {
		t.Fatalf("Readyz ready: %v", err)
	}
}

func TestContextCancelled(t *testing.T) {
	f := newFakePortal(t)
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	f.handle("GET /api/v1/auth/me", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, _, err := f.client().Exam.Auth.Me(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
}

func TestEmptyIDsFailBeforeSending(t *testing.T) {
	f := newFakePortal(t)
	c := f.client()
	ctx := context.Background()
	calls := map[string]func() error{
		"Revoke":               func() error { _, _, err := c.Exam.Licenses.Revoke(ctx, ""); return err },
		"ResetServer":          func() error { _, err := c.Exam.Admin.ResetServer(ctx, ""); return err },
		"GetExam":              func() error { _, _, err := c.Exam.Admin.GetExam(ctx, ""); return err },
		"DeleteExam":           func() error { _, err := c.Exam.Admin.DeleteExam(ctx, ""); return err },
		"UpdateExam":           func() error { _, _, err := c.Exam.Admin.UpdateExam(ctx, "", &client.ExamRequest{}); return err },
		"ExamResults":          func() error { _, _, err := c.Exam.Admin.ExamResults(ctx, ""); return err },
		"ResetExamPassword":    func() error { _, _, err := c.Exam.Admin.ResetExamPassword(ctx, ""); return err },
		"ActivateAcademicYear": func() error { _, _, err := c.Exam.Admin.ActivateAcademicYear(ctx, ""); return err },
		"RevokeAPIKey":         func() error { _, _, err := c.Exam.Admin.RevokeAPIKey(ctx, ""); return err },
		"Generate nil":         func() error { _, _, err := c.Exam.Licenses.Generate(ctx, nil); return err },
		"VerifyServer nil":     func() error { _, _, err := c.Exam.Sync.VerifyServer(ctx, nil); return err },
		"PushAnswers nil":      func() error { _, _, err := c.Exam.Sync.PushAnswers(ctx, nil); return err },
		"Heartbeat nil":        func() error { _, _, err := c.Exam.Sync.Heartbeat(ctx, nil); return err },
		"CreateExam nil":       func() error { _, _, err := c.Exam.Admin.CreateExam(ctx, nil); return err },
		"ImportMembersCSV nil": func() error { _, _, err := c.Exam.Admin.ImportMembersCSV(ctx, nil, nil); return err },
		"LoginCardsCSV nil":    func() error { _, err := c.Exam.Admin.LoginCardsCSV(ctx, "1", nil); return err },
		"DownloadPackage nil": func() error {
			_, _, err := c.Exam.Sync.DownloadPackage(ctx, "s", nil, nil)
			return err
		},
		"DownloadPackage -1": func() error {
			_, _, err := c.Exam.Sync.DownloadPackage(ctx, "s", io.Discard, &client.DownloadOptions{Offset: -1})
			return err
		},
	}
	for name, call := range calls {
		if err := call(); err == nil {
			t.Errorf("%s: nil error", name)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestPathSegmentsAreEscaped(t *testing.T) {
	f := newFakePortal(t)
	f.json("GET /api/v1/admin/exams/{id}", 200, map[string]any{"success": true, "data": map[string]any{"id": "x"}})
	c := f.client()
	if _, _, err := c.Exam.Admin.GetExam(context.Background(), "a/b?c"); err != nil {
		t.Fatal(err)
	}
	r := f.last()
	if r.RawPath != "/api/v1/admin/exams/a%2Fb%3Fc" || r.RawQuery != "" {
		t.Errorf("path %q query %q", r.RawPath, r.RawQuery)
	}
}
