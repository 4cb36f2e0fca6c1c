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

	"golang.org/x/sync/singleflight"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/pkg/labwire"
)

// Config tunes a Service. Zero values take the defaults documented per field.
type Config struct {
	// AppName is returned in the meta of directory responses. Default "Exam Portal".
	AppName string
	// Tokens signs the lab servers' access tokens. Default: the portal's
	// token signer over the store's secret (identity.NewTokens with no
	// configured secret).
	Tokens *identity.Tokens
	// ServerTokenTTL is the lifetime of lab-server access tokens. Default 1h.
	ServerTokenTTL time.Duration
	// HeartbeatInterval is the interval lab servers are asked to ping at. Default 60s.
	HeartbeatInterval time.Duration
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
	if c.ServerTokenTTL == 0 {
		c.ServerTokenTTL = time.Hour
	}
	if c.HeartbeatInterval == 0 {
		c.HeartbeatInterval = 60 * time.Second
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
	tokens     *identity.Tokens
	signingKey ed25519.PrivateKey
	pwSecret   []byte
	codeSecret []byte // keys the students' codes in grading (answerCode)
	// contentSecret derives the content keys of blobs (ContentKey): the
	// same on every instance sharing the store.
	contentSecret []byte
	beats         *beatWriter
	// serverTokens caches verified lab-server tokens (AuthenticateServer).
	serverTokens serverTokenCache
	builds       sync.Map // npsn -> *sync.Mutex, serialises package builds per school
	renderCache
	examKeys sync.Map // exam id -> examShape, see examQuestions
	// calibrations shares a running calibration with the calls for the
	// same exam and model (Calibrate); calibrationSlots bounds how many
	// run at once in this instance (each uses every CPU, and on
	// PostgreSQL holds a connection for its lock).
	calibrations     singleflight.Group
	calibrationSlots chan struct{}
}

// maxCalibrations is how many calibrations of different exams or models
// one portal instance runs at once; the others wait their turn.
const maxCalibrations = 2

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
	s := &Service{store: store, cfg: cfg, log: logger, calibrationSlots: make(chan struct{}, maxCalibrations)}
	s.beats = &beatWriter{store: store}
	s.tokens = cfg.Tokens
	if s.tokens == nil {
		var err error
		if s.tokens, err = identity.NewTokens(ctx, store, nil, cfg.Now); err != nil {
			return nil, err
		}
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
