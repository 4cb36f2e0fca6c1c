package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	examhttp "github.com/seedhq/portal/internal/httpapi/exam"
	"github.com/seedhq/portal/internal/httpapi/operator"
	"github.com/seedhq/portal/internal/identity"
)

// Backup writes a consistent snapshot of the store to w, calling start with
// its size in bytes before the first byte. The embedded bbolt store has
// one; PostgreSQL is backed up with pg_dump.
type Backup func(ctx context.Context, start func(size int64), w io.Writer) error

// Codes and headers of the backup route (docs/api/exam.md).
const (
	// CodeBackupUnsupported answers a backup asked of a portal whose data
	// is in PostgreSQL.
	CodeBackupUnsupported = "BACKUP_UNSUPPORTED"
	// HeaderBackupSize carries the size of the backup, sent first.
	HeaderBackupSize = "X-Backup-Size"
	// TrailerBackupSHA256 carries the hex SHA-256 of the bytes sent, as a
	// trailer: a body cut short has none.
	TrailerBackupSHA256 = "X-Backup-Sha256"
)

// backupRoutes installs GET /api/v1/admin/backup (operator JWT, SUPER_ADMIN).
func (s *server) backupRoutes(r chi.Router) {
	r.With(s.ops.RequireOperator).Get(examhttp.Base+"/admin/backup", s.backup)
}

// backup streams a consistent copy of the embedded store
// (GET /api/v1/admin/backup): the bbolt file as of one read transaction,
// with its size in X-Backup-Size and its SHA-256 in the X-Backup-Sha256
// trailer. SUPER_ADMIN only: the copy holds every secret of the portal.
func (s *server) backup(w http.ResponseWriter, r *http.Request) {
	op := operator.From(r.Context())
	if op.Role != identity.RoleSuperAdmin {
		s.writeError(w, r, apperr.New(apperr.Forbidden, "FORBIDDEN", "only a SUPER_ADMIN may take a backup: it holds every secret of the portal"))
		return
	}
	if s.backupFn == nil {
		s.writeError(w, r, apperr.New(apperr.Conflict, CodeBackupUnsupported,
			"this portal keeps its data in PostgreSQL: back it up with pg_dump -Fc and restore with pg_restore (docs/operations.md)"))
		return
	}
	started := false
	h := sha256.New()
	var n int64
	err := s.backupFn(r.Context(), func(size int64) {
		started = true
		hd := w.Header()
		hd.Set("Content-Type", "application/octet-stream")
		hd.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="portal-%s.db"`, time.Now().UTC().Format("20060102T150405Z")))
		hd.Set("Cache-Control", "no-store")
		hd.Set(HeaderBackupSize, strconv.FormatInt(size, 10))
		hd.Set("Trailer", TrailerBackupSHA256)
		w.WriteHeader(http.StatusOK)
	}, countWriter{w: io.MultiWriter(w, h), n: &n})
	switch {
	case err != nil && !started:
		s.writeError(w, r, fmt.Errorf("backup: %w", err))
		return
	case err != nil:
		// The status is sent: the client sees the missing trailer.
		s.log.ErrorContext(r.Context(), "backup cut short", "err", err, "written", n)
		return
	}
	w.Header().Set(TrailerBackupSHA256, hex.EncodeToString(h.Sum(nil)))
	s.log.InfoContext(r.Context(), "backup taken", "operator", op.Username, "size", n)
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n *int64
}

func (c countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	*c.n += int64(n)
	return n, err
}
