package postgres

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/store/chunkio"
)

// chunkSize is the size of the chunks package blobs are stored in (the last
// chunk of a blob may be shorter).
const chunkSize = 1 << 20

// packageLockNamespace is the first key of the two-key advisory lock that
// serialises SavePackage per school (the second key is hashtext(npsn)).
const packageLockNamespace int32 = 0x706b6773 // "pkgs"

// ContentRevision returns the content revision, bumped by every change to
// exams, members or exam passwords.
func (s *Store) ContentRevision(ctx context.Context) (int64, error) {
	var rev int64
	if err := s.pool.QueryRow(ctx, `SELECT revision FROM content_revision`).Scan(&rev); err != nil {
		return 0, fmt.Errorf("postgres: content revision: %w", err)
	}
	return rev, nil
}

// GetPackage returns the meta of the school's current package.
func (s *Store) GetPackage(ctx context.Context, npsn string) (exam.PackageMeta, error) {
	var m exam.PackageMeta
	err := s.pool.QueryRow(ctx, `SELECT npsn, version, checksum, size, revision, generated_at, format
		FROM packages WHERE npsn = $1`, npsn).Scan(&m.NPSN, &m.Version, &m.Checksum, &m.Size, &m.Revision, &m.GeneratedAt, &m.Format)
	if err != nil {
		return exam.PackageMeta{}, fmt.Errorf("postgres: get package: %w", notFound(err))
	}
	return m, nil
}

// SavePackage makes meta the school's current package, in one transaction.
//
// Blobs are content-addressed by meta.Checksum. When the blob is new, r is
// streamed into 1 MiB chunks with COPY, never held whole in memory, and must
// yield exactly meta.Size bytes whose SHA-256 is meta.Checksum, else nothing
// is kept. When the blob is stored already, r is not read.
//
// A blob that no school references any more is marked orphaned and removed
// by a later SavePackage once it has been orphaned for the grace period
// (DefaultBlobGrace), so that downloads in progress can finish.
//
// Locking, so that concurrent saves on several instances neither deadlock nor
// remove a blob that is being referenced: the school's advisory lock first
// (its package row may not exist yet), then the blob rows (the old and the new one) in checksum order. Every
// transaction that references a blob locks its row first, and orphans are
// only marked or removed with their row locked.
func (s *Store) SavePackage(ctx context.Context, meta exam.PackageMeta, r io.Reader) error {
	if meta.Size < 0 {
		return fmt.Errorf("postgres: save package %s: negative size %d", meta.NPSN, meta.Size)
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// The school's lock comes first, whether or not its row exists yet.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`,
			packageLockNamespace, meta.NPSN); err != nil {
			return fmt.Errorf("lock school: %w", err)
		}
		var old string
		err := tx.QueryRow(ctx, `SELECT checksum FROM packages WHERE npsn = $1`, meta.NPSN).Scan(&old)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("lock package: %w", err)
		}
		blobs := []string{meta.Checksum}
		if old != "" && old != meta.Checksum {
			blobs = append(blobs, old)
		}
		slices.SortFunc(blobs, cmp.Compare)
		inserted := false
		for _, c := range blobs {
			if c != meta.Checksum {
				if _, err := tx.Exec(ctx, `SELECT FROM package_blobs WHERE checksum = $1 FOR UPDATE`, c); err != nil {
					return fmt.Errorf("lock old blob: %w", err)
				}
				continue
			}
			// DO UPDATE (not DO NOTHING) so that the row is locked either way;
			// xmax = 0 only for a row this statement inserted.
			var size int64
			if err := tx.QueryRow(ctx, `INSERT INTO package_blobs AS b (checksum, size) VALUES ($1, $2)
				ON CONFLICT (checksum) DO UPDATE SET orphaned_at = NULL
				RETURNING b.size, (b.xmax = 0)`, c, meta.Size).Scan(&size, &inserted); err != nil {
				return fmt.Errorf("claim blob: %w", err)
			}
			if !inserted && size != meta.Size {
				return fmt.Errorf("blob %s is stored with size %d, not %d", c, size, meta.Size)
			}
		}
		if inserted {
			if err := writeChunks(ctx, tx, "package_chunks", "checksum", meta.Checksum, meta.Size, r); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO packages (npsn, version, checksum, size, revision, generated_at, format)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (npsn) DO UPDATE SET version = excluded.version, checksum = excluded.checksum,
				size = excluded.size, revision = excluded.revision, generated_at = excluded.generated_at,
				format = excluded.format`,
			meta.NPSN, meta.Version, meta.Checksum, meta.Size, meta.Revision, meta.GeneratedAt, max(meta.Format, 1)); err != nil {
			return fmt.Errorf("write package: %w", err)
		}
		if err := savePackageBlobs(ctx, tx, meta.NPSN, meta.Blobs); err != nil {
			return err
		}
		if old != "" && old != meta.Checksum {
			if _, err := tx.Exec(ctx, `UPDATE package_blobs SET orphaned_at = now()
				WHERE checksum = $1 AND NOT EXISTS (SELECT 1 FROM packages WHERE checksum = $1)`, old); err != nil {
				return fmt.Errorf("mark old blob: %w", err)
			}
		}
		// Remove blobs orphaned for longer than the grace period. SKIP
		// LOCKED leaves alone any blob another transaction is referencing.
		if _, err := tx.Exec(ctx, `DELETE FROM package_blobs AS b
			WHERE b.checksum IN (SELECT checksum FROM package_blobs
				WHERE orphaned_at < now() - make_interval(secs => $1) FOR UPDATE SKIP LOCKED)
			AND NOT EXISTS (SELECT 1 FROM packages p WHERE p.checksum = b.checksum)`,
			s.blobGrace.Seconds()); err != nil {
			return fmt.Errorf("remove orphaned blobs: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres: save package %s: %w", meta.NPSN, err)
	}
	return nil
}

// writeChunks streams the size bytes of r into table (columns keyColumn,
// seq, data) with one COPY, checking their size and that their SHA-256 is
// sum, the rows' key. A mismatch aborts the COPY, and so the transaction.
func writeChunks(ctx context.Context, tx pgx.Tx, table, keyColumn, sum string, size int64, r io.Reader) error {
	src := &chunkSource{r: r, checksum: sum, remaining: size, h: sha256.New()}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{table}, []string{keyColumn, "seq", "data"}, src); err != nil {
		return fmt.Errorf("write blob: %w", err)
	}
	if !src.done {
		// CopyFrom stops early only on an error it has returned.
		return errors.New("write blob: incomplete")
	}
	return nil
}

// chunkSource is a pgx.CopyFromSource of the chunks of a blob read from r.
// It reuses one chunk buffer: pgx encodes each row before asking for the next.
type chunkSource struct {
	r         io.Reader
	checksum  string
	remaining int64
	h         hash.Hash
	seq       int32
	buf       []byte
	err       error
	done      bool // r was read to its end and matched
}

// Next reads the next chunk; at the end it checks the size and checksum.
func (c *chunkSource) Next() bool {
	if c.err != nil || c.done {
		return false
	}
	if c.remaining == 0 {
		c.finish()
		return false
	}
	n := int(min(c.remaining, chunkSize))
	if c.buf == nil {
		c.buf = make([]byte, chunkSize)
	}
	if _, err := io.ReadFull(c.r, c.buf[:n]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("blob is shorter than its size")
		}
		c.err = err
		return false
	}
	c.h.Write(c.buf[:n])
	c.remaining -= int64(n)
	c.buf = c.buf[:n]
	return true
}

// finish checks that r has no more bytes and that the checksum matches.
func (c *chunkSource) finish() {
	var one [1]byte
	n, err := io.ReadFull(c.r, one[:])
	switch {
	case n > 0:
		c.err = errors.New("blob is longer than its size")
	case err != nil && !errors.Is(err, io.EOF):
		c.err = err
	case hex.EncodeToString(c.h.Sum(nil)) != c.checksum:
		c.err = errors.New("blob does not match its checksum")
	default:
		c.done = true
	}
}

// Values returns the row of the chunk read by Next.
func (c *chunkSource) Values() ([]any, error) {
	row := []any{c.checksum, c.seq, c.buf}
	c.seq++
	c.buf = c.buf[:cap(c.buf)]
	return row, nil
}

// Err returns the error that stopped Next, if any.
func (c *chunkSource) Err() error { return c.err }

// OpenPackage opens the bytes of a package saved with SavePackage. The
// reader fetches one 1 MiB chunk at a time, keeping only the current one,
// on a pooled connection that it holds only while fetching. It reads with
// ctx, which must stay valid while the reader is used. Reads fail when the
// blob is removed meanwhile, which happens no sooner than the grace period
// after the school's package moved on.
func (s *Store) OpenPackage(ctx context.Context, meta exam.PackageMeta) (exam.PackageReader, error) {
	var size int64
	err := s.pool.QueryRow(ctx, `SELECT size FROM package_blobs WHERE checksum = $1`, meta.Checksum).Scan(&size)
	if err != nil {
		return nil, fmt.Errorf("postgres: open package %s: %w", meta.Checksum, notFound(err))
	}
	return s.chunkReader(ctx, "package_chunks", "checksum", meta.Checksum, size), nil
}

// chunkReader reads the blob whose chunks are the rows of table with
// keyColumn = key, one chunk per query.
func (s *Store) chunkReader(ctx context.Context, table, keyColumn, key string, size int64) *chunkio.Reader {
	query := `SELECT data FROM ` + table + ` WHERE ` + keyColumn + ` = $1 AND seq = $2`
	return chunkio.NewReader(size, chunkSize, func(seq int64, buf []byte) ([]byte, error) {
		into := chunkBuffer{buf: &buf}
		err := s.pool.QueryRow(ctx, query, key, int32(seq)).Scan(&into)
		if errors.Is(err, pgx.ErrNoRows) {
			err = errors.New("chunk missing: the blob was removed")
		}
		if err != nil {
			return nil, fmt.Errorf("postgres: read %s %s: %w", table, key, err)
		}
		return buf, nil
	})
}

// chunkBuffer scans a bytea into a reused buffer (pgtype.BytesScanner), so
// that reading a blob allocates one chunk buffer, not one per chunk.
type chunkBuffer struct{ buf *[]byte }

// ScanBytes implements pgtype.BytesScanner.
func (c chunkBuffer) ScanBytes(v []byte) error {
	if v == nil {
		return errors.New("NULL chunk")
	}
	*c.buf = append((*c.buf)[:0], v...)
	return nil
}
