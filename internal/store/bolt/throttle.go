package bolt

import (
	"context"
	"encoding/binary"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/throttle"
)

var _ throttle.Store = (*Store)(nil)

// A failure window is stored as its start (Unix nanoseconds) and count,
// 8 bytes each, big-endian.
func encodeWindow(w throttle.Window) []byte {
	b := binary.BigEndian.AppendUint64(nil, uint64(w.Start.UnixNano()))
	return binary.BigEndian.AppendUint64(b, uint64(w.Count))
}

func decodeWindow(b []byte) (throttle.Window, bool) {
	if len(b) != 16 {
		return throttle.Window{}, false
	}
	return throttle.Window{Start: time.Unix(0, int64(binary.BigEndian.Uint64(b))).UTC(),
		Count: int(binary.BigEndian.Uint64(b[8:]))}, true
}

// CountFailure counts one failure of key at now (see throttle.Store).
func (s *Store) CountFailure(ctx context.Context, key string, now time.Time, window time.Duration) (throttle.Window, error) {
	var w throttle.Window
	err := s.update(ctx, "count failure", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketFailures)
		old, ok := decodeWindow(b.Get([]byte(key)))
		if ok && now.Sub(old.Start) < window {
			w = throttle.Window{Count: old.Count + 1, Start: old.Start}
		} else {
			w = throttle.Window{Count: 1, Start: now.UTC()}
		}
		return b.Put([]byte(key), encodeWindow(w))
	})
	return w, err
}

// FailureWindow returns the key's current window (see throttle.Store).
func (s *Store) FailureWindow(ctx context.Context, key string, now time.Time, window time.Duration) (throttle.Window, error) {
	var w throttle.Window
	err := s.view(ctx, "failure window", func(tx *bbolt.Tx) error {
		if got, ok := decodeWindow(tx.Bucket(bucketFailures).Get([]byte(key))); ok && now.Sub(got.Start) < window {
			w = got
		}
		return nil
	})
	return w, err
}

// ClearFailures forgets the failures of key.
func (s *Store) ClearFailures(ctx context.Context, key string) error {
	return s.update(ctx, "clear failures", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketFailures).Delete([]byte(key))
	})
}

// PruneFailures removes the windows that began before before.
func (s *Store) PruneFailures(ctx context.Context, before time.Time) (int, error) {
	n := 0
	err := s.update(ctx, "prune failures", func(tx *bbolt.Tx) error {
		var err error
		n, err = deleteWhere(tx.Bucket(bucketFailures), func(_, v []byte) bool {
			w, ok := decodeWindow(v)
			return !ok || w.Start.Before(before)
		})
		return err
	})
	return n, err
}

// deleteWhere deletes the records of b that drop reports, and returns how
// many.
func deleteWhere(b *bbolt.Bucket, drop func(k, v []byte) bool) (int, error) {
	n := 0
	c := b.Cursor()
	for k, v := c.First(); k != nil; {
		if !drop(k, v) {
			k, v = c.Next()
			continue
		}
		if err := c.Delete(); err != nil {
			return n, err
		}
		n++
		// Seek again after Delete: Next may skip the key that moved into
		// the deleted one's place.
		k, v = c.Seek(k)
	}
	return n, nil
}
