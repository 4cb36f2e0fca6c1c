package links

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/password"
)

// Config tunes a Service. Zero values take the documented defaults.
type Config struct {
	// Now returns the current time; tests may fix it. Default time.Now.
	Now func() time.Time
	// OnChange, when set, is called after every successful write of
	// domains, links, campaigns or QR codes with its kind: the portal drops
	// its cached look-ups of that kind and tells the other instances.
	OnChange func(Change)
	// Blobs keeps the QR codes' logos (LogoKey). Nil: logos stay in the
	// records as data URIs.
	Blobs blobstore.Store
}

// Service implements the link-management use cases on a Store. Methods
// taking an owner act for the authenticated user of that id: records of
// other users answer ErrNotFound. It is safe for concurrent use.
type Service struct {
	store    Store
	now      func() time.Time
	logins   loginThrottle
	onChange func(Change)
	blobs    blobstore.Store
}

// NewService returns a Service on store.
func NewService(store Store, cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{store: store, now: cfg.Now, logins: newLoginThrottle(store), onChange: cfg.OnChange, blobs: cfg.Blobs}
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// NewUser is the input of CreateUser.
type NewUser struct {
	Email     string
	Username  string
	Password  string // may be empty: the user then only uses the API key
	Avatar    string
	Plan      string
	RateLimit int // requests per minute, 0 for DefaultRateLimit
	ExpiresAt *time.Time
}

// CreateUser creates a user (an operator's action) and returns it with its
// API key, which is shown this once: only its hash is kept.
func (s *Service) CreateUser(ctx context.Context, in NewUser) (User, string, error) {
	email, err := NormalizeEmail(in.Email)
	if err != nil {
		return User{}, "", err
	}
	username, err := NormalizeUsername(in.Username)
	if err != nil {
		return User{}, "", err
	}
	if err := validateOptionalURL("avatar", in.Avatar); err != nil {
		return User{}, "", err
	}
	if in.RateLimit < 0 {
		return User{}, "", invalid("rate limit must not be negative")
	}
	if err := validateText("plan", in.Plan, 32); err != nil {
		return User{}, "", err
	}
	u := User{Email: email, Username: username, Avatar: in.Avatar, Plan: in.Plan, RateLimit: in.RateLimit,
		ExpiresAt: in.ExpiresAt, RegisteredAt: s.clock()}
	if in.Password != "" {
		if u.PasswordHash, err = hashAccountPassword(in.Password); err != nil {
			return User{}, "", err
		}
	}
	key, hash, err := GenerateAPIKey()
	if err != nil {
		return User{}, "", err
	}
	u, err = s.store.CreateLinkUser(ctx, u, hash)
	if err != nil {
		return User{}, "", fmt.Errorf("links: create user: %w", err)
	}
	return u, key, nil
}

func hashAccountPassword(pw string) (string, error) {
	if len(pw) < MinPasswordBytes {
		return "", invalid("password must be at least %d characters", MinPasswordBytes)
	}
	return password.Hash(pw)
}

// RotateAPIKey gives the user a new API key, returned this once; the old key
// stops working.
func (s *Service) RotateAPIKey(ctx context.Context, userID int64) (string, error) {
	key, hash, err := GenerateAPIKey()
	if err != nil {
		return "", err
	}
	if _, err := s.store.RotateLinkAPIKey(ctx, userID, hash, s.clock()); err != nil {
		return "", fmt.Errorf("links: rotate API key of user %d: %w", userID, err)
	}
	return key, nil
}

// ParseAuthorization returns the key of an Authorization header value of the
// form "Bearer <key>" or "Token <key>" (scheme case-insensitive).
func ParseAuthorization(header string) (string, bool) {
	scheme, key, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || (!strings.EqualFold(scheme, "Bearer") && !strings.EqualFold(scheme, "Token")) {
		return "", false
	}
	key = strings.TrimSpace(key)
	return key, key != ""
}

// Authenticate returns the user whose API key is key; ErrUnauthorized for a
// malformed, unknown or rotated key.
func (s *Service) Authenticate(ctx context.Context, key string) (User, error) {
	if !WellFormedAPIKey(key) {
		return User{}, ErrUnauthorized
	}
	u, err := s.store.GetLinkUserByKeyHash(ctx, HashAPIKey(key))
	if errors.Is(err, ErrNotFound) {
		return User{}, ErrUnauthorized
	}
	if err != nil {
		return User{}, fmt.Errorf("links: authenticate: %w", err)
	}
	return u, nil
}

// RateState is the outcome of one rate-limited request, for the
// X-RateLimit-* headers.
type RateState struct {
	Limit     int
	Remaining int
	Reset     time.Time // end of the current window
}

// Allow counts one request of the user in the current one-minute window. It
// returns the state and, when the user is over the limit, ErrRateLimited.
func (s *Service) Allow(ctx context.Context, u User) (RateState, error) {
	now := s.clock()
	window := now.Truncate(time.Minute)
	limit := u.Limit()
	n, err := s.store.HitRateLimit(ctx, "user:"+strconv.FormatInt(u.ID, 10), window, limit)
	if err != nil {
		return RateState{}, fmt.Errorf("links: rate limit of user %d: %w", u.ID, err)
	}
	st := RateState{Limit: limit, Remaining: max(limit-n, 0), Reset: window.Add(time.Minute)}
	if n > limit {
		return st, ErrRateLimited
	}
	return st, nil
}

// Account returns the user's account.
func (s *Service) Account(ctx context.Context, owner int64) (User, error) {
	u, err := s.store.GetLinkUser(ctx, owner)
	if err != nil {
		return User{}, fmt.Errorf("links: account %d: %w", owner, err)
	}
	return u, nil
}

// ListUsers returns one page of users (an operator's view).
func (s *Service) ListLinkUsers(ctx context.Context, p Page) (List[User], error) {
	p, err := p.Normalize()
	if err != nil {
		return List[User]{}, err
	}
	l, err := s.store.ListLinkUsers(ctx, p)
	if err != nil {
		return l, fmt.Errorf("links: list users: %w", err)
	}
	return l, nil
}

// AccountUpdate is the input of UpdateAccount; nil fields stay.
type AccountUpdate struct {
	Email    *string
	Password *string
}

// UpdateAccount changes the user's email and/or password.
func (s *Service) UpdateAccount(ctx context.Context, owner int64, in AccountUpdate) (User, error) {
	if in.Email == nil && in.Password == nil {
		return User{}, invalid("give email, password or both")
	}
	var email, hash string
	var err error
	if in.Email != nil {
		if email, err = NormalizeEmail(*in.Email); err != nil {
			return User{}, err
		}
	}
	if in.Password != nil {
		if hash, err = hashAccountPassword(*in.Password); err != nil {
			return User{}, err
		}
	}
	u, err := s.store.UpdateLinkUser(ctx, owner, func(u *User) error {
		if in.Email != nil {
			u.Email = email
		}
		if in.Password != nil {
			u.PasswordHash = hash
		}
		return nil
	})
	if err != nil {
		return User{}, fmt.Errorf("links: update account %d: %w", owner, err)
	}
	return u, nil
}

// DomainInput is the input of AddDomain.
type DomainInput struct {
	Domain       string // http or https URL of the domain
	RedirectRoot string
	Redirect404  string
}

// AddDomain adds a branded domain to the owner's account.
func (s *Service) AddDomain(ctx context.Context, owner int64, in DomainInput) (Domain, error) {
	canonical, host, err := NormalizeDomain(in.Domain)
	if err != nil {
		return Domain{}, err
	}
	if err := validateOptionalURL("redirectroot", in.RedirectRoot); err != nil {
		return Domain{}, err
	}
	if err := validateOptionalURL("redirect404", in.Redirect404); err != nil {
		return Domain{}, err
	}
	d, err := s.store.CreateDomain(ctx, Domain{UserID: owner, URL: canonical, Host: host,
		RedirectRoot: in.RedirectRoot, Redirect404: in.Redirect404, CreatedAt: s.clock()})
	if err != nil {
		return Domain{}, fmt.Errorf("links: add domain %s: %w", host, err)
	}
	s.changed(ChangeDomain)
	return d, nil
}

// DomainPatch is the input of UpdateDomain; nil fields stay, "" clears.
type DomainPatch struct {
	RedirectRoot *string
	Redirect404  *string
}

// UpdateDomain changes the redirects of the owner's domain.
func (s *Service) UpdateDomain(ctx context.Context, owner, id int64, in DomainPatch) (Domain, error) {
	if in.RedirectRoot != nil {
		if err := validateOptionalURL("redirectroot", *in.RedirectRoot); err != nil {
			return Domain{}, err
		}
	}
	if in.Redirect404 != nil {
		if err := validateOptionalURL("redirect404", *in.Redirect404); err != nil {
			return Domain{}, err
		}
	}
	d, err := s.store.UpdateDomain(ctx, owner, id, func(d *Domain) error {
		setIf(&d.RedirectRoot, in.RedirectRoot)
		setIf(&d.Redirect404, in.Redirect404)
		return nil
	})
	if err != nil {
		return Domain{}, fmt.Errorf("links: update domain %d: %w", id, err)
	}
	s.changed(ChangeDomain)
	return d, nil
}

// setIf sets *dst to *v when v is not nil.
func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// DeleteDomain removes the owner's domain; DOMAIN_IN_USE while links use it.
func (s *Service) DeleteDomain(ctx context.Context, owner, id int64) error {
	if err := s.store.DeleteDomain(ctx, owner, id); err != nil {
		return fmt.Errorf("links: delete domain %d: %w", id, err)
	}
	s.changed(ChangeDomain)
	return nil
}

// ListDomains returns one page of the owner's domains.
func (s *Service) ListDomains(ctx context.Context, owner int64, p Page) (List[Domain], error) {
	return list(ctx, "domains", owner, p, s.store.ListDomains)
}

// list normalizes p and calls the store's list method.
func list[T any](ctx context.Context, what string, owner int64, p Page,
	fn func(context.Context, int64, Page) (List[T], error)) (List[T], error) {
	p, err := p.Normalize()
	if err != nil {
		return List[T]{}, err
	}
	l, err := fn(ctx, owner, p)
	if err != nil {
		return List[T]{}, fmt.Errorf("links: list %s: %w", what, err)
	}
	return l, nil
}

// CreateOverlay creates a CTA overlay for a user (an operator's action).
func (s *Service) CreateOverlay(ctx context.Context, owner int64, typ, name string) (Overlay, error) {
	typ, name = strings.TrimSpace(typ), strings.TrimSpace(name)
	if typ == "" || name == "" {
		return Overlay{}, invalid("type and name are required")
	}
	if err := errors.Join(validateText("type", typ, 32), validateText("name", name, MaxNameLength)); err != nil {
		return Overlay{}, err
	}
	o, err := s.store.CreateOverlay(ctx, Overlay{UserID: owner, Type: typ, Name: name, CreatedAt: s.clock()})
	if err != nil {
		return Overlay{}, fmt.Errorf("links: create overlay: %w", err)
	}
	return o, nil
}

// ListOverlays returns one page of the owner's CTA overlays.
func (s *Service) ListOverlays(ctx context.Context, owner int64, p Page) (List[Overlay], error) {
	return list(ctx, "overlays", owner, p, s.store.ListOverlays)
}

// CreateSplash creates a splash page for a user (an operator's action).
func (s *Service) CreateSplash(ctx context.Context, owner int64, name string) (Splash, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Splash{}, invalid("name is required")
	}
	if err := validateText("name", name, MaxNameLength); err != nil {
		return Splash{}, err
	}
	sp, err := s.store.CreateSplash(ctx, Splash{UserID: owner, Name: name, CreatedAt: s.clock()})
	if err != nil {
		return Splash{}, fmt.Errorf("links: create splash page: %w", err)
	}
	return sp, nil
}

// ListSplashes returns one page of the owner's splash pages.
func (s *Service) ListSplashes(ctx context.Context, owner int64, p Page) (List[Splash], error) {
	return list(ctx, "splash pages", owner, p, s.store.ListSplashes)
}
