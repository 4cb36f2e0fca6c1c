package main

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/pkg/client"
)

// TestStoreOutage runs a portal whose connections to PostgreSQL go through
// a proxy, and cuts them: the link, exam and ordering APIs answer 503
// STORE_UNAVAILABLE with Retry-After (not 500), /readyz says the store is
// unavailable, and once the line is back the portal serves again by itself,
// with nothing written from the requests refused meanwhile.
func TestStoreOutage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	dbURL, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	px := newCutProxy(t, dbURL.Host)
	dbURL.Host = px.addr
	const password = "e2e-outage-Password"
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), []string{"PORTAL_ADMIN_PASSWORD=" + password},
		"--database-url", dbURL.String())
	ctx := t.Context()
	u, _, err := mustOperatorClient(t, p.URL, "admin", password).Exam.Admin.CreateLinkUser(ctx,
		&client.LinkUserRequest{Email: "ana@example.com", Username: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: 20 * time.Second}
	call := func(method, path, auth, body string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, method, p.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Retry-After"), string(b)
	}
	addLink := func(alias string) (int, string, string) {
		return call("POST", "/api/url/add", u.Key, `{"url":"https://example.org/`+alias+`","custom":"`+alias+`"}`)
	}
	if status, _, body := addLink("before"); status != http.StatusOK {
		t.Fatalf("a link before the outage: %d %s", status, body)
	}
	// A solved anti-bot challenge, spent only when a login uses it.
	oc, err := client.NewClient(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	ch, _, err := oc.Ordering.Auth.Challenge(ctx)
	if err != nil {
		t.Fatal(err)
	}
	solved, err := client.SolveChallenge(ch)
	if err != nil {
		t.Fatal(err)
	}

	px.cut()
	cutAt := time.Now()
	for _, c := range []struct{ what, method, path, auth, body string }{
		{"a short link", "POST", "/api/url/add", u.Key, `{"url":"https://example.org/during","custom":"during"}`},
		{"an operator login", "POST", "/api/v1/auth/login", "", `{"username":"admin","password":"` + password + `"}`},
		{"a messenger login", "POST", "/api/auth/login", "", `{"messengerNumber":"081234567890","challengeToken":"` + solved + `"}`},
	} {
		status, retry, body := call(c.method, c.path, c.auth, c.body)
		if status != http.StatusServiceUnavailable || retry == "" || !strings.Contains(body, "STORE_UNAVAILABLE") {
			t.Errorf("%s while the database is cut: %d (Retry-After %q) %s, want 503 STORE_UNAVAILABLE", c.what, status, retry, body)
		}
	}
	if status, _, body := call("GET", "/readyz", "", ""); status != http.StatusServiceUnavailable || !strings.Contains(body, "store unavailable") {
		t.Errorf("/readyz while the database is cut: %d %s", status, body)
	}

	// The outage lasts a few seconds, as a database restart does (and
	// longer than the pool's 1 s before it checks an idle connection).
	time.Sleep(time.Until(cutAt.Add(3 * time.Second)))
	px.restore()
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, _, _ := call("GET", "/readyz", "", "")
		if status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the portal did not reconnect within 30 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if status, _, body := addLink("after"); status != http.StatusOK {
		t.Fatalf("a link after the outage: %d %s", status, body)
	}
	_, _, body := call("GET", "/api/urls?limit=100", u.Key, "")
	var list struct {
		Data struct {
			URLs []struct {
				Alias string `json:"alias"`
			} `json:"urls"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	var aliases []string
	for _, l := range list.Data.URLs {
		aliases = append(aliases, l.Alias)
	}
	if got := strings.Join(aliases, ","); got != "after,before" && got != "before,after" {
		t.Fatalf("links after the outage: %s, want before and after only", got)
	}
}

// cutProxy forwards TCP connections to a target until cut, which closes
// them all and resets every new one until restore.
type cutProxy struct {
	addr   string
	target string
	mu     sync.Mutex
	down   bool
	conns  []net.Conn
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	px := &cutProxy{addr: ln.Addr().String(), target: target}
	go func() {
		for {
			c, err := ln.Accept()
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err != nil {
				continue
			}
			go px.serve(c)
		}
	}()
	t.Cleanup(px.cut)
	return px
}

// serve forwards c to the target, or closes it while the proxy is cut.
func (px *cutProxy) serve(c net.Conn) {
	px.mu.Lock()
	down := px.down
	px.mu.Unlock()
	if down {
		c.Close()
		return
	}
	s, err := net.Dial("tcp", px.target)
	if err != nil {
		c.Close()
		return
	}
	px.mu.Lock()
	px.conns = append(px.conns, c, s)
	px.mu.Unlock()
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
	c.Close()
}

// cut closes every forwarded connection and refuses new ones.
func (px *cutProxy) cut() {
	px.mu.Lock()
	defer px.mu.Unlock()
	px.down = true
	for _, c := range px.conns {
		c.Close()
	}
	px.conns = nil
}

// restore forwards new connections again.
func (px *cutProxy) restore() {
	px.mu.Lock()
	px.down = false
	px.mu.Unlock()
}
