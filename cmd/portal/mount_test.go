package main

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/redirect"
	"github.com/seedhq/portal/internal/links/visits"
	"github.com/seedhq/portal/internal/store/bolt"
)

// TestMountRedirector checks the split of paths between the API router and
// the redirector, and that the redirector sees the client behind a trusted
// proxy.
func TestMountRedirector(t *testing.T) {
	var apiHits, redirHits []string
	var redirAddr string
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { apiHits = append(apiHits, r.URL.Path) })
	redir := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		redirHits = append(redirHits, r.URL.Path)
		redirAddr = r.RemoteAddr
	})
	serves := newTestRouter(t).Serves
	h := mountRedirector(api, serves, httpapi.ClientAddr([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, redir))
	toAPI := []string{"/api", "/api/", "/api/url/1", "/api/v1/auth/login", "/healthz", "/readyz", "/metrics"}
	toRedir := []string{"/", "/abc", "/q/1", "/r/summer", "/c/2", "/apix", "/healthzz", "/metrics/x", "/favicon.ico"}
	for _, p := range append(append([]string{}, toAPI...), toRedir...) {
		req := httptest.NewRequest(http.MethodGet, p, nil)
		req.RemoteAddr = "127.0.0.1:4000"
		req.Header.Set("X-Forwarded-For", "198.51.100.7")
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	if strings.Join(apiHits, " ") != strings.Join(toAPI, " ") {
		t.Errorf("API got %v, want %v", apiHits, toAPI)
	}
	if strings.Join(redirHits, " ") != strings.Join(toRedir, " ") {
		t.Errorf("redirector got %v, want %v", redirHits, toRedir)
	}
	if redirAddr != "198.51.100.7:0" {
		t.Errorf("redirector saw RemoteAddr %q, want the forwarded client", redirAddr)
	}
}

// newTestRouter returns the API router with the exam and link-management
// APIs over a fresh bbolt store.
func newTestRouter(t *testing.T) *httpapi.Router {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return testAPI(t, st, "")
}

// testAPI returns the API router with the exam and link-management APIs
// over st, whose short links are under linkBase.
func testAPI(t *testing.T, st *bolt.Store, linkBase string) *httpapi.Router {
	t.Helper()
	ids, err := identity.Open(t.Context(), st, nil, identity.Config{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := exam.NewService(t.Context(), st, exam.Config{Tokens: ids.Tokens(), TempDir: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return httpapi.New(httpapi.Options{Exam: svc, Identity: ids, Idempotency: idempotency.New(st, idempotency.Options{}),
		Links: links.NewService(st, links.Config{}), LinkBaseURL: linkBase})
}

// TestMountRedirectorReal mounts the real API router and redirector on a
// bbolt store, as serve does.
func TestMountRedirectorReal(t *testing.T) {
	ctx := t.Context()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	u, err := st.CreateLinkUser(ctx, links.User{Email: "ana@example.com", Username: "ana", Plan: "pro", RegisteredAt: time.Now()}, "hash")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateLink(ctx, links.ShortLink{UserID: u.ID, Alias: "promo", LongURL: "https://example.org/x",
		CreatedAt: time.Now(), UpdatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	rec, err := visits.NewRecorder(st, visits.Options{Secret: []byte("0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rec.Close() })
	const base = "http://s.example.org"
	apiH := testAPI(t, st, base)
	redir := redirect.New(redirect.Options{Store: st, Recorder: rec, ShortHost: "s.example.org",
		PublicURL: func(*http.Request) string { return base }})
	h := mountRedirector(apiH, apiH.Serves, redir)

	cases := []struct {
		host, path string
		status     int
		ctype      string
		location   string
	}{
		{"s.example.org", "/healthz", http.StatusOK, "", ""},
		{"s.example.org", "/metrics", http.StatusOK, "text/plain", ""},
		{"portal.example.org", "/api/v1/nope", http.StatusNotFound, "application/json", ""},
		{"s.example.org", "/api/urls", http.StatusUnauthorized, "application/json", ""},
		{"s.example.org", "/promo", http.StatusFound, "", "https://example.org/x"},
		{"S.EXAMPLE.ORG:80", "/promo", http.StatusFound, "", "https://example.org/x"},
		{"s.example.org", "/nope", http.StatusNotFound, "text/html", ""},
		{"other.example.net", "/promo", http.StatusNotFound, "text/html", ""},
	}
	for _, tc := range cases {
		req := httptest.NewRequest(http.MethodGet, "http://"+tc.host+tc.path, nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != tc.status || !strings.HasPrefix(w.Header().Get("Content-Type"), tc.ctype) ||
			w.Header().Get("Location") != tc.location {
			t.Errorf("GET %s%s: %d %q to %q, want %d %q to %q", tc.host, tc.path, w.Code,
				w.Header().Get("Content-Type"), w.Header().Get("Location"), tc.status, tc.ctype, tc.location)
		}
	}
}
