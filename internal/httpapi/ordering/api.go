// Package ordering is the HTTP edge of the ordering API
// (docs/api/ordering.md): messenger login, and the routes built on it. Its
// routes, and the operator's routes over the shop under
// /api/v1/admin/ordering, are listed in routes.go and mounted by internal/httpapi on the
// portal's one router, which runs the shared middleware (request id, client
// address, log line, metrics, body limit) before them. Answers and errors
// use the exam API's envelope, {"success": true, ...} and {"success":
// false, "error", "code"} (internal/httpapi/respond).
package ordering

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/idempotency"
	ord "github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/challenge"
	"github.com/seedhq/portal/internal/webhook"
)

// Options configure the ordering routes.
type Options struct {
	// Service is the ordering domain. Required.
	Service *ord.Service
	// PoW issues the built-in proof-of-work challenges of GET
	// /api/auth/challenge; nil when logins are checked by another verifier
	// (Turnstile, hCaptcha), and the route answers 404.
	PoW *challenge.PoW
	// Gateway verifies the Standard Webhooks signature of the messaging
	// gateway's calls. Required.
	Gateway *webhook.Verifier
	// ProviderSecrets sign the payment provider's webhooks (the current one
	// and, during a rotation, the previous). Required.
	ProviderSecrets []string
	// Sandbox turns the built-in messaging gateway stand-in on (nil: off).
	Sandbox *Sandbox
	// Idempotency honours Idempotency-Key on the creating calls (orders,
	// counter orders, menu categories and items). Required.
	Idempotency *idempotency.Keeper
	// RequireOperator admits the portal's operators on the
	// /api/v1/admin/ordering/* routes, answering the others itself
	// (internal/httpapi/operator). Required.
	RequireOperator func(http.Handler) http.Handler
	// OperatorOnce honours Idempotency-Key on an operator's creating call
	// (after RequireOperator). Required.
	OperatorOnce func(http.Handler) http.Handler
	// Logger receives internal errors. Nil discards.
	Logger *slog.Logger
	// Now returns the current time; tests fix it. Default time.Now.
	Now func() time.Time
}

// api holds what the handlers share. Handlers are its methods.
type api struct {
	svc     *ord.Service
	pow     *challenge.PoW
	gateway *webhook.Verifier
	// providerSecrets are Options.ProviderSecrets.
	providerSecrets []string
	sandbox         *Sandbox
	idem            *idempotency.Keeper
	log             *slog.Logger
	now             func() time.Time
}

func newAPI(o Options) *api {
	if o.Service == nil || o.Gateway == nil || len(o.ProviderSecrets) == 0 || o.Idempotency == nil ||
		o.RequireOperator == nil || o.OperatorOnce == nil {
		panic("httpapi/ordering: Options.Service, Gateway, ProviderSecrets, Idempotency, RequireOperator and OperatorOnce are required")
	}
	a := &api{svc: o.Service, pow: o.PoW, gateway: o.Gateway, providerSecrets: o.ProviderSecrets, sandbox: o.Sandbox,
		idem: o.Idempotency, log: o.Logger, now: o.Now}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.now == nil {
		a.now = time.Now
	}
	return a
}

// writeError answers err in the envelope.
func (a *api) writeError(w http.ResponseWriter, r *http.Request, err error) {
	respond.Error(w, r, a.log, err)
}

// once honours Idempotency-Key on a signed-in user's creating call.
func (a *api) once(next http.Handler) http.Handler {
	return a.idem.Middleware(func(r *http.Request) string {
		return "ordering-user:" + userFrom(r.Context()).ID
	}, a.writeError)(next)
}

type ctxKey int

const ctxUser ctxKey = iota

// requireUser admits requests with a valid ordering JWT and keeps its user
// in the context.
func (a *api) requireUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := a.svc.Authenticate(r.Context(), respond.BearerToken(r))
		if err != nil {
			if respond.BearerToken(r) == "" {
				w.Header().Set("WWW-Authenticate", `Bearer realm="portal"`)
			}
			a.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxUser, u)))
	})
}

// requireRole admits users of one of roles (after requireUser).
func requireRole(a *api, roles ...ord.Role) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u := userFrom(r.Context())
			for _, role := range roles {
				if u.Role == role {
					next.ServeHTTP(w, r)
					return
				}
			}
			a.writeError(w, r, ord.ErrForbidden)
		})
	}
}

// requireMenu admits users allowed the back-office menu (after
// requireUser): ADMIN and OWNER, STAFF by its allowedMenus.
func requireMenu(a *api, menu string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !userFrom(r.Context()).Allows(menu) {
				a.writeError(w, r, ord.ErrForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// userFrom returns the user stored by requireUser.
func userFrom(ctx context.Context) ord.User {
	u, _ := ctx.Value(ctxUser).(ord.User)
	return u
}
