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

// CreateDomain stores d; links.ErrDomainTaken when the host is registered.
func (s *Store) CreateDomain(ctx context.Context, d links.Domain) (links.Domain, error) {
	d.CreatedAt = ts(d.CreatedAt)
	err := s.update(ctx, "create domain", func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketLinkDomainsByHost).Get([]byte(d.Host)) != nil {
			return links.ErrDomainTaken
		}
		id, err := insert(tx, tDomains, d.UserID, func(id int64) { d.ID = id }, &d)
		if err != nil {
			return err
		}
		return tx.Bucket(bucketLinkDomainsByHost).Put([]byte(d.Host), id8(id))
	})
	return d, err
}

// GetDomain returns the owner's domain.
func (s *Store) GetDomain(ctx context.Context, owner, id int64) (links.Domain, error) {
	return getOne[links.Domain](s, ctx, tDomains, owner, id)
}

// GetDomainByHost returns the domain with the host.
func (s *Store) GetDomainByHost(ctx context.Context, host string) (links.Domain, error) {
	var d links.Domain
	err := s.view(ctx, "get domain by host", func(tx *bbolt.Tx) error {
		id := tx.Bucket(bucketLinkDomainsByHost).Get([]byte(host))
		if id == nil {
			return fmt.Errorf("domain %q: %w", host, links.ErrNotFound)
		}
		ok, err := getJSON(tx.Bucket(bucketLinkDomains), id, &d)
		if err == nil && !ok {
			err = fmt.Errorf("domain %q is indexed but missing", host)
		}
		return err
	})
	return d, err
}

// ListDomains returns one page of the owner's domains.
func (s *Store) ListDomains(ctx context.Context, owner int64, p links.Page) (links.List[links.Domain], error) {
	return listOwned[links.Domain](s, ctx, tDomains, owner, p)
}

// UpdateDomain applies fn to the owner's domain.
func (s *Store) UpdateDomain(ctx context.Context, owner, id int64, fn func(*links.Domain) error) (links.Domain, error) {
	var d links.Domain
	err := s.update(ctx, "update domain", func(tx *bbolt.Tx) error {
		old, err := getOwned[links.Domain](tx, tDomains, owner, id)
		if err != nil {
			return err
		}
		d = old
		if err := fn(&d); err != nil {
			return err
		}
		d.ID, d.UserID, d.CreatedAt, d.Host, d.URL = old.ID, old.UserID, old.CreatedAt, old.Host, old.URL
		return putOwned(tx, tDomains, id, d)
	})
	return d, err
}

// DeleteDomain removes the owner's domain unless links use it.
func (s *Store) DeleteDomain(ctx context.Context, owner, id int64) error {
	return s.update(ctx, "delete domain", func(tx *bbolt.Tx) error {
		d, err := getOwned[links.Domain](tx, tDomains, owner, id)
		if err != nil {
			return err
		}
		if k, _ := tx.Bucket(bucketLinkLinksByAlias).Cursor().Seek(id8(id)); k != nil && readID(k[:8]) == id {
			return links.ErrDomainInUse
		}
		if err := tx.Bucket(bucketLinkDomainsByHost).Delete([]byte(d.Host)); err != nil {
			return err
		}
		return tDomains.remove(tx, owner, id)
	})
}

// CreateOverlay stores o.
func (s *Store) CreateOverlay(ctx context.Context, o links.Overlay) (links.Overlay, error) {
	o.CreatedAt = ts(o.CreatedAt)
	err := s.update(ctx, "create overlay", func(tx *bbolt.Tx) error {
		_, err := insert(tx, tOverlays, o.UserID, func(id int64) { o.ID = id }, &o)
		return err
	})
	return o, err
}

// ListOverlays returns one page of the owner's overlays.
func (s *Store) ListOverlays(ctx context.Context, owner int64, p links.Page) (links.List[links.Overlay], error) {
	return listOwned[links.Overlay](s, ctx, tOverlays, owner, p)
}

// CreateSplash stores sp.
func (s *Store) CreateSplash(ctx context.Context, sp links.Splash) (links.Splash, error) {
	sp.CreatedAt = ts(sp.CreatedAt)
	err := s.update(ctx, "create splash page", func(tx *bbolt.Tx) error {
		_, err := insert(tx, tSplashes, sp.UserID, func(id int64) { sp.ID = id }, &sp)
		return err
	})
	return sp, err
}

// ListSplashes returns one page of the owner's splash pages.
func (s *Store) ListSplashes(ctx context.Context, owner int64, p links.Page) (links.List[links.Splash], error) {
	return listOwned[links.Splash](s, ctx, tSplashes, owner, p)
}

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
