package client_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/seedhq/portal/pkg/client"
)

// recorded is one request the fake portal received.
type recorded struct {
	Method   string
	Path     string
	RawPath  string // escaped
	RawQuery string
	Header   http.Header
	Body     []byte
}

// fakePortal is an httptest server that records requests and answers them
// with handlers the test installs, emulating docs/api/exam.md.
type fakePortal struct {
	t   *testing.T
	srv *httptest.Server
	mux *http.ServeMux

	mu   sync.Mutex
	reqs []recorded
}

// newFakePortal starts a fake portal, closed when the test ends.
func newFakePortal(t *testing.T) *fakePortal {
	t.Helper()
	f := &fakePortal{t: t, mux: http.NewServeMux()}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.mu.Lock()
		f.reqs = append(f.reqs, recorded{Method: r.Method, Path: r.URL.Path, RawPath: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery,
			Header: r.Header.Clone(), Body: body})
		f.mu.Unlock()
		f.mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	// Unknown routes answer like the portal.
	f.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]any{"success": false, "error": "no route for " + r.Method + " " + r.URL.Path, "code": "NOT_FOUND"})
	})
	return f
}

// handle installs h for pattern ("METHOD /path").
func (f *fakePortal) handle(pattern string, h http.HandlerFunc) { f.mux.HandleFunc(pattern, h) }

// json installs a handler of pattern that answers status and v as JSON.
func (f *fakePortal) json(pattern string, status int, v any) {
	f.handle(pattern, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, status, v) })
}

// requests returns the requests received so far.
func (f *fakePortal) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// last returns the last request received; the test fails when there is none.
func (f *fakePortal) last() recorded {
	f.t.Helper()
	reqs := f.requests()
	if len(reqs) == 0 {
		f.t.Fatal("the fake portal received no request")
	}
	return reqs[len(reqs)-1]
}

// client returns a client of the fake portal with opts.
func (f *fakePortal) client(opts ...client.Option) *client.Client {
	f.t.Helper()
	return mustClient(f.t, f.srv.URL, opts...)
}

// mustClient returns a new client or fails the test.
func mustClient(t *testing.T, baseURL string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.NewClient(baseURL, opts...)
	if err != nil {
		t.Fatalf("NewClient(%q): %v", baseURL, err)
	}
	return c
}

// writeJSON writes v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// mustJSON unmarshals b into a generic value or fails the test.
func mustJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("body %q is not JSON: %v", b, err)
	}
	return v
}

// mustEqualJSON fails the test when the JSON documents got and want differ.
func mustEqualJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	g, _ := json.Marshal(mustJSON(t, got))
	w, _ := json.Marshal(mustJSON(t, []byte(want)))
	if !bytes.Equal(g, w) {
		t.Errorf("body\n got %s\nwant %s", g, w)
	}
}
