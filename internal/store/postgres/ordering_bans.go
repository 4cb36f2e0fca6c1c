package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/ordering"
)

// UpdateBans creates the missing ban records of keys, locks them all in the
// order given, calls fn and saves them.
func (s *Store) UpdateBans(ctx context.Context, keys []ordering.BanKey, now time.Time, newID func() string, fn func([]*ordering.Ban) error) ([]ordering.Ban, error) {
	var out []ordering.Ban
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		bans := make([]*ordering.Ban, len(keys))
		for i, k := range keys {
			if _, err := tx.Exec(ctx, `INSERT INTO ordering_bans (id, kind, value, attempts, level, last_attempt_at, created_at)
				VALUES ($1, $2, $3, 0, 0, $4, $4) ON CONFLICT (kind, value) DO NOTHING`, newID(), k.Kind, k.Value, now); err != nil {
				return fmt.Errorf("create ban record: %w", err)
			}
			b := &ordering.Ban{}
			if err := tx.QueryRow(ctx, `SELECT id, kind, value, attempts, level, ban_until, last_attempt_at, created_at
				FROM ordering_bans WHERE kind = $1 AND value = $2 FOR UPDATE`, k.Kind, k.Value).Scan(
				&b.ID, &b.Kind, &b.Value, &b.Attempts, &b.Level, &b.BanUntil, &b.LastAttemptAt, &b.CreatedAt); err != nil {
				return fmt.Errorf("read ban record: %w", err)
			}
			b.BanUntil, b.LastAttemptAt, b.CreatedAt = utcPtr(b.BanUntil), b.LastAttemptAt.UTC(), b.CreatedAt.UTC()
			bans[i] = b
		}
		if err := fn(bans); err != nil {
			return err
		}
		out = make([]ordering.Ban, len(bans))
		for i, b := range bans {
			if _, err := tx.Exec(ctx, `UPDATE ordering_bans SET attempts = $2, level = $3, ban_until = $4, last_attempt_at = $5
				WHERE id = $1`, b.ID, b.Attempts, b.Level, b.BanUntil, b.LastAttemptAt); err != nil {
				return fmt.Errorf("save ban record: %w", err)
			}
			out[i] = *b
		}
		return nil
	})
	if err != nil {
		return nil, ordErr("update bans", err)
	}
	return out, nil
}

// ListBans returns the ban records with a level or attempts, most recent
// attempt first.
func (s *Store) ListBans(ctx context.Context) ([]ordering.Ban, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, kind, value, attempts, level, ban_until, last_attempt_at, created_at
		FROM ordering_bans WHERE level > 0 OR attempts > 0 ORDER BY last_attempt_at DESC, id`)
	if err != nil {
		return nil, ordErr("list bans", err)
	}
	var b ordering.Ban
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ordering.Ban, error) {
		err := row.Scan(&b.ID, &b.Kind, &b.Value, &b.Attempts, &b.Level, &b.BanUntil, &b.LastAttemptAt, &b.CreatedAt)
		b.BanUntil, b.LastAttemptAt, b.CreatedAt = utcPtr(b.BanUntil), b.LastAttemptAt.UTC(), b.CreatedAt.UTC()
		return b, err
	})
	if err != nil {
		return nil, ordErr("list bans", err)
	}
	return out, nil
}
