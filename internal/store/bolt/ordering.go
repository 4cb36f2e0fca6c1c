package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/ordering"
)

var _ ordering.Store = (*Store)(nil)

// Buckets of the ordering service.
var (
	// bucketOrdLogins: SHA-256 hex of a login token -> ordering.LoginToken.
	bucketOrdLogins = []byte("ordering_logins")
	// bucketOrdUsers: user id -> ordering.User.
	bucketOrdUsers = []byte("ordering_users")
	// bucketOrdUsersByNumber: messenger number -> user id.
	bucketOrdUsersByNumber = []byte("ordering_users_by_number")
	// bucketOrdBans: kind NUL value -> ordering.Ban.
	bucketOrdBans = []byte("ordering_bans")
	// bucketOrdConsents: messenger number -> ordering.Consent.
	bucketOrdConsents = []byte("ordering_consents")
	// bucketOrdSpent: key -> 8-byte Unix seconds until which it is kept.
	bucketOrdSpent = []byte("ordering_spent")
)

func init() {
	allBuckets = append(allBuckets, bucketOrdLogins, bucketOrdUsers, bucketOrdUsersByNumber, bucketOrdBans,
		bucketOrdConsents, bucketOrdSpent)
}

// CreateLoginToken stores a new login token.
func (s *Store) CreateLoginToken(ctx context.Context, t ordering.LoginToken) error {
	return s.update(ctx, "create login token", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketOrdLogins)
		if b.Get([]byte(t.Hash)) != nil {
			return fmt.Errorf("login token %s exists", t.Hash)
		}
		return putJSON(b, []byte(t.Hash), loginRec(t))
	})
}

// loginRec returns t with its times as stored.
func loginRec(t ordering.LoginToken) ordering.LoginToken {
	t.CreatedAt, t.ExpiresAt, t.VerifiedAt = ts(t.CreatedAt), ts(t.ExpiresAt), tsPtr(t.VerifiedAt)
	return t
}

// GetLoginToken returns the login token with the hash.
func (s *Store) GetLoginToken(ctx context.Context, hash string) (ordering.LoginToken, error) {
	var t ordering.LoginToken
	err := s.view(ctx, "get login token", func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bucketOrdLogins), []byte(hash), &t)
		if err == nil && !ok {
			return ordering.ErrTokenNotFound
		}
		return err
	})
	return t, err
}

// UpdateLogin loads the token and its number's user, calls fn and saves
// both.
func (s *Store) UpdateLogin(ctx context.Context, hash string, fn func(*ordering.LoginToken, *ordering.User) error) (ordering.LoginToken, ordering.User, error) {
	var t ordering.LoginToken
	var u ordering.User
	err := s.update(ctx, "update login", func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bucketOrdLogins), []byte(hash), &t)
		if err != nil {
			return err
		}
		if !ok {
			return ordering.ErrTokenNotFound
		}
		if id := tx.Bucket(bucketOrdUsersByNumber).Get([]byte(t.Number)); id != nil {
			if _, err := getJSON(tx.Bucket(bucketOrdUsers), id, &u); err != nil {
				return err
			}
		}
		isNew := u.ID == ""
		if err := fn(&t, &u); err != nil {
			return err
		}
		if err := putJSON(tx.Bucket(bucketOrdLogins), []byte(hash), loginRec(t)); err != nil {
			return err
		}
		if u.ID == "" {
			return nil
		}
		return putOrderingUser(tx, u, isNew)
	})
	return t, u, err
}

// putOrderingUser saves u, indexing a new user by its number.
func putOrderingUser(tx *bbolt.Tx, u ordering.User, isNew bool) error {
	u.CreatedAt, u.LastLoginAt = ts(u.CreatedAt), ts(u.LastLoginAt)
	if isNew {
		idx := tx.Bucket(bucketOrdUsersByNumber)
		if idx.Get([]byte(u.MessengerNumber)) != nil {
			return fmt.Errorf("a user of number %s exists", u.MessengerNumber)
		}
		if err := idx.Put([]byte(u.MessengerNumber), []byte(u.ID)); err != nil {
			return err
		}
	}
	return putJSON(tx.Bucket(bucketOrdUsers), []byte(u.ID), u)
}

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

// RecordConsent records or refreshes the consent of a number.
func (s *Store) RecordConsent(ctx context.Context, c ordering.Consent) error {
	return s.update(ctx, "record consent", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketOrdConsents)
		var old ordering.Consent
		ok, err := getJSON(b, []byte(c.Number), &old)
		if err != nil {
			return err
		}
		c.FirstAt, c.LastAt = ts(c.FirstAt), ts(c.LastAt)
		if ok {
			old.LastAt = c.LastAt
			c = old
		}
		return putJSON(b, []byte(c.Number), c)
	})
}

// GetConsent returns the consent of a number.
func (s *Store) GetConsent(ctx context.Context, number string) (ordering.Consent, bool, error) {
	var c ordering.Consent
	var ok bool
	err := s.view(ctx, "get consent", func(tx *bbolt.Tx) error {
		var err error
		ok, err = getJSON(tx.Bucket(bucketOrdConsents), []byte(number), &c)
		return err
	})
	return c, ok, err
}

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

// GetOrderingUser returns the user with id.
func (s *Store) GetOrderingUser(ctx context.Context, id string) (ordering.User, error) {
	var u ordering.User
	err := s.view(ctx, "get user", func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bucketOrdUsers), []byte(id), &u)
		if err == nil && !ok {
			return ordering.ErrUserNotFound
		}
		return err
	})
	return u, err
}

// ListOrderingUsers returns every user, oldest first.
func (s *Store) ListOrderingUsers(ctx context.Context) ([]ordering.User, error) {
	var out []ordering.User
	err := s.view(ctx, "list users", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketOrdUsers).ForEach(func(k, v []byte) error {
			var u ordering.User
			if err := decodeJSON(k, v, &u); err != nil {
				return err
			}
			out = append(out, u)
			return nil
		})
	})
	slices.SortStableFunc(out, func(a, b ordering.User) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, err
}

// UpdateOrderingUser loads the user, calls fn and saves it.
func (s *Store) UpdateOrderingUser(ctx context.Context, id string, fn func(*ordering.User) error) (ordering.User, error) {
	var u ordering.User
	err := s.update(ctx, "update user", func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bucketOrdUsers), []byte(id), &u)
		if err != nil {
			return err
		}
		if !ok {
			return ordering.ErrUserNotFound
		}
		number := u.MessengerNumber
		if err := fn(&u); err != nil {
			return err
		}
		if u.ID != id || u.MessengerNumber != number {
			return errors.New("a user's id and number do not change")
		}
		return putOrderingUser(tx, u, false)
	})
	return u, err
}

// PruneLogins removes expired login tokens and spent keys kept until
// before.
func (s *Store) PruneLogins(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.update(ctx, "prune logins", func(tx *bbolt.Tx) error {
		var doomed [][]byte
		if err := tx.Bucket(bucketOrdLogins).ForEach(func(k, v []byte) error {
			var t ordering.LoginToken
			if err := decodeJSON(k, v, &t); err != nil {
				return err
			}
			if t.ExpiresAt.Before(before) {
				doomed = append(doomed, bytes.Clone(k))
			}
			return nil
		}); err != nil {
			return err
		}
		for _, k := range doomed {
			if err := tx.Bucket(bucketOrdLogins).Delete(k); err != nil {
				return err
			}
		}
		n = int64(len(doomed))
		doomed = doomed[:0]
		if err := tx.Bucket(bucketOrdSpent).ForEach(func(k, v []byte) error {
			if len(v) == 8 && int64(binary.BigEndian.Uint64(v)) < before.Unix() {
				doomed = append(doomed, bytes.Clone(k))
			}
			return nil
		}); err != nil {
			return err
		}
		for _, k := range doomed {
			if err := tx.Bucket(bucketOrdSpent).Delete(k); err != nil {
				return err
			}
		}
		n += int64(len(doomed))
		return nil
	})
	return n, err
}
