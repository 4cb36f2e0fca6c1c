package exam

import (
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

// monitorView is a server monitor record, with the fields of the spec.
type monitorView struct {
	ID                string    `json:"id"`
	ServerCode        string    `json:"server_code"`
	NPSN              string    `json:"npsn"`
	SchoolName        string    `json:"school_name"`
	HardwareID        string    `json:"hardware_id"`
	Status            string    `json:"status"`
	ActiveExamsCount  int       `json:"active_exams_count"`
	ConnectedStudents int       `json:"connected_students"`
	PendingAnswers    int       `json:"pending_answers"` // (ext)
	ClientIP          string    `json:"client_ip"`
	ClientVersion     string    `json:"client_version"`
	LastPingAt        time.Time `json:"last_ping_at"`
	UpdatedAt         time.Time `json:"updated_at"`
}

// listMonitors handles GET /api/v1/admin/monitors?npsn=&status=: one record
// per lab server, offline when it has been silent for three intervals.
func (a *api) listMonitors(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ms, err := a.svc.ListMonitors(r.Context(), q.Get("npsn"), exam.MonitorStatus(q.Get("status")))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	views := make([]monitorView, len(ms))
	for i, m := range ms {
		views[i] = monitorView{
			ID: m.ID, ServerCode: m.ServerCode, NPSN: m.NPSN, SchoolName: m.SchoolName, HardwareID: m.HardwareID,
			Status: string(m.Status), ActiveExamsCount: m.ActiveExamsCount, ConnectedStudents: m.ConnectedStudents,
			PendingAnswers: m.PendingAnswers, ClientIP: m.ClientIP, ClientVersion: m.ClientVersion,
			LastPingAt: m.LastPingAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
		}
	}
	respond.Data(w, http.StatusOK, views)
}

type syncLogView struct {
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

// listSyncLogs handles GET /api/v1/admin/sync-logs?npsn=&server_code=&status=&limit=:
// the audit log of handshakes, pulls and pushes, newest first; status
// filters the outcome.
func (a *api) listSyncLogs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := exam.SyncLogFilter{NPSN: q.Get("npsn"), ServerCode: q.Get("server_code"), Outcome: exam.SyncOutcome(q.Get("status"))}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			a.writeError(w, r, respond.InvalidQuery("limit must be an integer between 1 and 1000"))
			return
		}
		f.Limit = n
	}
	ls, err := a.svc.ListSyncLogs(r.Context(), f)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	views := make([]syncLogView, len(ls))
	for i, l := range ls {
		views[i] = syncLogView{
			SyncID: l.ID, Action: string(l.Action), ServerCode: l.ServerCode, NPSN: l.NPSN,
			RecordCount: l.RecordCount, Checksum: l.Checksum, IdempotencyKey: l.IdempotencyKey,
			Outcome: string(l.Outcome), ErrorCode: l.ErrorCode, ReceivedAt: l.ReceivedAt.UTC(),
		}
	}
	respond.Data(w, http.StatusOK, views)
}

type serverBindingView struct {
	ServerCode string    `json:"server_code"`
	NPSN       string    `json:"npsn"`
	HardwareID string    `json:"hardware_id"`
	LicenseID  string    `json:"license_id"`
	BoundAt    time.Time `json:"bound_at"`
}

// listServers handles GET /api/v1/admin/servers?npsn=: which machine each
// server_code is bound to.
func (a *api) listServers(w http.ResponseWriter, r *http.Request) {
	bs, err := a.svc.ListServers(r.Context(), r.URL.Query().Get("npsn"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	views := make([]serverBindingView, len(bs))
	for i, b := range bs {
		views[i] = serverBindingView{ServerCode: b.ServerCode, NPSN: b.NPSN, HardwareID: b.HardwareID,
			LicenseID: b.LicenseID, BoundAt: b.BoundAt.UTC()}
	}
	respond.Data(w, http.StatusOK, views)
}

// resetServer handles DELETE /api/v1/admin/servers/{server_code}: removes the
// hardware binding so that the next handshake (a replacement machine) binds
// afresh.
func (a *api) resetServer(w http.ResponseWriter, r *http.Request) {
	if err := a.svc.ResetServer(r.Context(), chi.URLParam(r, "server_code")); err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, respond.OK{Success: true, Message: "server binding reset"})
}
