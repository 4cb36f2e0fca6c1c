package console

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/identity"
)

// loginPage serves GET /console/login.
func (c *console) loginPage(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, "login", http.StatusOK, view{})
}

// login serves POST /console/login (username, password): the operator's
// sign-in, through the same rules as POST /api/v1/auth/login (its
// throttling included).
func (c *console) login(w http.ResponseWriter, r *http.Request) {
	res, err := c.ids.Login(r.Context(), identity.LoginInput{Username: r.PostFormValue("username"),
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
	if !res.User.Role.Operates() {
		http.Redirect(w, r, "/console/grading", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/console/fleet", http.StatusSeeOther)
}

// logout serves POST /console/logout.
func (c *console) logout(w http.ResponseWriter, r *http.Request) {
	clearSession(w, r, examArea)
	http.Redirect(w, r, "/console/login", http.StatusSeeOther)
}

// operator admits requests with a valid session of an account that
// operates (SUPER_ADMIN, OPERATOR) and keeps it in the context; a grader
// gets the forbidden page (403), others are sent to the sign-in page.
func (c *console) operator(next http.Handler) http.Handler {
	return c.account(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !operatorFrom(r).Role.Operates() {
			c.forbidden(w, r, c.examView(r))
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// account admits requests with a valid session of any exam account,
// graders included, and keeps the account in the context; others are sent
// to the sign-in page. The grading pages check the rest.
func (c *console) account(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := session(r, examArea)
		if token == "" {
			http.Redirect(w, r, "/console/login?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
			return
		}
		u, err := c.ids.Authenticate(r.Context(), token)
		if err != nil {
			clearSession(w, r, examArea)
			http.Redirect(w, r, "/console/login", http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxOperator, &u)))
	})
}

// operatorFrom returns the signed-in account (an operator, or a grader on
// the grading pages).
func operatorFrom(r *http.Request) *identity.User {
	u, _ := r.Context().Value(ctxOperator).(*identity.User)
	return u
}

// examNav is the exam operators' menu.
var examNav = []navItem{{"/console/fleet", "nav.fleet"}, {"/console/licenses", "nav.licenses"},
	{"/console/students", "nav.students"}, {"/console/exams", "nav.exams"}, {"/console/grading", "nav.grading"},
	{"/console/graders", "nav.graders"}, {"/console/sync-logs", "nav.sync"}, {"/console/api-keys", "nav.keys"}}

// graderNav is a grader's menu: grading only.
var graderNav = []navItem{{"/console/grading", "nav.grading"}}

// examView starts the view of an exam account's page, with the menu of its
// role.
func (c *console) examView(r *http.Request) view {
	u := operatorFrom(r)
	nav := examNav
	if !u.Role.Operates() {
		nav = graderNav
	}
	return view{Who: u.Username, Nav: nav, Logout: "/console/logout", CSRF: c.csrfToken(session(r, examArea))}
}
