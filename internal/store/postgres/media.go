package postgres

import (
	"context"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
)

// SaveMedia stores m and its bytes from r in one transaction. When media of
// m.SHA256 are stored already (by this or a concurrent transaction), r is
// not read and the stored record stays.
func (s *Store) SaveMedia(ctx context.Context, m exam.Media, r io.Reader) error {
	if m.Size <= 0 {
		return fmt.Errorf("postgres: save media %s: size %d", m.SHA256, m.Size)
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO media (sha256, type, kind, size, name, created_at)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (sha256) DO NOTHING`,
			m.SHA256, m.Type, string(m.Kind), m.Size, m.Name, m.CreatedAt)
		if err != nil {
			return fmt.Errorf("write media: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return nil // stored already
		}
		return writeChunks(ctx, tx, "media_chunks", "sha256", m.SHA256, m.Size, r)
	})
	if err != nil {
		return fmt.Errorf("postgres: save media %s: %w", m.SHA256, err)
	}
	return nil
}

// GetMedia returns the media of sha; exam.ErrNotFound when none is stored.
func (s *Store) GetMedia(ctx context.Context, sha string) (exam.Media, error) {
	m, err := s.scanMedia(ctx, `SELECT sha256, type, kind, size, name, created_at, blob_name, blob_size
		FROM media WHERE sha256 = $1`, sha)
	if err != nil {
		return exam.Media{}, fmt.Errorf("postgres: get media: %w", err)
	}
	return m, nil
}

// scanMedia reads the one media row query selects (sha256, type, kind,
// size, name, created_at, blob_name, blob_size).
func (s *Store) scanMedia(ctx context.Context, query string, arg string) (exam.Media, error) {
	var m exam.Media
	var kind string
	var blobName *string
	var blobSize *int64
	err := s.pool.QueryRow(ctx, query, arg).
		Scan(&m.SHA256, &m.Type, &kind, &m.Size, &m.Name, &m.CreatedAt, &blobName, &blobSize)
	if err != nil {
		return exam.Media{}, notFound(err)
	}
	m.Kind = exam.MediaKind(kind)
	m.CreatedAt = m.CreatedAt.UTC()
	if blobName != nil && blobSize != nil {
		m.BlobName, m.BlobSize = *blobName, *blobSize
	}
	return m, nil
}

// SetMediaBlob records the blob of the media of sha, in one statement that
// sets it only while the row has none; the unique index on blob_name
// refuses a name another media has.
func (s *Store) SetMediaBlob(ctx context.Context, sha, name string, size int64) error {
	if len(name) != 64 || size <= 0 {
		return fmt.Errorf("postgres: set media blob %q: bad name or size %d", name, size)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE media SET blob_name = $2, blob_size = $3
		WHERE sha256 = $1 AND blob_name IS NULL`, sha, name, size)
	if _, ok := uniqueViolation(err); ok {
		return fmt.Errorf("postgres: set media blob of %s: %w: blob %s is another media's", sha, exam.ErrBlobConflict, name)
	}
	if err != nil {
		return fmt.Errorf("postgres: set media blob of %s: %w", sha, err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	// No media of sha, or one with a blob already.
	m, err := s.GetMedia(ctx, sha)
	switch {
	case err != nil:
		return fmt.Errorf("postgres: set media blob of %s: %w", sha, err)
	case m.BlobName == name && m.BlobSize == size:
		return nil
	default:
		return fmt.Errorf("postgres: set media blob of %s: %w: it has blob %s", sha, exam.ErrBlobConflict, m.BlobName)
	}
}

// GetMediaByBlob returns the media whose blob is name; exam.ErrNotFound
// when none has it.
func (s *Store) GetMediaByBlob(ctx context.Context, name string) (exam.Media, error) {
	m, err := s.scanMedia(ctx, `SELECT sha256, type, kind, size, name, created_at, blob_name, blob_size
		FROM media WHERE blob_name = $1`, name)
	if err != nil {
		return exam.Media{}, fmt.Errorf("postgres: get media by blob: %w", err)
	}
	return m, nil
}

// OpenMedia opens the bytes of the media of sha, read one 1 MiB chunk at a
// time with ctx.
func (s *Store) OpenMedia(ctx context.Context, sha string) (exam.PackageReader, error) {
	m, err := s.GetMedia(ctx, sha)
	if err != nil {
		return nil, fmt.Errorf("postgres: open media: %w", err)
	}
	return s.chunkReader(ctx, "media_chunks", "sha256", m.SHA256, m.Size), nil
}
