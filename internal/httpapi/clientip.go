package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/seedhq/portal/internal/httpapi/respond"
)

// clientIP resolves the client's address and keeps it in the context. The
// direct peer is the client unless it is one of the trusted proxies; then the
// client is the right-most address of X-Forwarded-For that is not itself a
// trusted proxy (addresses further left may be forged by the client), or
// X-Real-IP when there is no X-Forwarded-For.
func (s *server) clientIP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ip := resolveClientIP(r, s.proxies)
		next.ServeHTTP(w, r.WithContext(respond.WithClientIP(r.Context(), ip)))
	})
}

// ClientAddr returns next behind a middleware that sets r.RemoteAddr to the
// client's address ("ip:0") as the API's own middleware resolves it: the
// direct peer unless it is one of trusted, else the right-most untrusted
// X-Forwarded-For hop or X-Real-IP. It is for handlers outside the API's
// router that read r.RemoteAddr (the link redirector). Without trusted
// proxies it returns next itself: the peer is always the client.
func ClientAddr(trusted []netip.Prefix, next http.Handler) http.Handler {
	if len(trusted) == 0 {
		return next
	}
	trusted = append([]netip.Prefix(nil), trusted...)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		peer, ok := parseAddr(r.RemoteAddr)
		if !ok || !isTrusted(peer, trusted) {
			next.ServeHTTP(w, r)
			return
		}
		ip := resolveClientIP(r, trusted)
		a, err := netip.ParseAddr(ip)
		if err != nil || a == peer {
			next.ServeHTTP(w, r)
			return
		}
		r2 := r.WithContext(r.Context()) // a shallow copy
		r2.RemoteAddr = netip.AddrPortFrom(a, 0).String()
		next.ServeHTTP(w, r2)
	})
}

func resolveClientIP(r *http.Request, trusted []netip.Prefix) string {
	peer, ok := parseAddr(r.RemoteAddr)
	if !ok {
		return r.RemoteAddr // not an IP (a unix socket, a test); keep what we have
	}
	if !isTrusted(peer, trusted) {
		return peer.String()
	}
	if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
		hops := strings.Split(strings.Join(xff, ","), ",")
		var leftmost netip.Addr
		for i := len(hops) - 1; i >= 0; i-- {
			a, ok := parseAddr(strings.TrimSpace(hops[i]))
			if !ok {
				break // a malformed hop: trust nothing to its left
			}
			leftmost = a
			if !isTrusted(a, trusted) {
				return a.String()
			}
		}
		if leftmost.IsValid() {
			return leftmost.String() // every hop is a trusted proxy
		}
	}
	if a, ok := parseAddr(strings.TrimSpace(r.Header.Get("X-Real-IP"))); ok {
		return a.String()
	}
	return peer.String()
}

// parseAddr parses an address with or without a port (and with brackets for
// IPv6), unmapping IPv4-mapped IPv6 addresses.
func parseAddr(s string) (netip.Addr, bool) {
	if s == "" {
		return netip.Addr{}, false
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone(""), true
	}
	if host, _, err := net.SplitHostPort(s); err == nil {
		if a, err := netip.ParseAddr(host); err == nil {
			return a.Unmap().WithZone(""), true
		}
	}
	return netip.Addr{}, false
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
