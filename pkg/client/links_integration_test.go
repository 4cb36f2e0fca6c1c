package client_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/pkg/client"
)

const itLinkBase = "https://sho.rt"

// newLinksPortal serves the real router over st with the link-management
// API and returns its URL and an operator client; the test is skipped when
// st does not implement links.Store.
func newLinksPortal(t *testing.T, st exam.Store) (string, *client.Client) {
	t.Helper()
	ls, ok := st.(links.Store)
	if !ok {
		t.Skipf("the store %T does not implement links.Store", st)
	}
	logs := newITLogs()
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ids := mustIdentity(t, st)
	svc, err := exam.NewService(context.Background(), st, exam.Config{Tokens: ids.Tokens(), TempDir: t.TempDir()}, logger)
	if err != nil {
		t.Fatalf("new service: %v", err)
	}
	srv := httptest.NewServer(httpapi.New(httpapi.Options{Exam: svc, Identity: ids, Idempotency: idempotency.New(st.(idempotency.Store), idempotency.Options{}),
		Links:       links.NewService(ls, links.Config{}),
		LinkBaseURL: itLinkBase, Logger: logger, Registry: prometheus.NewRegistry()}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("portal log:\n%s", logs.String())
		}
	})
	ctx := context.Background()
	op := mustClient(t, srv.URL)
	login, _, err := op.Exam.Auth.Login(ctx, itAdminUser, itAdminPassword)
	must(t, "login", err)
	op.SetToken(login.Token)
	return srv.URL, op
}

// mustLinkUser creates a link user through the operator route and returns
// it (with its key) and a client using the key.
func mustLinkUser(t *testing.T, op *client.Client, base, username string, rateLimit int) (*client.LinkUser, *client.Client) {
	t.Helper()
	u, resp, err := op.Exam.Admin.CreateLinkUser(context.Background(), &client.LinkUserRequest{
		Email: username + "@example.com", Username: username, Plan: "pro", RateLimit: rateLimit})
	must(t, "create link user "+username, err)
	if resp.StatusCode != 201 || u.ID <= 0 || !strings.HasPrefix(u.Key, "lk_") || u.Username != username || u.RateLimit != rateLimit {
		t.Fatalf("create link user = %+v (status %d)", u, resp.StatusCode)
	}
	return u, mustClient(t, base, client.WithLinkKey(u.Key))
}

func TestLinksIntegration(t *testing.T) {
	old := password.Cost
	password.Cost = 4
	t.Cleanup(func() { password.Cost = old })
	for _, so := range itStores {
		t.Run(so.name, func(t *testing.T) {
			base, op := newLinksPortal(t, so.open(t))
			runLinksIntegration(t, base, op)
		})
	}
}

func runLinksIntegration(t *testing.T, base string, op *client.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// ---- Operator routes ----
	alice, ac := mustLinkUser(t, op, base, "alice", 10000)
	bob, bc := mustLinkUser(t, op, base, "bob", 10000)
	users, resp, err := op.Exam.Admin.ListLinkUsers(ctx, &client.LinkListOptions{Limit: 1})
	must(t, "list link users", err)
	if len(users) != 1 || users[0].ID != bob.ID || resp.Total != 2 || resp.TotalPages != 2 || resp.NextPage != 2 || resp.PerPage != 1 {
		t.Fatalf("link users = %+v, paging %+v", users, resp)
	}
	ov, _, err := op.Exam.Admin.CreateLinkOverlay(ctx, alice.ID, "message", "Sale")
	must(t, "create overlay", err)
	sp, _, err := op.Exam.Admin.CreateLinkSplash(ctx, alice.ID, "Welcome")
	must(t, "create splash", err)
	if ov.ID <= 0 || ov.UserID != alice.ID || sp.ID <= 0 || sp.Name != "Welcome" {
		t.Fatalf("overlay %+v, splash %+v", ov, sp)
	}
	if _, _, err := op.Exam.Admin.CreateLinkSplash(ctx, 999999, "x"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("splash of an unknown user: %v, want 404", err)
	}

	// ---- Account, rate-limit headers ----
	acc, resp, err := ac.Links.Account.Get(ctx)
	must(t, "account", err)
	if acc.ID != alice.ID || acc.Username != "alice" || acc.Email != "alice@example.com" || acc.Status != "pro" || acc.Registered == "" {
		t.Fatalf("account = %+v", acc)
	}
	if resp.Rate.Limit != 10000 || resp.Rate.Remaining <= 0 || resp.Rate.Remaining >= 10000 ||
		resp.Rate.Reset.Before(time.Now().Add(-time.Second)) || resp.Rate.Reset.After(time.Now().Add(61*time.Second)) {
		t.Fatalf("Rate = %+v", resp.Rate)
	}
	_, err = ac.Links.Account.Update(ctx, &client.LinkAccountUpdate{Email: client.Ptr("alice2@example.com"), Password: client.Ptr("a-long-password")})
	must(t, "update account", err)
	if acc, _, _ = ac.Links.Account.Get(ctx); acc.Email != "alice2@example.com" {
		t.Fatalf("account after update = %+v", acc)
	}
	_, err = ac.Links.Account.Update(ctx, &client.LinkAccountUpdate{Email: client.Ptr("bob@example.com")})
	if !errors.Is(err, client.ErrConflict) || !errors.Is(err, &client.Error{Code: client.CodeEmailTaken}) {
		t.Fatalf("taken email: %v", err)
	}

	// ---- Domains ----
	did, _, err := ac.Links.Domains.Add(ctx, &client.LinkDomainRequest{Domain: "https://Go.Example.com/", RedirectRoot: "https://example.com/"})
	must(t, "add domain", err)
	_, err = ac.Links.Domains.Update(ctx, did, &client.LinkDomainUpdate{Redirect404: client.Ptr("https://example.com/404")})
	must(t, "update domain", err)
	ds, _, err := ac.Links.Domains.List(ctx, nil)
	must(t, "list domains", err)
	if len(ds) != 1 || ds[0].ID != did || ds[0].Domain != "https://go.example.com" || ds[0].RedirectRoot != "https://example.com/" || ds[0].Redirect404 != "https://example.com/404" {
		t.Fatalf("domains = %+v", ds)
	}
	if _, _, err := bc.Links.Domains.Add(ctx, &client.LinkDomainRequest{Domain: "https://go.example.com"}); !errors.Is(err, &client.Error{Code: client.CodeDomainTaken}) {
		t.Fatalf("taken domain: %v", err)
	}

	// ---- Overlays, splash ----
	ovs, _, err := ac.Links.Overlays.List(ctx, nil)
	must(t, "list overlays", err)
	sps, _, err := ac.Links.Splash.List(ctx, nil)
	must(t, "list splash", err)
	if len(ovs) != 1 || ovs[0].ID != ov.ID || ovs[0].Type != "message" || ovs[0].Name != "Sale" || len(sps) != 1 || sps[0].ID != sp.ID {
		t.Fatalf("overlays %+v, splash %+v", ovs, sps)
	}
	if n := countAll(t, ac.Links.Overlays.All(ctx, nil)); n != 1 {
		t.Fatalf("all overlays = %d", n)
	}
	if n := countAll(t, ac.Links.Splash.All(ctx, nil)); n != 1 {
		t.Fatalf("all splash = %d", n)
	}
	if ovs, _, _ := bc.Links.Overlays.List(ctx, nil); len(ovs) != 0 {
		t.Fatalf("bob sees overlays %+v", ovs)
	}

	// ---- Campaigns ----
	camp, _, err := ac.Links.Campaigns.Add(ctx, &client.LinkCampaignRequest{Name: client.Ptr("Spring"), Slug: client.Ptr("spring"), Public: client.Ptr(true)})
	must(t, "add campaign", err)
	if camp.ID <= 0 || camp.Name != "Spring" || camp.Slug != "spring" || !camp.Public ||
		camp.Rotator != itLinkBase+"/r/spring" || camp.List != fmt.Sprintf("%s/c/%d", itLinkBase, camp.ID) {
		t.Fatalf("campaign = %+v", camp)
	}
	camp2, _, err := ac.Links.Campaigns.Update(ctx, camp.ID, &client.LinkCampaignRequest{Name: client.Ptr("Summer"), Slug: client.Ptr("")})
	must(t, "update campaign", err)
	if camp2.Name != "Summer" || camp2.Rotator != "" || camp2.Slug != "" {
		t.Fatalf("updated campaign = %+v", camp2)
	}
	camps, _, err := ac.Links.Campaigns.List(ctx, nil)
	must(t, "list campaigns", err)
	if len(camps) != 1 || camps[0].Name != "Summer" || camps[0].Rotator != "" || camps[0].Slug != "" {
		t.Fatalf("campaigns = %+v", camps)
	}

	// ---- Channels ----
	ch, _, err := ac.Links.Channels.Add(ctx, &client.LinkChannelRequest{Name: client.Ptr("News"), Color: client.Ptr("#ff0000"), Starred: client.Ptr(true)})
	must(t, "add channel", err)
	if ch.ID <= 0 || ch.Name != "News" || ch.Color != "#FF0000" || !ch.Starred {
		t.Fatalf("channel = %+v", ch)
	}
	_, err = ac.Links.Channels.Update(ctx, ch.ID, &client.LinkChannelRequest{Description: client.Ptr("daily")})
	must(t, "update channel", err)
	chs, _, err := ac.Links.Channels.List(ctx, nil)
	must(t, "list channels", err)
	if len(chs) != 1 || chs[0].Description != "daily" || chs[0].Name != "News" {
		t.Fatalf("channels = %+v", chs)
	}

	// ---- Pixels ----
	pid, _, err := ac.Links.Pixels.Add(ctx, &client.LinkPixelRequest{Type: "gtmpixel", Name: "Tag manager", Tag: "GTM-ABCD123"})
	must(t, "add pixel", err)
	_, err = ac.Links.Pixels.Update(ctx, pid, &client.LinkPixelUpdate{Tag: "GTM-WXYZ987"})
	must(t, "update pixel", err)
	pxs, _, err := ac.Links.Pixels.List(ctx, nil)
	must(t, "list pixels", err)
	if len(pxs) != 1 || pxs[0].ID != pid || pxs[0].Type != "gtmpixel" || pxs[0].Tag != "GTM-WXYZ987" || pxs[0].Name != "Tag manager" {
		t.Fatalf("pixels = %+v", pxs)
	}
	if _, _, err := ac.Links.Pixels.Add(ctx, &client.LinkPixelRequest{Type: "gtmpixel", Name: "bad", Tag: "nope"}); !errors.Is(err, client.ErrBadRequest) {
		t.Fatalf("bad tag: %v", err)
	}

	// ---- QR codes ----
	q, _, err := ac.Links.QR.Add(ctx, &client.LinkQRRequest{Type: client.LinkQRText, Data: "hello", Name: "Hi"})
	must(t, "add qr", err)
	if q.ID <= 0 || q.Link != fmt.Sprintf("%s/qr/%d", itLinkBase, q.ID) {
		t.Fatalf("qr = %+v", q)
	}
	_, err = ac.Links.QR.Update(ctx, q.ID, &client.LinkQRUpdate{Data: "bye"})
	must(t, "update qr", err)
	qd, _, err := ac.Links.QR.Get(ctx, q.ID)
	must(t, "get qr", err)
	if qd.ID != q.ID || qd.Type != "text" || string(qd.Data) != `"bye"` || qd.Name != "Hi" || qd.Stats == nil || qd.Stats.TopCountries == nil {
		t.Fatalf("qr details = %+v", qd)
	}
	qrs, _, err := ac.Links.QR.List(ctx, nil)
	must(t, "list qr", err)
	if len(qrs) != 1 || qrs[0].ID != q.ID || qrs[0].Link != q.Link {
		t.Fatalf("qrs = %+v", qrs)
	}

	// ---- Short links ----
	l, _, err := ac.Links.URLs.Add(ctx, &client.LinkURLRequest{URL: "https://example.org/a", Custom: "alpha", Domain: did,
		Pixels: []int64{pid}, Campaign: camp.ID, Channels: []int64{ch.ID}, Title: "A"})
	must(t, "add url", err)
	if l.ID <= 0 || l.ShortURL != "https://go.example.com/alpha" {
		t.Fatalf("url = %+v", l)
	}
	if _, _, err := ac.Links.URLs.Add(ctx, &client.LinkURLRequest{URL: "https://example.org/b", Custom: "alpha", Domain: did}); !errors.Is(err, &client.Error{Code: client.CodeAliasTaken}) {
		t.Fatalf("taken alias: %v", err)
	}
	l2, _, err := ac.Links.URLs.Update(ctx, l.ID, &client.LinkURLUpdate{Title: client.Ptr("Alpha"), Expiry: client.Ptr("2999-01-01 00:00:00")})
	must(t, "update url", err)
	if l2.ID != l.ID || l2.ShortURL != l.ShortURL {
		t.Fatalf("updated url = %+v", l2)
	}
	got, _, err := ac.Links.URLs.Get(ctx, l.ID)
	must(t, "get url", err)
	if got.ID != l.ID || got.Alias != "alpha" || got.LongURL != "https://example.org/a" || got.Title != "Alpha" || got.Domain != did ||
		got.Campaign != camp.ID || !slices.Equal(got.Pixels, []int64{pid}) || !slices.Equal(got.Channels, []int64{ch.ID}) ||
		got.Expiry != "2999-01-01 00:00:00" || got.Stats == nil {
		t.Fatalf("url = %+v", got)
	}
	urls, _, err := ac.Links.URLs.List(ctx, &client.LinkURLListOptions{Order: client.LinkOrderClicks})
	must(t, "list urls", err)
	if len(urls) != 1 || urls[0].ShortURL != l.ShortURL {
		t.Fatalf("urls = %+v", urls)
	}

	// ---- Assignments ----
	_, err = ac.Links.Campaigns.AssignLink(ctx, camp.ID, l.ID)
	must(t, "assign campaign", err)
	_, err = ac.Links.Channels.Assign(ctx, ch.ID, client.LinkItemQR, q.ID)
	must(t, "assign qr", err)
	_, err = ac.Links.Channels.Assign(ctx, ch.ID, client.LinkItemLinks, l.ID) // already there: kept
	must(t, "assign link", err)
	items, _, err := ac.Links.Channels.ListItems(ctx, ch.ID, nil)
	must(t, "channel items", err)
	if len(items) != 2 {
		t.Fatalf("items = %+v", items)
	}
	if n := countAll(t, ac.Links.Channels.AllItems(ctx, ch.ID, &client.LinkListOptions{Limit: 1})); n != 2 {
		t.Fatalf("all items = %d", n)
	}
	if _, err := ac.Links.Channels.Assign(ctx, ch.ID, client.LinkItemBio, 1); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("bio: %v", err)
	}
	if _, err := ac.Links.Channels.Assign(ctx, ch.ID, "bogus", 1); !errors.Is(err, client.ErrBadRequest) {
		t.Fatalf("bogus type: %v", err)
	}

	// ---- Tenancy: alice's ids are 404 for bob ----
	notFound := func(what string, err error) {
		t.Helper()
		var e *client.Error
		if !errors.Is(err, client.ErrNotFound) || !errors.As(err, &e) || e.Code != client.CodeNotFound {
			t.Fatalf("bob %s: %v, want 404 NOT_FOUND", what, err)
		}
	}
	_, _, err = bc.Links.URLs.Get(ctx, l.ID)
	notFound("get url", err)
	_, _, err = bc.Links.URLs.Update(ctx, l.ID, &client.LinkURLUpdate{Title: client.Ptr("x")})
	notFound("update url", err)
	_, err = bc.Links.URLs.Delete(ctx, l.ID)
	notFound("delete url", err)
	_, err = bc.Links.Domains.Update(ctx, did, &client.LinkDomainUpdate{})
	notFound("update domain", err)
	_, err = bc.Links.Domains.Delete(ctx, did)
	notFound("delete domain", err)
	_, _, err = bc.Links.Campaigns.Update(ctx, camp.ID, &client.LinkCampaignRequest{Name: client.Ptr("x")})
	notFound("update campaign", err)
	_, err = bc.Links.Campaigns.AssignLink(ctx, camp.ID, l.ID)
	notFound("assign campaign", err)
	_, _, err = bc.Links.Channels.ListItems(ctx, ch.ID, nil)
	notFound("channel items", err)
	_, err = bc.Links.Channels.Assign(ctx, ch.ID, client.LinkItemLinks, l.ID)
	notFound("assign channel", err)
	_, err = bc.Links.Pixels.Update(ctx, pid, &client.LinkPixelUpdate{Tag: "GTM-ABCD123"})
	notFound("update pixel", err)
	_, _, err = bc.Links.QR.Get(ctx, q.ID)
	notFound("get qr", err)
	_, err = bc.Links.QR.Delete(ctx, q.ID)
	notFound("delete qr", err)
	_, err = bc.Links.Channels.Delete(ctx, ch.ID)
	notFound("delete channel", err)
	_, err = bc.Links.Campaigns.Delete(ctx, camp.ID)
	notFound("delete campaign", err)
	_, err = bc.Links.Pixels.Delete(ctx, pid)
	notFound("delete pixel", err)

	// ---- Iterators: 25 records, pages of 10 ----
	var want []int64
	for i := range 25 {
		u, _, err := bc.Links.URLs.Add(ctx, &client.LinkURLRequest{URL: fmt.Sprintf("https://example.org/%d", i)})
		must(t, "add url", err)
		want = append(want, u.ID)
		c, _, err := bc.Links.Channels.Add(ctx, &client.LinkChannelRequest{Name: client.Ptr(fmt.Sprintf("c%d", i))})
		must(t, "add channel", err)
		_, err = bc.Links.Channels.Assign(ctx, c.ID, client.LinkItemLinks, u.ID)
		must(t, "assign", err)
	}
	slices.Reverse(want) // newest first
	var ids []int64
	for u, err := range bc.Links.URLs.All(ctx, &client.LinkURLListOptions{LinkListOptions: client.LinkListOptions{Limit: 10}}) {
		must(t, "all urls", err)
		ids = append(ids, u.ID)
	}
	if !slices.Equal(ids, want) {
		t.Fatalf("all urls = %v, want %v", ids, want)
	}
	if n := countAll(t, bc.Links.Channels.All(ctx, &client.LinkListOptions{Limit: 10})); n != 25 {
		t.Fatalf("all channels = %d, want 25", n)
	}
	page3, resp, err := bc.Links.URLs.List(ctx, &client.LinkURLListOptions{LinkListOptions: client.LinkListOptions{Page: 3, Limit: 10}})
	must(t, "page 3", err)
	if len(page3) != 5 || resp.Page != 3 || resp.PerPage != 10 || resp.Total != 25 || resp.TotalPages != 3 || resp.NextPage != 0 || resp.PrevPage != 2 {
		t.Fatalf("page 3: %d items, paging %+v", len(page3), resp)
	}
	// Stopping early stops the walk.
	n := 0
	for _, err := range bc.Links.URLs.All(ctx, &client.LinkURLListOptions{LinkListOptions: client.LinkListOptions{Limit: 10}}) {
		must(t, "all urls", err)
		if n++; n == 12 {
			break
		}
	}
	// An error ends the walk with that error.
	for _, err := range bc.Links.Channels.AllItems(ctx, ch.ID, nil) {
		notFound("walk channel items", err)
	}

	// ---- Deletes ----
	if _, err := ac.Links.Domains.Delete(ctx, did); !errors.Is(err, &client.Error{Code: client.CodeDomainInUse}) {
		t.Fatalf("delete a domain in use: %v", err)
	}
	_, err = ac.Links.URLs.Delete(ctx, l.ID)
	must(t, "delete url", err)
	_, err = ac.Links.Domains.Delete(ctx, did)
	must(t, "delete domain", err)
	_, err = ac.Links.QR.Delete(ctx, q.ID)
	must(t, "delete qr", err)
	_, err = ac.Links.Pixels.Delete(ctx, pid)
	must(t, "delete pixel", err)
	_, err = ac.Links.Channels.Delete(ctx, ch.ID)
	must(t, "delete channel", err)
	_, err = ac.Links.Campaigns.Delete(ctx, camp.ID)
	must(t, "delete campaign", err)
	_, _, err = ac.Links.URLs.Get(ctx, l.ID)
	notFound("(alice) deleted url", err)

	// ---- Keys ----
	anon := mustClient(t, base, client.WithLinkKey("lk_not-a-real-key"))
	if _, _, err := anon.Links.Account.Get(ctx); !errors.Is(err, client.ErrUnauthorized) || !errors.Is(err, &client.Error{Code: client.CodeUnauthorized}) {
		t.Fatalf("unknown key: %v", err)
	}
	if _, _, err := op.Links.Account.Get(ctx); !errors.Is(err, client.ErrUnauthorized) {
		t.Fatalf("operator token on a link route: %v, want 401 (kept separate)", err)
	}
	newKey, _, err := op.Exam.Admin.RotateLinkUserKey(ctx, bob.ID)
	must(t, "rotate key", err)
	if _, _, err := bc.Links.Account.Get(ctx); !errors.Is(err, client.ErrUnauthorized) {
		t.Fatalf("rotated key: %v", err)
	}
	bc.SetLinkKey(newKey)
	if acc, _, err := bc.Links.Account.Get(ctx); err != nil || acc.ID != bob.ID {
		t.Fatalf("new key: %+v, %v", acc, err)
	}

	// ---- Rate limit over the cap ----
	_, cc := mustLinkUser(t, op, base, "carol", 2)
	// Two calls fit a window; should the minute turn between them, two more
	// do: the fifth call is over the cap at the latest.
	for range 5 {
		if _, resp, err = cc.Links.Account.Get(ctx); err != nil {
			break
		}
	}
	var e *client.Error
	if !errors.Is(err, client.ErrRateLimited) || !errors.As(err, &e) || e.Code != client.CodeRateLimited || e.RetryAfter <= 0 || e.RetryAfter > time.Minute {
		t.Fatalf("over the cap: %v", err)
	}
	if resp.Rate.Limit != 2 || resp.Rate.Remaining != 0 || resp.Rate.Reset.IsZero() {
		t.Fatalf("over the cap Rate = %+v", resp.Rate)
	}
}

// countAll walks seq and returns the number of records, failing on an error.
func countAll[T any](t *testing.T, seq func(func(*T, error) bool)) int {
	t.Helper()
	n := 0
	for _, err := range seq {
		must(t, "walk", err)
		n++
	}
	return n
}
