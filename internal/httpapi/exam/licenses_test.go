package exam_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

func TestLicenseGenerate(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		res := h.Op("POST", "/api/v1/licenses/generate", httpapitest.ValidLicenseReq(httpapitest.NPSNA, "HW-1")).Expect(201).M()
		httpapitest.HasFields(t, res, "success", "license_token", "payload")
		payload := res["payload"].(map[string]any)
		httpapitest.HasFields(t, payload, "license_id", "expires_at", "signature")

		// The token verifies offline with the published key.
		pk := h.Req("GET", "/api/v1/licenses/public-key", nil).Expect(200).M()
		if pk["algorithm"] != "Ed25519" {
			t.Fatalf("algorithm = %v", pk["algorithm"])
		}
		pub, err := base64.StdEncoding.DecodeString(pk["public_key"].(string))
		if err != nil || len(pub) != ed25519.PublicKeySize {
			t.Fatalf("public_key = %v (%v)", pk["public_key"], err)
		}
		body, sigPart, ok := strings.Cut(res["license_token"].(string), ".")
		if !ok {
			t.Fatalf("license_token %v has no dot", res["license_token"])
		}
		payloadJSON, err1 := base64.RawURLEncoding.DecodeString(body)
		sig, err2 := base64.RawURLEncoding.DecodeString(sigPart)
		if err1 != nil || err2 != nil {
			t.Fatalf("token parts are not unpadded base64url: %v %v", err1, err2)
		}
		if !ed25519.Verify(pub, payloadJSON, sig) {
			t.Fatal("signature does not verify with the public key")
		}
		if payload["signature"] != base64.StdEncoding.EncodeToString(sig) {
			t.Fatalf("payload.signature %v is not the token's signature in std base64", payload["signature"])
		}
		var p map[string]any
		json.Unmarshal(payloadJSON, &p)
		if p["license_id"] != payload["license_id"] || p["npsn"] != httpapitest.NPSNA || p["hardware_id"] != "HW-1" || p["v"] != 1.0 {
			t.Fatalf("token payload = %v", p)
		}
		exp, _ := time.Parse(time.RFC3339, payload["expires_at"].(string))
		if want := h.Clock.Now().AddDate(0, 0, 365); exp.Sub(want).Abs() > time.Second {
			t.Fatalf("expires_at = %v, want about %v", exp, want)
		}

		h.Req("POST", "/api/v1/licenses/generate", httpapitest.ValidLicenseReq(httpapitest.NPSNA, "HW-1")).ExpectError(401, "UNAUTHORIZED")
	})
}

func TestLicenseValidation(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		cases := map[string]func(*httpapitest.LicenseReq){
			"npsn not 8 digits":   func(r *httpapitest.LicenseReq) { r.NPSN = "1234567" },
			"npsn letters":        func(r *httpapitest.LicenseReq) { r.NPSN = "2010000A" },
			"empty school_name":   func(r *httpapitest.LicenseReq) { r.SchoolName = " " },
			"empty hardware_id":   func(r *httpapitest.LicenseReq) { r.HardwareID = "" },
			"max_students 0":      func(r *httpapitest.LicenseReq) { r.MaxStudents = 0 },
			"max_students 100001": func(r *httpapitest.LicenseReq) { r.MaxStudents = 100001 },
			"duration_days 0":     func(r *httpapitest.LicenseReq) { r.DurationDays = 0 },
			"duration_days 3651":  func(r *httpapitest.LicenseReq) { r.DurationDays = 3651 },
			"operating_mode":      func(r *httpapitest.LicenseReq) { r.OperatingMode = "HYBRID" },
		}
		for name, mutate := range cases {
			t.Run(name, func(t *testing.T) {
				req := httpapitest.ValidLicenseReq(httpapitest.NPSNA, "HW-1")
				mutate(&req)
				h.Op("POST", "/api/v1/licenses/generate", req).ExpectError(400, "VALIDATION_FAILED")
			})
		}
		h.Op("GET", "/api/v1/licenses", nil).Expect(200)
		var list struct {
			Data []any `json:"data"`
		}
		h.Op("GET", "/api/v1/licenses", nil).Decode(&list)
		if len(list.Data) != 0 {
			t.Fatalf("rejected licences were stored: %v", list.Data)
		}
	})
}

type licenseJSON struct {
	LicenseID     string     `json:"license_id"`
	NPSN          string     `json:"npsn"`
	SchoolName    string     `json:"school_name"`
	HardwareID    string     `json:"hardware_id"`
	MaxStudents   int        `json:"max_students"`
	OperatingMode string     `json:"operating_mode"`
	IssuedAt      time.Time  `json:"issued_at"`
	ExpiresAt     time.Time  `json:"expires_at"`
	RevokedAt     *time.Time `json:"revoked_at"`
	Status        string     `json:"status"`
	LicenseToken  string     `json:"license_token"`
}

func TestLicenseListAndRevoke(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		tokA, idA := h.IssueLicense(httpapitest.NPSNA, "HW-A", 30)
		h.Clock.Add(time.Second)
		_, idB := h.IssueLicense(httpapitest.NPSNB, "HW-B", 30)

		var all struct {
			Success bool          `json:"success"`
			Data    []licenseJSON `json:"data"`
		}
		h.Op("GET", "/api/v1/licenses", nil).Expect(200).Decode(&all)
		if len(all.Data) != 2 || all.Data[0].LicenseID != idB || all.Data[1].LicenseID != idA {
			t.Fatalf("licences = %+v, want B then A (newest first)", all.Data)
		}
		var onlyA struct {
			Success bool          `json:"success"`
			Data    []licenseJSON `json:"data"`
		}
		h.Op("GET", "/api/v1/licenses?npsn="+httpapitest.NPSNA, nil).Expect(200).Decode(&onlyA)
		if len(onlyA.Data) != 1 {
			t.Fatalf("npsn filter: %+v", onlyA.Data)
		}
		a := onlyA.Data[0]
		if a.LicenseID != idA || a.Status != "active" || a.RevokedAt != nil || a.LicenseToken != tokA ||
			a.SchoolName != "SMA Negeri "+httpapitest.NPSNA || a.MaxStudents != 500 || a.OperatingMode != "SEMI_OFFLINE" {
			t.Fatalf("licence = %+v", a)
		}
		// revoked_at is present as null while active.
		if !strings.Contains(string(h.Op("GET", "/api/v1/licenses?npsn="+httpapitest.NPSNA, nil).Body), `"revoked_at":null`) {
			t.Fatal("revoked_at is not null for an active licence")
		}

		var revoked struct {
			Success bool        `json:"success"`
			Data    licenseJSON `json:"data"`
		}
		h.Op("POST", "/api/v1/licenses/"+idA+"/revoke", nil).Expect(200).Decode(&revoked)
		if revoked.Data.Status != "revoked" || revoked.Data.RevokedAt == nil {
			t.Fatalf("revoked = %+v", revoked.Data)
		}
		h.Op("POST", "/api/v1/licenses/no-such-licence/revoke", nil).ExpectError(404, "NOT_FOUND")

		// Expired licences read as expired.
		h.Advance(31 * 24 * time.Hour)
		h.Op("GET", "/api/v1/licenses?npsn="+httpapitest.NPSNB, nil).Decode(&onlyA)
		if onlyA.Data[0].Status != "expired" {
			t.Fatalf("status after expiry = %s", onlyA.Data[0].Status)
		}
	})
}
