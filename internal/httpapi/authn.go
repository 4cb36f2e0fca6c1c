package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/identity"
)

// requireOperator admits requests with a valid operator JWT of an account
// that operates (SUPER_ADMIN, OPERATOR) and stores the operator (identity.User)
// in the context. A grader's token is refused 403 GRADER_FORBIDDEN: graders
// only reach the routes of requireAccount.
func (s *server) requireOperator(next http.Handler) http.Handler {
	return s.requireAccount(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !operatorFrom(r.Context()).Role.Operates() {
			s.writeError(w, r, exam.ErrGraderForbidden)
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// requireAccount admits requests with a valid operator JWT of any account,
// graders included, and stores the account (identity.User) in the context: the
// routes a grader may use (who am I, grading) check the rest themselves.
func (s *server) requireAccount(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := s.ids.Authenticate(r.Context(), respond.BearerToken(r))
		if err != nil {
			s.unauthorized(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxOperator, u)))
	})
}

// requireServer admits requests with a valid lab-server JWT and stores the
// server's identity (exam.ServerIdentity) in the context.
func (s *server) requireServer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := s.exam.AuthenticateServer(r.Context(), respond.BearerToken(r))
		if err != nil {
			s.unauthorized(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxServer, id)))
	})
}

// requireAPIKey admits requests with an active X-API-Key and stores the key
// (exam.APIKey) in the context.
func (s *server) requireAPIKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, err := s.exam.AuthenticateAPIKey(r.Context(), strings.TrimSpace(r.Header.Get("X-API-Key")))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxAPIKey, k)))
	})
}

// unauthorized answers a failed bearer authentication, with the
// WWW-Authenticate challenge of RFC 6750.
func (s *server) unauthorized(w http.ResponseWriter, r *http.Request, err error) {
	if respond.BearerToken(r) == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="portal"`)
	}
	s.writeError(w, r, err)
}

// operatorFrom returns the account stored by requireOperator or
// requireAccount.
func operatorFrom(ctx context.Context) identity.User {
	u, _ := ctx.Value(ctxOperator).(identity.User)
	return u
}

// serverFrom returns the lab server stored by requireServer.
func serverFrom(ctx context.Context) exam.ServerIdentity {
	id, _ := ctx.Value(ctxServer).(exam.ServerIdentity)
	return id
}
