package links

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	link "github.com/seedhq/portal/internal/links"
)

// once honours Idempotency-Key on a link user's creating call
// (internal/idempotency), answering in the link envelope.
func (a *api) once(next http.Handler) http.Handler {
	return a.idem.Middleware(func(r *http.Request) string {
		return "link-user:" + strconv.FormatInt(userFrom(r).ID, 10)
	}, a.writeError)(next)
}

type ctxUserKey struct{}

// requireKey admits requests carrying "Authorization: Bearer <key>" or
// "Token <key>" of a link user and stores the user in the context; others
// get 401 UNAUTHORIZED.
func (a *api) requireKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := link.ParseAuthorization(r.Header.Get("Authorization"))
		if !ok {
			a.writeError(w, r, link.ErrUnauthorized)
			return
		}
		u, err := a.svc.Authenticate(r.Context(), key)
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxUserKey{}, u)))
	})
}

// rateLimit counts the request against the user's per-minute cap and
// sets X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix
// seconds) before the handler writes anything, so that every response of an
// authenticated request carries them. Over the cap: 429 RATE_LIMITED with
// Retry-After (seconds to the window's end).
func (a *api) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st, err := a.svc.Allow(r.Context(), userFrom(r))
		if err != nil && !errors.Is(err, link.ErrRateLimited) {
			a.writeError(w, r, err)
			return
		}
		h := w.Header()
		h.Set("X-RateLimit-Limit", strconv.Itoa(st.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(st.Remaining))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(st.Reset.Unix(), 10))
		if err != nil {
			// The window ends within a minute; time.Until is that wait on
			// the wall clock the service uses in production.
			wait := min(max(int64(math.Ceil(time.Until(st.Reset).Seconds())), 1), 60)
			h.Set("Retry-After", strconv.FormatInt(wait, 10))
			a.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// userFrom returns the user stored by requireKey.
func userFrom(r *http.Request) link.User {
	u, _ := r.Context().Value(ctxUserKey{}).(link.User)
	return u
}
