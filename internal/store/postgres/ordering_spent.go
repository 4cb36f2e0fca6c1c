package postgres

import (
	"context"
	"time"
)

// MarkSpent records key until until and reports whether it was new.
func (s *Store) MarkSpent(ctx context.Context, key string, until time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, `INSERT INTO ordering_spent (key, until) VALUES ($1, $2)
		ON CONFLICT (key) DO NOTHING`, key, until)
	if err != nil {
		return false, ordErr("mark spent", err)
	}
	return tag.RowsAffected() == 1, nil
}

// UnmarkSpent forgets key.
func (s *Store) UnmarkSpent(ctx context.Context, key string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM ordering_spent WHERE key = $1`, key); err != nil {
		return ordErr("unmark spent", err)
	}
	return nil
}
