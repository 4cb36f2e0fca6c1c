package exam_test

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

type monitorJSON struct {
	ID                string    `json:"id"`
	ServerCode        string    `json:"server_code"`
	NPSN              string    `json:"npsn"`
	SchoolName        string    `json:"school_name"`
	HardwareID        string    `json:"hardware_id"`
	Status            string    `json:"status"`
	ActiveExamsCount  int       `json:"active_exams_count"`
	ConnectedStudents int       `json:"connected_students"`
	ClientIP          string    `json:"client_ip"`
	ClientVersion     string    `json:"client_version"`
	LastPingAt        time.Time `json:"last_ping_at"`
	UpdatedAt         time.Time `json:"updated_at"`
}

func TestHeartbeatAndMonitors(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab1 := h.NewLabServer("LAB-01", httpapitest.NPSNA)
		lab2 := h.NewLabServer("LAB-02", httpapitest.NPSNA)
		labB := h.NewLabServer("LAB-B", httpapitest.NPSNB)

		var hb struct {
			Success         bool      `json:"success"`
			ServerTime      time.Time `json:"server_time"`
			IntervalSeconds int       `json:"interval_seconds"`
		}
		h.As(lab1, "POST", "/api/v1/sync/heartbeat", map[string]any{
			"server_code": "LAB-01", "connected_students": 31, "active_exams_count": 2,
			"client_version": "labagent/1.0.0", "status": "online",
		}, "X-Forwarded-For", "10.1.2.3").Expect(200).Decode(&hb)
		if !hb.Success || hb.IntervalSeconds != 60 || !hb.ServerTime.Equal(h.Clock.Now()) {
			t.Fatalf("heartbeat = %+v", hb)
		}
		h.As(labB, "POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-B", "status": "syncing"}).Expect(200)

		h.As(lab1, "POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-02"}).ExpectError(403, "SERVER_MISMATCH")
		h.As(lab1, "POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-01", "status": "offline"}).
			ExpectError(400, "VALIDATION_FAILED")
		h.As(lab1, "POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-01", "connected_students": -1}).
			ExpectError(400, "VALIDATION_FAILED")

		var list struct {
			Success bool          `json:"success"`
			Data    []monitorJSON `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/monitors", nil).Expect(200).Decode(&list)
		if len(list.Data) != 2 {
			t.Fatalf("monitors = %+v", list.Data)
		}
		m := list.Data[0]
		if m.ServerCode != "LAB-01" || m.NPSN != httpapitest.NPSNA || m.SchoolName != "SMA Negeri "+httpapitest.NPSNA || m.HardwareID != "HW-LAB-01" ||
			m.Status != "online" || m.ConnectedStudents != 31 || m.ActiveExamsCount != 2 || m.ClientVersion != "labagent/1.0.0" ||
			m.ClientIP != "127.0.0.1" || m.ID == "" || !m.LastPingAt.Equal(h.Clock.Now()) {
			t.Fatalf("monitor = %+v", m)
		}

		filter := func(q string) []monitorJSON {
			t.Helper()
			h.Op("GET", "/api/v1/admin/monitors"+q, nil).Expect(200).Decode(&list)
			return list.Data
		}
		if ms := filter("?status=syncing"); len(ms) != 1 || ms[0].ServerCode != "LAB-B" {
			t.Fatalf("syncing = %+v", ms)
		}
		if ms := filter("?npsn=" + httpapitest.NPSNA); len(ms) != 1 || ms[0].ServerCode != "LAB-01" {
			t.Fatalf("npsn filter = %+v", ms)
		}
		h.Op("GET", "/api/v1/admin/monitors?status=asleep", nil).ExpectError(400, "VALIDATION_FAILED")

		// Silent for three intervals reads as offline; a ping brings it back.
		h.Clock.Add(2 * time.Minute)
		h.As(lab2, "POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-02"}).Expect(200)
		h.Clock.Add(time.Minute)
		if ms := filter("?status=offline"); len(ms) != 2 || ms[0].ServerCode != "LAB-01" || ms[1].ServerCode != "LAB-B" {
			t.Fatalf("offline = %+v", ms)
		}
		if ms := filter("?status=online"); len(ms) != 1 || ms[0].ServerCode != "LAB-02" || ms[0].Status != "online" {
			t.Fatalf("online = %+v", ms)
		}
		h.As(lab1, "POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-01"}).Expect(200)
		if ms := filter("?status=offline"); len(ms) != 1 || ms[0].ServerCode != "LAB-B" {
			t.Fatalf("offline after ping = %+v", ms)
		}
	})
}

func TestHeartbeatClientIPThroughTrustedProxy(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab := h.NewLabServer("LAB-01", httpapitest.NPSNA)
		h.As(lab, "POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-01"},
			"X-Forwarded-For", "198.51.100.20, 10.0.0.5").Expect(200)
		var list struct {
			Success bool          `json:"success"`
			Data    []monitorJSON `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/monitors", nil).Decode(&list)
		if list.Data[0].ClientIP != "198.51.100.20" {
			t.Fatalf("client_ip = %q, want the address before the trusted proxies", list.Data[0].ClientIP)
		}
		h.As(lab, "POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-01"}, "X-Real-IP", "198.51.100.21").Expect(200)
		h.Op("GET", "/api/v1/admin/monitors", nil).Decode(&list)
		if list.Data[0].ClientIP != "198.51.100.21" {
			t.Fatalf("client_ip = %q, want X-Real-IP", list.Data[0].ClientIP)
		}
	}, httpapitest.WithTrustedProxies("127.0.0.1/32", "::1/128", "10.0.0.0/8"))
}

func TestSyncLogs(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab := h.NewLabServer("LAB-01", httpapitest.NPSNA)
		h.Clock.Add(time.Second)
		h.NewLabServer("LAB-B", httpapitest.NPSNB)
		h.Clock.Add(time.Second)
		h.Req("POST", "/api/v1/sync/verify-server", httpapitest.HandshakeReq{ServerCode: "LAB-01", NPSN: httpapitest.NPSNA, HardwareID: "HW-LAB-01", LicenseToken: "bad"}).ExpectError(401, "LICENSE_INVALID")
		h.Clock.Add(time.Second)
		h.CreateExam(httpapitest.NPSNA)
		h.As(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil).Expect(200)

		var logs struct {
			Success bool          `json:"success"`
			Data    []syncLogJSON `json:"data"`
		}
		get := func(q string) []syncLogJSON {
			t.Helper()
			logs.Data = nil
			h.Op("GET", "/api/v1/admin/sync-logs"+q, nil).Expect(200).Decode(&logs)
			return logs.Data
		}
		all := get("")
		if len(all) != 4 {
			t.Fatalf("logs = %+v", all)
		}
		for i := 1; i < len(all); i++ {
			if all[i].ReceivedAt.After(all[i-1].ReceivedAt) {
				t.Fatalf("logs not newest first: %+v", all)
			}
		}
		if l := all[0]; l.Action != "pull_data" || l.ServerCode != "LAB-01" || l.NPSN != httpapitest.NPSNA || l.Outcome != "accepted" || l.SyncID == "" || l.Checksum == "" {
			t.Fatalf("newest = %+v", l)
		}
		if ls := get("?npsn=" + httpapitest.NPSNB); len(ls) != 1 || ls[0].ServerCode != "LAB-B" || ls[0].Action != "verify_server" {
			t.Fatalf("npsn filter = %+v", ls)
		}
		if ls := get("?server_code=LAB-01&status=rejected"); len(ls) != 1 || ls[0].ErrorCode != "LICENSE_INVALID" {
			t.Fatalf("rejected = %+v", ls)
		}
		if ls := get("?limit=2"); len(ls) != 2 {
			t.Fatalf("limit = %+v", ls)
		}
		h.Op("GET", "/api/v1/admin/sync-logs?limit=abc", nil).ExpectError(400, "INVALID_QUERY")
		h.Op("GET", "/api/v1/admin/sync-logs?limit=0", nil).ExpectError(400, "INVALID_QUERY")
		h.Op("GET", "/api/v1/admin/sync-logs?status=weird", nil).ExpectError(400, "VALIDATION_FAILED")
	})
}

// TestServerTokenExpiresWhenCached: a lab-server token verified once (and
// kept by the portal, so that its next requests skip the verification)
// still stops working at its expiry, an hour after the handshake.
func TestServerTokenExpiresWhenCached(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab := h.NewLabServer("LAB-01", httpapitest.NPSNA)
		beat := map[string]any{"server_code": "LAB-01"}
		h.As(lab, "POST", "/api/v1/sync/heartbeat", beat).Expect(200)
		h.Clock.Add(59 * time.Minute)
		h.As(lab, "POST", "/api/v1/sync/heartbeat", beat).Expect(200)
		h.Clock.Add(time.Minute)
		h.As(lab, "POST", "/api/v1/sync/heartbeat", beat).ExpectError(401, "TOKEN_EXPIRED")
	})
}
