package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"go.etcd.io/bbolt"
)

// pruneChunk is the most keys PruneVisits deletes in one write transaction,
// so that the redirector's click recording never waits long behind it.
const pruneChunk = 10_000

// PruneVisits removes the raw visits that happened before visitsBefore
// (none when it is zero) and the seen visitors of UTC days before the day of
// visitorsBefore (none when it is zero), in transactions of at most
// pruneChunk keys, and returns how many visits it removed. Roll-ups are kept.
func (s *Store) PruneVisits(ctx context.Context, visitsBefore, visitorsBefore time.Time) (int64, error) {
	var removed int64
	if !visitsBefore.IsZero() {
		n, err := s.pruneByTime(ctx, bucketLinkVisits, uint64(ts(visitsBefore).UnixMicro()))
		removed = n
		if err != nil {
			return removed, err
		}
	}
	if !visitorsBefore.IsZero() {
		if _, err := s.pruneByTime(ctx, bucketLinkVisitUniques, uint64(visitDay(ts(visitorsBefore).UnixMicro()))); err != nil {
			return removed, err
		}
	}
	return removed, nil
}

// pruneByTime deletes the keys of the bucket whose 8-byte time, after the
// target's 9-byte prefix, is below cutoff. Within a target keys are in time
// order, so each target costs a seek plus its deleted keys.
func (s *Store) pruneByTime(ctx context.Context, bucket []byte, cutoff uint64) (int64, error) {
	var removed int64
	from := []byte{}
	for from != nil {
		err := s.update(ctx, "prune visits", func(tx *bbolt.Tx) error {
			c := tx.Bucket(bucket).Cursor()
			n := 0
			k, _ := c.Seek(from)
			for k != nil {
				if len(k) < 17 {
					return fmt.Errorf("malformed key %x in %s", k, bucket)
				}
				if binary.BigEndian.Uint64(k[9:17]) >= cutoff {
					next := nextPrefix(k[:9])
					if next == nil {
						break
					}
					k, _ = c.Seek(next)
					continue
				}
				if n == pruneChunk {
					from = bytes.Clone(k)
					return nil
				}
				at := bytes.Clone(k)
				if err := c.Delete(); err != nil {
					return err
				}
				n++
				removed++
				// Seek again after Delete: Next may skip the key that moved
				// into the deleted one's place.
				k, _ = c.Seek(at)
			}
			from = nil
			return nil
		})
		if err != nil {
			return removed, err
		}
	}
	return removed, nil
}

// nextPrefix returns the smallest key after every key starting with p: p
// plus one, as a big-endian number (nil when p is all 0xff: no such key).
func nextPrefix(p []byte) []byte {
	next := bytes.Clone(p)
	for i := len(next) - 1; i >= 0; i-- {
		next[i]++
		if next[i] != 0 {
			return next
		}
	}
	return nil
}
