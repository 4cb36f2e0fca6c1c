package bolt

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/links"
)

// CreateLinkUser stores u with an API key of hash keyHash.
func (s *Store) CreateLinkUser(ctx context.Context, u links.User, keyHash string) (links.User, error) {
	u.RegisteredAt = ts(u.RegisteredAt)
	u.ExpiresAt = tsPtr(u.ExpiresAt)
	err := s.update(ctx, "create link user", func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketLinkUsersByEmail).Get([]byte(u.Email)) != nil {
			return links.ErrEmailTaken
		}
		if tx.Bucket(bucketLinkUsersByName).Get([]byte(u.Username)) != nil {
			return links.ErrUsernameTaken
		}
		if tx.Bucket(bucketLinkKeysByHash).Get([]byte(keyHash)) != nil {
			return errors.New("an API key with this hash exists")
		}
		seq, err := tx.Bucket(bucketLinkUsers).NextSequence()
		if err != nil {
			return err
		}
		u.ID = int64(seq)
		id := id8(u.ID)
		if err := putJSON(tx.Bucket(bucketLinkUsers), id, u); err != nil {
			return err
		}
		if err := tx.Bucket(bucketLinkUsersByEmail).Put([]byte(u.Email), id); err != nil {
			return err
		}
		if err := tx.Bucket(bucketLinkUsersByName).Put([]byte(u.Username), id); err != nil {
			return err
		}
		k := links.APIKey{UserID: u.ID, Hash: keyHash, CreatedAt: u.RegisteredAt}
		if err := putJSON(tx.Bucket(bucketLinkKeys), id, k); err != nil {
			return err
		}
		return tx.Bucket(bucketLinkKeysByHash).Put([]byte(keyHash), id)
	})
	return u, err
}

// getLinkUser reads a user.
func getLinkUser(tx *bbolt.Tx, id int64) (links.User, error) {
	var u links.User
	ok, err := getJSON(tx.Bucket(bucketLinkUsers), id8(id), &u)
	if err == nil && !ok {
		err = links.NotFound("user", id)
	}
	return u, err
}

// GetLinkUser returns the user with the id.
func (s *Store) GetLinkUser(ctx context.Context, id int64) (links.User, error) {
	var u links.User
	err := s.view(ctx, "get link user", func(tx *bbolt.Tx) error {
		var err error
		u, err = getLinkUser(tx, id)
		return err
	})
	return u, err
}

// ListLinkUsers returns one page of users, newest first.
func (s *Store) ListLinkUsers(ctx context.Context, p links.Page) (links.List[links.User], error) {
	var l links.List[links.User]
	err := s.view(ctx, "list link users", func(tx *bbolt.Tx) error {
		var ids []int64
		c := tx.Bucket(bucketLinkUsers).Cursor()
		for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
			ids = append(ids, readID(k))
		}
		var err error
		l, err = pageOf(ids, p, func(id int64) (links.User, error) { return getLinkUser(tx, id) })
		return err
	})
	return l, err
}

// UpdateLinkUser applies fn to the user, re-indexing a changed email or username.
func (s *Store) UpdateLinkUser(ctx context.Context, id int64, fn func(*links.User) error) (links.User, error) {
	var u links.User
	err := s.update(ctx, "update link user", func(tx *bbolt.Tx) error {
		old, err := getLinkUser(tx, id)
		if err != nil {
			return err
		}
		u = old
		if err := fn(&u); err != nil {
			return err
		}
		u.ID, u.RegisteredAt, u.ExpiresAt = old.ID, old.RegisteredAt, tsPtr(u.ExpiresAt)
		if err := reindex(tx.Bucket(bucketLinkUsersByEmail), old.Email, u.Email, id8(id), links.ErrEmailTaken); err != nil {
			return err
		}
		if err := reindex(tx.Bucket(bucketLinkUsersByName), old.Username, u.Username, id8(id), links.ErrUsernameTaken); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bucketLinkUsers), id8(id), u)
	})
	return u, err
}

// reindex moves a unique index entry from oldKey to newKey (value v),
// returning taken when newKey belongs to another record. Empty keys are not
// indexed.
func reindex(b *bbolt.Bucket, oldKey, newKey string, v []byte, taken error) error {
	if oldKey == newKey {
		return nil
	}
	if newKey != "" {
		if b.Get([]byte(newKey)) != nil {
			return taken
		}
		if err := b.Put([]byte(newKey), v); err != nil {
			return err
		}
	}
	if oldKey != "" {
		return b.Delete([]byte(oldKey))
	}
	return nil
}

// GetLinkAPIKey returns the user's API key record.
func (s *Store) GetLinkAPIKey(ctx context.Context, userID int64) (links.APIKey, error) {
	var k links.APIKey
	err := s.view(ctx, "get API key", func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bucketLinkKeys), id8(userID), &k)
		if err == nil && !ok {
			err = links.NotFound("user", userID)
		}
		return err
	})
	return k, err
}

// GetLinkUserByLogin returns the user whose username or email is login.
func (s *Store) GetLinkUserByLogin(ctx context.Context, login string) (links.User, error) {
	var u links.User
	err := s.view(ctx, "get user by login", func(tx *bbolt.Tx) error {
		id := tx.Bucket(bucketLinkUsersByName).Get([]byte(login))
		if id == nil {
			id = tx.Bucket(bucketLinkUsersByEmail).Get([]byte(login))
		}
		if id == nil {
			return fmt.Errorf("login: %w", links.ErrNotFound)
		}
		var err error
		u, err = getLinkUser(tx, readID(id))
		return err
	})
	return u, err
}

// GetLinkUserByKeyHash returns the user whose current key has the hash.
func (s *Store) GetLinkUserByKeyHash(ctx context.Context, hash string) (links.User, error) {
	var u links.User
	err := s.view(ctx, "get user by API key", func(tx *bbolt.Tx) error {
		id := tx.Bucket(bucketLinkKeysByHash).Get([]byte(hash))
		if id == nil {
			return fmt.Errorf("API key: %w", links.ErrNotFound)
		}
		var err error
		u, err = getLinkUser(tx, readID(id))
		return err
	})
	return u, err
}

// RotateLinkAPIKey replaces the user's key by one of hash newHash.
func (s *Store) RotateLinkAPIKey(ctx context.Context, userID int64, newHash string, at time.Time) (links.APIKey, error) {
	var k links.APIKey
	err := s.update(ctx, "rotate API key", func(tx *bbolt.Tx) error {
		ok, err := getJSON(tx.Bucket(bucketLinkKeys), id8(userID), &k)
		if err == nil && !ok {
			err = links.NotFound("user", userID)
		}
		if err != nil {
			return err
		}
		if err := reindex(tx.Bucket(bucketLinkKeysByHash), k.Hash, newHash, id8(userID),
			errors.New("an API key with this hash exists")); err != nil {
			return err
		}
		k.Hash, k.CreatedAt, k.RotatedAt = newHash, ts(at), tsPtr(&at)
		return putJSON(tx.Bucket(bucketLinkKeys), id8(userID), k)
	})
	return k, err
}
