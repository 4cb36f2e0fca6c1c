//go:build loadtest

package loadtest

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/pkg/client"
)

// Sizes of the redirect run.
const (
	redirectConns = 32               // keep-alive connections of the load generator
	redirectRun   = 60 * time.Second // timed redirects per server: sustained, past what the click queue absorbs
	redirectAlias = "bench-link"
	redirectLong  = "https://example.org/landing?utm_source=bench"
	redirectUA    = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"
)

// TestRedirectLoad measures redirects per second of the real portal binary
// (GET /{alias}, click recording on) beside a bare net/http handler
// answering the same 302 in the same run, driven the same way. Target: the
// portal does at least half of the bare rate.
func TestRedirectLoad(t *testing.T) {
	if os.Getenv("PORTAL_LOADTEST") == "0" {
		t.Skip("PORTAL_LOADTEST=0")
	}
	defer printSummary()
	bin := buildPortal(t)
	t.Run("bolt", func(t *testing.T) { runRedirects(t, bin, "") })
	t.Run("postgres", func(t *testing.T) { runRedirects(t, bin, pgtest.NewDatabase(t)) })
}

func runRedirects(t *testing.T, bin, dbURL string) {
	ctx := t.Context()
	kind, base, _, c := startLinkPortal(t, bin, dbURL, &client.LinkUserRequest{Email: "bench@example.com", Username: "bench"})
	l, _, err := c.Links.URLs.Add(ctx, &client.LinkURLRequest{URL: redirectLong, Custom: redirectAlias})
	if err != nil {
		t.Fatal(err)
	}

	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, redirectLong, http.StatusFound)
	}))
	defer bare.Close()

	load := func(base string) loadResult {
		addr := strings.TrimPrefix(base, "http://")
		req := fmt.Appendf(nil, "GET /%s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\nAccept: text/html\r\n\r\n", redirectAlias, addr, redirectUA)
		conns := make([]loadConn, redirectConns)
		for i := range conns {
			conns[i] = loadConn{addr: addr, reqs: [][]byte{req}}
		}
		return driveHTTP(t, conns, http.StatusFound, 0, redirectRun)
	}
	bareRes := load(bare.URL)
	res := load(base)
	ratio := res.PerSec / bareRes.PerSec
	report("redirects, GET /{alias} with click recording", kind, fmt.Sprintf("%s (%d conns)", res, redirectConns), "-", nil)
	report("bare net/http 302, same run", kind, bareRes.String(), "-", nil)
	report("redirects / bare 302", kind, fmt.Sprintf("%.0f%%", ratio*100), ">= 50%", ptr(ratio >= 0.5))

	// Every redirect was a click: wait for the recorder to save them.
	deadline := time.Now().Add(60 * time.Second)
	var clicks, last int64 = 0, -1
	for time.Now().Before(deadline) {
		got, _, err := c.Links.URLs.Get(ctx, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		clicks = got.Clicks
		if clicks == last && clicks > 0 {
			break
		}
		last = clicks
		time.Sleep(2 * time.Second)
	}
	share := float64(clicks) / float64(res.N)
	report("clicks recorded after the 60 s redirect run", kind, fmt.Sprintf("%d of %d redirects (%.3f%%); /metrics: %.0f dropped, %.0f failed, %.0f failed batches",
		clicks, res.N, 100*share, metric(t, base, "portal_link_clicks_dropped_total"), metric(t, base, "portal_link_clicks_failed_total"),
		metric(t, base, "portal_link_click_batch_failures_total")), ">= 99.99%", ptr(share >= 0.9999))
}

// metric returns the value of the unlabelled metric name in the portal's
// /metrics.
func metric(t *testing.T, base, name string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("/metrics: %s: %v", name, err)
			}
			return f
		}
	}
	t.Fatalf("/metrics has no %s", name)
	return 0
}

// startLinkPortal starts the real portal on dbURL ("" for bbolt), creates
// the link user u through the operator API and returns the store's name,
// the portal's base URL, the user's key and a client holding it.
func startLinkPortal(t *testing.T, bin, dbURL string, u *client.LinkUserRequest) (kind, base, key string, c *client.Client) {
	t.Helper()
	kind = "bolt"
	if dbURL != "" {
		kind = "postgres"
	}
	ctx := t.Context()
	_, base = startPortal(t, bin, dbURL, filepath.Join(t.TempDir(), "data"))
	op, err := client.NewClient(base)
	if err != nil {
		t.Fatal(err)
	}
	login, _, err := op.Exam.Auth.Login(ctx, "admin", adminPassword)
	if err != nil {
		t.Fatal(err)
	}
	op.SetToken(login.Token)
	created, _, err := op.Exam.Admin.CreateLinkUser(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	c, err = client.NewClient(base, client.WithLinkKey(created.Key))
	if err != nil {
		t.Fatal(err)
	}
	return kind, base, created.Key, c
}
