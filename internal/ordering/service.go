package ordering

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/seedhq/portal/internal/blobstore"
)

// Verifier checks a solved anti-bot challenge (internal/ordering/challenge).
// Its errors are *apperr.Error values with their own codes, passed on to
// the client.
type Verifier interface {
	Verify(ctx context.Context, token, remoteIP string) error
}

// Config configures the Service.
type Config struct {
	// JWTKey signs the ordering JWTs (at least 32 bytes). Required. Keep it
	// apart from the exam API's key: the audience already keeps the tokens
	// apart, a separate key makes sure of it.
	JWTKey []byte
	// TokenTTL is the lifetime of an ordering JWT. Default 7 days.
	TokenTTL time.Duration
	// Region is the ISO 3166-1 region of numbers given without a country
	// code. Default "ID".
	Region string
	// MessengerLinkBase is where a magic link points, e.g.
	// https://wa.me/6281100000000; the link adds ?text=VERIFY_<token>.
	// Required.
	MessengerLinkBase string
	// OwnerNumber is the number whose first verified login creates an OWNER
	// instead of a CUSTOMER (normalised by NormalizeNumber). Optional.
	OwnerNumber string
	// Challenge verifies the anti-bot challenge of a login. Required.
	Challenge Verifier
	// Payments gives orders their invoice and payment page. Required.
	Payments PaymentLinker
	// Blobs keeps the payment receipts (ProofKey): the portal's own store or
	// object storage, shared by every instance. Required for receipts.
	Blobs blobstore.Store
	// ProofDir is the legacy directory of payment receipts, from before the
	// blob store (deprecated): receipts not yet copied into Blobs
	// (MigrateProofDir) are read from it. Optional.
	ProofDir string
	// MerchantID is the shop's merchant id at the payment provider: a
	// notification for another merchant is refused.
	MerchantID string
	// Now returns the current time; tests fix it. Default time.Now.
	Now func() time.Time
}

// Service is the ordering domain: the login flow, bans and users.
type Service struct {
	store Store
	cfg   Config
	link  *url.URL
	log   *slog.Logger

	mu       sync.Mutex
	watchers []chan struct{} // Changes
	sendWake chan struct{}   // RunSender
	rng      *rand.Rand      // the gate's jitter, under mu
}

// NewService returns the service over store.
func NewService(store Store, cfg Config, logger *slog.Logger) (*Service, error) {
	if len(cfg.JWTKey) < 32 {
		return nil, errors.New("ordering: the JWT key must be at least 32 bytes")
	}
	if cfg.Challenge == nil {
		return nil, errors.New("ordering: a challenge verifier is required")
	}
	if cfg.Payments == nil {
		return nil, errors.New("ordering: a payment linker is required")
	}
	link, err := url.Parse(cfg.MessengerLinkBase)
	if err != nil || (link.Scheme != "https" && link.Scheme != "http") || link.Host == "" {
		return nil, fmt.Errorf("ordering: messenger link base %q is not an http(s) URL", cfg.MessengerLinkBase)
	}
	if cfg.TokenTTL == 0 {
		cfg.TokenTTL = 7 * 24 * time.Hour
	}
	if cfg.Region == "" {
		cfg.Region = "ID"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.OwnerNumber != "" {
		if cfg.OwnerNumber, err = NormalizeNumber(cfg.OwnerNumber, cfg.Region); err != nil {
			return nil, fmt.Errorf("ordering: owner number: %w", err)
		}
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, cfg: cfg, link: link, log: logger, sendWake: make(chan struct{}, 1),
		rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))}, nil
}

// newID returns a new record id: a UUID whose first bits are the time, so
// that ids sort by creation and index well.
func newID() string { return uuid.Must(uuid.NewV7()).String() }

// JWT claims of the ordering API.
const (
	tokenIssuer   = "portal"
	tokenAudience = "ordering"
)

// issueJWT returns a JWT for u.
func (s *Service) issueJWT(u User) (string, error) {
	now := s.cfg.Now()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"iss":  tokenIssuer,
		"aud":  tokenAudience,
		"sub":  u.ID,
		"role": string(u.Role),
		"iat":  now.Unix(),
		"exp":  now.Add(s.cfg.TokenTTL).Unix(),
	}).SignedString(s.cfg.JWTKey)
	if err != nil {
		return "", fmt.Errorf("sign ordering token: %w", err)
	}
	return tok, nil
}

// Authenticate returns the user of an ordering JWT, as stored now (a role
// changed since the token was issued applies at once). The algorithm is
// pinned to HS256 and the audience must be the ordering API's: an exam
// operator's token is refused. Any failure is ErrUnauthorized.
func (s *Service) Authenticate(ctx context.Context, token string) (User, error) {
	if token == "" {
		return User{}, ErrUnauthorized
	}
	var claims jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return s.cfg.JWTKey, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithAudience(tokenAudience),
		jwt.WithIssuer(tokenIssuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(s.cfg.Now),
	)
	if err != nil || claims.Subject == "" {
		return User{}, ErrUnauthorized
	}
	u, err := s.store.GetOrderingUser(ctx, claims.Subject)
	if errors.Is(err, ErrUserNotFound) {
		return User{}, ErrUnauthorized
	}
	if err != nil {
		return User{}, fmt.Errorf("authenticate: %w", err)
	}
	return u, nil
}
