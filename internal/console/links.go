package console

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/qr"
)

// linkSessionTTL is how long a marketer's console session lasts.
const linkSessionTTL = 12 * time.Hour

// mountLinks serves the marketers' pages under /console/links/.
func (c *console) mountLinks(r chi.Router, cop *http.CrossOriginProtection) {
	post := func(pattern string, h http.HandlerFunc) {
		r.Method(http.MethodPost, pattern, cop.Handler(c.linkUser(c.checkCSRF(linkArea, h))))
	}
	get := func(pattern string, h http.HandlerFunc) { r.Method(http.MethodGet, pattern, c.linkUser(h)) }
	r.Get("/login", c.linkLoginPage)
	r.Method(http.MethodPost, "/login", cop.Handler(http.HandlerFunc(c.linkLogin)))
	post("/logout", c.linkLogout)
	get("/", c.linkList)
	get("/new", c.linkNew)
	post("/new", c.linkCreate)
	get("/{id}/edit", c.linkEdit)
	post("/{id}/edit", c.linkUpdate)
	get("/{id}/delete", c.linkDeletePage)
	post("/{id}/delete", c.linkDelete)
	get("/{id}/stats", c.linkStatsPage)
	get("/campaigns", c.linkCampaigns)
	post("/campaigns", c.campaignCreate)
	get("/campaigns/{id}", c.campaignEdit)
	post("/campaigns/{id}", c.campaignUpdate)
	get("/domains", c.linkDomains)
	post("/domains", c.domainAdd)
	post("/domains/{id}/delete", c.domainDelete)
	get("/qr", c.qrList)
	get("/qr/new", c.qrNew)
	get("/qr/{id}", c.qrEdit)
	get("/qr/{id}/stats", c.qrStatsPage)
	get("/qr/{id}/download.{format:png|svg}", c.qrDownload)
	// The designer's forms carry a logo file (multipart): a larger body.
	for pattern, h := range map[string]http.HandlerFunc{"/qr/new": c.qrSave, "/qr/{id}": c.qrSave, "/qr/preview": c.qrPreview} {
		r.With(limitBody(maxQRForm)).Method(http.MethodPost, pattern, cop.Handler(c.linkUser(c.checkCSRF(linkArea, h))))
	}
}

// ctxLinkUser keeps the signed-in marketer in a request's context.
const ctxLinkUser ctxKey = 200

// linkSessionKey is the key of the marketers' session values, derived from
// the console's stored key so that it differs from the CSRF key.
func (c *console) linkSessionKey() []byte {
	m := hmac.New(sha256.New, c.csrfKey)
	m.Write([]byte("link-session"))
	return m.Sum(nil)
}

// linkSessionMAC signs a session of user id until exp, bound to the user's
// session stamp (their API key and password hashes).
func (c *console) linkSessionMAC(id, exp int64, stamp string) []byte {
	m := hmac.New(sha256.New, c.linkSessionKey())
	m.Write([]byte(strconv.FormatInt(id, 10) + "." + strconv.FormatInt(exp, 10) + "." + stamp))
	return m.Sum(nil)
}

// newLinkSession returns the session value of u: "id.expiry.mac". It holds
// no secret: the MAC covers the user's session stamp, so rotating the API
// key or changing the password ends every session of the user.
func (c *console) newLinkSession(ctx context.Context, u links.User, exp time.Time) (string, error) {
	stamp, err := c.links.SessionStamp(ctx, u)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(u.ID, 10) + "." + strconv.FormatInt(exp.Unix(), 10) + "." +
		base64.RawURLEncoding.EncodeToString(c.linkSessionMAC(u.ID, exp.Unix(), stamp)), nil
}

// errLinkSession refuses a malformed, forged, expired or outdated session.
var errLinkSession = errors.New("console: no valid marketer session")

// checkLinkSession returns the user of a session value.
func (c *console) checkLinkSession(ctx context.Context, value string) (links.User, error) {
	parts := strings.Split(value, ".")
	if len(parts) != 3 {
		return links.User{}, errLinkSession
	}
	id, err1 := strconv.ParseInt(parts[0], 10, 64)
	exp, err2 := strconv.ParseInt(parts[1], 10, 64)
	mac, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || time.Now().Unix() >= exp {
		return links.User{}, errLinkSession
	}
	u, err := c.links.Account(ctx, id)
	if errors.Is(err, links.ErrNotFound) {
		return links.User{}, errLinkSession
	}
	if err != nil {
		return links.User{}, err
	}
	stamp, err := c.links.SessionStamp(ctx, u)
	if err != nil {
		return links.User{}, err
	}
	if !hmac.Equal(mac, c.linkSessionMAC(id, exp, stamp)) || u.Expired(time.Now()) {
		return links.User{}, errLinkSession
	}
	return u, nil
}

// linkUser admits requests with a valid marketer session and keeps the user
// in the context; others are sent to the sign-in page.
func (c *console) linkUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		value := session(r, linkArea)
		if value == "" {
			http.Redirect(w, r, linkArea.login+"?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
			return
		}
		u, err := c.checkLinkSession(r.Context(), value)
		if err != nil {
			if !errors.Is(err, errLinkSession) {
				c.log.Error("console: marketer session", "err", err)
				http.Error(w, "internal error", http.StatusInternalServerError)
				return
			}
			clearSession(w, r, linkArea)
			http.Redirect(w, r, linkArea.login, http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxLinkUser, u)))
	})
}

// linkUserFrom returns the signed-in marketer.
func linkUserFrom(r *http.Request) links.User {
	u, _ := r.Context().Value(ctxLinkUser).(links.User)
	return u
}

// linkNav is the marketers' menu.
var linkNav = []navItem{{"/console/links/", "links.nav.links"}, {"/console/links/campaigns", "links.nav.campaigns"},
	{"/console/links/domains", "links.nav.domains"}, {"/console/links/qr", "links.nav.qr"}}

// linkView starts the view of a marketer's page.
func (c *console) linkView(r *http.Request) view {
	return view{Who: linkUserFrom(r).Username, Nav: linkNav, Logout: "/console/links/logout",
		CSRF: c.csrfToken(session(r, linkArea))}
}

// linkLoginPage serves GET /console/links/login?next=.
func (c *console) linkLoginPage(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, "links_login", http.StatusOK, view{Data: linkNext(r.URL.Query().Get("next"))})
}

// linkNext returns where to go after the sign-in: next when it is a page
// of the marketers' area, else their first page.
func linkNext(next string) string {
	if strings.HasPrefix(next, "/console/links/") && !strings.ContainsAny(next, "\\\r\n") && !strings.Contains(next, "//") {
		return next
	}
	return "/console/links/"
}

// linkLogin serves POST /console/links/login: with an API key (api_key),
// or a username or email (login) and the account password (password).
// Both go through the link service's sign-in rules and throttling.
func (c *console) linkLogin(w http.ResponseWriter, r *http.Request) {
	var (
		u   links.User
		err error
	)
	if key := r.PostFormValue("api_key"); key != "" {
		u, err = c.links.KeyLogin(r.Context(), key, clientAddr(r))
	} else {
		u, err = c.links.PasswordLogin(r.Context(), r.PostFormValue("login"), r.PostFormValue("password"), clientAddr(r))
	}
	var token string
	exp := time.Now().Add(linkSessionTTL)
	if err == nil {
		token, err = c.newLinkSession(r.Context(), u, exp)
	}
	if err != nil {
		status, key := http.StatusUnauthorized, "links.login.failed"
		var ra *apperr.RetryAfterError
		switch {
		case errors.As(err, &ra):
			status, key = http.StatusTooManyRequests, "login.throttled"
			w.Header().Set("Retry-After", strconv.Itoa(int(ra.RetryAfter.Seconds())+1))
		case errors.Is(err, links.ErrAccountExpired):
			status, key = http.StatusForbidden, "links.login.expired"
		case apperr.From(err) == nil:
			c.log.Error("console: marketer sign-in", "err", err)
			status, key = http.StatusInternalServerError, "error.internal"
		}
		c.render(w, r, "links_login", status, view{Error: key, Data: linkNext(r.PostFormValue("next"))})
		return
	}
	c.log.Info("console: marketer signed in", "user", u.ID, "addr", clientAddr(r))
	setSession(w, r, linkArea, token, exp)
	http.Redirect(w, r, linkNext(r.PostFormValue("next")), http.StatusSeeOther)
}

// linkLogout serves POST /console/links/logout.
func (c *console) linkLogout(w http.ResponseWriter, r *http.Request) {
	clearSession(w, r, linkArea)
	http.Redirect(w, r, linkArea.login, http.StatusSeeOther)
}

// linkError puts a refusal of the link service (or of the QR rules) on
// the page and returns its status; anything else is an internal error.
func (c *console) linkError(v *view, err error) int {
	var qe *qr.ValidationError
	if errors.As(err, &qe) {
		v.Message = qe.Error()
		if errors.Is(err, qr.ErrTooLarge) {
			return http.StatusRequestEntityTooLarge
		}
		return http.StatusBadRequest
	}
	return c.showError(v, err)
}

// linkID reads the {id} of the path; a malformed one is not found.
func linkID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, links.ErrNotFound
	}
	return id, nil
}
