package client

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrInvalidLicense is wrapped by every error of VerifyLicenseToken: a
// malformed token, a bad signature or an unknown payload version.
var ErrInvalidLicense = errors.New("client: invalid licence token")

// LicensePayload is the signed content of a licence token.
type LicensePayload struct {
	// V is the payload format, 1.
	V             int       `json:"v"`
	LicenseID     string    `json:"license_id"`
	NPSN          string    `json:"npsn"`
	SchoolName    string    `json:"school_name"`
	HardwareID    string    `json:"hardware_id"`
	MaxStudents   int       `json:"max_students"`
	OperatingMode string    `json:"operating_mode"`
	IssuedAt      time.Time `json:"issued_at"`
	ExpiresAt     time.Time `json:"expires_at"`
}

// Expired reports whether the licence has expired at now (its ExpiresAt is
// not after now).
func (p *LicensePayload) Expired(now time.Time) bool { return !now.Before(p.ExpiresAt) }

// VerifyLicenseToken checks a licence token offline and returns its payload.
// The token is base64url(payload JSON) "." base64url(signature), without
// padding, the signature being Ed25519 over the exact payload bytes; the
// key is the portal's (c.Exam.Licenses.PublicKey, or ParseLicensePublicKey).
//
// It checks the format and the signature only: the caller decides what an
// expired licence (Expired) or another machine's (HardwareID) means, and
// only the portal knows about revocation. Every error wraps
// ErrInvalidLicense.
func VerifyLicenseToken(token string, publicKey ed25519.PublicKey) (*LicensePayload, error) {
	if len(publicKey) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: public key has %d bytes, want %d", ErrInvalidLicense, len(publicKey), ed25519.PublicKeySize)
	}
	encPayload, encSig, ok := strings.Cut(strings.TrimSpace(token), ".")
	if !ok || encPayload == "" || encSig == "" || strings.Contains(encSig, ".") {
		return nil, fmt.Errorf("%w: want two base64url parts joined by a dot", ErrInvalidLicense)
	}
	payload, err := base64.RawURLEncoding.Strict().DecodeString(encPayload)
	if err != nil {
		return nil, fmt.Errorf("%w: payload is not base64url: %v", ErrInvalidLicense, err)
	}
	sig, err := base64.RawURLEncoding.Strict().DecodeString(encSig)
	if err != nil {
		return nil, fmt.Errorf("%w: signature is not base64url: %v", ErrInvalidLicense, err)
	}
	if len(sig) != ed25519.SignatureSize {
		return nil, fmt.Errorf("%w: signature has %d bytes, want %d", ErrInvalidLicense, len(sig), ed25519.SignatureSize)
	}
	if !ed25519.Verify(publicKey, payload, sig) {
		return nil, fmt.Errorf("%w: bad signature", ErrInvalidLicense)
	}
	var p LicensePayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return nil, fmt.Errorf("%w: payload: %v", ErrInvalidLicense, err)
	}
	if p.V != 1 {
		return nil, fmt.Errorf("%w: payload version %d, want 1", ErrInvalidLicense, p.V)
	}
	if p.LicenseID == "" || p.NPSN == "" || p.HardwareID == "" || p.ExpiresAt.IsZero() {
		return nil, fmt.Errorf("%w: payload lacks license_id, npsn, hardware_id or expires_at", ErrInvalidLicense)
	}
	return &p, nil
}

// ParseLicensePublicKey decodes the portal's licence key as
// GET /api/v1/licenses/public-key gives it: 32 bytes in standard base64.
func ParseLicensePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("client: licence public key is not base64: %w", err)
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("client: licence public key has %d bytes, want %d", len(b), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}
