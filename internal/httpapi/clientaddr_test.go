package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/seedhq/portal/internal/httpapi"
)

func TestClientAddr(t *testing.T) {
	proxy := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	cases := []struct {
		name    string
		trusted []netip.Prefix
		peer    string
		xff     string
		realIP  string
		want    string
	}{
		{"no proxies: the peer", nil, "203.0.113.9:5000", "198.51.100.1", "", "203.0.113.9:5000"},
		{"untrusted peer: its own address", proxy, "203.0.113.9:5000", "198.51.100.1", "", "203.0.113.9:5000"},
		{"trusted peer: right-most untrusted hop", proxy, "10.0.0.2:5000", "192.0.2.7, 198.51.100.1, 10.0.0.3", "", "198.51.100.1:0"},
		{"trusted peer: X-Real-IP", proxy, "10.0.0.2:5000", "", "2001:db8::1", "[2001:db8::1]:0"},
		{"trusted peer without headers", proxy, "10.0.0.2:5000", "", "", "10.0.0.2:5000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			h := httpapi.ClientAddr(tc.trusted, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = r.RemoteAddr }))
			req := httptest.NewRequest(http.MethodGet, "/abc", nil)
			req.RemoteAddr = tc.peer
			if tc.xff != "" {
				req.Header.Set("X-Forwarded-For", tc.xff)
			}
			if tc.realIP != "" {
				req.Header.Set("X-Real-IP", tc.realIP)
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
			if got != tc.want {
				t.Errorf("RemoteAddr = %q, want %q", got, tc.want)
			}
			if req.RemoteAddr != tc.peer {
				t.Errorf("the caller's request was changed: %q", req.RemoteAddr)
			}
		})
	}
}
