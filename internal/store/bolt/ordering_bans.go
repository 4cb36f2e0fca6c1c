package bolt

import (
	"context"
	"slices"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/ordering"
)

// banKey returns the key of a ban record.
func banKey(k ordering.BanKey) []byte { return []byte(string(k.Kind) + "\x00" + k.Value) }

// UpdateBans loads (or starts) the ban records of keys, calls fn and saves them.
func (s *Store) UpdateBans(ctx context.Context, keys []ordering.BanKey, now time.Time, newID func() string, fn func([]*ordering.Ban) error) ([]ordering.Ban, error) {
	var out []ordering.Ban
	err := s.update(ctx, "update bans", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketOrdBans)
		bans := make([]*ordering.Ban, len(keys))
		for i, k := range keys {
			bans[i] = &ordering.Ban{}
			ok, err := getJSON(b, banKey(k), bans[i])
			if err != nil {
				return err
			}
			if !ok {
				bans[i] = &ordering.Ban{ID: newID(), BanKey: k, LastAttemptAt: ts(now), CreatedAt: ts(now)}
			}
		}
		if err := fn(bans); err != nil {
			return err
		}
		out = make([]ordering.Ban, len(bans))
		for i, ban := range bans {
			ban.LastAttemptAt, ban.CreatedAt, ban.BanUntil = ts(ban.LastAttemptAt), ts(ban.CreatedAt), tsPtr(ban.BanUntil)
			if err := putJSON(b, banKey(ban.BanKey), ban); err != nil {
				return err
			}
			out[i] = *ban
		}
		return nil
	})
	return out, err
}

// ListBans returns the ban records with a level or attempts, most recent
// attempt first.
func (s *Store) ListBans(ctx context.Context) ([]ordering.Ban, error) {
	var out []ordering.Ban
	err := s.view(ctx, "list bans", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketOrdBans).ForEach(func(k, v []byte) error {
			var b ordering.Ban
			if err := decodeJSON(k, v, &b); err != nil {
				return err
			}
			if b.Level > 0 || b.Attempts > 0 {
				out = append(out, b)
			}
			return nil
		})
	})
	slices.SortStableFunc(out, func(a, b ordering.Ban) int {
		if c := b.LastAttemptAt.Compare(a.LastAttemptAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, err
}
