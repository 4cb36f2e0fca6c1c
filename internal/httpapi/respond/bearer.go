package respond

import (
	"log/slog"
	"net/http"
	"strings"
)

// BearerToken returns the token of an "Authorization: Bearer <token>" header
// (the scheme is case-insensitive), or "" when there is none.
func BearerToken(r *http.Request) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// Unauthorized answers a failed bearer authentication with err (Error), and
// with the WWW-Authenticate challenge of RFC 6750 when the request carried
// no token.
func Unauthorized(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	if BearerToken(r) == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="portal"`)
	}
	Error(w, r, log, err)
}
