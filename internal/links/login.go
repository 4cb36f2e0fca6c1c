package links

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/internal/throttle"
)

// Errors of the sign-ins of the web console (PasswordLogin, KeyLogin).
var (
	ErrBadLogin        = apperr.New(apperr.Unauthorized, "INVALID_CREDENTIALS", "wrong username, email, password or API key")
	ErrAccountExpired  = apperr.New(apperr.Forbidden, "ACCOUNT_EXPIRED", "this account has expired")
	ErrTooManyAttempts = apperr.New(apperr.RateLimited, "TOO_MANY_ATTEMPTS", "too many failed sign-ins from this address; try again later")
)

// Sign-in throttling: failed sign-ins per client address, and per client
// address and login, in a fixed window. The second, lower bound stops
// guessing one account's password; keying it by address too means nobody
// can lock a marketer out from elsewhere.
const (
	loginAddrFailures = 20
	loginUserFailures = 5
	loginWindow       = 15 * time.Minute
)

// loginThrottle counts failed sign-ins in the store, so that every portal
// instance sharing it counts the same failures.
type loginThrottle struct {
	perAddr *throttle.Limiter // key: address
	perUser *throttle.Limiter // key: address + "\x00" + login
}

func newLoginThrottle(st throttle.Store) loginThrottle {
	return loginThrottle{perAddr: throttle.NewLimiter(st, "link-login-addr", loginAddrFailures, loginWindow),
		perUser: throttle.NewLimiter(st, "link-login-user", loginUserFailures, loginWindow)}
}

// blocked returns ErrTooManyAttempts (as *apperr.RetryAfterError) when addr,
// or addr with login, is over its bound. An empty login (a sign-in by API
// key) is counted per address only.
func (t loginThrottle) blocked(ctx context.Context, addr, login string, now time.Time) error {
	wait, err := t.perAddr.Blocked(ctx, addr, now)
	if err != nil {
		return err
	}
	if login != "" {
		userWait, err := t.perUser.Blocked(ctx, addr+"\x00"+login, now)
		if err != nil {
			return err
		}
		wait = max(wait, userWait)
	}
	if wait > 0 {
		return &apperr.RetryAfterError{Err: ErrTooManyAttempts, RetryAfter: wait}
	}
	return nil
}

// fail counts a failed sign-in.
func (t loginThrottle) fail(ctx context.Context, addr, login string, now time.Time) error {
	if err := t.perAddr.Fail(ctx, addr, now); err != nil {
		return err
	}
	if login != "" {
		return t.perUser.Fail(ctx, addr+"\x00"+login, now)
	}
	return nil
}

// PasswordLogin signs a user in with their username or email and account
// password (set by an operator or with PUT /api/account/update), for the web
// console. Users without a password, unknown logins and wrong passwords
// all answer ErrBadLogin after one bcrypt comparison, so that neither the
// answer nor its time tells which users exist. Failures are throttled per
// client address and per address and login (ErrTooManyAttempts, checked
// before the password); a success clears the count of the address and
// login (not that of the address, so that a valid account cannot be used
// to go on guessing others'). An expired account answers ErrAccountExpired.
func (s *Service) PasswordLogin(ctx context.Context, login, pw, clientAddr string) (User, error) {
	login = strings.ToLower(strings.TrimSpace(login))
	now := s.clock()
	if err := s.logins.blocked(ctx, clientAddr, login, now); err != nil {
		return User{}, fmt.Errorf("links: password login: %w", err)
	}
	u, err := s.store.GetLinkUserByLogin(ctx, login)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return User{}, fmt.Errorf("links: password login: %w", err)
	}
	// password.Check costs one bcrypt comparison even for an empty hash.
	if !password.Check(u.PasswordHash, pw) || err != nil || login == "" {
		if err := s.logins.fail(ctx, clientAddr, login, now); err != nil {
			return User{}, fmt.Errorf("links: password login: %w", err)
		}
		return User{}, ErrBadLogin
	}
	if err := s.logins.perUser.Reset(ctx, clientAddr+"\x00"+login); err != nil {
		return User{}, fmt.Errorf("links: password login: %w", err)
	}
	return s.signedIn(u, now)
}

// KeyLogin signs a user in with their API key, for the web console: as
// Authenticate, with failures throttled per client address like
// PasswordLogin's and expired accounts refused.
func (s *Service) KeyLogin(ctx context.Context, key, clientAddr string) (User, error) {
	key = strings.TrimSpace(key)
	now := s.clock()
	if err := s.logins.blocked(ctx, clientAddr, "", now); err != nil {
		return User{}, fmt.Errorf("links: key login: %w", err)
	}
	u, err := s.Authenticate(ctx, key)
	if errors.Is(err, ErrUnauthorized) {
		if err := s.logins.fail(ctx, clientAddr, "", now); err != nil {
			return User{}, fmt.Errorf("links: key login: %w", err)
		}
		return User{}, ErrBadLogin
	}
	if err != nil {
		return User{}, err
	}
	return s.signedIn(u, now)
}

// signedIn refuses an expired account.
func (s *Service) signedIn(u User, now time.Time) (User, error) {
	if u.Expired(now) {
		return User{}, ErrAccountExpired
	}
	return u, nil
}

// Expired reports whether the account has expired at now.
func (u User) Expired(now time.Time) bool { return u.ExpiresAt != nil && !now.Before(*u.ExpiresAt) }

// SessionStamp returns a value that changes whenever the user's API key is
// rotated or their account password changes: a session bound to it ends
// with either. It is a SHA-256 over both hashes, revealing neither.
func (s *Service) SessionStamp(ctx context.Context, u User) (string, error) {
	k, err := s.store.GetLinkAPIKey(ctx, u.ID)
	if err != nil {
		return "", fmt.Errorf("links: session stamp of user %d: %w", u.ID, err)
	}
	return HashAPIKey(k.Hash + "\x00" + u.PasswordHash), nil
}
