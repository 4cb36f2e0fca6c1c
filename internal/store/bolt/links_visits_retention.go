package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/jsonx"
	"github.com/seedhq/portal/internal/links/visits"
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

// migrateVisits brings the visits of an older file to the current layout,
// once (metaVisits). From before roll-ups: every visit of the old bucket is
// moved to its time-ordered key and rolled up as SaveVisits would have, then
// the old bucket is dropped. From layout 2: the stored visits are rolled up
// by day and device (Unknown: raw visits do not keep it). It runs in Open's
// transaction: all or nothing.
func migrateVisits(tx *bbolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	switch string(meta.Get(metaVisits)) {
	case visitsLayout:
		return nil
	case visitsLayoutV2:
		if err := rollUpDaysAndDevices(tx); err != nil {
			return fmt.Errorf("migrate visits: %w", err)
		}
		return meta.Put(metaVisits, []byte(visitsLayout))
	}
	if old := tx.Bucket(bucketLinkVisitsV1); old != nil {
		rows, rollups := tx.Bucket(bucketLinkVisits), tx.Bucket(bucketLinkVisitRollups)
		roll := visits.Rollup{}
		var target []byte
		var seen map[string]bool // the (day, visitor) pairs seen on the target
		err := old.ForEach(func(k, v []byte) error {
			if len(k) != 17 {
				return fmt.Errorf("malformed visit key %x", k)
			}
			var rec visitRec
			if err := jsonx.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("decode visit %x: %w", k, err)
			}
			if !bytes.Equal(k[:9], target) {
				target, seen = k[:9], map[string]bool{}
			}
			nk := make([]byte, 0, 25)
			nk = append(append(append(nk, k[:9]...), id8(rec.At)...), k[9:]...)
			if err := rows.Put(nk, bytes.Clone(v)); err != nil {
				return err
			}
			kind := visitKindName(k[0])
			if kind == "" {
				return fmt.Errorf("visit key %x: unknown target kind", k)
			}
			id := readID(k[1:9])
			roll.Add(visits.Visit{Kind: kind, ID: id, At: time.UnixMicro(rec.At), Referrer: rec.Referrer, Browser: rec.Browser, OS: rec.OS,
				Country: rec.Country, Bot: rec.Bot, Visitor: rec.Visitor, Social: rec.Social})
			if !rec.Bot && rec.Visitor != "" {
				key := string(id8(visitDay(rec.At))) + rec.Visitor
				if !seen[key] {
					seen[key] = true
					roll.AddUnique(kind, id)
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("migrate visits: %w", err)
		}
		if err := addRollups(rollups, roll); err != nil {
			return fmt.Errorf("migrate visits: %w", err)
		}
		if err := tx.DeleteBucket(bucketLinkVisitsV1); err != nil {
			return fmt.Errorf("migrate visits: %w", err)
		}
	}
	return meta.Put(metaVisits, []byte(visitsLayout))
}

// rollUpDaysAndDevices adds the day and device roll-ups (visits.DimDay,
// DimDevice) of the stored visits, for a file of layout 2.
func rollUpDaysAndDevices(tx *bbolt.Tx) error {
	roll := visits.Rollup{}
	err := tx.Bucket(bucketLinkVisits).ForEach(func(k, v []byte) error {
		kind := visitKindName(k[0])
		if len(k) < 9 || kind == "" {
			return fmt.Errorf("malformed visit key %x", k)
		}
		var rec visitRec
		if err := jsonx.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("decode visit %x: %w", k, err)
		}
		if rec.Bot {
			return nil
		}
		id := readID(k[1:9])
		roll[visits.RollupKey{Kind: kind, ID: id, Dim: visits.DimDay, Label: time.UnixMicro(rec.At).UTC().Format(visits.DayLayout)}]++
		roll[visits.RollupKey{Kind: kind, ID: id, Dim: visits.DimDevice, Label: visits.LabelUnknown}]++
		return nil
	})
	if err != nil {
		return err
	}
	return addRollups(tx.Bucket(bucketLinkVisitRollups), roll)
}

// visitKindName is the inverse of visitKindByte.
func visitKindName(b byte) string {
	switch b {
	case 'l':
		return visits.KindLink
	case 'q':
		return visits.KindQR
	case 'c':
		return visits.KindCampaign
	}
	return ""
}
