package exam

import (
	"context"
	"net/http"
	"strings"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

type ctxKey int

const ctxServer ctxKey = iota

// requireServer admits requests with a valid lab-server JWT and stores the
// server's identity (exam.ServerIdentity) in the context.
func (a *api) requireServer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := a.svc.AuthenticateServer(r.Context(), respond.BearerToken(r))
		if err != nil {
			respond.Unauthorized(w, r, a.log, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxServer, id)))
	})
}

// requireAPIKey admits requests with an active X-API-Key of the directory.
func (a *api) requireAPIKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := a.svc.AuthenticateAPIKey(r.Context(), strings.TrimSpace(r.Header.Get("X-API-Key"))); err != nil {
			a.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// serverFrom returns the lab server stored by requireServer.
func serverFrom(ctx context.Context) exam.ServerIdentity {
	id, _ := ctx.Value(ctxServer).(exam.ServerIdentity)
	return id
}
