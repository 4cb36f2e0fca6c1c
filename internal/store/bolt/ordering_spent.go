package bolt

import (
	"context"
	"encoding/binary"
	"time"

	"go.etcd.io/bbolt"
)

// MarkSpent records key until until and reports whether it was new.
func (s *Store) MarkSpent(ctx context.Context, key string, until time.Time) (bool, error) {
	fresh := false
	err := s.update(ctx, "mark spent", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketOrdSpent)
		if b.Get([]byte(key)) != nil {
			return nil
		}
		fresh = true
		return b.Put([]byte(key), binary.BigEndian.AppendUint64(nil, uint64(until.Unix())))
	})
	return fresh, err
}

// UnmarkSpent forgets key.
func (s *Store) UnmarkSpent(ctx context.Context, key string) error {
	return s.update(ctx, "unmark spent", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketOrdSpent).Delete([]byte(key))
	})
}
