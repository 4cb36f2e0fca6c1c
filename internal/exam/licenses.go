package exam

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/sortid"
	"github.com/seedhq/portal/pkg/labwire"
)

// Operating modes of a licence.
var operatingModes = map[string]bool{"SEMI_OFFLINE": true, "OFFLINE": true, "ONLINE": true}

// LicenseInput is the body of POST /api/v1/licenses/generate.
type LicenseInput struct {
	NPSN          string
	SchoolName    string
	Region        string
	HardwareID    string
	MaxStudents   int
	DurationDays  int
	OperatingMode string
}

// maxRegionBytes bounds a licence's region path.
const maxRegionBytes = 200

// cleanRegion returns a region path trimmed of spaces and slashes at its
// ends and around its parts ("Jawa Barat / Kota Bandung/" is
// "Jawa Barat/Kota Bandung").
func cleanRegion(r string) string {
	parts := strings.Split(strings.Trim(strings.TrimSpace(r), "/"), "/")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return strings.Join(parts, "/")
}

// InRegion reports whether a region path lies in region: the same path,
// or one below it ("Jawa Barat/Kota Bandung" is in "Jawa Barat"), case
// aside.
func InRegion(path, region string) bool {
	path, region = strings.ToLower(cleanRegion(path)), strings.ToLower(cleanRegion(region))
	return region != "" && (path == region || strings.HasPrefix(path, region+"/"))
}

// IssuedLicense is a new licence with its signature.
type IssuedLicense struct {
	License   License
	Signature []byte
}

// GenerateLicense validates in, signs a licence and stores it.
func (s *Service) GenerateLicense(ctx context.Context, in LicenseInput) (IssuedLicense, error) {
	in.NPSN = strings.TrimSpace(in.NPSN)
	in.SchoolName = strings.TrimSpace(in.SchoolName)
	in.Region = cleanRegion(in.Region)
	in.HardwareID = strings.TrimSpace(in.HardwareID)
	in.OperatingMode = strings.ToUpper(strings.TrimSpace(in.OperatingMode))
	switch {
	case !labwire.ValidNPSN(in.NPSN):
		return IssuedLicense{}, invalid("npsn must be 8 digits")
	case in.SchoolName == "" || len(in.SchoolName) > 200:
		return IssuedLicense{}, invalid("school_name is required (at most 200 characters)")
	case len(in.Region) > maxRegionBytes || strings.ContainsAny(in.Region, "\r\n") || strings.Contains(in.Region, "//"):
		return IssuedLicense{}, invalid("region must be one line of at most 200 bytes, its parts separated by single slashes (Jawa Barat/Kota Bandung)")
	case in.HardwareID == "" || len(in.HardwareID) > 200:
		return IssuedLicense{}, invalid("hardware_id is required (at most 200 characters)")
	case in.MaxStudents < 1 || in.MaxStudents > 100000:
		return IssuedLicense{}, invalid("max_students must be between 1 and 100000")
	case in.DurationDays < 1 || in.DurationDays > 3650:
		return IssuedLicense{}, invalid("duration_days must be between 1 and 3650")
	case !operatingModes[in.OperatingMode]:
		return IssuedLicense{}, invalid("operating_mode must be SEMI_OFFLINE, OFFLINE or ONLINE")
	}
	now := s.now().Truncate(time.Second)
	l := License{
		ID:            sortid.New(),
		NPSN:          in.NPSN,
		SchoolName:    in.SchoolName,
		Region:        in.Region,
		HardwareID:    in.HardwareID,
		MaxStudents:   in.MaxStudents,
		OperatingMode: in.OperatingMode,
		IssuedAt:      now,
		ExpiresAt:     now.AddDate(0, 0, in.DurationDays),
	}
	token, sig, err := labwire.SignLicense(s.signingKey, labwire.LicensePayload{
		V: 1, LicenseID: l.ID, NPSN: l.NPSN, SchoolName: l.SchoolName, HardwareID: l.HardwareID,
		MaxStudents: l.MaxStudents, OperatingMode: l.OperatingMode, IssuedAt: l.IssuedAt, ExpiresAt: l.ExpiresAt,
	})
	if err != nil {
		return IssuedLicense{}, fmt.Errorf("sign licence: %w", err)
	}
	l.Token = token
	if err := s.store.CreateLicense(ctx, l); err != nil {
		return IssuedLicense{}, fmt.Errorf("store licence: %w", err)
	}
	return IssuedLicense{License: l, Signature: sig}, nil
}

// LicenseStatus returns active, expired or revoked for l at time now.
func LicenseStatus(l License, now time.Time) string {
	switch {
	case l.Revoked():
		return "revoked"
	case !now.Before(l.ExpiresAt):
		return "expired"
	default:
		return "active"
	}
}

// ListLicenses returns the licences of a school (all when npsn is empty).
func (s *Service) ListLicenses(ctx context.Context, npsn string) ([]License, error) {
	ls, err := s.store.ListLicenses(ctx, LicenseFilter{NPSN: npsn})
	if err != nil {
		return nil, fmt.Errorf("list licences: %w", err)
	}
	return ls, nil
}

// RevokeLicense revokes a licence; handshakes with it are refused from now on
// and tokens already issued stop working when they expire.
func (s *Service) RevokeLicense(ctx context.Context, id string) (License, error) {
	l, err := s.store.RevokeLicense(ctx, id, s.now())
	if err != nil {
		return License{}, fmt.Errorf("revoke licence: %w", err)
	}
	return l, nil
}

// Now returns the service's current time (UTC).
func (s *Service) Now() time.Time { return s.now() }
