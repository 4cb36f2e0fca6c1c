package postgres

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"testing"

	"github.com/seedhq/portal/internal/blobstore/blobstoretest"
	"github.com/seedhq/portal/internal/exam"
)

// TestContentBlobsMigration applies 0019 to a database whose content blobs
// are in the table content_blobs of an earlier release: they move into the
// blob store under their exam keys, whole (several chunks too), with their
// names as ETags, and the table is dropped.
func TestContentBlobsMigration(t *testing.T) {
	s := mustOpen(t)
	ctx := t.Context()
	mustOK(t, "recreate content_blobs", func() error {
		_, err := s.pool.Exec(ctx, `CREATE TABLE content_blobs (
			name text COLLATE "C" PRIMARY KEY, data bytea NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
			DELETE FROM schema_migrations WHERE version = '0019_content_blobs_to_blobs'`)
		return err
	}())
	blobs := map[string][]byte{}
	for i, n := range []int64{1, 700, 1<<20 + 5, 2 << 20} {
		data := blobstoretest.Data(uint64(i+50), n)
		sum := sha256.Sum256(data)
		name := hex.EncodeToString(sum[:])
		blobs[name] = data
		_, err := s.pool.Exec(ctx, `INSERT INTO content_blobs (name, data) VALUES ($1, $2)`, name, data)
		mustOK(t, "insert a content blob", err)
	}
	// One of them is in the blob store already: it stays.
	for name, data := range blobs {
		blobstoretest.MustPut(t, s.Blobs(), exam.ExamBlobKey(name), data)
		break
	}
	mustOK(t, "Migrate", s.Migrate(ctx))
	for name, data := range blobs {
		rc, info, err := s.Blobs().Open(ctx, exam.ExamBlobKey(name))
		if err != nil {
			t.Fatalf("blob %s after the migration: %v", name[:8], err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, data) || info.ETag != name || info.Size != int64(len(data)) {
			t.Errorf("blob %s: %d bytes, %+v, %v; want its %d bytes", name[:8], len(got), info, err, len(data))
		}
	}
	var exists bool
	mustOK(t, "content_blobs", s.pool.QueryRow(ctx, `SELECT to_regclass('content_blobs') IS NOT NULL`).Scan(&exists))
	if exists {
		t.Error("content_blobs is still there")
	}
}
