package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/idempotency"
)

var _ idempotency.Store = (*Store)(nil)

// ClaimIdempotencyKey claims id in one statement, so that instances
// claiming at once give it to one (see idempotency.Store).
func (s *Store) ClaimIdempotencyKey(ctx context.Context, id string, claim idempotency.Receipt, now time.Time) (idempotency.Receipt, bool, error) {
	// The row may go between the claim that found it and the read (its
	// claim released): then claim again.
	for range 3 {
		tag, err := s.pool.Exec(ctx, `INSERT INTO idempotency_keys AS k (id, token, lease_until, expires_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (id) DO UPDATE SET token = EXCLUDED.token, done = false, fingerprint = NULL, status = 0,
				content_type = '', location = '', body = NULL, lease_until = EXCLUDED.lease_until, expires_at = EXCLUDED.expires_at
			WHERE k.expires_at <= $5 OR (NOT k.done AND k.lease_until <= $5)`,
			id, claim.Token, claim.LeaseUntil, claim.ExpiresAt, now)
		if err != nil {
			return idempotency.Receipt{}, false, fmt.Errorf("postgres: claim idempotency key: %w", err)
		}
		if tag.RowsAffected() == 1 {
			return idempotency.Receipt{}, true, nil
		}
		var r idempotency.Receipt
		err = s.pool.QueryRow(ctx, `SELECT token, done, fingerprint, status, content_type, location, body, lease_until, expires_at
			FROM idempotency_keys WHERE id = $1`, id).Scan(&r.Token, &r.Done, &r.Fingerprint, &r.Status, &r.ContentType,
			&r.Location, &r.Body, &r.LeaseUntil, &r.ExpiresAt)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return idempotency.Receipt{}, false, fmt.Errorf("postgres: read idempotency key: %w", err)
		}
		r.LeaseUntil, r.ExpiresAt = r.LeaseUntil.UTC(), r.ExpiresAt.UTC()
		return r, false, nil
	}
	return idempotency.Receipt{}, false, errors.New("postgres: claim idempotency key: the key changed hands three times")
}

// FinishIdempotencyKey keeps the answer of id's claim (see idempotency.Store).
func (s *Store) FinishIdempotencyKey(ctx context.Context, id string, answer idempotency.Receipt) error {
	_, err := s.pool.Exec(ctx, `UPDATE idempotency_keys SET done = true, fingerprint = $3, status = $4, content_type = $5,
			location = $6, body = $7, expires_at = $8
		WHERE id = $1 AND token = $2 AND NOT done`,
		id, answer.Token, answer.Fingerprint, answer.Status, answer.ContentType, answer.Location, answer.Body, answer.ExpiresAt)
	if err != nil {
		return fmt.Errorf("postgres: finish idempotency key: %w", err)
	}
	return nil
}

// ReleaseIdempotencyKey forgets id's unfinished claim (see idempotency.Store).
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, id, token string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE id = $1 AND token = $2 AND NOT done`, id, token); err != nil {
		return fmt.Errorf("postgres: release idempotency key: %w", err)
	}
	return nil
}

// PruneIdempotencyKeys removes the expired receipts (see idempotency.Store).
func (s *Store) PruneIdempotencyKeys(ctx context.Context, now time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE expires_at <= $1`, now)
	if err != nil {
		return 0, fmt.Errorf("postgres: prune idempotency keys: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
