package bolt

import (
	"context"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/links"
)

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
