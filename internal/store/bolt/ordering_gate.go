package bolt

import (
	"context"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/ordering"
)

// UpdateGate loads (or starts) a channel's gate record, calls fn and saves it.
func (s *Store) UpdateGate(ctx context.Context, channel string, fn func(*ordering.GateState) error) (ordering.GateState, error) {
	var g ordering.GateState
	err := s.update(ctx, "update gate", func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bucketOrdGates), []byte(channel), &g)
		if err != nil {
			return err
		}
		if !ok {
			g = ordering.GateState{Channel: channel}
		}
		if err := fn(&g); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bucketOrdGates), []byte(channel), g)
	})
	return g, err
}
