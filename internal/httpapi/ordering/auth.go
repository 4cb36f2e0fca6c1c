package ordering

import (
	"io"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/httpapi/respond"
	ord "github.com/seedhq/portal/internal/ordering"
)

// challenge serves GET /api/auth/challenge: a new proof-of-work challenge
// (ALTCHA's shape), signed, single use, expiring.
func (a *api) challenge(w http.ResponseWriter, r *http.Request) {
	if a.pow == nil {
		a.writeError(w, r, apperr.New(apperr.NotFound, "CHALLENGE_NOT_SELF_HOSTED",
			"logins are checked by the configured anti-bot service (Turnstile or hCaptcha): solve its widget"))
		return
	}
	c, err := a.pow.New(a.now())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	respond.JSON(w, http.StatusOK, c)
}

type loginRequest struct {
	MessengerNumber string `json:"messengerNumber"`
	ChallengeToken  string `json:"challengeToken"`
}

type loginResponse struct {
	Success bool `json:"success"`
	ord.LoginStart
}

// login serves POST /api/auth/login.
func (a *api) login(w http.ResponseWriter, r *http.Request) {
	var req loginRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	ls, err := a.svc.Login(r.Context(), req.MessengerNumber, req.ChallengeToken, respond.ClientIP(r.Context()))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	respond.JSON(w, http.StatusOK, loginResponse{Success: true, LoginStart: ls})
}

// pollResponse is the answer of GET /api/auth/poll-status: status PENDING
// (with expiresIn), EXPIRED, or VERIFIED with the JWT and the user, once.
type pollResponse struct {
	Success   bool            `json:"success"`
	Status    ord.LoginStatus `json:"status"`
	ExpiresIn *int            `json:"expiresIn,omitempty"`
	Token     string          `json:"token,omitempty"`
	User      *UserBody       `json:"user,omitempty"`
}

// UserBody is a user as the spec shows it on login, plus allowedMenus.
type UserBody struct {
	ID              string   `json:"id"`
	Name            string   `json:"name"`
	MessengerNumber string   `json:"messengerNumber"`
	Role            ord.Role `json:"role"`
	AllowedMenus    []string `json:"allowedMenus"`
}

// newUserBody returns the body of u.
func newUserBody(u ord.User) *UserBody {
	menus := u.AllowedMenus
	if menus == nil {
		menus = []string{}
	}
	return &UserBody{ID: u.ID, Name: u.Name, MessengerNumber: u.MessengerNumber, Role: u.Role, AllowedMenus: menus}
}

// errNoPollToken answers a poll without its token: a malformed request,
// not an unknown token.
var errNoPollToken = apperr.New(apperr.Invalid, respond.CodeInvalidQuery,
	"token is required: the token that POST /api/auth/login answered")

// pollStatus serves GET /api/auth/poll-status?token=. A missing or empty
// token is 400 INVALID_QUERY.
func (a *api) pollStatus(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	if token == "" {
		a.writeError(w, r, errNoPollToken)
		return
	}
	res, err := a.svc.Poll(r.Context(), token, respond.ClientIP(r.Context()))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	body := pollResponse{Success: true, Status: res.Status}
	switch res.Status {
	case ord.LoginPending:
		body.ExpiresIn = &res.ExpiresIn
	case ord.LoginVerified:
		body.Token, body.User = res.JWT, newUserBody(res.User)
	}
	w.Header().Set("Cache-Control", "no-store")
	respond.JSON(w, http.StatusOK, body)
}

// gatewayBodyLimit bounds the messaging gateway's calls.
const gatewayBodyLimit = 64 << 10

type gatewayMessage struct {
	From    string `json:"from"`
	Message string `json:"message"`
}

type gatewayResponse struct {
	Success bool              `json:"success"`
	Status  ord.InboundResult `json:"status"`
}

// errBadSignature answers a gateway call whose signature does not hold.
var errBadSignature = apperr.New(apperr.Unauthorized, "INVALID_SIGNATURE",
	"the webhook signature (webhook-id, webhook-timestamp, webhook-signature) is missing, stale or wrong")

// gatewayWebhook serves POST /api/auth/gateway-webhook: an inbound message,
// signed by the messaging gateway (Standard Webhooks). The signature is
// checked over the raw body before anything is decoded; unsigned,
// mis-signed or stale calls are 401 and change nothing.
func (a *api) gatewayWebhook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, gatewayBodyLimit))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	id, err := a.gateway.Verify(r.Header, body, a.now())
	if err != nil {
		a.log.WarnContext(r.Context(), "ordering: gateway webhook refused", "err", err,
			"request_id", respond.RequestID(r.Context()))
		a.writeError(w, r, errBadSignature)
		return
	}
	var msg gatewayMessage
	if err := respond.DecodeBytes(body, &msg); err != nil {
		a.writeError(w, r, err)
		return
	}
	res, _, err := a.svc.GatewayMessage(r.Context(), id, msg.From, msg.Message)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, gatewayResponse{Success: true, Status: res})
}

type userResponse struct {
	Success bool      `json:"success"`
	User    *UserBody `json:"user"`
}

// me serves GET /api/auth/me: the signed-in user.
func (a *api) me(w http.ResponseWriter, r *http.Request) {
	respond.JSON(w, http.StatusOK, userResponse{Success: true, User: newUserBody(userFrom(r.Context()))})
}

type bansResponse struct {
	Success bool      `json:"success"`
	Bans    []BanBody `json:"bans"`
}

// BanBody is a ban record as owners and operators read it.
type BanBody struct {
	ID              string     `json:"id"`
	Kind            string     `json:"kind"`
	MessengerNumber string     `json:"messengerNumber,omitempty"`
	Address         string     `json:"address,omitempty"`
	Attempts        int        `json:"attempts"`
	BanLevel        int        `json:"banLevel"`
	BanUntil        *time.Time `json:"banUntil"`
	Review          bool       `json:"review"`
	LastAttemptAt   time.Time  `json:"lastAttemptAt"`
}

// listBans serves GET /api/bans (OWNER): the ban records with a level or
// attempts, most recent first; level 3 ones are listed for review.
func (a *api) listBans(w http.ResponseWriter, r *http.Request) {
	bans, err := a.svc.Bans(r.Context())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, bansResponse{Success: true, Bans: newBanBodies(bans)})
}

type okResponse struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// liftBan serves POST /api/bans/{id}/lift (OWNER).
func (a *api) liftBan(w http.ResponseWriter, r *http.Request) {
	if err := a.svc.LiftBan(r.Context(), chi.URLParam(r, "id")); err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, okResponse{Success: true, Message: "The ban has been lifted."})
}

// newBanBodies returns the bodies of bans.
func newBanBodies(bans []ord.Ban) []BanBody {
	out := make([]BanBody, len(bans))
	for i, b := range bans {
		out[i] = BanBody{ID: b.ID, Kind: string(b.Kind), Attempts: b.Attempts, BanLevel: b.Level,
			BanUntil: b.BanUntil, Review: b.Level >= 3, LastAttemptAt: b.LastAttemptAt}
		if b.Kind == ord.BanNumber {
			out[i].MessengerNumber = b.Value
		} else {
			out[i].Address = b.Value
		}
	}
	return out
}
