package storetest

import (
	"testing"

	"github.com/seedhq/portal/internal/links"
)

func testLinkDomains(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana, budi := mustLinkUser(t, s, "ana"), mustLinkUser(t, s, "budi")
	d, err := s.CreateDomain(ctx, links.Domain{UserID: ana.ID, URL: "https://go.example.com", Host: "go.example.com",
		RedirectRoot: "https://example.com", CreatedAt: at(0)})
	mustOK(t, "CreateDomain", err)
	_, err = s.CreateDomain(ctx, links.Domain{UserID: budi.ID, URL: "http://go.example.com", Host: "go.example.com", CreatedAt: at(0)})
	wantErr(t, "CreateDomain of a taken host", err, links.ErrDomainTaken)
	_, err = s.GetDomain(ctx, budi.ID, d.ID)
	wantErr(t, "GetDomain of another user's domain", err, links.ErrNotFound)
	_, err = s.UpdateDomain(ctx, budi.ID, d.ID, func(*links.Domain) error { return nil })
	wantErr(t, "UpdateDomain of another user's domain", err, links.ErrNotFound)
	wantErr(t, "DeleteDomain of another user's domain", s.DeleteDomain(ctx, budi.ID, d.ID), links.ErrNotFound)
	up, err := s.UpdateDomain(ctx, ana.ID, d.ID, func(d *links.Domain) error { d.Redirect404 = "https://example.com/404"; return nil })
	mustOK(t, "UpdateDomain", err)
	got, err := s.GetDomainByHost(ctx, "go.example.com")
	mustOK(t, "GetDomainByHost", err)
	check(t, "domain by host", got, up)
	mustLink(t, s, links.ShortLink{UserID: ana.ID, DomainID: d.ID, Alias: "abc"})
	wantErr(t, "DeleteDomain in use", s.DeleteDomain(ctx, ana.ID, d.ID), links.ErrDomainInUse)
	l, err := s.GetLinkByAlias(ctx, d.ID, "abc")
	mustOK(t, "GetLinkByAlias", err)
	mustOK(t, "DeleteLink", s.DeleteLink(ctx, ana.ID, l.ID))
	mustOK(t, "DeleteDomain", s.DeleteDomain(ctx, ana.ID, d.ID))
	_, err = s.GetDomainByHost(ctx, "go.example.com")
	wantErr(t, "GetDomainByHost after delete", err, links.ErrNotFound)
	_, err = s.CreateDomain(ctx, links.Domain{UserID: budi.ID, URL: "https://go.example.com", Host: "go.example.com", CreatedAt: at(0)})
	mustOK(t, "CreateDomain of a freed host", err)
}
