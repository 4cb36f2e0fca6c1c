package exam_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

func TestVerifyServer(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lic, id := h.IssueLicense(httpapitest.NPSNA, "HW-1", 30)
		res := h.Req("POST", "/api/v1/sync/verify-server", httpapitest.HandshakeReq{
			ServerCode: "LAB-01", NPSN: httpapitest.NPSNA, HardwareID: "HW-1", LicenseToken: lic,
		}).Expect(200).M()
		httpapitest.HasFields(t, res, "success", "status", "server_name", "server_time", "access_token",
			"access_token_expires_at", "package_key", "heartbeat_interval_seconds", "license")
		if res["status"] != "VERIFIED" || res["server_name"] != "SMA Negeri "+httpapitest.NPSNA || res["heartbeat_interval_seconds"] != 60.0 {
			t.Fatalf("handshake = %v", res)
		}
		if key, err := base64.StdEncoding.DecodeString(res["package_key"].(string)); err != nil || len(key) != 32 {
			t.Fatalf("package_key = %v", res["package_key"])
		}
		l := res["license"].(map[string]any)
		if httpapitest.Keys(l) != "expires_at,license_id,max_students,operating_mode" || l["license_id"] != id {
			t.Fatalf("license = %v", l)
		}
		st, err := time.Parse(time.RFC3339, res["server_time"].(string))
		if err != nil || !st.Equal(h.Clock.Now()) {
			t.Fatalf("server_time = %v (%v), want %v", res["server_time"], err, h.Clock.Now())
		}

		// The access token works on sync endpoints but not on operator ones.
		tok := res["access_token"].(string)
		h.Req("POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-01"}, httpapitest.Bearer(tok)...).Expect(200)
		h.Req("GET", "/api/v1/licenses", nil, httpapitest.Bearer(tok)...).ExpectError(401, "UNAUTHORIZED")
		h.Req("POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-01"}, httpapitest.Bearer(h.Operator())...).
			ExpectError(401, "UNAUTHORIZED")
	})
}

func TestVerifyServerRefusals(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lic, id := h.IssueLicense(httpapitest.NPSNA, "HW-1", 30)
		hs := func(code, npsn, hw, token string) *httpapitest.Response {
			t.Helper()
			return h.Req("POST", "/api/v1/sync/verify-server", httpapitest.HandshakeReq{ServerCode: code, NPSN: npsn, HardwareID: hw, LicenseToken: token})
		}

		// Bad signature: flip one character of the signature.
		body, sig, _ := strings.Cut(lic, ".")
		flipped := []byte(sig)
		if flipped[5] == 'A' {
			flipped[5] = 'B'
		} else {
			flipped[5] = 'A'
		}
		hs("LAB-01", httpapitest.NPSNA, "HW-1", body+"."+string(flipped)).ExpectError(401, "LICENSE_INVALID")
		hs("LAB-01", httpapitest.NPSNA, "HW-1", "garbage").ExpectError(401, "LICENSE_INVALID")
		hs("bad code!", httpapitest.NPSNA, "HW-1", lic).ExpectError(400, "VALIDATION_FAILED")

		hs("LAB-01", httpapitest.NPSNB, "HW-1", lic).ExpectError(403, "NPSN_MISMATCH")
		hs("LAB-01", httpapitest.NPSNA, "HW-2", lic).ExpectError(403, "HARDWARE_MISMATCH")

		// First handshake binds LAB-01 to HW-1; a second machine with its own
		// valid licence is refused on the same server_code.
		h.Verify("LAB-01", httpapitest.NPSNA, "HW-1", lic)
		lic2, _ := h.IssueLicense(httpapitest.NPSNA, "HW-2", 30)
		hs("LAB-01", httpapitest.NPSNA, "HW-2", lic2).ExpectError(403, "HARDWARE_MISMATCH")
		h.Verify("LAB-02", httpapitest.NPSNA, "HW-2", lic2) // on its own code it is fine

		var servers struct {
			Success bool `json:"success"`
			Data    []struct {
				ServerCode string    `json:"server_code"`
				NPSN       string    `json:"npsn"`
				HardwareID string    `json:"hardware_id"`
				LicenseID  string    `json:"license_id"`
				BoundAt    time.Time `json:"bound_at"`
			} `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/servers?npsn="+httpapitest.NPSNA, nil).Expect(200).Decode(&servers)
		if len(servers.Data) != 2 || servers.Data[0].ServerCode != "LAB-01" || servers.Data[0].HardwareID != "HW-1" ||
			servers.Data[0].LicenseID != id || servers.Data[0].NPSN != httpapitest.NPSNA || servers.Data[0].BoundAt.IsZero() {
			t.Fatalf("servers = %+v", servers.Data)
		}

		// An operator resets the binding: the replacement machine binds.
		h.Op("DELETE", "/api/v1/admin/servers/LAB-01", nil).Expect(200)
		h.Op("DELETE", "/api/v1/admin/servers/LAB-01", nil).ExpectError(404, "NOT_FOUND")
		h.Verify("LAB-01", httpapitest.NPSNA, "HW-2", lic2)
		hs("LAB-01", httpapitest.NPSNA, "HW-1", lic).ExpectError(403, "HARDWARE_MISMATCH")

		// Revoked.
		h.Op("POST", "/api/v1/licenses/"+id+"/revoke", nil).Expect(200)
		hs("LAB-03", httpapitest.NPSNA, "HW-1", lic).ExpectError(403, "LICENSE_REVOKED")

		// Expired.
		h.Advance(31 * 24 * time.Hour)
		hs("LAB-02", httpapitest.NPSNA, "HW-2", lic2).ExpectError(403, "LICENSE_EXPIRED")

		// Every attempt is in the sync log; refusals with their code.
		var logs struct {
			Success bool          `json:"success"`
			Data    []syncLogJSON `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/sync-logs?status=rejected&limit=1000", nil).Expect(200).Decode(&logs)
		codes := map[string]bool{}
		for _, l := range logs.Data {
			if l.Action != "verify_server" || l.Outcome != "rejected" {
				t.Fatalf("log %+v", l)
			}
			codes[l.ErrorCode] = true
		}
		for _, c := range []string{"LICENSE_INVALID", "NPSN_MISMATCH", "HARDWARE_MISMATCH", "LICENSE_REVOKED", "LICENSE_EXPIRED"} {
			if !codes[c] {
				t.Errorf("no rejected handshake logged with %s (have %v)", c, codes)
			}
		}
	})
}

type syncLogJSON struct {
	SyncID         string    `json:"sync_id"`
	Action         string    `json:"action"`
	ServerCode     string    `json:"server_code"`
	NPSN           string    `json:"npsn"`
	RecordCount    int       `json:"record_count"`
	Checksum       string    `json:"checksum_sha256"`
	IdempotencyKey string    `json:"idempotency_key"`
	Outcome        string    `json:"outcome"`
	ErrorCode      string    `json:"error_code"`
	ReceivedAt     time.Time `json:"received_at"`
}
