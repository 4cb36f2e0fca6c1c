package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/ordering"
)

// RecordConsent records or refreshes the consent of a number.
func (s *Store) RecordConsent(ctx context.Context, c ordering.Consent) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO ordering_consents AS c (messenger_number, source, first_at, last_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (messenger_number) DO UPDATE SET last_at = excluded.last_at`,
		c.Number, c.Source, c.FirstAt, c.LastAt)
	if err != nil {
		return ordErr("record consent", err)
	}
	return nil
}

// GetConsent returns the consent of a number.
func (s *Store) GetConsent(ctx context.Context, number string) (ordering.Consent, bool, error) {
	var c ordering.Consent
	err := s.pool.QueryRow(ctx, `SELECT messenger_number, source, first_at, last_at FROM ordering_consents
		WHERE messenger_number = $1`, number).Scan(&c.Number, &c.Source, &c.FirstAt, &c.LastAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, ordErr("get consent", err)
	}
	c.FirstAt, c.LastAt = c.FirstAt.UTC(), c.LastAt.UTC()
	return c, true, nil
}
