package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/ordering"
)

// GetSettings returns the shop's settings.
func (s *Store) GetSettings(ctx context.Context) (ordering.Settings, bool, error) {
	var st ordering.Settings
	err := s.pool.QueryRow(ctx, `SELECT settings FROM ordering_settings`).Scan(&st)
	if errors.Is(err, pgx.ErrNoRows) {
		return st, false, nil
	}
	if err != nil {
		return st, false, ordErr("get settings", err)
	}
	return st, true, nil
}

// PutSettings replaces the shop's settings.
func (s *Store) PutSettings(ctx context.Context, st ordering.Settings) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO ordering_settings (id, settings) VALUES (true, $1)
		ON CONFLICT (id) DO UPDATE SET settings = excluded.settings`, st)
	if err != nil {
		return ordErr("put settings", err)
	}
	return nil
}
