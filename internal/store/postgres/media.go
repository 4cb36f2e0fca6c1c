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
	var m exam.Media
	var kind string
	err := s.pool.QueryRow(ctx, `SELECT sha256, type, kind, size, name, created_at FROM media WHERE sha256 = $1`, sha).
		Scan(&m.SHA256, &m.Type, &kind, &m.Size, &m.Name, &m.CreatedAt)
	if err != nil {
		return exam.Media{}, fmt.Errorf("postgres: get media: %w", notFound(err))
	}
	m.Kind = exam.MediaKind(kind)
	m.CreatedAt = m.CreatedAt.UTC()
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
