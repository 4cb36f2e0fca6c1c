package client

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/seedhq/portal/pkg/labwire"
)

// ErrInvalidLicense is wrapped by every error of VerifyLicenseToken: a
// malformed token, a bad signature or an unknown payload version. It is
// labwire.ErrLicenseInvalid.
var ErrInvalidLicense = labwire.ErrLicenseInvalid

// LicensePayload is the signed content of a licence token
// (labwire.LicensePayload).
type LicensePayload = labwire.LicensePayload

// VerifyLicenseToken checks a licence token offline and returns its payload.
// The token is base64url(payload JSON) "." base64url(signature), without
// padding, the signature being Ed25519 over the exact payload bytes; the
// key is the portal's (c.Exam.Licenses.PublicKey, or ParseLicensePublicKey).
// Spaces around the token are ignored. It is labwire.ParseLicenseToken, the
// portal's own check, and it also refuses a payload without npsn,
// hardware_id or expires_at.
//
// It checks the format and the signature only: the caller decides what an
// expired licence (Expired) or another machine's (HardwareID) means, and
// only the portal knows about revocation. Every error wraps
// ErrInvalidLicense.
func VerifyLicenseToken(token string, publicKey ed25519.PublicKey) (*LicensePayload, error) {
	if len(publicKey) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: public key has %d bytes, want %d", ErrInvalidLicense, len(publicKey), ed25519.PublicKeySize)
	}
	p, err := labwire.ParseLicenseToken(publicKey, strings.TrimSpace(token))
	if err != nil {
		return nil, err
	}
	if p.NPSN == "" || p.HardwareID == "" || p.ExpiresAt.IsZero() {
		return nil, fmt.Errorf("%w: payload lacks npsn, hardware_id or expires_at", ErrInvalidLicense)
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
