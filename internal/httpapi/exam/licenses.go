package exam

import (
	"encoding/base64"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

type generateLicenseRequest struct {
	NPSN          string `json:"npsn"`
	SchoolName    string `json:"school_name"`
	Region        string `json:"region"`
	HardwareID    string `json:"hardware_id"`
	MaxStudents   int    `json:"max_students"`
	DurationDays  int    `json:"duration_days"`
	OperatingMode string `json:"operating_mode"`
}

// licenseView is a licence as the API shows it.
type licenseView struct {
	LicenseID     string     `json:"license_id"`
	NPSN          string     `json:"npsn"`
	SchoolName    string     `json:"school_name"`
	Region        string     `json:"region"`
	HardwareID    string     `json:"hardware_id"`
	MaxStudents   int        `json:"max_students"`
	OperatingMode string     `json:"operating_mode"`
	IssuedAt      time.Time  `json:"issued_at"`
	ExpiresAt     time.Time  `json:"expires_at"`
	RevokedAt     *time.Time `json:"revoked_at"`
	Status        string     `json:"status"`
	LicenseToken  string     `json:"license_token"`
}

func newLicenseView(l exam.License, now time.Time) licenseView {
	return licenseView{
		LicenseID: l.ID, NPSN: l.NPSN, SchoolName: l.SchoolName, Region: l.Region, HardwareID: l.HardwareID,
		MaxStudents: l.MaxStudents, OperatingMode: l.OperatingMode,
		IssuedAt: l.IssuedAt.UTC(), ExpiresAt: l.ExpiresAt.UTC(), RevokedAt: respond.UTC(l.RevokedAt),
		Status: exam.LicenseStatus(l, now), LicenseToken: l.Token,
	}
}

// generateLicense handles POST /api/v1/licenses/generate: an operator issues a
// signed licence for one school's machine.
func (a *api) generateLicense(w http.ResponseWriter, r *http.Request) {
	var req generateLicenseRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	issued, err := a.svc.GenerateLicense(r.Context(), exam.LicenseInput{
		NPSN: req.NPSN, SchoolName: req.SchoolName, Region: req.Region, HardwareID: req.HardwareID,
		MaxStudents: req.MaxStudents, DurationDays: req.DurationDays, OperatingMode: req.OperatingMode,
	})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	type payload struct {
		LicenseID string    `json:"license_id"`
		ExpiresAt time.Time `json:"expires_at"`
		Signature string    `json:"signature"`
	}
	respond.JSON(w, http.StatusCreated, struct {
		Success      bool        `json:"success"`
		LicenseToken string      `json:"license_token"`
		Payload      payload     `json:"payload"`
		License      licenseView `json:"license"` // (ext) the stored licence
	}{
		Success:      true,
		LicenseToken: issued.License.Token,
		Payload: payload{
			LicenseID: issued.License.ID,
			ExpiresAt: issued.License.ExpiresAt.UTC(),
			Signature: base64.StdEncoding.EncodeToString(issued.Signature),
		},
		License: newLicenseView(issued.License, a.svc.Now()),
	})
}

// licensePublicKey handles GET /api/v1/licenses/public-key (no credential):
// the Ed25519 key that verifies licence tokens offline.
func (a *api) licensePublicKey(w http.ResponseWriter, r *http.Request) {
	respond.JSON(w, http.StatusOK, struct {
		Success   bool   `json:"success"`
		Algorithm string `json:"algorithm"`
		PublicKey string `json:"public_key"`
	}{true, "Ed25519", base64.StdEncoding.EncodeToString(a.svc.PublicKey())})
}

// listLicenses handles GET /api/v1/licenses?npsn=: issued licences, newest first.
func (a *api) listLicenses(w http.ResponseWriter, r *http.Request) {
	ls, err := a.svc.ListLicenses(r.Context(), r.URL.Query().Get("npsn"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	now := a.svc.Now()
	views := make([]licenseView, len(ls))
	for i, l := range ls {
		views[i] = newLicenseView(l, now)
	}
	respond.Data(w, http.StatusOK, views)
}

// revokeLicense handles POST /api/v1/licenses/{id}/revoke: handshakes with
// the licence are refused from now on.
func (a *api) revokeLicense(w http.ResponseWriter, r *http.Request) {
	l, err := a.svc.RevokeLicense(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusOK, newLicenseView(l, a.svc.Now()))
}
