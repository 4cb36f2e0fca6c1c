package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/links"
)

// linkUserView is a link-management user as operators see it (exam
// envelope, snake_case): never the password hash or the key's hash.
type linkUserView struct {
	ID           int64      `json:"id"`
	Email        string     `json:"email"`
	Username     string     `json:"username"`
	Avatar       string     `json:"avatar"`
	Plan         string     `json:"plan"`
	RateLimit    int        `json:"rate_limit"` // effective requests per minute
	ExpiresAt    *time.Time `json:"expires_at"`
	RegisteredAt time.Time  `json:"registered_at"`
}

func newLinkUserView(u links.User) linkUserView {
	return linkUserView{ID: u.ID, Email: u.Email, Username: u.Username, Avatar: u.Avatar, Plan: u.Plan,
		RateLimit: u.Limit(), ExpiresAt: utcPtr(u.ExpiresAt), RegisteredAt: u.RegisteredAt.UTC()}
}

type createLinkUserRequest struct {
	Email     string     `json:"email"`
	Username  string     `json:"username"`
	Password  string     `json:"password"`
	Avatar    string     `json:"avatar"`
	Plan      string     `json:"plan"`
	RateLimit int        `json:"rate_limit"`
	ExpiresAt *time.Time `json:"expires_at"`
}

// adminCreateLinkUser handles POST /api/v1/admin/link-users: a new user of the
// link-management API and its API key, shown once in "key".
func (s *server) adminCreateLinkUser(w http.ResponseWriter, r *http.Request) {
	var req createLinkUserRequest
	if err := respond.Decode(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	u, key, err := s.links.CreateUser(r.Context(), links.NewUser{Email: req.Email, Username: req.Username,
		Password: req.Password, Avatar: req.Avatar, Plan: req.Plan, RateLimit: req.RateLimit, ExpiresAt: req.ExpiresAt})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeSecret(w, http.StatusCreated, withKey[linkUserView]{true, newLinkUserView(u), key})
}

// adminListLinkUsers handles GET /api/v1/admin/link-users?page=&limit=:
// newest first, with the paging numbers in "pagination".
func (s *server) adminListLinkUsers(w http.ResponseWriter, r *http.Request) {
	p, err := linkPage(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	l, err := s.links.ListLinkUsers(r.Context(), p)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	views := make([]linkUserView, len(l.Items))
	for i, u := range l.Items {
		views[i] = newLinkUserView(u)
	}
	pg := l.Paging()
	respond.JSON(w, http.StatusOK, struct {
		Success    bool           `json:"success"`
		Data       []linkUserView `json:"data"`
		Pagination map[string]int `json:"pagination"`
	}{true, views, map[string]int{"total": pg.Result, "limit": pg.PerPage, "page": pg.CurrentPage,
		"next_page": pg.NextPage, "max_page": pg.MaxPage}})
}

// adminLinkUserID parses the {id} of an operator route; anything but a
// positive integer is 404 NOT_FOUND.
func adminLinkUserID(r *http.Request) (int64, error) {
	raw := chi.URLParam(r, "id")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.Errorf(apperr.NotFound, "NOT_FOUND", "user %q not found", raw)
	}
	return id, nil
}

// adminRotateLinkKey handles POST /api/v1/admin/link-users/{id}/rotate-key:
// a new key, shown once; the old one stops working at once.
func (s *server) adminRotateLinkKey(w http.ResponseWriter, r *http.Request) {
	id, err := adminLinkUserID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	key, err := s.links.RotateAPIKey(r.Context(), id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeSecret(w, http.StatusOK, struct {
		Success bool   `json:"success"`
		UserID  int64  `json:"user_id"`
		Key     string `json:"key"`
	}{true, id, key})
}

// adminSetLinkPassword handles PUT /api/v1/admin/link-users/{id}/password
// {"password"}: the account password the user signs in to the web console
// with, set or replaced by the operator (the user's console sessions end).
func (s *server) adminSetLinkPassword(w http.ResponseWriter, r *http.Request) {
	id, err := adminLinkUserID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var req struct {
		Password string `json:"password"`
	}
	if err := respond.Decode(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if _, err := s.links.UpdateAccount(r.Context(), id, links.AccountUpdate{Password: &req.Password}); err != nil {
		s.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, okBody{Success: true, Message: "password set"})
}

type createLinkOverlayRequest struct {
	UserID int64  `json:"user_id"`
	Type   string `json:"type"`
	Name   string `json:"name"`
}

// linkOwnerExists answers NOT_FOUND unless the user exists.
func (s *server) linkOwnerExists(r *http.Request, id int64) error {
	if id <= 0 {
		return apperr.New(apperr.Invalid, "VALIDATION_FAILED", "user_id is required")
	}
	_, err := s.links.Account(r.Context(), id)
	return err
}

// adminCreateLinkOverlay handles POST /api/v1/admin/link-overlays: a CTA
// overlay for a user.
func (s *server) adminCreateLinkOverlay(w http.ResponseWriter, r *http.Request) {
	var req createLinkOverlayRequest
	if err := respond.Decode(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.linkOwnerExists(r, req.UserID); err != nil {
		s.writeError(w, r, err)
		return
	}
	o, err := s.links.CreateOverlay(r.Context(), req.UserID, req.Type, req.Name)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeData(w, http.StatusCreated, struct {
		ID        int64     `json:"id"`
		UserID    int64     `json:"user_id"`
		Type      string    `json:"type"`
		Name      string    `json:"name"`
		CreatedAt time.Time `json:"created_at"`
	}{o.ID, o.UserID, o.Type, o.Name, o.CreatedAt.UTC()})
}

type createLinkSplashRequest struct {
	UserID int64  `json:"user_id"`
	Name   string `json:"name"`
}

// adminCreateLinkSplash handles POST /api/v1/admin/link-splashes: a custom
// splash page for a user.
func (s *server) adminCreateLinkSplash(w http.ResponseWriter, r *http.Request) {
	var req createLinkSplashRequest
	if err := respond.Decode(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.linkOwnerExists(r, req.UserID); err != nil {
		s.writeError(w, r, err)
		return
	}
	sp, err := s.links.CreateSplash(r.Context(), req.UserID, req.Name)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeData(w, http.StatusCreated, struct {
		ID        int64     `json:"id"`
		UserID    int64     `json:"user_id"`
		Name      string    `json:"name"`
		CreatedAt time.Time `json:"created_at"`
	}{sp.ID, sp.UserID, sp.Name, sp.CreatedAt.UTC()})
}
