package console

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/httpapi/respond"
	ord "github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/challenge"
)

// The shop's sign-in is the ordering API's messenger login, run by the
// console on the server: the browser solves the proof of work (shop.js),
// the console starts the login (Service.Login) and keeps its token in a
// signed HttpOnly cookie of the sign-in pages, the customer sends the
// magic link's message, and the console polls (Service.Poll) until it
// gets the JWT, which it keeps as the shop's session cookie. Neither the
// login token's poll nor the JWT is ever given to JavaScript.

// pendingCookie keeps the sign-in waiting for its message; it is sent to
// the sign-in pages only.
const (
	pendingCookie = "portal_console_shop_login"
	pendingPath   = "/console/shop/login"
)

// pendingLogin is a sign-in waiting for its verification message: the
// login token (polled with on the server), the magic link and the number
// to show, where to go once signed in, and when the token expires.
type pendingLogin struct {
	Token   string `json:"t"`
	Link    string `json:"l"`
	Number  string `json:"n"`
	Next    string `json:"x"`
	Expires int64  `json:"e"`
}

// signPending returns the signature of a pending-login cookie's value.
func (c *console) signPending(v string) string { return c.csrfToken("pending-login:" + v) }

// setPending keeps p in its cookie until the login token expires.
func (c *console) setPending(w http.ResponseWriter, r *http.Request, p pendingLogin) {
	raw, err := json.Marshal(p)
	if err != nil { // a struct of strings always marshals
		panic(err)
	}
	v := base64.RawURLEncoding.EncodeToString(raw)
	http.SetCookie(w, &http.Cookie{Name: pendingCookie, Value: v + "." + c.signPending(v), Path: pendingPath,
		HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteLaxMode, MaxAge: int(ord.LoginTTL/time.Second) + 30})
}

// clearPending removes the pending-login cookie.
func clearPending(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: pendingCookie, Path: pendingPath, HttpOnly: true, Secure: secure(r),
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
}

// pending returns the request's pending sign-in, if its cookie is there
// and its signature holds.
func (c *console) pending(r *http.Request) (pendingLogin, bool) {
	var p pendingLogin
	ck, err := r.Cookie(pendingCookie)
	if err != nil {
		return p, false
	}
	v, sig, ok := strings.Cut(ck.Value, ".")
	if !ok || subtle.ConstantTimeCompare([]byte(sig), []byte(c.signPending(v))) != 1 {
		return p, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil || json.Unmarshal(raw, &p) != nil || p.Token == "" {
		return p, false
	}
	return p, true
}

// storefrontPath is the shop area's home.
const storefrontPath = "/console/shop/"

// localNext returns next when it is a console page other than the sign-in
// (never another site), else the storefront.
func localNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(next, "/console/") ||
		strings.ContainsAny(next, "\\\r\n") || strings.HasPrefix(next, shopArea.login) {
		return storefrontPath
	}
	return next
}

// shopLoginView is the sign-in page's data.
type shopLoginView struct {
	// PoW is false when logins are checked by Turnstile or hCaptcha,
	// which the console does not embed.
	PoW          bool
	Number, Next string
}

// shopLoginPage serves GET /console/shop/login?next=: the number field;
// shop.js solves the proof of work before the form is posted.
func (c *console) shopLoginPage(w http.ResponseWriter, r *http.Request) {
	c.renderShopLogin(w, r, http.StatusOK, shopLoginView{Next: localNext(r.URL.Query().Get("next"))}, "")
}

// renderShopLogin renders the sign-in page with a message, if any.
func (c *console) renderShopLogin(w http.ResponseWriter, r *http.Request, status int, lv shopLoginView, message string) {
	lv.PoW = c.ordering.PoW != nil
	v := c.shopView(r)
	v.Message, v.Data = message, lv
	c.render(w, r, "shop_login", status, v)
}

// shopLogin serves POST /console/shop/login (number, challenge: the solved
// proof of work, next): Service.Login from the client's address, as POST
// /api/auth/login does, then the waiting page. A refusal (a ban with its
// wait, a number that is not one, a failed challenge) is said on the
// sign-in page.
func (c *console) shopLogin(w http.ResponseWriter, r *http.Request) {
	lv := shopLoginView{Number: strings.TrimSpace(r.PostFormValue("number")), Next: localNext(r.PostFormValue("next"))}
	ls, err := c.ordering.Service.Login(r.Context(), lv.Number, r.PostFormValue("challenge"), clientAddr(r))
	if err != nil {
		status, msg := c.loginProblem(language(r), err)
		c.renderShopLogin(w, r, status, lv, msg)
		return
	}
	c.setPending(w, r, pendingLogin{Token: ls.Token, Link: ls.MagicLink, Number: lv.Number, Next: lv.Next,
		Expires: time.Now().Add(time.Duration(ls.ExpiresIn) * time.Second).Unix()})
	http.Redirect(w, r, pendingPath+"/wait", http.StatusSeeOther)
}

// loginProblem returns the status and the text, in lang, of a refused
// login or poll.
func (c *console) loginProblem(lang string, err error) (int, string) {
	var ra *apperr.RetryAfterError
	e := apperr.From(err)
	switch {
	case errors.As(err, &ra) && errors.Is(err, ord.ErrBannedPermanently):
		return http.StatusTooManyRequests, translate(lang, "shop.login.banned_review")
	case errors.As(err, &ra) && errors.Is(err, ord.ErrBanned):
		return http.StatusTooManyRequests, strings.ReplaceAll(translate(lang, "shop.login.banned"), "{wait}", waitText(lang, ra.RetryAfter))
	case errors.As(err, &ra) && errors.Is(err, ord.ErrTooManyPolls):
		return http.StatusTooManyRequests, translate(lang, "shop.login.too_fast")
	case errors.Is(err, ord.ErrInvalidNumber):
		return http.StatusBadRequest, translate(lang, "shop.login.bad_number")
	case errors.Is(err, challenge.ErrMissing), errors.Is(err, challenge.ErrFailed):
		return http.StatusForbidden, translate(lang, "shop.login.challenge")
	case errors.Is(err, ord.ErrTokenExpired):
		return http.StatusGone, translate(lang, "shop.login.expired")
	case errors.Is(err, ord.ErrTokenUsed):
		return http.StatusConflict, translate(lang, "shop.login.used")
	case errors.Is(err, ord.ErrTokenNotFound):
		return http.StatusNotFound, translate(lang, "shop.login.none")
	case e != nil:
		return e.Kind.Status(), e.Message
	}
	c.log.Error("console: shop sign-in", "err", err)
	return http.StatusInternalServerError, translate(lang, "error.internal")
}

// waitText says how long d is, in lang: hours from two hours, minutes
// from a minute, else seconds (rounded up).
func waitText(lang string, d time.Duration) string {
	if d >= 2*time.Hour {
		return fmt.Sprintf(translate(lang, "shop.wait.hours"), int((d+time.Hour-1)/time.Hour))
	}
	if d >= time.Minute {
		return fmt.Sprintf(translate(lang, "shop.wait.minutes"), int((d+time.Minute-1)/time.Minute))
	}
	return fmt.Sprintf(translate(lang, "shop.wait.seconds"), max(1, int((d+time.Second-1)/time.Second)))
}

// shopWaitView is the waiting page's data.
type shopWaitView struct {
	Link, Number, Text, Next string
	// ExpiresIn is the seconds the login token has left.
	ExpiresIn int
	// StandIn is set when the built-in messaging gateway stand-in takes
	// the messages (no gateway is configured).
	StandIn bool
}

// shopWaitPage serves GET /console/shop/login/wait: the magic link to tap
// (and, with the gateway stand-in, the button that sends its message on
// this machine) while shop.js polls.
func (c *console) shopWaitPage(w http.ResponseWriter, r *http.Request) {
	p, ok := c.pending(r)
	if !ok {
		http.Redirect(w, r, shopArea.login, http.StatusSeeOther)
		return
	}
	v := c.shopView(r)
	v.Data = shopWaitView{Link: p.Link, Number: p.Number, Text: "VERIFY_" + p.Token, Next: p.Next,
		ExpiresIn: max(0, int(time.Until(time.Unix(p.Expires, 0))/time.Second)),
		StandIn:   c.ordering.MessengerStandIn}
	c.render(w, r, "shop_wait", http.StatusOK, v)
}

// pollAnswer is what POST /console/shop/login/poll tells shop.js: the
// login's status (PENDING, VERIFIED, or FAILED with a message), never a
// token.
type pollAnswer struct {
	Status    string `json:"status"`
	ExpiresIn int    `json:"expiresIn,omitempty"`
	Next      string `json:"next,omitempty"`
	Message   string `json:"message,omitempty"`
}

// wantsJSON reports whether the request is shop.js's (it asks for JSON),
// rather than a form's.
func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// shopPoll serves POST /console/shop/login/poll: Service.Poll of the
// pending sign-in, from the client's address. Once the message has
// verified it, the JWT becomes the shop's session cookie and the answer
// says where to go. shop.js asks for JSON every 2 seconds; the waiting
// page's "I have sent it" button posts the form, and is sent on.
func (c *console) shopPoll(w http.ResponseWriter, r *http.Request) {
	lang := language(r)
	var ans pollAnswer
	status := http.StatusOK
	p, ok := c.pending(r)
	if !ok {
		status, ans.Message = c.loginProblem(lang, ord.ErrTokenNotFound)
		ans.Status = "FAILED"
	} else {
		res, err := c.ordering.Service.Poll(r.Context(), p.Token, clientAddr(r))
		switch {
		case errors.Is(err, ord.ErrTooManyPolls):
			ans = pollAnswer{Status: string(ord.LoginPending), Message: translate(lang, "shop.login.too_fast")}
		case err != nil:
			if apperr.From(err) != nil { // the login is over; a store failure is not
				clearPending(w, r)
			}
			status, ans.Message = c.loginProblem(lang, err)
			ans.Status = "FAILED"
		case res.Status == ord.LoginVerified:
			clearPending(w, r)
			setSession(w, r, shopArea, res.JWT, tokenExpiry(res.JWT))
			ans = pollAnswer{Status: string(ord.LoginVerified), Next: p.Next}
			c.log.Info("console: shop sign-in", "user", res.User.ID, "role", res.User.Role)
		case res.Status == ord.LoginExpired:
			clearPending(w, r)
			status, ans.Message = c.loginProblem(lang, ord.ErrTokenExpired)
			ans.Status = "FAILED"
		default:
			ans = pollAnswer{Status: string(ord.LoginPending), ExpiresIn: res.ExpiresIn}
		}
	}
	if wantsJSON(r) {
		w.Header().Set("Cache-Control", "no-store")
		respond.JSON(w, status, ans)
		return
	}
	switch ans.Status {
	case string(ord.LoginVerified):
		http.Redirect(w, r, ans.Next, http.StatusSeeOther)
	case string(ord.LoginPending):
		http.Redirect(w, r, pendingPath+"/wait", http.StatusSeeOther)
	default:
		c.renderShopLogin(w, r, status, shopLoginView{Number: p.Number, Next: localNext(p.Next)}, ans.Message)
	}
}

// tokenExpiry returns the expiry of a JWT the service just issued (zero,
// a browser-session cookie, if it has none).
func tokenExpiry(token string) time.Time {
	var claims jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &claims); err != nil || claims.ExpiresAt == nil {
		return time.Time{}
	}
	return claims.ExpiresAt.Time
}

// shopLogout serves POST /console/shop/logout.
func (c *console) shopLogout(w http.ResponseWriter, r *http.Request) {
	clearSession(w, r, shopArea)
	http.Redirect(w, r, storefrontPath, http.StatusSeeOther)
}
