package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/ordering"
)

// UpdateGate loads (or starts) a channel's gate record, locked, calls fn
// and saves it.
func (s *Store) UpdateGate(ctx context.Context, channel string, fn func(*ordering.GateState) error) (ordering.GateState, error) {
	var g ordering.GateState
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO ordering_gates (channel, state) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
			channel, ordering.GateState{Channel: channel}); err != nil {
			return fmt.Errorf("create gate: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT state FROM ordering_gates WHERE channel = $1 FOR UPDATE`, channel).Scan(&g); err != nil {
			return fmt.Errorf("read gate: %w", err)
		}
		if err := fn(&g); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE ordering_gates SET state = $2 WHERE channel = $1`, channel, g)
		return err
	})
	if err != nil {
		return g, ordErr("update gate", err)
	}
	return g, nil
}
