package exam

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/throttle"
	"github.com/seedhq/portal/pkg/labwire"
)

// Config tunes a Service. Zero values take the defaults documented per field.
type Config struct {
	// AppName is returned in the meta of directory responses. Default "Exam Portal".
	AppName string
	// JWTSecret signs operator and server tokens. When empty, a secret is
	// generated once and kept in the store, shared by every instance.
	JWTSecret []byte
	// OperatorTokenTTL is the lifetime of operator tokens. Default 12h.
	OperatorTokenTTL time.Duration
	// ServerTokenTTL is the lifetime of lab-server access tokens. Default 1h.
	ServerTokenTTL time.Duration
	// HeartbeatInterval is the interval lab servers are asked to ping at. Default 60s.
	HeartbeatInterval time.Duration
	// LoginMaxFailures and LoginWindow bound failed logins per client address.
	// Defaults 5 and 15m.
	LoginMaxFailures int
	LoginWindow      time.Duration
	// TempDir holds packages while they are built. Default os.TempDir().
	TempDir string
	// Now returns the current time; tests may fix it. Default time.Now.
	Now func() time.Time
	// Blobs keeps the sealed blobs that packages of format 3 name, under
	// "exam/<name>" (ExamBlobKey). Default: the store's own blob store,
	// when it keeps one (a Blobs method, as bbolt's and PostgreSQL's).
	Blobs blobstore.Store
	// BlobPublicURL, when set, is the absolute http(s) base URL at which a
	// GET of BlobPublicURL + "/" + name answers the blob name: a CDN or
	// cache in front of the portal's blob route or of the object store.
	// Packages of format 3 then name their blobs there. Empty: the
	// portal's own blob route (BlobPath).
	BlobPublicURL string
}

func (c *Config) setDefaults() {
	if c.AppName == "" {
		c.AppName = "Exam Portal"
	}
	if c.OperatorTokenTTL == 0 {
		c.OperatorTokenTTL = 12 * time.Hour
	}
	if c.ServerTokenTTL == 0 {
		c.ServerTokenTTL = time.Hour
	}
	if c.HeartbeatInterval == 0 {
		c.HeartbeatInterval = 60 * time.Second
	}
	if c.LoginMaxFailures == 0 {
		c.LoginMaxFailures = 5
	}
	if c.LoginWindow == 0 {
		c.LoginWindow = 15 * time.Minute
	}
	if c.TempDir == "" {
		c.TempDir = os.TempDir()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Names of the secrets the service keeps in the store.
const (
	secretJWT          = "jwt-hs256"
	secretSigningKey   = "license-ed25519"
	secretExamPassword = "exam-password-hmac"
	secretGradingCode  = "grading-code-hmac"
	secretPackageKey   = "package-key:" // + npsn
	secretContent      = "content-key-hmac"
)

// Service implements every use case of the exam synchronisation portal on top
// of a Store. It is safe for concurrent use.
type Service struct {
	store      Store
	cfg        Config
	log        *slog.Logger
	jwtSecret  []byte
	signingKey ed25519.PrivateKey
	pwSecret   []byte
	codeSecret []byte // keys the students' codes in grading (answerCode)
	// contentSecret derives the content keys of blobs (ContentKey): the
	// same on every instance sharing the store.
	contentSecret []byte
	logins        *throttle.Limiter
	beats         *beatWriter
	// serverTokens caches verified lab-server tokens (AuthenticateServer).
	serverTokens serverTokenCache
	builds       sync.Map // npsn -> *sync.Mutex, serialises package builds per school
	renderCache
	// idem keeps the answers of creating calls made with an
	// Idempotency-Key, for every API of the portal.
	idem     *idempotency.Keeper
	examKeys sync.Map // exam id -> examShape, see examQuestions
}

// NewService loads (or creates on first start) the portal's secrets from the
// store and returns a ready Service.
func NewService(ctx context.Context, store Store, cfg Config, logger *slog.Logger) (*Service, error) {
	cfg.setDefaults()
	if cfg.Blobs == nil {
		own, ok := store.(interface{ Blobs() blobstore.Store })
		if !ok {
			return nil, errors.New("exam: the store keeps no blobs: set Config.Blobs")
		}
		cfg.Blobs = own.Blobs()
	}
	if cfg.BlobPublicURL != "" {
		if err := CheckBlobPublicURL(cfg.BlobPublicURL); err != nil {
			return nil, err
		}
		cfg.BlobPublicURL = strings.TrimSuffix(cfg.BlobPublicURL, "/")
	}
	s := &Service{store: store, cfg: cfg, log: logger}
	s.logins = throttle.NewLimiter(store, "operator-login", cfg.LoginMaxFailures, cfg.LoginWindow)
	s.beats = &beatWriter{store: store}
	s.idem = idempotency.New(store, idempotency.Options{Now: s.now, Logger: logger})

	s.jwtSecret = cfg.JWTSecret
	if len(s.jwtSecret) == 0 {
		secret, err := s.secret(ctx, secretJWT, func() ([]byte, error) { return randomBytes(32) })
		if err != nil {
			return nil, err
		}
		s.jwtSecret = secret
	} else if len(s.jwtSecret) < 32 {
		return nil, fmt.Errorf("exam: JWT secret must be at least 32 bytes, got %d", len(s.jwtSecret))
	}

	seed, err := s.secret(ctx, secretSigningKey, func() ([]byte, error) {
		k, err := labwire.GenerateSigningKey()
		if err != nil {
			return nil, err
		}
		return k.Seed(), nil
	})
	if err != nil {
		return nil, err
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("exam: stored signing key has %d bytes, want %d", len(seed), ed25519.SeedSize)
	}
	s.signingKey = ed25519.NewKeyFromSeed(seed)

	s.pwSecret, err = s.secret(ctx, secretExamPassword, func() ([]byte, error) { return randomBytes(32) })
	if err != nil {
		return nil, err
	}
	s.codeSecret, err = s.secret(ctx, secretGradingCode, func() ([]byte, error) { return randomBytes(32) })
	if err != nil {
		return nil, err
	}
	s.contentSecret, err = s.secret(ctx, secretContent, func() ([]byte, error) { return randomBytes(32) })
	if err != nil {
		return nil, err
	}
	return s, nil
}

// secret returns the stored secret name, storing a new one from gen when absent.
func (s *Service) secret(ctx context.Context, name string, gen func() ([]byte, error)) ([]byte, error) {
	fresh, err := gen()
	if err != nil {
		return nil, fmt.Errorf("exam: generate secret %s: %w", name, err)
	}
	v, err := s.store.GetOrCreateSecret(ctx, name, fresh)
	if err != nil {
		return nil, fmt.Errorf("exam: load secret %s: %w", name, err)
	}
	return v, nil
}

// Idempotency returns the keeper of Idempotency-Key receipts, in the
// service's store, that the HTTP edge of every API wraps its creating
// calls with.
func (s *Service) Idempotency() *idempotency.Keeper { return s.idem }

// PublicKey returns the Ed25519 public key that verifies licence tokens.
func (s *Service) PublicKey() ed25519.PublicKey { return s.signingKey.Public().(ed25519.PublicKey) }

// AppName returns the configured application name.
func (s *Service) AppName() string { return s.cfg.AppName }

// HeartbeatInterval returns the interval servers are asked to ping at.
func (s *Service) HeartbeatInterval() time.Duration { return s.cfg.HeartbeatInterval }

// Ping reports whether the store is reachable.
func (s *Service) Ping(ctx context.Context) error { return s.store.Ping(ctx) }

func (s *Service) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Microsecond) }

func randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return b, nil
}

// invalid returns a VALIDATION_FAILED error with a formatted message.
func invalid(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, "VALIDATION_FAILED", format, args...)
}
