package labwire

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// LicenseVersion is the only payload version ("v") that SignLicense writes
// and ParseLicenseToken accepts.
const LicenseVersion = 1

// MaxLicenseTokenSize bounds the length in bytes of a licence token;
// ParseLicenseToken rejects longer tokens before decoding anything.
const MaxLicenseTokenSize = 8 << 10

// ErrLicenseInvalid is returned by ParseLicenseToken (wrapped) for a
// malformed token or a signature that does not verify.
var ErrLicenseInvalid = errors.New("the licence token is malformed or its signature does not verify")

// LicensePayload is the signed content of a licence token.
type LicensePayload struct {
	// V is the payload format, LicenseVersion.
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

// tokenEncoding is base64url without padding; Strict rejects non-zero
// trailing bits, so every byte string has exactly one encoding.
var tokenEncoding = base64.RawURLEncoding.Strict()

// GenerateSigningKey returns a new random Ed25519 key for signing licences.
func GenerateSigningKey() (ed25519.PrivateKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate signing key: %w", err)
	}
	return priv, nil
}

// SignLicense signs p and returns the licence token
// base64url(payload JSON) + "." + base64url(signature), both without padding,
// and the raw 64-byte Ed25519 signature over the exact payload JSON bytes.
//
// A zero p.V is written as LicenseVersion; any other version is refused. Times
// are written in UTC.
func SignLicense(key ed25519.PrivateKey, p LicensePayload) (token string, signature []byte, err error) {
	if len(key) != ed25519.PrivateKeySize {
		return "", nil, fmt.Errorf("sign licence: private key is %d bytes, want %d", len(key), ed25519.PrivateKeySize)
	}
	if p.V == 0 {
		p.V = LicenseVersion
	}
	if p.V != LicenseVersion {
		return "", nil, fmt.Errorf("sign licence: unsupported payload version %d", p.V)
	}
	if p.LicenseID == "" {
		return "", nil, errors.New("sign licence: license_id is empty")
	}
	p.IssuedAt, p.ExpiresAt = p.IssuedAt.UTC(), p.ExpiresAt.UTC()
	payload, err := json.Marshal(p)
	if err != nil {
		return "", nil, fmt.Errorf("sign licence: %w", err)
	}
	signature = ed25519.Sign(key, payload)
	token = tokenEncoding.EncodeToString(payload) + "." + tokenEncoding.EncodeToString(signature)
	if len(token) > MaxLicenseTokenSize {
		return "", nil, fmt.Errorf("sign licence: token is %d bytes, over the limit of %d", len(token), MaxLicenseTokenSize)
	}
	return token, signature, nil
}

// ParseLicenseToken verifies the signature and decodes the payload, offline,
// with the portal's public key (GET /api/v1/licenses/public-key). It does
// NOT check expiry, revocation, npsn or hardware: callers do.
//
// Any malformed token (too long, not two base64url parts, a signature of the
// wrong size, a payload that is not a JSON object of version LicenseVersion
// with a license_id) or a bad signature returns an error wrapping
// ErrLicenseInvalid. A public key of the wrong size is an internal error.
func ParseLicenseToken(pub ed25519.PublicKey, token string) (LicensePayload, error) {
	if len(pub) != ed25519.PublicKeySize {
		return LicensePayload{}, fmt.Errorf("parse licence: public key is %d bytes, want %d", len(pub), ed25519.PublicKeySize)
	}
	if len(token) > MaxLicenseTokenSize {
		return LicensePayload{}, licenseInvalid("token too long")
	}
	// The decoder skips '\r' and '\n'; refuse them and anything else outside
	// the alphabet, so that a token has exactly one spelling.
	for i := 0; i < len(token); i++ {
		if !isTokenByte(token[i]) {
			return LicensePayload{}, licenseInvalid("character outside base64url")
		}
	}
	payloadPart, sigPart, ok := strings.Cut(token, ".")
	if !ok || payloadPart == "" || strings.Contains(sigPart, ".") {
		return LicensePayload{}, licenseInvalid("want two dot-separated parts")
	}
	if tokenEncoding.DecodedLen(len(sigPart)) != ed25519.SignatureSize {
		return LicensePayload{}, licenseInvalid("signature has the wrong size")
	}
	sig, err := tokenEncoding.DecodeString(sigPart)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return LicensePayload{}, licenseInvalid("signature is not base64url")
	}
	payload, err := tokenEncoding.DecodeString(payloadPart)
	if err != nil {
		return LicensePayload{}, licenseInvalid("payload is not base64url")
	}
	if !ed25519.Verify(pub, payload, sig) {
		return LicensePayload{}, licenseInvalid("signature does not verify")
	}
	// The payload is authentic from here on; still decode it defensively.
	payload = bytes.TrimSpace(payload)
	if len(payload) == 0 || payload[0] != '{' {
		return LicensePayload{}, licenseInvalid("payload is not a JSON object")
	}
	var p LicensePayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return LicensePayload{}, licenseInvalid("payload is not valid JSON")
	}
	if p.V != LicenseVersion {
		return LicensePayload{}, licenseInvalid(fmt.Sprintf("unsupported payload version %d", p.V))
	}
	if p.LicenseID == "" {
		return LicensePayload{}, licenseInvalid("license_id is empty")
	}
	return p, nil
}

// isTokenByte reports whether c may appear in a licence token: the base64url
// alphabet and the dot.
func isTokenByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.'
}

// licenseInvalid wraps ErrLicenseInvalid with a reason.
func licenseInvalid(reason string) error {
	return fmt.Errorf("%w (%s)", ErrLicenseInvalid, reason)
}
