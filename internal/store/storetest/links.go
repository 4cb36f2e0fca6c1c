package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/links"
)

// RunLinks runs the conformance suite of links.Store, each test as a subtest
// with a fresh, empty store from open. It is separate from Run so that a
// backend can adopt the link domain on its own schedule.
func RunLinks(t *testing.T, open func(t *testing.T) links.Store) {
	t.Helper()
	for _, tc := range linksSuite {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
}

type linksTest struct {
	name string
	run  func(t *testing.T, s links.Store)
}

var linksSuite = []linksTest{
	{"UsersAndKeys", testLinkUsers},
	{"Domains", testLinkDomains},
	{"ShortLinks", testShortLinks},
	{"Campaigns", testLinkCampaigns},
	{"Channels", testLinkChannels},
	{"Pixels", testLinkPixels},
	{"OverlaysSplashQR", testLinkOverlaysSplashQR},
	{"Paging", testLinkPaging},
	{"RateLimit", testLinkRateLimit},
}

// mustLinkUser creates a user with the key hash "hash-<username>" or fails the test.
func mustLinkUser(t *testing.T, s links.Store, username string) links.User {
	t.Helper()
	u, err := s.CreateLinkUser(t.Context(), links.User{Email: username + "@example.com", Username: username,
		Plan: "pro", RegisteredAt: at(0)}, "hash-"+username)
	mustOK(t, "CreateLinkUser "+username, err)
	return u
}

// mustLink creates a short link or fails the test.
func mustLink(t *testing.T, s links.Store, l links.ShortLink) links.ShortLink {
	t.Helper()
	if l.CreatedAt.IsZero() {
		l.CreatedAt, l.UpdatedAt = at(0), at(0)
	}
	if l.LongURL == "" {
		l.LongURL = "https://example.com/" + l.Alias
	}
	out, err := s.CreateLink(t.Context(), l)
	mustOK(t, "CreateLink "+l.Alias, err)
	return out
}

// p1 is the first page with the default limit.
var p1 = links.Page{Number: 1, Limit: links.DefaultLimit}

func testLinkUsers(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana := mustLinkUser(t, s, "ana")
	budi := mustLinkUser(t, s, "budi")
	if ana.ID <= 0 || budi.ID <= 0 || ana.ID == budi.ID {
		t.Fatalf("ids %d, %d: want distinct positive ids", ana.ID, budi.ID)
	}
	got, err := s.GetLinkUser(ctx, ana.ID)
	mustOK(t, "GetLinkUser", err)
	check(t, "GetLinkUser", got, ana)
	_, err = s.CreateLinkUser(ctx, links.User{Email: "ana@example.com", Username: "other", RegisteredAt: at(0)}, "h1")
	wantErr(t, "CreateLinkUser with a taken email", err, links.ErrEmailTaken)
	_, err = s.CreateLinkUser(ctx, links.User{Email: "x@example.com", Username: "ana", RegisteredAt: at(0)}, "h2")
	wantErr(t, "CreateLinkUser with a taken username", err, links.ErrUsernameTaken)

	for _, login := range []string{"ana", "ana@example.com"} {
		byLogin, err := s.GetLinkUserByLogin(ctx, login)
		mustOK(t, "GetLinkUserByLogin "+login, err)
		check(t, "user by login "+login, byLogin.ID, ana.ID)
	}
	_, err = s.GetLinkUserByLogin(ctx, "nobody")
	wantErr(t, "GetLinkUserByLogin of an unknown login", err, links.ErrNotFound)

	byKey, err := s.GetLinkUserByKeyHash(ctx, "hash-ana")
	mustOK(t, "GetLinkUserByKeyHash", err)
	check(t, "user by key", byKey.ID, ana.ID)
	k, err := s.RotateLinkAPIKey(ctx, ana.ID, "hash-ana-2", at(time.Hour))
	mustOK(t, "RotateLinkAPIKey", err)
	check(t, "rotated key", k, links.APIKey{UserID: ana.ID, Hash: "hash-ana-2", CreatedAt: at(time.Hour).UTC(), RotatedAt: ptr(at(time.Hour).UTC())})
	_, err = s.GetLinkUserByKeyHash(ctx, "hash-ana")
	wantErr(t, "old key after rotation", err, links.ErrNotFound)
	if got, err := s.GetLinkUserByKeyHash(ctx, "hash-ana-2"); err != nil || got.ID != ana.ID {
		t.Fatalf("new key = %d, %v", got.ID, err)
	}

	_, err = s.UpdateLinkUser(ctx, ana.ID, func(u *links.User) error { u.Email = "budi@example.com"; return nil })
	wantErr(t, "UpdateLinkUser to a taken email", err, links.ErrEmailTaken)
	u, err := s.UpdateLinkUser(ctx, ana.ID, func(u *links.User) error { u.Email = "ana2@example.com"; u.PasswordHash = "h"; return nil })
	mustOK(t, "UpdateLinkUser", err)
	check(t, "updated email", u.Email, "ana2@example.com")
	_, err = s.CreateLinkUser(ctx, links.User{Email: "ana@example.com", Username: "ana3", RegisteredAt: at(0)}, "h3")
	mustOK(t, "CreateLinkUser with the freed email", err)
	list, err := s.ListLinkUsers(ctx, p1)
	mustOK(t, "ListLinkUsers", err)
	if list.Total != 3 || list.Items[0].Username != "ana3" || list.Items[2].ID != ana.ID {
		t.Fatalf("ListLinkUsers = %+v, want 3 users newest first", list)
	}
	_, err = s.GetLinkUser(ctx, 999)
	wantErr(t, "GetLinkUser of a missing id", err, links.ErrNotFound)
}

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

func testLinkCampaigns(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana, budi := mustLinkUser(t, s, "ana"), mustLinkUser(t, s, "budi")
	c, err := s.CreateCampaign(ctx, links.Campaign{UserID: ana.ID, Name: "Summer", Slug: "summer", Public: true, CreatedAt: at(0)})
	mustOK(t, "CreateCampaign", err)
	_, err = s.CreateCampaign(ctx, links.Campaign{UserID: budi.ID, Name: "x", Slug: "summer", CreatedAt: at(0)})
	wantErr(t, "CreateCampaign with a taken slug", err, links.ErrSlugTaken)
	c2, err := s.CreateCampaign(ctx, links.Campaign{UserID: budi.ID, Name: "no slug", CreatedAt: at(0)})
	mustOK(t, "CreateCampaign without slug", err)
	_, err = s.CreateCampaign(ctx, links.Campaign{UserID: budi.ID, Name: "no slug either", CreatedAt: at(0)})
	mustOK(t, "a second campaign without slug", err)
	bySlug, err := s.GetCampaignBySlug(ctx, "summer")
	mustOK(t, "GetCampaignBySlug", err)
	check(t, "campaign by slug", bySlug.ID, c.ID)
	byID, err := s.GetCampaignByID(ctx, c2.ID)
	mustOK(t, "GetCampaignByID of budi's campaign", err)
	check(t, "campaign by id", byID, links.Campaign{ID: c2.ID, UserID: budi.ID, Name: "no slug", CreatedAt: at(0).UTC()})
	_, err = s.GetCampaignByID(ctx, c.ID+1000)
	wantErr(t, "GetCampaignByID of a missing campaign", err, links.ErrNotFound)
	_, err = s.GetCampaignByID(ctx, 0)
	wantErr(t, "GetCampaignByID(0)", err, links.ErrNotFound)

	l := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "one"})
	bl := mustLink(t, s, links.ShortLink{UserID: budi.ID, Alias: "two"})
	wantErr(t, "assign another user's link", s.AssignCampaignLink(ctx, ana.ID, c.ID, bl.ID), links.ErrNotFound)
	wantErr(t, "assign to another user's campaign", s.AssignCampaignLink(ctx, ana.ID, c2.ID, l.ID), links.ErrNotFound)
	mustOK(t, "AssignCampaignLink", s.AssignCampaignLink(ctx, ana.ID, c.ID, l.ID))
	in, err := s.ListLinks(ctx, ana.ID, links.LinkFilter{CampaignID: c.ID}, p1)
	mustOK(t, "ListLinks by campaign", err)
	if in.Total != 1 || in.Items[0].ID != l.ID || in.Items[0].CampaignID != c.ID {
		t.Fatalf("links of the campaign = %+v", in)
	}
	_, err = s.UpdateCampaign(ctx, ana.ID, c.ID, func(c *links.Campaign) error { c.Slug = ""; c.Name = "Winter"; return nil })
	mustOK(t, "UpdateCampaign", err)
	_, err = s.GetCampaignBySlug(ctx, "summer")
	wantErr(t, "old slug after UpdateCampaign", err, links.ErrNotFound)
	wantErr(t, "DeleteCampaign of another user's", s.DeleteCampaign(ctx, budi.ID, c.ID), links.ErrNotFound)
	mustOK(t, "DeleteCampaign", s.DeleteCampaign(ctx, ana.ID, c.ID))
	_, err = s.GetCampaignByID(ctx, c.ID)
	wantErr(t, "GetCampaignByID after DeleteCampaign", err, links.ErrNotFound)
	got, err := s.GetLink(ctx, ana.ID, l.ID)
	mustOK(t, "GetLink", err)
	check(t, "campaign of the link after DeleteCampaign", got.CampaignID, int64(0))
}

func testLinkChannels(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana, budi := mustLinkUser(t, s, "ana"), mustLinkUser(t, s, "budi")
	ch, err := s.CreateChannel(ctx, links.Channel{UserID: ana.ID, Name: "News", Color: "#FF0000", Starred: true, CreatedAt: at(0)})
	mustOK(t, "CreateChannel", err)
	l := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "one", Title: "One"})
	q, err := s.CreateQR(ctx, links.QRCode{UserID: ana.ID, Name: "qr", Type: links.QRText, Data: []byte(`"hi"`), CreatedAt: at(time.Hour), UpdatedAt: at(time.Hour)})
	mustOK(t, "CreateQR", err)
	bl := mustLink(t, s, links.ShortLink{UserID: budi.ID, Alias: "two"})
	wantErr(t, "assign another user's link", s.AssignChannelItem(ctx, ana.ID, ch.ID, links.ItemLink, bl.ID, at(0)), links.ErrNotFound)
	wantErr(t, "assign to another user's channel", s.AssignChannelItem(ctx, budi.ID, ch.ID, links.ItemLink, bl.ID, at(0)), links.ErrNotFound)
	mustOK(t, "assign link", s.AssignChannelItem(ctx, ana.ID, ch.ID, links.ItemLink, l.ID, at(time.Minute)))
	mustOK(t, "assign QR", s.AssignChannelItem(ctx, ana.ID, ch.ID, links.ItemQR, q.ID, at(2*time.Minute)))
	mustOK(t, "assign link again", s.AssignChannelItem(ctx, ana.ID, ch.ID, links.ItemLink, l.ID, at(3*time.Minute)))
	items, err := s.ListChannelItems(ctx, ana.ID, ch.ID, p1)
	mustOK(t, "ListChannelItems", err)
	check(t, "channel items", items.Items, []links.ChannelItem{
		{Type: links.ItemQR, ItemID: q.ID, Title: "qr", CreatedAt: at(time.Hour).UTC(), AssignedAt: at(2 * time.Minute).UTC()},
		{Type: links.ItemLink, ItemID: l.ID, Title: "One", Alias: "one", CreatedAt: at(0).UTC(), AssignedAt: at(time.Minute).UTC()},
	})
	got, err := s.GetLink(ctx, ana.ID, l.ID)
	mustOK(t, "GetLink", err)
	check(t, "channels of the link", got.ChannelIDs, []int64{ch.ID})
	checkListedLinks(t, s, ana.ID)
	_, err = s.ListChannelItems(ctx, budi.ID, ch.ID, p1)
	wantErr(t, "ListChannelItems of another user's channel", err, links.ErrNotFound)

	mustOK(t, "DeleteChannel", s.DeleteChannel(ctx, ana.ID, ch.ID))
	got, err = s.GetLink(ctx, ana.ID, l.ID)
	mustOK(t, "GetLink", err)
	check(t, "channels of the link after DeleteChannel", len(got.ChannelIDs), 0)
	_, err = s.GetChannel(ctx, ana.ID, ch.ID)
	wantErr(t, "GetChannel after delete", err, links.ErrNotFound)

	ch2, err := s.CreateChannel(ctx, links.Channel{UserID: ana.ID, Name: "Two", CreatedAt: at(0)})
	mustOK(t, "CreateChannel", err)
	l2 := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "three", ChannelIDs: []int64{ch2.ID}})
	check(t, "channels given at create", l2.ChannelIDs, []int64{ch2.ID})
	_, err = s.UpdateLink(ctx, ana.ID, l2.ID, func(l *links.ShortLink) error { l.ChannelIDs = nil; return nil })
	mustOK(t, "UpdateLink without channels", err)
	items, err = s.ListChannelItems(ctx, ana.ID, ch2.ID, p1)
	mustOK(t, "ListChannelItems", err)
	check(t, "items after unassigning by update", items.Total, 0)
	mustOK(t, "assign QR", s.AssignChannelItem(ctx, ana.ID, ch2.ID, links.ItemQR, q.ID, at(0)))
	mustOK(t, "DeleteQR", s.DeleteQR(ctx, ana.ID, q.ID))
	items, err = s.ListChannelItems(ctx, ana.ID, ch2.ID, p1)
	mustOK(t, "ListChannelItems", err)
	check(t, "items after DeleteQR", items.Total, 0)
	up, err := s.UpdateChannel(ctx, ana.ID, ch2.ID, func(c *links.Channel) error { c.Starred = true; return nil })
	mustOK(t, "UpdateChannel", err)
	check(t, "starred", up.Starred, true)
}

func testLinkPixels(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana, budi := mustLinkUser(t, s, "ana"), mustLinkUser(t, s, "budi")
	px, err := s.CreatePixel(ctx, links.Pixel{UserID: ana.ID, Type: links.PixelFacebook, Name: "fb", Tag: "123456789012345", CreatedAt: at(0)})
	mustOK(t, "CreatePixel", err)
	up, err := s.UpdatePixel(ctx, ana.ID, px.ID, func(p *links.Pixel) error { p.Tag, p.Type = "1234567890123456", links.PixelBing; return nil })
	mustOK(t, "UpdatePixel", err)
	check(t, "updated pixel", up, links.Pixel{ID: px.ID, UserID: ana.ID, Type: links.PixelFacebook, Name: "fb", Tag: "1234567890123456", CreatedAt: at(0).UTC()})
	_, err = s.GetPixel(ctx, budi.ID, px.ID)
	wantErr(t, "GetPixel of another user's", err, links.ErrNotFound)
	wantErr(t, "DeletePixel of another user's", s.DeletePixel(ctx, budi.ID, px.ID), links.ErrNotFound)
	mustOK(t, "DeletePixel", s.DeletePixel(ctx, ana.ID, px.ID))
	_, err = s.GetPixel(ctx, ana.ID, px.ID)
	wantErr(t, "GetPixel after delete", err, links.ErrNotFound)
}

func testLinkOverlaysSplashQR(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana, budi := mustLinkUser(t, s, "ana"), mustLinkUser(t, s, "budi")
	o, err := s.CreateOverlay(ctx, links.Overlay{UserID: ana.ID, Type: "message", Name: "Hi", CreatedAt: at(0)})
	mustOK(t, "CreateOverlay", err)
	_, err = s.CreateOverlay(ctx, links.Overlay{UserID: 999, Type: "message", Name: "Hi", CreatedAt: at(0)})
	wantErr(t, "CreateOverlay for a missing user", err, links.ErrNotFound)
	os, err := s.ListOverlays(ctx, ana.ID, p1)
	mustOK(t, "ListOverlays", err)
	check(t, "overlays", os.Items, []links.Overlay{{ID: o.ID, UserID: ana.ID, Type: "message", Name: "Hi", CreatedAt: at(0).UTC()}})
	sp, err := s.CreateSplash(ctx, links.Splash{UserID: ana.ID, Name: "Wait", CreatedAt: at(0)})
	mustOK(t, "CreateSplash", err)
	sps, err := s.ListSplashes(ctx, budi.ID, p1)
	mustOK(t, "ListSplashes", err)
	check(t, "budi's splash pages", sps.Total, 0)
	sps, err = s.ListSplashes(ctx, ana.ID, p1)
	mustOK(t, "ListSplashes", err)
	check(t, "ana's splash pages", sps.Items, []links.Splash{{ID: sp.ID, UserID: ana.ID, Name: "Wait", CreatedAt: at(0).UTC()}})

	l := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "one"})
	bl := mustLink(t, s, links.ShortLink{UserID: budi.ID, Alias: "two"})
	_, err = s.CreateQR(ctx, links.QRCode{UserID: ana.ID, Type: links.QRLink, Data: []byte(`"https://x.org"`), LinkID: bl.ID, CreatedAt: at(0), UpdatedAt: at(0)})
	wantErr(t, "CreateQR through another user's link", err, links.ErrNotFound)
	q, err := s.CreateQR(ctx, links.QRCode{UserID: ana.ID, Name: "q", Type: links.QRLink, Data: []byte(`"https://x.org"`),
		Background: "rgb(255,255,255)", Foreground: "rgb(0,0,0)", Logo: "/logo.png", LinkID: l.ID, CreatedAt: at(0), UpdatedAt: at(0)})
	mustOK(t, "CreateQR", err)
	got, err := s.GetQR(ctx, ana.ID, q.ID)
	mustOK(t, "GetQR", err)
	q.CreatedAt, q.UpdatedAt = at(0).UTC(), at(0).UTC()
	check(t, "GetQR", got, q)
	_, err = s.GetQR(ctx, budi.ID, q.ID)
	wantErr(t, "GetQR of another user's", err, links.ErrNotFound)
	got, err = s.GetQRByID(ctx, q.ID)
	mustOK(t, "GetQRByID", err)
	check(t, "GetQRByID", got, q)
	_, err = s.GetQRByID(ctx, q.ID+1000)
	wantErr(t, "GetQRByID of a missing code", err, links.ErrNotFound)
	_, err = s.GetQRByID(ctx, 0)
	wantErr(t, "GetQRByID(0)", err, links.ErrNotFound)
	up, err := s.UpdateQR(ctx, ana.ID, q.ID, func(q *links.QRCode) error {
		q.Data = []byte(`"https://y.org"`)
		q.UpdatedAt = at(time.Hour)
		return nil
	})
	mustOK(t, "UpdateQR", err)
	check(t, "updated data", string(up.Data), `"https://y.org"`)
	mustOK(t, "DeleteLink", s.DeleteLink(ctx, ana.ID, l.ID))
	got, err = s.GetQR(ctx, ana.ID, q.ID)
	mustOK(t, "GetQR", err)
	check(t, "LinkID after DeleteLink", got.LinkID, int64(0))
	wantErr(t, "DeleteQR of another user's", s.DeleteQR(ctx, budi.ID, q.ID), links.ErrNotFound)
	mustOK(t, "DeleteQR", s.DeleteQR(ctx, ana.ID, q.ID))
	_, err = s.GetQRByID(ctx, q.ID)
	wantErr(t, "GetQRByID after DeleteQR", err, links.ErrNotFound)
}

func testLinkPaging(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana, budi := mustLinkUser(t, s, "ana"), mustLinkUser(t, s, "budi")
	var ids []int64
	for i := range 25 {
		c, err := s.CreateChannel(ctx, links.Channel{UserID: ana.ID, Name: "c", CreatedAt: at(time.Duration(i) * time.Second)})
		mustOK(t, "CreateChannel", err)
		ids = append(ids, c.ID)
	}
	_, err := s.CreateChannel(ctx, links.Channel{UserID: budi.ID, Name: "b", CreatedAt: at(0)})
	mustOK(t, "CreateChannel", err)
	for _, tc := range []struct {
		page      links.Page
		first     int64
		n         int
		next, max int
	}{
		{links.Page{Number: 1, Limit: 10}, ids[24], 10, 2, 3},
		{links.Page{Number: 3, Limit: 10}, ids[4], 5, 0, 3},
		{links.Page{Number: 4, Limit: 10}, 0, 0, 0, 3},
		{links.Page{Number: 1, Limit: 1000}, ids[24], 25, 0, 1},
	} {
		l, err := s.ListChannels(ctx, ana.ID, tc.page)
		mustOK(t, "ListChannels", err)
		pg := l.Paging()
		if l.Total != 25 || len(l.Items) != tc.n || pg.NextPage != tc.next || pg.MaxPage != tc.max ||
			(tc.n > 0 && l.Items[0].ID != tc.first) {
			t.Fatalf("ListChannels(%+v): total %d, %d items, paging %+v", tc.page, l.Total, len(l.Items), pg)
		}
	}
	a := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "aaa"})
	b := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "bbb"})
	byClicks, err := s.ListLinks(ctx, ana.ID, links.LinkFilter{Order: links.OrderClicks}, p1)
	mustOK(t, "ListLinks by clicks", err)
	checkInt64s(t, "links by clicks (all 0: newest first)", byClicks.Items, b.ID, a.ID)
}

// checkInt64s fails the test unless the ids of the links are want, in order.
func checkInt64s(t *testing.T, what string, got []links.ShortLink, want ...int64) {
	t.Helper()
	g := make([]int64, len(got))
	for i, l := range got {
		g[i] = l.ID
	}
	check(t, what, g, want)
}

func testLinkRateLimit(t *testing.T, s links.Store) {
	ctx := t.Context()
	w := at(0).Truncate(time.Minute)
	for i := 1; i <= 4; i++ {
		n, err := s.HitRateLimit(ctx, "user:1", w, 3)
		mustOK(t, "HitRateLimit", err)
		check(t, "count", n, min(i, 4))
	}
	n, err := s.HitRateLimit(ctx, "user:1", w, 3)
	mustOK(t, "HitRateLimit", err)
	check(t, "count over the limit stays capped", n, 4)
	n, err = s.HitRateLimit(ctx, "user:2", w, 3)
	mustOK(t, "HitRateLimit", err)
	check(t, "another key's count", n, 1)
	n, err = s.HitRateLimit(ctx, "user:1", w.Add(time.Minute), 3)
	mustOK(t, "HitRateLimit", err)
	check(t, "next window's count", n, 1)
}
