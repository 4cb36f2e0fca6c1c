package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/blobgc"
	examhttp "github.com/seedhq/portal/internal/httpapi/exam"
	"github.com/seedhq/portal/internal/httpapi/operator"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/identity"
)

// BlobGC runs one garbage collection of blobs (blobgc.Collector.Run).
type BlobGC func(ctx context.Context, opts blobgc.Options) (blobgc.Report, error)

// Codes of the garbage collection route (docs/api/exam.md).
const (
	// CodeBlobGCUnavailable answers a portal that runs no collector.
	CodeBlobGCUnavailable = "BLOB_GC_UNAVAILABLE"
	// CodeBlobGCRunning answers while another collection runs (on this
	// instance or another one on the same database).
	CodeBlobGCRunning = "BLOB_GC_RUNNING"
)

// blobGCRoutes installs POST /api/v1/admin/blobs/gc (operator JWT,
// SUPER_ADMIN).
func (s *server) blobGCRoutes(r chi.Router) {
	r.With(s.ops.RequireOperator).Post(examhttp.Base+"/admin/blobs/gc", s.blobGC)
}

// blobGCDeletion is a deleted blob as the route reports it.
type blobGCDeletion struct {
	Key               string    `json:"key"`
	Size              int64     `json:"size"`
	UnreferencedSince time.Time `json:"unreferenced_since"`
}

// blobGCMissing is a missing blob as the route reports it.
type blobGCMissing struct {
	Key          string   `json:"key"`
	ReferredToBy []string `json:"referred_to_by"`
}

// blobGCView is a collection's report as the route answers it.
type blobGCView struct {
	DryRun     bool             `json:"dry_run"`
	Listed     int              `json:"listed"`
	Referenced int              `json:"referenced"`
	Marked     int              `json:"marked"`
	Unmarked   int              `json:"unmarked"`
	Waiting    int              `json:"waiting"`
	Deleted    []blobGCDeletion `json:"deleted"`
	BytesFreed int64            `json:"bytes_freed"`
	Missing    []blobGCMissing  `json:"missing"`
	Errors     int              `json:"errors"`
}

// blobGC runs a garbage collection of blobs now
// (POST /api/v1/admin/blobs/gc?dry_run=true): with dry_run, it reports what
// it would mark and delete and changes nothing. SUPER_ADMIN only.
func (s *server) blobGC(w http.ResponseWriter, r *http.Request) {
	op := operator.From(r.Context())
	if op.Role != identity.RoleSuperAdmin {
		s.writeError(w, r, apperr.New(apperr.Forbidden, "FORBIDDEN", "only a SUPER_ADMIN may collect blobs"))
		return
	}
	dry, err := respond.QueryBool(r, "dry_run")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if s.blobGCFn == nil {
		s.writeError(w, r, apperr.New(apperr.Conflict, CodeBlobGCUnavailable,
			"this portal runs no garbage collection of blobs: its store keeps no collection marks"))
		return
	}
	rep, err := s.blobGCFn(r.Context(), blobgc.Options{DryRun: dry})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if rep.Skipped {
		s.writeError(w, r, apperr.New(apperr.Conflict, CodeBlobGCRunning,
			"another garbage collection of blobs is running (on this or another instance): try again when it has finished"))
		return
	}
	v := blobGCView{DryRun: rep.DryRun, Listed: rep.Listed, Referenced: rep.Referenced, Marked: rep.Marked,
		Unmarked: rep.Unmarked, Waiting: rep.Waiting, BytesFreed: rep.BytesFreed, Errors: rep.Errors,
		Deleted: []blobGCDeletion{}, Missing: []blobGCMissing{}}
	for _, d := range rep.Deleted {
		v.Deleted = append(v.Deleted, blobGCDeletion{Key: d.Key, Size: d.Size, UnreferencedSince: d.Since.UTC()})
	}
	for _, m := range rep.Missing {
		v.Missing = append(v.Missing, blobGCMissing{Key: m.Key, ReferredToBy: append([]string{}, m.Owners...)})
	}
	respond.Data(w, http.StatusOK, v)
}
