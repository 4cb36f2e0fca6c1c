package client

import (
	"context"
	"net/http"
	"time"
)

// Operator is an operator account of the portal.
type Operator struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Name     string `json:"name"`
	// Role is SUPER_ADMIN or OPERATOR.
	Role string `json:"role"`
}

// LoginResult is the answer of a successful operator login.
type LoginResult struct {
	// Token is the operator JWT (12 h); pass it to SetToken.
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
	User      Operator  `json:"user"`
}

// Login signs an operator in (POST /api/v1/auth/login). It does not set the
// token on the Client: call c.SetToken(res.Token).
//
// A wrong username or password gives 401 CodeInvalidCredentials; after five
// failures from one address in 15 minutes, 429 CodeTooManyAttempts with
// (*Error).RetryAfter set.
func (s *ExamAuthService) Login(ctx context.Context, username, password string) (*LoginResult, *Response, error) {
	body := struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}{username, password}
	out := new(LoginResult)
	resp, err := s.client.exam(ctx, http.MethodPost, "auth/login", nil, body, out, credNone)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// Me returns the operator the bearer token belongs to (GET /api/v1/auth/me).
func (s *ExamAuthService) Me(ctx context.Context) (*Operator, *Response, error) {
	var out struct {
		User *Operator `json:"user"`
	}
	resp, err := s.client.exam(ctx, http.MethodGet, "auth/me", nil, nil, &out, credBearer)
	if err != nil {
		return nil, resp, err
	}
	return out.User, resp, nil
}
