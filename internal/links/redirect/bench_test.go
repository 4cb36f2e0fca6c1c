package redirect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// The redirector's hot path against a bare 302 handler; docs/benchmarks.md
// asks for BenchmarkRedirect at 50% or more of BenchmarkBare302's rate.
// Both use httptest.NewRecorder, a fresh request per iteration.

func benchRequest(host, path string) *http.Request {
	r := httptest.NewRequest("GET", path, nil)
	r.Host = host
	r.RemoteAddr = "203.0.113.7:51234"
	r.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0")
	r.Header.Set("Referer", "https://news.example.com/")
	return r
}

func BenchmarkBare302(b *testing.B) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://example.com/landing?utm_source=x", http.StatusFound)
	})
	r := benchRequest(short, "/abc1234")
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
}

// discardSink drops every batch.
type discardSink struct{}

func (discardSink) SaveVisits(context.Context, []visits.Visit) error { return nil }

func benchHandler(b *testing.B, ttl time.Duration, realRecorder bool) *Handler {
	s := newMemStore()
	s.domains[3] = links.Domain{ID: 3, UserID: owner, URL: "https://" + branded, Host: branded}
	// A realistic store holds many links; the fake's alias scan is linear,
	// so it holds just the two that are asked for.
	s.links[1] = links.ShortLink{ID: 1, UserID: owner, Alias: "abc1234", LongURL: "https://example.com/landing?utm_source=x"}
	s.links[2] = links.ShortLink{ID: 2, UserID: owner, DomainID: 3, Alias: "abc1234", LongURL: "https://example.com/landing?utm_source=x"}
	var rec Recorder = nopRecorder{}
	if realRecorder {
		vr, err := visits.NewRecorder(discardSink{}, visits.Options{Secret: []byte("0123456789abcdef0123456789abcdef")})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { _ = vr.Run(ctx); close(done) }()
		b.Cleanup(func() { cancel(); <-done })
		rec = vr
	}
	return New(Options{Store: s, Recorder: rec, ShortHost: short, CacheTTL: ttl})
}

func BenchmarkRedirect(b *testing.B) {
	for _, bc := range []struct {
		name, host string
		ttl        time.Duration
		real       bool
	}{
		{"short-host", short, 0, false},
		{"branded", branded, 0, false},
		{"branded-cached", branded, 5 * time.Second, false},
		{"short-host-visits.Recorder", short, 0, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := benchHandler(b, bc.ttl, bc.real)
			r := benchRequest(bc.host, "/abc1234")
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusFound {
					b.Fatal(w.Code)
				}
			}
		})
	}
}
