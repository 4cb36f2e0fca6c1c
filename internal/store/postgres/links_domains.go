package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/links"
)

var tDomains = ownedTable[links.Domain]{
	name: "links_domains", what: "domain",
	cols: `id, user_id, url, host, redirect_root, redirect_404, created_at`,
	scan: func(row pgx.Row) (links.Domain, error) {
		var d links.Domain
		err := row.Scan(&d.ID, &d.UserID, &d.URL, &d.Host, &d.RedirectRoot, &d.Redirect404, &d.CreatedAt)
		return d, err
	},
}

// CreateDomain stores d; links.ErrDomainTaken when any user has a domain
// with d.Host.
func (s *Store) CreateDomain(ctx context.Context, d links.Domain) (links.Domain, error) {
	out, err := tDomains.scan(s.pool.QueryRow(ctx, `INSERT INTO links_domains
		(user_id, url, host, redirect_root, redirect_404, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING `+tDomains.cols,
		d.UserID, d.URL, d.Host, d.RedirectRoot, d.Redirect404, d.CreatedAt))
	if c, ok := uniqueViolation(err); ok && c == "links_domains_host_key" {
		err = links.ErrDomainTaken
	}
	if err != nil {
		return links.Domain{}, linkErr("create domain", ownerErr(err, d.UserID))
	}
	return out, nil
}

// GetDomain returns the owner's domain.
func (s *Store) GetDomain(ctx context.Context, owner, id int64) (links.Domain, error) {
	d, err := tDomains.get(ctx, s.pool, owner, id, false)
	if err != nil {
		return links.Domain{}, linkErr("get domain", err)
	}
	return d, nil
}

// GetDomainByHost returns the domain with the host, whoever owns it.
func (s *Store) GetDomainByHost(ctx context.Context, host string) (links.Domain, error) {
	d, err := tDomains.scan(s.pool.QueryRow(ctx, `SELECT `+tDomains.cols+` FROM links_domains WHERE host = $1`, host))
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("domain %q: %w", host, links.ErrNotFound)
	}
	if err != nil {
		return links.Domain{}, linkErr("get domain by host", err)
	}
	return d, nil
}

// ListDomains returns one page of the owner's domains, newest first.
func (s *Store) ListDomains(ctx context.Context, owner int64, p links.Page) (links.List[links.Domain], error) {
	return tDomains.list(ctx, s, owner, p)
}

// UpdateDomain applies fn to the owner's domain, keeping its host and URL.
func (s *Store) UpdateDomain(ctx context.Context, owner, id int64, fn func(*links.Domain) error) (links.Domain, error) {
	var d links.Domain
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		old, err := tDomains.get(ctx, tx, owner, id, true)
		if err != nil {
			return err
		}
		d = old
		if err := fn(&d); err != nil {
			return err
		}
		d, err = tDomains.scan(tx.QueryRow(ctx, `UPDATE links_domains SET redirect_root = $2, redirect_404 = $3
			WHERE id = $1 RETURNING `+tDomains.cols, id, d.RedirectRoot, d.Redirect404))
		return err
	})
	if err != nil {
		return links.Domain{}, linkErr("update domain", err)
	}
	return d, nil
}

// DeleteDomain removes the owner's domain; links.ErrDomainInUse while short
// links use it.
func (s *Store) DeleteDomain(ctx context.Context, owner, id int64) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tDomains.get(ctx, tx, owner, id, true); err != nil {
			return err
		}
		var used bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM links_links WHERE domain_id = $1)`, id).Scan(&used); err != nil {
			return err
		}
		if used {
			return links.ErrDomainInUse
		}
		err := tDomains.remove(ctx, tx, owner, id)
		if _, ok := foreignKeyViolation(err); ok { // a link created meanwhile
			return links.ErrDomainInUse
		}
		return err
	})
	if err != nil {
		return linkErr("delete domain", err)
	}
	return nil
}
