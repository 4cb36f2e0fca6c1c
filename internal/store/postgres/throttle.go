package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/throttle"
)

var _ throttle.Store = (*Store)(nil)

// CountFailure counts one failure of key at now in one statement, so that
// instances counting at once each add theirs (see throttle.Store).
func (s *Store) CountFailure(ctx context.Context, key string, now time.Time, window time.Duration) (throttle.Window, error) {
	var w throttle.Window
	err := s.pool.QueryRow(ctx, `INSERT INTO login_failures AS f (key, count, started_at) VALUES ($1, 1, $2)
		ON CONFLICT (key) DO UPDATE SET
			count = CASE WHEN f.started_at > $3 THEN f.count + 1 ELSE 1 END,
			started_at = CASE WHEN f.started_at > $3 THEN f.started_at ELSE $2 END
		RETURNING count, started_at`, key, now, now.Add(-window)).Scan(&w.Count, &w.Start)
	if err != nil {
		return throttle.Window{}, fmt.Errorf("postgres: count failure: %w", err)
	}
	w.Start = w.Start.UTC()
	return w, nil
}

// FailureWindow returns the key's current window (see throttle.Store).
func (s *Store) FailureWindow(ctx context.Context, key string, now time.Time, window time.Duration) (throttle.Window, error) {
	var w throttle.Window
	err := s.pool.QueryRow(ctx, `SELECT count, started_at FROM login_failures WHERE key = $1 AND started_at > $2`,
		key, now.Add(-window)).Scan(&w.Count, &w.Start)
	if errors.Is(err, pgx.ErrNoRows) {
		return throttle.Window{}, nil
	}
	if err != nil {
		return throttle.Window{}, fmt.Errorf("postgres: failure window: %w", err)
	}
	w.Start = w.Start.UTC()
	return w, nil
}

// ClearFailures forgets the failures of key.
func (s *Store) ClearFailures(ctx context.Context, key string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM login_failures WHERE key = $1`, key); err != nil {
		return fmt.Errorf("postgres: clear failures: %w", err)
	}
	return nil
}

// PruneFailures removes the windows that began before before.
func (s *Store) PruneFailures(ctx context.Context, before time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM login_failures WHERE started_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("postgres: prune failures: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
