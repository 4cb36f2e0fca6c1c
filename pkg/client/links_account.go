package client

import (
	"context"
	"net/http"
)

// LinkAccount is the caller's account.
type LinkAccount struct {
	ID       int64  `json:"id"`
	Email    string `json:"email"`
	Username string `json:"username"`
	Avatar   string `json:"avatar"`
	// Status is the user's plan, such as "pro".
	Status string `json:"status"`
	// Expires is the plan's expiry, "YYYY-MM-DD HH:MM:SS" UTC, "" when none.
	Expires string `json:"expires"`
	// Registered is "YYYY-MM-DD HH:MM:SS" UTC.
	Registered string `json:"registered"`
}

// LinkAccountUpdate is the body of an account update: email, password or
// both (nil fields are not sent).
type LinkAccountUpdate struct {
	Email    *string `json:"email,omitempty"`
	Password *string `json:"password,omitempty"`
}

// Get returns the caller's account (GET /api/account).
func (s *LinkAccountService) Get(ctx context.Context) (*LinkAccount, *Response, error) {
	var out struct {
		Data *LinkAccount `json:"data"`
	}
	resp, err := s.client.linkCall(ctx, http.MethodGet, "api/account", nil, nil, &out)
	if err != nil {
		return nil, resp, err
	}
	return out.Data, resp, nil
}

// Update changes the caller's email, password or both (PUT
// /api/account/update).
func (s *LinkAccountService) Update(ctx context.Context, u *LinkAccountUpdate) (*Response, error) {
	if u == nil {
		u = &LinkAccountUpdate{}
	}
	return s.client.linkCall(ctx, http.MethodPut, "api/account/update", nil, u, nil)
}
