package main

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/pkg/client"
)

// TestLinkCacheAcrossInstances runs two portals on one PostgreSQL database,
// each keeping its redirector's look-ups for an hour, and writes through
// the first: the very next request to the second sees each write, for
// every kind it caches (short links, QR codes, campaigns, branded
// domains), including a not-found it had cached just before (a marketer
// checks that an alias is free, creates it, and the first click works).
func TestLinkCacheAcrossInstances(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	dbURL := pgtest.NewDatabase(t)
	env := []string{"PORTAL_ADMIN_PASSWORD=" + cachePassword}
	a := mustStartPortal(t, filepath.Join(t.TempDir(), "a"), env, "--database-url", dbURL, "--link-cache-ttl", "1h")
	b := mustStartPortal(t, filepath.Join(t.TempDir(), "b"), env, "--database-url", dbURL, "--link-cache-ttl", "1h")
	checkCachedWrites(t, a, b)
}

// TestLinkCacheOneInstance: on one portal (bbolt), the next request after
// a write sees it, a not-found cached just before included.
func TestLinkCacheOneInstance(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), []string{"PORTAL_ADMIN_PASSWORD=" + cachePassword},
		"--link-cache-ttl", "1h")
	checkCachedWrites(t, p, p)
}

// cachePassword is the operator's password of the cache tests.
const cachePassword = "e2e-cache-Password"

// checkCachedWrites writes through a and reads through b, after b has
// cached what each write changes.
func checkCachedWrites(t *testing.T, a, b *portalProc) {
	ctx := t.Context()

	u, _, err := mustOperatorClient(t, a.URL, "admin", cachePassword).Exam.Admin.CreateLinkUser(ctx,
		&client.LinkUserRequest{Email: "ana@example.com", Username: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewClient(a.URL, client.WithLinkKey(u.Key))
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// at asks b for path (on host, or on b's short host when empty) and
	// checks the status and the Location.
	at := func(what, host, path string, status int, location string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.URL+path, nil)
		if host != "" {
			req.Host = host
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != status || resp.Header.Get("Location") != location {
			t.Fatalf("%s: GET %s%s on the other portal = %d to %q, want %d to %q", what, host, path, resp.StatusCode,
				resp.Header.Get("Location"), status, location)
		}
	}
	str := func(s string) *string { return &s }

	// A short link: created after a miss, edited, deleted.
	at("an alias not taken yet", "", "/sec1", http.StatusNotFound, "")
	l, _, err := c.Links.URLs.Add(ctx, &client.LinkURLRequest{URL: "https://example.org/one", Custom: "sec1"})
	if err != nil {
		t.Fatal(err)
	}
	at("the alias just created", "", "/sec1", http.StatusFound, "https://example.org/one")
	if _, _, err := c.Links.URLs.Update(ctx, l.ID, &client.LinkURLUpdate{URL: str("https://example.org/two")}); err != nil {
		t.Fatal(err)
	}
	at("the link just edited", "", "/sec1", http.StatusFound, "https://example.org/two")
	if _, err := c.Links.URLs.Delete(ctx, l.ID); err != nil {
		t.Fatal(err)
	}
	at("the link just deleted", "", "/sec1", http.StatusNotFound, "")

	// A QR code: its id probed before it exists (ids are sequential).
	at("a QR code not made yet", "", "/qr/1", http.StatusNotFound, "")
	q, _, err := c.Links.QR.Add(ctx, &client.LinkQRRequest{Type: client.LinkQRText, Data: "hello", Name: "poster"})
	if err != nil || q.ID != 1 {
		t.Fatalf("QR code %+v (%v), want id 1", q, err)
	}
	at("the QR code just made", "", "/qr/1", http.StatusOK, "")

	// A campaign's rotator: its slug probed, then made, then renamed.
	at("a rotator not made yet", "", "/r/launch", http.StatusNotFound, "")
	pub := true
	camp, _, err := c.Links.Campaigns.Add(ctx, &client.LinkCampaignRequest{Name: str("Launch"), Slug: str("launch"), Public: &pub})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Links.URLs.Add(ctx, &client.LinkURLRequest{URL: "https://example.org/launch", Custom: "launch-a", Campaign: camp.ID}); err != nil {
		t.Fatal(err)
	}
	at("the rotator just made", "", "/r/launch", http.StatusFound, "https://example.org/launch")
	if _, _, err := c.Links.Campaigns.Update(ctx, camp.ID, &client.LinkCampaignRequest{Name: str("Launch"), Slug: str("launch2")}); err != nil {
		t.Fatal(err)
	}
	at("the rotator's old slug", "", "/r/launch", http.StatusNotFound, "")
	at("the rotator's new slug", "", "/r/launch2", http.StatusFound, "https://example.org/launch")

	// A branded domain: its host asked for before it is added.
	at("a domain not added yet", "brand.example.org", "/", http.StatusNotFound, "")
	if _, _, err := c.Links.Domains.Add(ctx, &client.LinkDomainRequest{Domain: "https://brand.example.org",
		RedirectRoot: "https://example.org/home"}); err != nil {
		t.Fatal(err)
	}
	at("the domain just added", "brand.example.org", "/", http.StatusFound, "https://example.org/home")
}
