package bolt

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/ordering"
)

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
