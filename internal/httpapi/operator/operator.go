// Package operator authenticates the portal's operators on the routes of
// every API: the bearer JWT that internal/identity signs, the account it
// names kept in the request's context, and Idempotency-Key honoured on an
// operator's creating calls. The exam, link-management and ordering APIs
// (internal/httpapi/exam, links, ordering) put their operator routes behind
// one Auth. Refusals use the exam API's envelope (internal/httpapi/respond).
package operator

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/identity"
)

// Auth is the operators' authentication middleware.
type Auth struct {
	ids  *identity.Service
	idem *idempotency.Keeper
	log  *slog.Logger
}

// New returns the middleware over ids, keeping the answers of creating calls
// in idem. log receives internal errors; nil discards.
func New(ids *identity.Service, idem *idempotency.Keeper, log *slog.Logger) *Auth {
	if ids == nil || idem == nil {
		panic("httpapi/operator: identity and idempotency are required")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Auth{ids: ids, idem: idem, log: log}
}

type ctxKey struct{}

// RequireAccount admits requests with a valid operator JWT of any account,
// graders included, and keeps the account in the context (From): the
// routes a grader may use (who am I, grading) check the rest themselves.
func (a *Auth) RequireAccount(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := a.ids.Authenticate(r.Context(), respond.BearerToken(r))
		if err != nil {
			respond.Unauthorized(w, r, a.log, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, u)))
	})
}

// RequireOperator admits requests with a valid operator JWT of an account
// that operates (SUPER_ADMIN, OPERATOR) and keeps the account in the context
// (From). A grader's token is refused 403 GRADER_FORBIDDEN: graders only
// reach the routes of RequireAccount.
func (a *Auth) RequireOperator(next http.Handler) http.Handler {
	return a.RequireAccount(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !From(r.Context()).Role.Operates() {
			respond.Error(w, r, a.log, identity.ErrGraderForbidden)
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// Once honours Idempotency-Key on an operator's creating call (after
// RequireOperator): a retry with the same key gets the first answer
// (internal/idempotency).
func (a *Auth) Once(next http.Handler) http.Handler {
	return a.idem.Middleware(func(r *http.Request) string {
		return "operator:" + From(r.Context()).ID
	}, func(w http.ResponseWriter, r *http.Request, err error) {
		respond.Error(w, r, a.log, err)
	})(next)
}

// From returns the account that RequireAccount or RequireOperator admitted;
// the zero User outside them.
func From(ctx context.Context) identity.User {
	u, _ := ctx.Value(ctxKey{}).(identity.User)
	return u
}
