package respond

import (
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
