package exam

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/sortid"
)

// Directory errors.
var (
	ErrNoActiveAcademicYear = apperr.New(apperr.NotFound, "NO_ACTIVE_ACADEMIC_YEAR", "no academic year is active")
	ErrInvalidAPIKey        = apperr.New(apperr.Unauthorized, "INVALID_API_KEY", "missing, unknown or revoked X-API-Key")
)

// validYearName reports whether s is "YYYY/YYYY" with consecutive years.
func validYearName(s string) bool {
	a, b, ok := strings.Cut(s, "/")
	if !ok || len(a) != 4 || len(b) != 4 {
		return false
	}
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	return err1 == nil && err2 == nil && y == x+1
}

// CreateAcademicYear stores a new academic year; an active one deactivates the others.
func (s *Service) CreateAcademicYear(ctx context.Context, name string, active bool) (AcademicYear, error) {
	name = strings.TrimSpace(name)
	if !validYearName(name) {
		return AcademicYear{}, invalid("name must be <YYYY>/<YYYY> with consecutive years, e.g. 2025/2026")
	}
	ay := AcademicYear{ID: sortid.New(), Name: name, IsActive: active, CreatedAt: s.now()}
	if err := s.store.CreateAcademicYear(ctx, ay); err != nil {
		return AcademicYear{}, fmt.Errorf("create academic year: %w", err)
	}
	return ay, nil
}

// ActivateAcademicYear makes a year the only active one.
func (s *Service) ActivateAcademicYear(ctx context.Context, id string) (AcademicYear, error) {
	ay, err := s.store.ActivateAcademicYear(ctx, id)
	if err != nil {
		return AcademicYear{}, fmt.Errorf("activate academic year: %w", err)
	}
	return ay, nil
}

// ActiveAcademicYear returns the active year or ErrNoActiveAcademicYear.
func (s *Service) ActiveAcademicYear(ctx context.Context) (AcademicYear, error) {
	ay, err := s.store.GetActiveAcademicYear(ctx)
	if errors.Is(err, ErrNotFound) {
		return AcademicYear{}, ErrNoActiveAcademicYear
	}
	if err != nil {
		return AcademicYear{}, fmt.Errorf("active academic year: %w", err)
	}
	return ay, nil
}

// ListAcademicYears returns every academic year.
func (s *Service) ListAcademicYears(ctx context.Context) ([]AcademicYear, error) {
	ays, err := s.store.ListAcademicYears(ctx)
	if err != nil {
		return nil, fmt.Errorf("list academic years: %w", err)
	}
	return ays, nil
}

// apiKeyPrefix starts every API key so that leaked keys are recognisable.
const apiKeyPrefix = "pk_"

// CreateAPIKey makes a new directory API key; the key is returned once and
// only its SHA-256 is stored.
func (s *Service) CreateAPIKey(ctx context.Context, name string) (APIKey, string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return APIKey{}, "", invalid("name is required (at most 100 characters)")
	}
	raw, err := randomBytes(32)
	if err != nil {
		return APIKey{}, "", err
	}
	key := apiKeyPrefix + base64.RawURLEncoding.EncodeToString(raw)
	k := APIKey{ID: sortid.New(), Name: name, Prefix: key[:10], Hash: hashAPIKey(key), CreatedAt: s.now()}
	if err := s.store.CreateAPIKey(ctx, k); err != nil {
		return APIKey{}, "", fmt.Errorf("create api key: %w", err)
	}
	return k, key, nil
}

func hashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// AuthenticateAPIKey returns the active key matching key. The lookup is by
// SHA-256 of a high-entropy key, so no secret is compared byte by byte.
func (s *Service) AuthenticateAPIKey(ctx context.Context, key string) (APIKey, error) {
	if key == "" || len(key) > 200 {
		return APIKey{}, ErrInvalidAPIKey
	}
	k, err := s.store.GetAPIKeyByHash(ctx, hashAPIKey(key))
	if errors.Is(err, ErrNotFound) {
		return APIKey{}, ErrInvalidAPIKey
	}
	if err != nil {
		return APIKey{}, fmt.Errorf("authenticate api key: %w", err)
	}
	if k.RevokedAt != nil {
		return APIKey{}, ErrInvalidAPIKey
	}
	return k, nil
}

// ListAPIKeys returns every API key (hashes only).
func (s *Service) ListAPIKeys(ctx context.Context) ([]APIKey, error) {
	ks, err := s.store.ListAPIKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	return ks, nil
}

// RevokeAPIKey revokes an API key.
func (s *Service) RevokeAPIKey(ctx context.Context, id string) (APIKey, error) {
	k, err := s.store.RevokeAPIKey(ctx, id, s.now())
	if err != nil {
		return APIKey{}, fmt.Errorf("revoke api key: %w", err)
	}
	return k, nil
}
