// Package identity is the portal's operator accounts, shared by its three
// APIs and the console: the accounts and their roles, the bcrypt hash of
// their passwords, sign-in with a throttle on failed attempts counted in the
// store, and the HS256 tokens that carry a signed-in operator (Tokens, also
// used by internal/exam for lab servers' tokens under their own audience).
package identity

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/internal/sortid"
	"github.com/seedhq/portal/internal/throttle"
	"github.com/seedhq/portal/pkg/labwire"
)

// Errors of operator accounts and authentication.
var (
	ErrNotFound           = apperr.New(apperr.NotFound, "NOT_FOUND", "not found")
	ErrUsernameTaken      = apperr.New(apperr.Conflict, "USERNAME_TAKEN", "username is already taken")
	ErrInvalidCredentials = apperr.New(apperr.Unauthorized, "INVALID_CREDENTIALS", "wrong username or password")
	ErrUnauthorized       = apperr.New(apperr.Unauthorized, "UNAUTHORIZED", "missing or invalid credentials")
	ErrTokenExpired       = apperr.New(apperr.Unauthorized, "TOKEN_EXPIRED", "the token has expired; sign in again")
	ErrTooManyAttempts    = apperr.New(apperr.RateLimited, "TOO_MANY_ATTEMPTS", "too many failed sign-ins from this address; try again later")
	// ErrGraderForbidden refuses a grader (RoleGrader) outside the grading
	// of the exams assigned to it.
	ErrGraderForbidden = apperr.New(apperr.Forbidden, "GRADER_FORBIDDEN",
		"a grader may only grade the essays of the exams assigned to it")
)

// Config tunes a Service. Zero values take the defaults documented per field.
type Config struct {
	// TokenTTL is the lifetime of operator tokens. Default 12h.
	TokenTTL time.Duration
	// LoginMaxFailures and LoginWindow bound failed sign-ins per client
	// address. Defaults 5 and 15m.
	LoginMaxFailures int
	LoginWindow      time.Duration
	// Now returns the current time; tests may fix it. Default time.Now.
	Now func() time.Time
}

// Service signs operators in and out of the portal. It is safe for
// concurrent use.
type Service struct {
	store  Store
	tokens *Tokens
	logins *throttle.Limiter
	cfg    Config
}

// New returns the identity service over store, signing with tokens.
func New(store Store, tokens *Tokens, cfg Config) *Service {
	if cfg.TokenTTL == 0 {
		cfg.TokenTTL = 12 * time.Hour
	}
	if cfg.LoginMaxFailures == 0 {
		cfg.LoginMaxFailures = 5
	}
	if cfg.LoginWindow == 0 {
		cfg.LoginWindow = 15 * time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{store: store, tokens: tokens, cfg: cfg,
		logins: throttle.NewLimiter(store, "operator-login", cfg.LoginMaxFailures, cfg.LoginWindow)}
}

// Open returns the identity service over store, signing with the
// configured secret, else with the store's (NewTokens).
func Open(ctx context.Context, store Store, secret []byte, cfg Config) (*Service, error) {
	tokens, err := NewTokens(ctx, store, secret, cfg.Now)
	if err != nil {
		return nil, err
	}
	return New(store, tokens, cfg), nil
}

// Tokens returns the token signer of the service, which internal/exam signs
// the lab servers' tokens with.
func (s *Service) Tokens() *Tokens { return s.tokens }

// now is the service's clock in UTC, to the microsecond (what both stores keep).
func (s *Service) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Microsecond) }

// LoginInput is the body of an operator login plus the client's address.
type LoginInput struct {
	Username   string
	Password   string
	ClientAddr string
}

// LoginResult is a successful login.
type LoginResult struct {
	Token     string
	ExpiresAt time.Time
	User      User
}

// dummyHash is compared against when the user does not exist, so that unknown
// users and wrong passwords take the same time.
var dummyHash = sync.OnceValue(func() string {
	h, _ := password.Hash("not-a-real-password")
	return h
})

// Login checks an operator's credentials and returns a signed token. Failed
// attempts are counted per client address; over the limit it answers
// ErrTooManyAttempts (as *apperr.RetryAfterError) without checking the password.
func (s *Service) Login(ctx context.Context, in LoginInput) (LoginResult, error) {
	wait, err := s.logins.Blocked(ctx, in.ClientAddr, s.cfg.Now())
	if err != nil {
		return LoginResult{}, fmt.Errorf("login: %w", err)
	}
	if wait > 0 {
		return LoginResult{}, &apperr.RetryAfterError{Err: ErrTooManyAttempts, RetryAfter: wait}
	}
	username := strings.ToLower(strings.TrimSpace(in.Username))
	if username == "" || in.Password == "" {
		return LoginResult{}, invalid("username and password are required")
	}
	u, err := s.store.GetUserByUsername(ctx, username)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return LoginResult{}, fmt.Errorf("login: %w", err)
	}
	hash := u.PasswordHash
	if err != nil {
		hash = dummyHash()
	}
	if !password.Check(hash, in.Password) || err != nil {
		if err := s.logins.Fail(ctx, in.ClientAddr, s.cfg.Now()); err != nil {
			return LoginResult{}, fmt.Errorf("login: %w", err)
		}
		return LoginResult{}, ErrInvalidCredentials
	}
	if err := s.logins.Reset(ctx, in.ClientAddr); err != nil {
		return LoginResult{}, fmt.Errorf("login: %w", err)
	}
	exp := s.now().Add(s.cfg.TokenTTL)
	tok, err := s.tokens.Sign(jwt.MapClaims{
		"sub":  u.ID,
		"aud":  AudienceOperator,
		"role": string(u.Role),
		"exp":  exp.Unix(),
	})
	if err != nil {
		return LoginResult{}, err
	}
	return LoginResult{Token: tok, ExpiresAt: exp, User: u}, nil
}

// Authenticate verifies an operator token and returns its user.
func (s *Service) Authenticate(ctx context.Context, token string) (User, error) {
	claims, err := s.tokens.Parse(token, AudienceOperator)
	if err != nil {
		return User{}, err
	}
	sub, _ := claims["sub"].(string)
	u, err := s.store.GetUser(ctx, sub)
	if errors.Is(err, ErrNotFound) {
		return User{}, ErrUnauthorized
	}
	if err != nil {
		return User{}, fmt.Errorf("authenticate operator: %w", err)
	}
	return u, nil
}

// EnsureAdmin creates the first operator account (SUPER_ADMIN) when the store
// has none. When password is empty one is generated and returned as
// generated. created reports whether an account was made.
func (s *Service) EnsureAdmin(ctx context.Context, username, password string) (generated string, created bool, err error) {
	n, err := s.store.CountUsers(ctx)
	if err != nil {
		return "", false, fmt.Errorf("count users: %w", err)
	}
	if n > 0 {
		return "", false, nil
	}
	if username == "" {
		username = "admin"
	}
	if password == "" {
		if password, err = labwire.RandomPassword(20); err != nil {
			return "", false, err
		}
		generated = password
	}
	_, err = s.CreateOperator(ctx, OperatorInput{Username: username, Name: "Administrator", Password: password, Role: RoleSuperAdmin})
	if errors.Is(err, ErrUsernameTaken) {
		return "", false, nil // another instance won the race
	}
	if err != nil {
		return "", false, err
	}
	return generated, true, nil
}

// OperatorInput describes a new operator account.
type OperatorInput struct {
	Username string
	Name     string
	Password string
	Role     Role
}

// CreateOperator validates in and stores a new operator account.
func (s *Service) CreateOperator(ctx context.Context, in OperatorInput) (User, error) {
	u := User{
		ID:        sortid.New(),
		Username:  strings.ToLower(strings.TrimSpace(in.Username)),
		Name:      strings.TrimSpace(in.Name),
		Role:      in.Role,
		CreatedAt: s.now(),
	}
	switch {
	case !ValidUsername(u.Username):
		return User{}, invalid("username must be 3 to 64 letters, digits, dots, dashes or underscores")
	case len(in.Password) < 8 || len(in.Password) > 72:
		return User{}, invalid("password must be 8 to 72 characters")
	case !u.Role.Valid():
		return User{}, invalid("role must be SUPER_ADMIN, OPERATOR or GRADER")
	}
	if u.Name == "" {
		u.Name = u.Username
	}
	hash, err := password.Hash(in.Password)
	if err != nil {
		return User{}, fmt.Errorf("hash password: %w", err)
	}
	u.PasswordHash = hash
	if err := s.store.CreateUser(ctx, u); err != nil {
		return User{}, fmt.Errorf("create operator: %w", err)
	}
	return u, nil
}

// ValidUsername reports whether s is a valid username, of an operator or
// of a member: 3 to 64 lowercase letters, digits, dots, dashes, underscores
// or at signs.
func ValidUsername(s string) bool {
	if len(s) < 3 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' || r == '@') {
			return false
		}
	}
	return true
}

func invalid(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, "VALIDATION_FAILED", format, args...)
}
