package links

import (
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/httpapi/respond"
	link "github.com/seedhq/portal/internal/links"
)

// userView is a link-management user as operators see it (exam
// envelope, snake_case): never the password hash or the key's hash.
type userView struct {
	ID           int64      `json:"id"`
	Email        string     `json:"email"`
	Username     string     `json:"username"`
	Avatar       string     `json:"avatar"`
	Plan         string     `json:"plan"`
	RateLimit    int        `json:"rate_limit"` // effective requests per minute
	ExpiresAt    *time.Time `json:"expires_at"`
	RegisteredAt time.Time  `json:"registered_at"`
}

func newUserView(u link.User) userView {
	return userView{ID: u.ID, Email: u.Email, Username: u.Username, Avatar: u.Avatar, Plan: u.Plan,
		RateLimit: u.Limit(), ExpiresAt: respond.UTC(u.ExpiresAt), RegisteredAt: u.RegisteredAt.UTC()}
}

type createUserRequest struct {
	Email     string     `json:"email"`
	Username  string     `json:"username"`
	Password  string     `json:"password"`
	Avatar    string     `json:"avatar"`
	Plan      string     `json:"plan"`
	RateLimit int        `json:"rate_limit"`
	ExpiresAt *time.Time `json:"expires_at"`
}

// createUser handles POST /api/v1/admin/link-users: a new user of the
// link-management API and its API key, shown once in "key".
func (a *api) createUser(w http.ResponseWriter, r *http.Request) {
	var req createUserRequest
	if err := respond.Decode(r, &req); err != nil {
		a.operatorError(w, r, err)
		return
	}
	u, key, err := a.svc.CreateUser(r.Context(), link.NewUser{Email: req.Email, Username: req.Username,
		Password: req.Password, Avatar: req.Avatar, Plan: req.Plan, RateLimit: req.RateLimit, ExpiresAt: req.ExpiresAt})
	if err != nil {
		a.operatorError(w, r, err)
		return
	}
	respond.Secret(w, http.StatusCreated, respond.WithKey[userView]{Success: true, Data: newUserView(u), Key: key})
}

// listUsers handles GET /api/v1/admin/link-users?page=&limit=:
// newest first, with the paging numbers in "pagination".
func (a *api) listUsers(w http.ResponseWriter, r *http.Request) {
	p, err := pageOf(r)
	if err != nil {
		a.operatorError(w, r, err)
		return
	}
	l, err := a.svc.ListLinkUsers(r.Context(), p)
	if err != nil {
		a.operatorError(w, r, err)
		return
	}
	views := make([]userView, len(l.Items))
	for i, u := range l.Items {
		views[i] = newUserView(u)
	}
	pg := l.Paging()
	respond.JSON(w, http.StatusOK, struct {
		Success    bool           `json:"success"`
		Data       []userView     `json:"data"`
		Pagination map[string]int `json:"pagination"`
	}{true, views, map[string]int{"total": pg.Result, "limit": pg.PerPage, "page": pg.CurrentPage,
		"next_page": pg.NextPage, "max_page": pg.MaxPage}})
}

// userID parses the {id} of an operator route; anything but a
// positive integer is 404 NOT_FOUND.
func userID(r *http.Request) (int64, error) {
	raw := chi.URLParam(r, "id")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.Errorf(apperr.NotFound, "NOT_FOUND", "user %q not found", raw)
	}
	return id, nil
}

// rotateKey handles POST /api/v1/admin/link-users/{id}/rotate-key:
// a new key, shown once; the old one stops working at once.
func (a *api) rotateKey(w http.ResponseWriter, r *http.Request) {
	id, err := userID(r)
	if err != nil {
		a.operatorError(w, r, err)
		return
	}
	key, err := a.svc.RotateAPIKey(r.Context(), id)
	if err != nil {
		a.operatorError(w, r, err)
		return
	}
	respond.Secret(w, http.StatusOK, struct {
		Success bool   `json:"success"`
		UserID  int64  `json:"user_id"`
		Key     string `json:"key"`
	}{true, id, key})
}

// setPassword handles PUT /api/v1/admin/link-users/{id}/password
// {"password"}: the account password the user signs in to the web console
// with, set or replaced by the operator (the user's console sessions end).
func (a *api) setPassword(w http.ResponseWriter, r *http.Request) {
	id, err := userID(r)
	if err != nil {
		a.operatorError(w, r, err)
		return
	}
	var req struct {
		Password string `json:"password"`
	}
	if err := respond.Decode(r, &req); err != nil {
		a.operatorError(w, r, err)
		return
	}
	if _, err := a.svc.UpdateAccount(r.Context(), id, link.AccountUpdate{Password: &req.Password}); err != nil {
		a.operatorError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, respond.OK{Success: true, Message: "password set"})
}

type createOverlayRequest struct {
	UserID int64  `json:"user_id"`
	Type   string `json:"type"`
	Name   string `json:"name"`
}

// ownerExists answers NOT_FOUND unless the user exists.
func (a *api) ownerExists(r *http.Request, id int64) error {
	if id <= 0 {
		return apperr.New(apperr.Invalid, "VALIDATION_FAILED", "user_id is required")
	}
	_, err := a.svc.Account(r.Context(), id)
	return err
}

// createOverlay handles POST /api/v1/admin/link-overlays: a CTA
// overlay for a user.
func (a *api) createOverlay(w http.ResponseWriter, r *http.Request) {
	var req createOverlayRequest
	if err := respond.Decode(r, &req); err != nil {
		a.operatorError(w, r, err)
		return
	}
	if err := a.ownerExists(r, req.UserID); err != nil {
		a.operatorError(w, r, err)
		return
	}
	o, err := a.svc.CreateOverlay(r.Context(), req.UserID, req.Type, req.Name)
	if err != nil {
		a.operatorError(w, r, err)
		return
	}
	respond.Data(w, http.StatusCreated, struct {
		ID        int64     `json:"id"`
		UserID    int64     `json:"user_id"`
		Type      string    `json:"type"`
		Name      string    `json:"name"`
		CreatedAt time.Time `json:"created_at"`
	}{o.ID, o.UserID, o.Type, o.Name, o.CreatedAt.UTC()})
}

type createSplashRequest struct {
	UserID int64  `json:"user_id"`
	Name   string `json:"name"`
}

// createSplash handles POST /api/v1/admin/link-splashes: a custom
// splash page for a user.
func (a *api) createSplash(w http.ResponseWriter, r *http.Request) {
	var req createSplashRequest
	if err := respond.Decode(r, &req); err != nil {
		a.operatorError(w, r, err)
		return
	}
	if err := a.ownerExists(r, req.UserID); err != nil {
		a.operatorError(w, r, err)
		return
	}
	sp, err := a.svc.CreateSplash(r.Context(), req.UserID, req.Name)
	if err != nil {
		a.operatorError(w, r, err)
		return
	}
	respond.Data(w, http.StatusCreated, struct {
		ID        int64     `json:"id"`
		UserID    int64     `json:"user_id"`
		Name      string    `json:"name"`
		CreatedAt time.Time `json:"created_at"`
	}{sp.ID, sp.UserID, sp.Name, sp.CreatedAt.UTC()})
}

// operatorError answers err in the exam envelope of the operator routes.
func (a *api) operatorError(w http.ResponseWriter, r *http.Request, err error) {
	respond.Error(w, r, a.log, err)
}
