package bolt

import (
	"context"
	"time"

	"go.etcd.io/bbolt"
)

// HitRateLimit counts one request of key in the window starting at window.
func (s *Store) HitRateLimit(ctx context.Context, key string, window time.Time, limit int) (int, error) {
	var n int
	err := s.update(ctx, "hit rate limit", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketLinkRateLimits)
		prefix := tuple(key)
		k := binary64(prefix, window.Unix())
		var stale [][]byte
		err := scanPrefix(b, prefix, func(sk, _ []byte) (bool, error) {
			if len(sk) == len(k) && string(sk) < string(k) {
				stale = append(stale, append([]byte(nil), sk...))
			}
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, sk := range stale {
			if err := b.Delete(sk); err != nil {
				return err
			}
		}
		if v := b.Get(k); len(v) == 8 {
			n = readIntValue(v)
		}
		n = min(n+1, limit+1)
		return b.Put(k, binary64(nil, int64(n)))
	})
	return n, err
}
