package client

import (
	"context"
	"crypto/ed25519"
	"net/http"
	"net/url"
	"time"
)

// Operating modes of a licence.
const (
	ModeSemiOffline = "SEMI_OFFLINE"
	ModeOffline     = "OFFLINE"
	ModeOnline      = "ONLINE"
)

// License is a licence as the portal lists it.
type License struct {
	LicenseID     string     `json:"license_id"`
	NPSN          string     `json:"npsn"`
	SchoolName    string     `json:"school_name"`
	Region        string     `json:"region"`
	HardwareID    string     `json:"hardware_id"`
	MaxStudents   int        `json:"max_students"`
	OperatingMode string     `json:"operating_mode"`
	IssuedAt      time.Time  `json:"issued_at"`
	ExpiresAt     time.Time  `json:"expires_at"`
	RevokedAt     *time.Time `json:"revoked_at"` // nil while not revoked
	// Status is active, expired or revoked.
	Status       string `json:"status"`
	LicenseToken string `json:"license_token"`
}

// LicenseRequest is the body of a licence issue. NPSN is 8 digits,
// MaxStudents 1..100000, DurationDays 1..3650, OperatingMode one of the
// Mode* constants.
type LicenseRequest struct {
	NPSN       string `json:"npsn"`
	SchoolName string `json:"school_name"`
	// Region is where the school is, broadest first ("Jawa Barat/Kota
	// Bandung"), for the item analysis by region; optional.
	Region        string `json:"region,omitempty"`
	HardwareID    string `json:"hardware_id"`
	MaxStudents   int    `json:"max_students"`
	DurationDays  int    `json:"duration_days"`
	OperatingMode string `json:"operating_mode"`
}

// IssuedLicense is the answer of a licence issue.
type IssuedLicense struct {
	// LicenseToken is the token to hand to the school's lab server.
	LicenseToken string               `json:"license_token"`
	Payload      IssuedLicensePayload `json:"payload"`
	// License is the stored licence, when the portal sends it (an
	// extension of the spec's answer); nil otherwise.
	License *License `json:"license,omitempty"`
}

// IssuedLicensePayload is the payload part of a licence issue's answer.
type IssuedLicensePayload struct {
	LicenseID string    `json:"license_id"`
	ExpiresAt time.Time `json:"expires_at"`
	// Signature is the token's Ed25519 signature, standard base64.
	Signature string `json:"signature"`
}

// Generate issues a licence (POST /api/v1/licenses/generate, operator).
func (s *ExamLicensesService) Generate(ctx context.Context, req *LicenseRequest) (*IssuedLicense, *Response, error) {
	ctx = creating(ctx)
	if req == nil {
		return nil, nil, errorf("licenses generate: nil request")
	}
	out := new(IssuedLicense)
	resp, err := s.client.exam(ctx, http.MethodPost, "licenses/generate", nil, req, out, credBearer)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// PublicKey returns the Ed25519 key that verifies licence tokens
// (GET /api/v1/licenses/public-key, no credential), for VerifyLicenseToken.
func (s *ExamLicensesService) PublicKey(ctx context.Context) (ed25519.PublicKey, *Response, error) {
	var out struct {
		Algorithm string `json:"algorithm"`
		PublicKey string `json:"public_key"`
	}
	resp, err := s.client.exam(ctx, http.MethodGet, "licenses/public-key", nil, nil, &out, credNone)
	if err != nil {
		return nil, resp, err
	}
	if out.Algorithm != "Ed25519" {
		return nil, resp, errorf("licence public key: algorithm %q, want Ed25519", out.Algorithm)
	}
	key, err := ParseLicensePublicKey(out.PublicKey)
	if err != nil {
		return nil, resp, err
	}
	return key, resp, nil
}

// LicenseListOptions filters List.
type LicenseListOptions struct {
	// NPSN keeps the licences of one school.
	NPSN string
}

// List returns issued licences, newest first (GET /api/v1/licenses,
// operator). opts may be nil.
func (s *ExamLicensesService) List(ctx context.Context, opts *LicenseListOptions) ([]*License, *Response, error) {
	q := url.Values{}
	if opts != nil {
		setIf(q, "npsn", opts.NPSN)
	}
	return examData[[]*License](ctx, s.client, http.MethodGet, "licenses", q, nil)
}

// Revoke revokes a licence (POST /api/v1/licenses/{id}/revoke, operator):
// handshakes with it are refused from now on.
func (s *ExamLicensesService) Revoke(ctx context.Context, licenseID string) (*License, *Response, error) {
	id, err := segment("licence id", licenseID)
	if err != nil {
		return nil, nil, err
	}
	return examData[*License](ctx, s.client, http.MethodPost, "licenses/"+id+"/revoke", nil, nil)
}
