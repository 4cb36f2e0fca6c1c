package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/links"
)

func testShortLinks(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana, budi := mustLinkUser(t, s, "ana"), mustLinkUser(t, s, "budi")
	d, err := s.CreateDomain(ctx, links.Domain{UserID: ana.ID, URL: "https://go.example.com", Host: "go.example.com", CreatedAt: at(0)})
	mustOK(t, "CreateDomain", err)
	px, err := s.CreatePixel(ctx, links.Pixel{UserID: ana.ID, Type: links.PixelGTM, Name: "gtm", Tag: "GTM-ABC1234", CreatedAt: at(0)})
	mustOK(t, "CreatePixel", err)
	budiPx, err := s.CreatePixel(ctx, links.Pixel{UserID: budi.ID, Type: links.PixelGTM, Name: "gtm", Tag: "GTM-ABC1234", CreatedAt: at(0)})
	mustOK(t, "CreatePixel", err)

	want := links.ShortLink{UserID: ana.ID, Alias: "promo", LongURL: "https://example.com/a", Title: "Promo",
		Description: "d", PasswordHash: "$2a$04$x", ExpiresAt: ptr(at(48 * time.Hour)), PixelIDs: []int64{px.ID, px.ID},
		CreatedAt: at(0), UpdatedAt: at(0)}
	l := mustLink(t, s, want)
	want.ID, want.PixelIDs = l.ID, []int64{px.ID}
	got, err := s.GetLink(ctx, ana.ID, l.ID)
	mustOK(t, "GetLink", err)
	want.CreatedAt, want.UpdatedAt, want.ExpiresAt = at(0).UTC(), at(0).UTC(), ptr(at(48*time.Hour).UTC())
	check(t, "GetLink", got, want)

	_, err = s.CreateLink(ctx, links.ShortLink{UserID: budi.ID, Alias: "promo", LongURL: "https://x.org", CreatedAt: at(0)})
	wantErr(t, "same alias on the same domain", err, links.ErrAliasTaken)
	mustLink(t, s, links.ShortLink{UserID: ana.ID, DomainID: d.ID, Alias: "promo"})
	mustLink(t, s, links.ShortLink{UserID: budi.ID, Alias: "Promo"}) // aliases are case-sensitive

	for what, bad := range map[string]links.ShortLink{
		"another user's domain": {UserID: budi.ID, DomainID: d.ID, Alias: "x1y"},
		"another user's pixel":  {UserID: ana.ID, Alias: "x2y", PixelIDs: []int64{budiPx.ID}},
		"a missing campaign":    {UserID: ana.ID, Alias: "x3y", CampaignID: 77},
		"a missing channel":     {UserID: ana.ID, Alias: "x4y", ChannelIDs: []int64{77}},
	} {
		bad.LongURL, bad.CreatedAt = "https://example.com", at(0)
		_, err := s.CreateLink(ctx, bad)
		wantErr(t, "CreateLink with "+what, err, links.ErrNotFound)
		if _, err := s.GetLinkByAlias(ctx, bad.DomainID, bad.Alias); err == nil {
			t.Fatalf("CreateLink with %s left a link behind", what)
		}
	}

	_, err = s.GetLink(ctx, budi.ID, l.ID)
	wantErr(t, "GetLink of another user's link", err, links.ErrNotFound)
	_, err = s.UpdateLink(ctx, budi.ID, l.ID, func(*links.ShortLink) error { return nil })
	wantErr(t, "UpdateLink of another user's link", err, links.ErrNotFound)
	wantErr(t, "DeleteLink of another user's link", s.DeleteLink(ctx, budi.ID, l.ID), links.ErrNotFound)

	_, err = s.UpdateLink(ctx, ana.ID, l.ID, func(l *links.ShortLink) error { l.Alias = "Promo"; return nil })
	wantErr(t, "UpdateLink to a taken alias", err, links.ErrAliasTaken)
	up, err := s.UpdateLink(ctx, ana.ID, l.ID, func(l *links.ShortLink) error {
		l.Alias, l.LongURL, l.Clicks, l.ExpiresAt = "promo2", "https://example.com/b", 99, nil
		return nil
	})
	mustOK(t, "UpdateLink", err)
	if up.Alias != "promo2" || up.Clicks != 0 || up.ExpiresAt != nil {
		t.Fatalf("UpdateLink = %+v", up)
	}
	if _, err := s.GetLinkByAlias(ctx, 0, "promo"); err == nil {
		t.Fatal("the old alias still resolves after UpdateLink")
	}
	mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "promo"}) // freed
	checkListedLinks(t, s, ana.ID)
	mustOK(t, "DeletePixel", s.DeletePixel(ctx, ana.ID, px.ID))
	got, err = s.GetLink(ctx, ana.ID, l.ID)
	mustOK(t, "GetLink", err)
	check(t, "pixels after DeletePixel", len(got.PixelIDs), 0)
	list, err := s.ListLinks(ctx, ana.ID, links.LinkFilter{}, p1)
	mustOK(t, "ListLinks", err)
	check(t, "ana's links", list.Total, 3)
	for _, c := range []struct {
		f    links.LinkFilter
		want int
	}{
		{links.LinkFilter{Search: "promo2"}, 1},        // alias
		{links.LinkFilter{Search: "example.com/b"}, 1}, // long URL
		{links.LinkFilter{Search: "promo"}, 3},         // aliases and title
		{links.LinkFilter{DomainID: d.ID}, 1},
		{links.LinkFilter{DomainID: d.ID, Search: "promo2"}, 0},
	} {
		list, err := s.ListLinks(ctx, ana.ID, c.f, p1)
		mustOK(t, "ListLinks filtered", err)
		if list.Total != c.want || len(list.Items) != c.want {
			t.Fatalf("ListLinks(%+v) = %d links, want %d", c.f, list.Total, c.want)
		}
	}
	// Texts that JSON escapes, and letters beyond ASCII, are found too.
	_, err = s.UpdateLink(ctx, ana.ID, l.ID, func(l *links.ShortLink) error {
		l.Title = `Fish & Chips <Ünïcode> "quoted" back\slash`
		return nil
	})
	mustOK(t, "UpdateLink title", err)
	for _, q := range []string{"fish & chips", "<ünïcode>", `"quoted"`, `back\slash`, "ünï"} {
		list, err := s.ListLinks(ctx, ana.ID, links.LinkFilter{Search: q}, p1)
		mustOK(t, "ListLinks search", err)
		if list.Total != 1 {
			t.Fatalf("ListLinks(search %q) = %d links, want 1", q, list.Total)
		}
	}
}

// checkListedLinks checks that every link of the owner's list is the record
// GetLink returns, pixel and channel ids included.
func checkListedLinks(t *testing.T, s links.Store, owner int64) {
	t.Helper()
	list, err := s.ListLinks(t.Context(), owner, links.LinkFilter{}, links.Page{Number: 1, Limit: links.MaxLimit})
	mustOK(t, "ListLinks", err)
	for _, l := range list.Items {
		got, err := s.GetLink(t.Context(), owner, l.ID)
		mustOK(t, "GetLink", err)
		check(t, fmt.Sprintf("link %d as listed", l.ID), l, got)
	}
}
