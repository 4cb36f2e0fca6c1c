package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
)

const apiKeyColumns = `id, name, prefix, hash, created_at, revoked_at, last_used_at`

func scanAPIKey(row pgx.Row) (exam.APIKey, error) {
	var k exam.APIKey
	err := row.Scan(&k.ID, &k.Name, &k.Prefix, &k.Hash, &k.CreatedAt, &k.RevokedAt, &k.LastUsedAt)
	return k, err
}

// CreateAPIKey stores k.
func (s *Store) CreateAPIKey(ctx context.Context, k exam.APIKey) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO api_keys (`+apiKeyColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		k.ID, k.Name, k.Prefix, k.Hash, k.CreatedAt, k.RevokedAt, k.LastUsedAt)
	if err != nil {
		return fmt.Errorf("postgres: create api key: %w", err)
	}
	return nil
}

// GetAPIKeyByHash returns the key with the hash, revoked or not.
func (s *Store) GetAPIKeyByHash(ctx context.Context, hash string) (exam.APIKey, error) {
	k, err := scanAPIKey(s.pool.QueryRow(ctx, `SELECT `+apiKeyColumns+` FROM api_keys WHERE hash = $1`, hash))
	if err != nil {
		return exam.APIKey{}, fmt.Errorf("postgres: get api key: %w", notFound(err))
	}
	return k, nil
}

// ListAPIKeys returns every key, newest CreatedAt first (then by id,
// descending, for equal times).
func (s *Store) ListAPIKeys(ctx context.Context) ([]exam.APIKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+apiKeyColumns+` FROM api_keys ORDER BY created_at DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("postgres: list api keys: %w", err)
	}
	ks, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (exam.APIKey, error) { return scanAPIKey(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list api keys: %w", err)
	}
	return ks, nil
}

// RevokeAPIKey marks the key revoked, keeping an earlier revocation time, and
// returns it.
func (s *Store) RevokeAPIKey(ctx context.Context, id string, at time.Time) (exam.APIKey, error) {
	k, err := scanAPIKey(s.pool.QueryRow(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $2)
		WHERE id = $1 RETURNING `+apiKeyColumns, id, at))
	if err != nil {
		return exam.APIKey{}, fmt.Errorf("postgres: revoke api key: %w", notFound(err))
	}
	return k, nil
}
