package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// hitRateLimitSQL counts one request in the window and removes the key's
// earlier windows, in one statement.
const hitRateLimitSQL = `WITH stale AS (
	DELETE FROM links_rate_limits WHERE key = $1 AND window_start < $2
)
INSERT INTO links_rate_limits AS r (key, window_start, count) VALUES ($1, $2, LEAST(1, $3::integer + 1))
ON CONFLICT (key, window_start) DO UPDATE SET count = LEAST(r.count + 1, $3::integer + 1)
RETURNING count`

// HitRateLimit counts one request of key in the window starting at window
// (truncated to the second) and returns the window's count, capped at
// limit+1. The key's earlier windows are removed. The counters live in the
// database, so every portal instance sharing it shares them.
//
// Every API request makes this write, so it does not wait for the WAL to
// reach the disk (lazyCommit): a crash of the database may forget the last
// counts of a window, which only lets a few more requests through.
func (s *Store) HitRateLimit(ctx context.Context, key string, window time.Time, limit int) (int, error) {
	var n int
	err := s.lazyCommit(ctx, hitRateLimitSQL, []any{key, window.Truncate(time.Second), limit}, func(row pgx.Row) error { return row.Scan(&n) })
	if err != nil {
		return 0, linkErr("hit rate limit", err)
	}
	return n, nil
}
