package console

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
)

// loginPage serves GET /console/login.
func (c *console) loginPage(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, "login", http.StatusOK, view{})
}

// login serves POST /console/login (username, password): the operator's
// sign-in, through the same rules as POST /api/v1/auth/login (its
// throttling included).
func (c *console) login(w http.ResponseWriter, r *http.Request) {
	res, err := c.exam.Login(r.Context(), exam.LoginInput{Username: r.PostFormValue("username"),
		Password: r.PostFormValue("password"), ClientAddr: clientAddr(r)})
	if err != nil {
		status, key := http.StatusUnauthorized, "login.failed"
		var ra *apperr.RetryAfterError
		switch {
		case errors.As(err, &ra):
			status, key = http.StatusTooManyRequests, "login.throttled"
		case apperr.From(err) == nil:
			c.log.Error("console: login", "err", err)
			status, key = http.StatusInternalServerError, "error.internal"
		}
		c.render(w, r, "login", status, view{Error: key})
		return
	}
	setSession(w, r, examArea, res.Token, res.ExpiresAt)
	http.Redirect(w, r, "/console/fleet", http.StatusSeeOther)
}

// logout serves POST /console/logout.
func (c *console) logout(w http.ResponseWriter, r *http.Request) {
	clearSession(w, r, examArea)
	http.Redirect(w, r, "/console/login", http.StatusSeeOther)
}

// operator admits requests with a valid operator session and keeps the
// operator in the context; others are sent to the sign-in page.
func (c *console) operator(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := session(r, examArea)
		if token == "" {
			http.Redirect(w, r, "/console/login?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
			return
		}
		u, err := c.exam.AuthenticateOperator(r.Context(), token)
		if err != nil {
			clearSession(w, r, examArea)
			http.Redirect(w, r, "/console/login", http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxOperator, &u)))
	})
}

// operatorFrom returns the signed-in operator.
func operatorFrom(r *http.Request) *exam.User {
	u, _ := r.Context().Value(ctxOperator).(*exam.User)
	return u
}

// examNav is the exam operators' menu.
var examNav = []navItem{{"/console/fleet", "nav.fleet"}, {"/console/licenses", "nav.licenses"},
	{"/console/students", "nav.students"}, {"/console/exams", "nav.exams"}, {"/console/sync-logs", "nav.sync"},
	{"/console/api-keys", "nav.keys"}}

// examView starts the view of an operator's page.
func (c *console) examView(r *http.Request) view {
	return view{Who: operatorFrom(r).Username, Nav: examNav, Logout: "/console/logout", CSRF: c.csrfToken(session(r, examArea))}
}
