package storetest

import (
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
