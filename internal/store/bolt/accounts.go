package bolt

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/identity"
)

var _ identity.Store = (*Store)(nil)

// GetOrCreateSecret returns the value stored under name, storing value first
// when there is none. Write transactions are serialised, so concurrent callers
// all get the value stored first.
func (s *Store) GetOrCreateSecret(ctx context.Context, name string, value []byte) ([]byte, error) {
	var out []byte
	err := s.update(ctx, "get or create secret "+name, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketSecrets)
		if v := b.Get([]byte(name)); v != nil {
			out = bytes.Clone(v)
			return nil
		}
		out = bytes.Clone(value)
		if out == nil {
			out = []byte{}
		}
		return b.Put([]byte(name), bytes.Clone(out))
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

type userRecord struct {
	ID           string        `json:"id"`
	Username     string        `json:"username"`
	Name         string        `json:"name"`
	Role         identity.Role `json:"role"`
	PasswordHash string        `json:"password_hash"`
	CreatedAt    time.Time     `json:"created_at"`
}

func (r userRecord) user() identity.User {
	return identity.User{ID: r.ID, Username: r.Username, Name: r.Name, Role: r.Role, PasswordHash: r.PasswordHash,
		CreatedAt: utc(r.CreatedAt)}
}

// CreateUser stores u; identity.ErrUsernameTaken when the username exists,
// compared case-insensitively.
func (s *Store) CreateUser(ctx context.Context, u identity.User) error {
	return s.update(ctx, "create user", func(tx *bbolt.Tx) error {
		users, byName := tx.Bucket(bucketUsers), tx.Bucket(bucketUsersByName)
		name := []byte(strings.ToLower(u.Username))
		if byName.Get(name) != nil {
			return fmt.Errorf("username %q: %w", u.Username, identity.ErrUsernameTaken)
		}
		if u.ID == "" || users.Get([]byte(u.ID)) != nil {
			return fmt.Errorf("user id %q is empty or taken", u.ID)
		}
		rec := userRecord{ID: u.ID, Username: u.Username, Name: u.Name, Role: u.Role, PasswordHash: u.PasswordHash,
			CreatedAt: ts(u.CreatedAt)}
		if err := putJSON(users, []byte(u.ID), rec); err != nil {
			return err
		}
		return byName.Put(name, []byte(u.ID))
	})
}

// GetUser returns the user with the id.
func (s *Store) GetUser(ctx context.Context, id string) (identity.User, error) {
	var u identity.User
	err := s.view(ctx, "get user", func(tx *bbolt.Tx) error {
		var err error
		u, err = getUser(tx, id)
		return err
	})
	return u, err
}

func getUser(tx *bbolt.Tx, id string) (identity.User, error) {
	var rec userRecord
	found, err := getJSON(tx.Bucket(bucketUsers), []byte(id), &rec)
	if err != nil {
		return identity.User{}, err
	}
	if !found {
		return identity.User{}, fmt.Errorf("user %q: %w", id, identity.ErrNotFound)
	}
	return rec.user(), nil
}

// GetUserByUsername returns the user with the username, compared case-insensitively.
func (s *Store) GetUserByUsername(ctx context.Context, username string) (identity.User, error) {
	var u identity.User
	err := s.view(ctx, "get user by username", func(tx *bbolt.Tx) error {
		id := tx.Bucket(bucketUsersByName).Get([]byte(strings.ToLower(username)))
		if id == nil {
			return fmt.Errorf("username %q: %w", username, identity.ErrNotFound)
		}
		var err error
		u, err = getUser(tx, string(id))
		return err
	})
	return u, err
}

// CountUsers returns the number of operator accounts.
func (s *Store) CountUsers(ctx context.Context) (int, error) {
	n := 0
	err := s.view(ctx, "count users", func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketUsers).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			n++
		}
		return nil
	})
	return n, err
}

// ListUsers returns every account, ordered by username.
func (s *Store) ListUsers(ctx context.Context) ([]identity.User, error) {
	var out []identity.User
	err := s.view(ctx, "list users", func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketUsersByName).Cursor()
		for _, id := c.First(); id != nil; _, id = c.Next() {
			u, err := getUser(tx, string(id))
			if err != nil {
				return err
			}
			out = append(out, u)
		}
		return nil
	})
	return out, err
}
