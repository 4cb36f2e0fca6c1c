package exam

import (
	"mime"
	"net/http"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

// batchImportView is the outcome of one batch of an imported answer file.
type batchImportView struct {
	IdempotencyKey string `json:"idempotency_key"`
	Records        int    `json:"records"`
	Outcome        string `json:"outcome"`
	SyncID         string `json:"sync_id"`
	Duplicate      bool   `json:"duplicate"`
	Code           string `json:"code"`
	Message        string `json:"message"`
}

// importAnswers handles POST /api/v1/admin/answers/import (body up to
// 256 MiB, Content-Type application/octet-stream): an answer export file
// written by "labagent export". Each batch is stored as its push would be,
// with the same idempotency: 200 with one outcome per batch, even when some
// were rejected; a file that is damaged, altered or from an unknown server
// is refused as a whole and stores nothing.
func (a *api) importAnswers(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/octet-stream" {
			respond.ErrorStatus(w, http.StatusUnsupportedMediaType, respond.CodeUnsupportedMedia,
				"Content-Type must be application/octet-stream (the file as it is), not "+ct)
			return
		}
	}
	res, err := a.svc.ImportAnswers(r.Context(), r.Body)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	views := make([]batchImportView, len(res.Batches))
	for i, b := range res.Batches {
		views[i] = batchImportView{IdempotencyKey: b.IdempotencyKey, Records: b.Records, Outcome: string(b.Outcome),
			SyncID: b.SyncID, Duplicate: b.Outcome == exam.OutcomeDuplicate, Code: b.Code, Message: b.Message}
	}
	respond.JSON(w, http.StatusOK, struct {
		Success    bool              `json:"success"`
		ServerCode string            `json:"server_code"`
		NPSN       string            `json:"npsn"`
		LicenseID  string            `json:"license_id"`
		ExportedAt time.Time         `json:"exported_at"`
		Checksum   string            `json:"checksum_sha256"`
		Records    int               `json:"records"`
		Accepted   int               `json:"accepted"`
		Duplicates int               `json:"duplicates"`
		Rejected   int               `json:"rejected"`
		Batches    []batchImportView `json:"batches"`
	}{true, res.ServerCode, res.NPSN, res.LicenseID, res.ExportedAt.UTC(), res.Checksum, res.Records,
		res.Accepted, res.Duplicates, res.Rejected, views})
}
