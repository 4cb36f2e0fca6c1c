package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/ordering"
)

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
