package client

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// LinkUser is a user of the link-management API as operators see it.
type LinkUser struct {
	ID       int64  `json:"id"`
	Email    string `json:"email"`
	Username string `json:"username"`
	Avatar   string `json:"avatar"`
	Plan     string `json:"plan"`
	// RateLimit is the effective number of requests per minute.
	RateLimit    int        `json:"rate_limit"`
	ExpiresAt    *time.Time `json:"expires_at"`
	RegisteredAt time.Time  `json:"registered_at"`

	// Key is the user's API key, set only in the result of CreateLinkUser:
	// the portal shows it once and keeps only its hash.
	Key string `json:"-"`
}

// LinkUserRequest is the body of a link user's creation; empty fields are
// not sent.
type LinkUserRequest struct {
	Email    string `json:"email"`
	Username string `json:"username"`
	Password string `json:"password,omitempty"`
	Avatar   string `json:"avatar,omitempty"`
	Plan     string `json:"plan,omitempty"`
	// RateLimit is requests per minute; 0: the default of the plan.
	RateLimit int        `json:"rate_limit,omitempty"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

// AdminLinkOverlay is a CTA overlay as operators create it.
type AdminLinkOverlay struct {
	ID        int64     `json:"id"`
	UserID    int64     `json:"user_id"`
	Type      string    `json:"type"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// AdminLinkSplash is a custom splash page as operators create it.
type AdminLinkSplash struct {
	ID        int64     `json:"id"`
	UserID    int64     `json:"user_id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// CreateLinkUser creates a user of the link-management API (POST
// /api/v1/admin/link-users, operator JWT); the result's Key is the only
// time the user's API key is shown. A taken email or username is
// ErrConflict.
func (s *ExamAdminService) CreateLinkUser(ctx context.Context, u *LinkUserRequest) (*LinkUser, *Response, error) {
	ctx = creating(ctx)
	if u == nil {
		u = &LinkUserRequest{}
	}
	var out struct {
		Data *LinkUser `json:"data"`
		Key  string    `json:"key"`
	}
	resp, err := s.client.exam(ctx, http.MethodPost, "admin/link-users", nil, u, &out, credBearer)
	if err != nil {
		return nil, resp, err
	}
	if out.Data == nil {
		out.Data = new(LinkUser)
	}
	out.Data.Key = out.Key
	return out.Data, resp, nil
}

// ListLinkUsers returns one page of the link users, newest first (GET
// /api/v1/admin/link-users), with the paging fields of the Response set.
func (s *ExamAdminService) ListLinkUsers(ctx context.Context, opts *LinkListOptions) ([]*LinkUser, *Response, error) {
	var out struct {
		Data       []*LinkUser `json:"data"`
		Pagination struct {
			Total    int `json:"total"`
			Limit    int `json:"limit"`
			Page     int `json:"page"`
			NextPage int `json:"next_page"`
			MaxPage  int `json:"max_page"`
		} `json:"pagination"`
	}
	resp, err := s.client.exam(ctx, http.MethodGet, "admin/link-users", opts.values(), nil, &out, credBearer)
	if err != nil {
		return nil, resp, err
	}
	p := out.Pagination
	resp.setPaging(p.Page, p.Limit, p.Total, p.MaxPage)
	resp.NextPage = p.NextPage
	return out.Data, resp, nil
}

// RotateLinkUserKey replaces a link user's API key and returns the new one,
// shown once; the old key stops working at once (POST
// /api/v1/admin/link-users/{id}/rotate-key).
func (s *ExamAdminService) RotateLinkUserKey(ctx context.Context, userID int64) (string, *Response, error) {
	var out struct {
		Key string `json:"key"`
	}
	resp, err := s.client.exam(ctx, http.MethodPost, "admin/link-users/"+strconv.FormatInt(userID, 10)+"/rotate-key",
		nil, nil, &out, credBearer)
	if err != nil {
		return "", resp, err
	}
	return out.Key, resp, nil
}

// SetLinkUserPassword sets or replaces a link user's account password, the
// one the user signs in to the web console with (PUT
// /api/v1/admin/link-users/{id}/password); the user's console sessions end.
func (s *ExamAdminService) SetLinkUserPassword(ctx context.Context, userID int64, password string) (*Response, error) {
	body := struct {
		Password string `json:"password"`
	}{password}
	return s.client.exam(ctx, http.MethodPut, "admin/link-users/"+strconv.FormatInt(userID, 10)+"/password",
		nil, &body, nil, credBearer)
}

// CreateLinkOverlay creates a CTA overlay for a link user (POST
// /api/v1/admin/link-overlays).
func (s *ExamAdminService) CreateLinkOverlay(ctx context.Context, userID int64, overlayType, name string) (*AdminLinkOverlay, *Response, error) {
	ctx = creating(ctx)
	body := struct {
		UserID int64  `json:"user_id"`
		Type   string `json:"type"`
		Name   string `json:"name"`
	}{userID, overlayType, name}
	return examData[*AdminLinkOverlay](ctx, s.client, http.MethodPost, "admin/link-overlays", nil, body)
}

// CreateLinkSplash creates a custom splash page for a link user (POST
// /api/v1/admin/link-splashes).
func (s *ExamAdminService) CreateLinkSplash(ctx context.Context, userID int64, name string) (*AdminLinkSplash, *Response, error) {
	ctx = creating(ctx)
	body := struct {
		UserID int64  `json:"user_id"`
		Name   string `json:"name"`
	}{userID, name}
	return examData[*AdminLinkSplash](ctx, s.client, http.MethodPost, "admin/link-splashes", nil, body)
}
