package redirect

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/internal/testkit"
)

// memStore is an in-memory Store.
type memStore struct {
	mu        sync.Mutex
	domains   map[int64]links.Domain
	links     map[int64]links.ShortLink
	campaigns map[int64]links.Campaign
	pixels    map[int64]links.Pixel
	qrs       map[int64]links.QRCode
	fail      error // returned by every method when set
	calls     int
}

func newMemStore() *memStore {
	return &memStore{domains: map[int64]links.Domain{}, links: map[int64]links.ShortLink{},
		campaigns: map[int64]links.Campaign{}, pixels: map[int64]links.Pixel{}, qrs: map[int64]links.QRCode{}}
}

func (s *memStore) enter() error {
	s.mu.Lock()
	s.calls++
	return s.fail
}

func (s *memStore) GetDomainByHost(_ context.Context, host string) (links.Domain, error) {
	defer s.mu.Unlock()
	if err := s.enter(); err != nil {
		return links.Domain{}, err
	}
	for _, d := range s.domains {
		if d.Host == host {
			return d, nil
		}
	}
	return links.Domain{}, links.ErrNotFound
}

func (s *memStore) GetDomain(_ context.Context, owner, id int64) (links.Domain, error) {
	defer s.mu.Unlock()
	if err := s.enter(); err != nil {
		return links.Domain{}, err
	}
	if d, ok := s.domains[id]; ok && d.UserID == owner {
		return d, nil
	}
	return links.Domain{}, links.NotFound("domain", id)
}

func (s *memStore) GetLinkByAlias(_ context.Context, domainID int64, alias string) (links.ShortLink, error) {
	defer s.mu.Unlock()
	if err := s.enter(); err != nil {
		return links.ShortLink{}, err
	}
	for _, l := range s.links {
		if l.DomainID == domainID && l.Alias == alias {
			return l, nil
		}
	}
	return links.ShortLink{}, links.ErrNotFound
}

func (s *memStore) GetLink(_ context.Context, owner, id int64) (links.ShortLink, error) {
	defer s.mu.Unlock()
	if err := s.enter(); err != nil {
		return links.ShortLink{}, err
	}
	if l, ok := s.links[id]; ok && l.UserID == owner {
		return l, nil
	}
	return links.ShortLink{}, links.NotFound("link", id)
}

func (s *memStore) ListLinks(_ context.Context, owner int64, f links.LinkFilter, p links.Page) (links.List[links.ShortLink], error) {
	defer s.mu.Unlock()
	if err := s.enter(); err != nil {
		return links.List[links.ShortLink]{}, err
	}
	var out []links.ShortLink
	for _, l := range s.links {
		if l.UserID == owner && (f.CampaignID == 0 || l.CampaignID == f.CampaignID) {
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b links.ShortLink) int { return cmpInt(b.ID, a.ID) }) // newest first
	return links.List[links.ShortLink]{Items: out, Total: len(out), Page: p}, nil
}

func (s *memStore) GetCampaignBySlug(_ context.Context, slug string) (links.Campaign, error) {
	defer s.mu.Unlock()
	if err := s.enter(); err != nil {
		return links.Campaign{}, err
	}
	for _, c := range s.campaigns {
		if c.Slug != "" && c.Slug == slug {
			return c, nil
		}
	}
	return links.Campaign{}, links.ErrNotFound
}

func (s *memStore) GetCampaignByID(_ context.Context, id int64) (links.Campaign, error) {
	defer s.mu.Unlock()
	if err := s.enter(); err != nil {
		return links.Campaign{}, err
	}
	if c, ok := s.campaigns[id]; ok {
		return c, nil
	}
	return links.Campaign{}, links.NotFound("campaign", id)
}

func (s *memStore) GetPixel(_ context.Context, owner, id int64) (links.Pixel, error) {
	defer s.mu.Unlock()
	if err := s.enter(); err != nil {
		return links.Pixel{}, err
	}
	if p, ok := s.pixels[id]; ok && p.UserID == owner {
		return p, nil
	}
	return links.Pixel{}, links.NotFound("pixel", id)
}

func (s *memStore) GetQRByID(_ context.Context, id int64) (links.QRCode, error) {
	defer s.mu.Unlock()
	if err := s.enter(); err != nil {
		return links.QRCode{}, err
	}
	if q, ok := s.qrs[id]; ok {
		return q, nil
	}
	return links.QRCode{}, links.NotFound("QR code", id)
}

// fakeRecorder keeps the hits it is given.
type fakeRecorder struct {
	mu   sync.Mutex
	hits []visits.Hit
}

func (f *fakeRecorder) Capture(r *http.Request, kind string, id, owner int64) visits.Hit {
	return visits.Hit{Kind: kind, ID: id, OwnerID: owner, UserAgent: r.UserAgent(), Referer: r.Referer()}
}

func (f *fakeRecorder) Record(h visits.Hit) {
	f.mu.Lock()
	f.hits = append(f.hits, h)
	f.mu.Unlock()
}

func (f *fakeRecorder) all() []visits.Hit {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.hits)
}

var regexpNonce = regexp.MustCompile(`'nonce-([A-Za-z0-9_-]+)'`)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type fixture struct {
	store *memStore
	rec   *fakeRecorder
	h     *Handler
	clock *testkit.Clock
}

const (
	owner   = 7
	short   = "s.example.org"
	branded = "go.brand.com"
)

// newFixture builds a store with a branded domain (id 3), and a handler.
func newFixture(t *testing.T, mod func(*Options)) *fixture {
	t.Helper()
	f := &fixture{store: newMemStore(), rec: &fakeRecorder{}, clock: testkit.NewClock(t0)}
	f.store.domains[3] = links.Domain{ID: 3, UserID: owner, URL: "https://" + branded, Host: branded,
		RedirectRoot: "https://brand.com/", Redirect404: "https://brand.com/missing"}
	f.store.domains[4] = links.Domain{ID: 4, UserID: owner, URL: "https://bare.brand.com", Host: "bare.brand.com"}
	o := Options{Store: f.store, Recorder: f.rec, ShortHost: short, Now: f.clock.Now,
		PublicURL: func(*http.Request) string { return "https://" + short + "/" }}
	if mod != nil {
		mod(&o)
	}
	f.h = New(o)
	return f
}

func (f *fixture) addLink(l links.ShortLink) links.ShortLink {
	f.store.mu.Lock()
	defer f.store.mu.Unlock()
	if l.UserID == 0 {
		l.UserID = owner
	}
	f.store.links[l.ID] = l
	return l
}

func (f *fixture) do(method, host, target string, body url.Values) *httptest.ResponseRecorder {
	var r *http.Request
	if body != nil {
		r = httptest.NewRequest(method, target, strings.NewReader(body.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		r = httptest.NewRequest(method, target, nil)
	}
	r.Host = host
	r.Header.Set("User-Agent", "Mozilla/5.0 test")
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w
}

func mustStatus(t *testing.T, w *httptest.ResponseRecorder, want int) {
	t.Helper()
	if w.Code != want {
		t.Fatalf("status %d, want %d; body %q", w.Code, want, w.Body.String())
	}
}

func mustRedirect(t *testing.T, w *httptest.ResponseRecorder, want string) {
	t.Helper()
	mustStatus(t, w, http.StatusFound)
	if got := w.Header().Get("Location"); got != want {
		t.Fatalf("Location %q, want %q", got, want)
	}
	if got := w.Header().Get("Cache-Control"); got != "no-store" {
		t.Fatalf("Cache-Control %q, want no-store", got)
	}
}

func mustHits(t *testing.T, rec *fakeRecorder, want ...visits.Hit) {
	t.Helper()
	var got []visits.Hit
	for _, h := range rec.all() {
		got = append(got, visits.Hit{Kind: h.Kind, ID: h.ID, OwnerID: h.OwnerID})
	}
	if !slices.Equal(got, want) {
		t.Fatalf("hits %+v, want %+v", got, want)
	}
}

func hit(kind string, id int64) visits.Hit { return visits.Hit{Kind: kind, ID: id, OwnerID: owner} }

func TestRedirectShortHost(t *testing.T) {
	f := newFixture(t, nil)
	f.addLink(links.ShortLink{ID: 1, Alias: "abc", LongURL: "https://example.com/long?x=1"})
	f.addLink(links.ShortLink{ID: 2, DomainID: 3, Alias: "abc", LongURL: "https://brand.com/landing"})

	mustRedirect(t, f.do("GET", short, "/abc", nil), "https://example.com/long?x=1")
	// Port stripped, case folded.
	mustRedirect(t, f.do("GET", "S.Example.ORG:8080", "/abc", nil), "https://example.com/long?x=1")
	// Aliases are case-sensitive: /ABC is unknown on the short host.
	mustStatus(t, f.do("GET", short, "/ABC", nil), http.StatusNotFound)
	mustHits(t, f.rec, hit(visits.KindLink, 1), hit(visits.KindLink, 1))
}

func TestRedirectBrandedHost(t *testing.T) {
	f := newFixture(t, nil)
	f.addLink(links.ShortLink{ID: 1, Alias: "abc", LongURL: "https://example.com/short-host"})
	f.addLink(links.ShortLink{ID: 2, DomainID: 3, Alias: "abc", LongURL: "https://brand.com/landing"})

	mustRedirect(t, f.do("GET", branded, "/abc", nil), "https://brand.com/landing")
	mustRedirect(t, f.do("GET", "GO.Brand.com:443", "/abc", nil), "https://brand.com/landing")
	mustHits(t, f.rec, hit(visits.KindLink, 2), hit(visits.KindLink, 2))

	// A domain registered with its port matches with the port.
	f.store.domains[5] = links.Domain{ID: 5, UserID: owner, URL: "http://dev.brand.com:8080", Host: "dev.brand.com:8080"}
	f.addLink(links.ShortLink{ID: 3, DomainID: 5, Alias: "abc", LongURL: "https://dev.example.com/"})
	mustRedirect(t, f.do("GET", "dev.brand.com:8080", "/abc", nil), "https://dev.example.com/")
}

func TestUnknownHost(t *testing.T) {
	f := newFixture(t, nil)
	f.addLink(links.ShortLink{ID: 1, Alias: "abc", LongURL: "https://example.com/"})
	w := f.do("GET", "evil.example.net", "/abc", nil)
	mustStatus(t, w, http.StatusNotFound)
	if !strings.Contains(w.Body.String(), "Link not found") || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("404 page: %q %q", w.Header(), w.Body)
	}
	mustStatus(t, f.do("GET", "evil.example.net", "/", nil), http.StatusNotFound)
	mustHits(t, f.rec)
}

func TestEmptyShortHostAcceptsAnyHost(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.ShortHost = "" })
	f.addLink(links.ShortLink{ID: 1, Alias: "abc", LongURL: "https://example.com/"})
	f.addLink(links.ShortLink{ID: 2, DomainID: 3, Alias: "abc", LongURL: "https://brand.com/landing"})
	mustRedirect(t, f.do("GET", "localhost:8080", "/abc", nil), "https://example.com/")
	mustRedirect(t, f.do("GET", branded, "/abc", nil), "https://brand.com/landing")
}

func TestUnknownAndExpired(t *testing.T) {
	f := newFixture(t, nil)
	exp := t0.Add(time.Hour)
	f.addLink(links.ShortLink{ID: 1, Alias: "soon", LongURL: "https://example.com/", ExpiresAt: &exp})
	f.addLink(links.ShortLink{ID: 2, DomainID: 3, Alias: "soon", LongURL: "https://brand.com/", ExpiresAt: &exp})
	f.addLink(links.ShortLink{ID: 3, DomainID: 4, Alias: "soon", LongURL: "https://bare.com/", ExpiresAt: &exp})

	mustRedirect(t, f.do("GET", short, "/soon", nil), "https://example.com/")
	f.clock.Add(time.Hour) // expiry is exclusive
	mustStatus(t, f.do("GET", short, "/soon", nil), http.StatusNotFound)
	// Expired on a domain with a 404 redirect: that redirect.
	mustRedirect(t, f.do("GET", branded, "/soon", nil), "https://brand.com/missing")
	// Unknown too; junk paths never reach the store but get the same answer.
	mustRedirect(t, f.do("GET", branded, "/nope", nil), "https://brand.com/missing")
	mustRedirect(t, f.do("GET", branded, "/favicon.ico", nil), "https://brand.com/missing")
	mustRedirect(t, f.do("GET", branded, "/a/b", nil), "https://brand.com/missing")
	// A domain without one: the 404 page.
	mustStatus(t, f.do("GET", "bare.brand.com", "/soon", nil), http.StatusNotFound)
	mustStatus(t, f.do("GET", short, "/"+strings.Repeat("a", 65), nil), http.StatusNotFound)
	mustHits(t, f.rec, hit(visits.KindLink, 1))
}

func TestRoot(t *testing.T) {
	f := newFixture(t, nil)
	mustRedirect(t, f.do("GET", branded, "/", nil), "https://brand.com/")
	mustStatus(t, f.do("GET", "bare.brand.com", "/", nil), http.StatusNotFound)
	mustStatus(t, f.do("GET", short, "/", nil), http.StatusNotFound)

	g := newFixture(t, func(o *Options) { o.HomeURL = "https://www.example.org/" })
	mustRedirect(t, g.do("GET", short, "/", nil), "https://www.example.org/")
}

func TestMethods(t *testing.T) {
	f := newFixture(t, nil)
	f.addLink(links.ShortLink{ID: 1, Alias: "abc", LongURL: "https://example.com/"})
	for _, tc := range []struct{ method, path, allow string }{
		{"PUT", "/abc", "GET, HEAD, POST"},
		{"DELETE", "/abc", "GET, HEAD, POST"},
		{"POST", "/abc", "GET, HEAD"}, // no password: nothing to post
		{"POST", "/", "GET, HEAD"},
		{"PATCH", "/r/spring", "GET, HEAD"},
		{"POST", "/q/1", "GET, HEAD"},
	} {
		w := f.do(tc.method, short, tc.path, nil)
		mustStatus(t, w, http.StatusMethodNotAllowed)
		if got := w.Header().Get("Allow"); got != tc.allow {
			t.Errorf("%s %s: Allow %q, want %q", tc.method, tc.path, got, tc.allow)
		}
	}
	// HEAD redirects like GET but is no click.
	mustRedirect(t, f.do("HEAD", short, "/abc", nil), "https://example.com/")
	w := f.do("HEAD", short, "/nope", nil)
	mustStatus(t, w, http.StatusNotFound)
	if w.Body.Len() != 0 {
		t.Fatalf("HEAD body %q", w.Body)
	}
	mustHits(t, f.rec)
}

func TestPassword(t *testing.T) {
	password.Cost = 4
	hash, err := password.Hash("open sesame")
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, nil)
	f.addLink(links.ShortLink{ID: 1, Alias: "secret", LongURL: "https://example.com/secret", PasswordHash: hash})
	f.addLink(links.ShortLink{ID: 2, DomainID: 3, Alias: "secret", LongURL: "https://brand.com/secret", PasswordHash: hash})

	w := f.do("GET", short, "/secret", nil)
	mustStatus(t, w, http.StatusOK)
	body := w.Body.String()
	if !strings.Contains(body, `<form method="post" action="/secret">`) || !strings.Contains(body, `name="password"`) {
		t.Fatalf("form: %s", body)
	}
	if strings.Contains(body, "example.com/secret") {
		t.Fatal("the form reveals the long URL")
	}
	csp := w.Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "form-action 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "script-src") {
		t.Fatalf("CSP %q", csp)
	}
	if w.Header().Get("Cache-Control") != "no-store" {
		t.Fatal("form is cacheable")
	}
	mustHits(t, f.rec) // no visit before the password

	// Wrong password: the form again, 401, no visit.
	w = f.do("POST", short, "/secret", url.Values{"password": {"guess"}})
	mustStatus(t, w, http.StatusUnauthorized)
	if !strings.Contains(w.Body.String(), "Wrong password") {
		t.Fatalf("no error shown: %s", w.Body)
	}
	// Right password: 302 and the visit.
	mustRedirect(t, f.do("POST", short, "/secret", url.Values{"password": {"open sesame"}}), "https://example.com/secret")
	mustHits(t, f.rec, hit(visits.KindLink, 1))

	// Throttling: 5 failures, then 429 even for the right password.
	for i := range PasswordFailures {
		w = f.do("POST", short, "/secret", url.Values{"password": {"guess"}})
		mustStatus(t, w, http.StatusUnauthorized)
		_ = i
	}
	w = f.do("POST", short, "/secret", url.Values{"password": {"open sesame"}})
	mustStatus(t, w, http.StatusTooManyRequests)
	if ra := w.Header().Get("Retry-After"); ra != "300" {
		t.Fatalf("Retry-After %q", ra)
	}
	// Per alias: the same alias on the branded domain is another key.
	mustRedirect(t, f.do("POST", branded, "/secret", url.Values{"password": {"open sesame"}}), "https://brand.com/secret")
	// Per client: another address is not throttled.
	r := httptest.NewRequest("POST", "/secret", strings.NewReader("password=open+sesame"))
	r.Host = short
	r.RemoteAddr = "198.51.100.9:4000"
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w = httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	mustRedirect(t, w, "https://example.com/secret")
	// The window ends after 5 minutes.
	f.clock.Add(PasswordWindow)
	mustRedirect(t, f.do("POST", short, "/secret", url.Values{"password": {"open sesame"}}), "https://example.com/secret")
	mustHits(t, f.rec, hit(visits.KindLink, 1), hit(visits.KindLink, 2), hit(visits.KindLink, 1), hit(visits.KindLink, 1))
}

func TestPasswordBodyLimit(t *testing.T) {
	password.Cost = 4
	hash, _ := password.Hash("open sesame")
	f := newFixture(t, nil)
	f.addLink(links.ShortLink{ID: 1, Alias: "secret", LongURL: "https://example.com/secret", PasswordHash: hash})
	w := f.do("POST", short, "/secret", url.Values{"password": {strings.Repeat("x", 10000)}})
	mustStatus(t, w, http.StatusBadRequest)
}

func TestInterstitial(t *testing.T) {
	f := newFixture(t, nil)
	f.store.pixels[10] = links.Pixel{ID: 10, UserID: owner, Type: links.PixelFacebook, Tag: "123456789012345"}
	f.store.pixels[11] = links.Pixel{ID: 11, UserID: owner, Type: links.PixelGTM, Tag: "GTM-ABC1234"}
	f.store.pixels[12] = links.Pixel{ID: 12, UserID: owner, Type: links.PixelAdWords, Tag: "AW-123456789/conv_1"}
	// A hostile tag the store should never hold: skipped, never rendered.
	f.store.pixels[13] = links.Pixel{ID: 13, UserID: owner, Type: links.PixelGTM, Tag: `GTM-X");alert(1);//</script><script>alert(2)</script>`}
	f.store.pixels[14] = links.Pixel{ID: 14, UserID: owner, Type: "evilpixel", Tag: "x"}
	f.store.pixels[15] = links.Pixel{ID: 15, UserID: 99, Type: links.PixelTikTok, Tag: "C1A2B3C4D5E6F7G8H9I0"} // not the owner's
	f.addLink(links.ShortLink{ID: 1, Alias: "px", LongURL: `https://example.com/a?b=1&c="><script>alert(3)</script>`, PixelIDs: []int64{10, 11, 12, 13, 14, 15}})

	w := f.do("GET", short, "/px", nil)
	mustStatus(t, w, http.StatusOK)
	body := w.Body.String()
	csp := w.Header().Get("Content-Security-Policy")
	m := regexpNonce.FindStringSubmatch(csp)
	if m == nil {
		t.Fatalf("no nonce in CSP %q", csp)
	}
	nonce := m[1]
	for _, want := range []string{
		`fbq("init","123456789012345")`,
		`src="https://connect.facebook.net/en_US/fbevents.js"`,
		`src="https://www.googletagmanager.com/gtm.js?id=GTM-ABC1234"`,
		`gtag("config","AW-123456789")`,
		`send_to:"AW-123456789/conv_1"`,
		`<meta http-equiv="refresh" content="1;url=https://example.com/a?b=1&amp;c=&#34;&gt;&lt;script&gt;alert(3)&lt;/script&gt;">`,
		`nonce="` + nonce + `"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %s\n%s", want, body)
		}
	}
	for _, bad := range []string{"alert(1)", "alert(2)", "<script>alert(3)", "tiktok", "evilpixel"} {
		if strings.Contains(body, bad) {
			t.Errorf("body holds %q:\n%s", bad, body)
		}
	}
	// Every script carries the nonce.
	if n, k := strings.Count(body, "<script"), strings.Count(body, `<script nonce="`+nonce+`"`)+strings.Count(body, `<script async nonce="`+nonce+`"`); n != k || n == 0 {
		t.Errorf("%d scripts, %d with the nonce", n, k)
	}
	for _, want := range []string{"default-src 'none'", "https://connect.facebook.net", "https://www.googletagmanager.com",
		"https://www.googleadservices.com", "base-uri 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP lacks %s: %s", want, csp)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "analytics.tiktok.com") || strings.Contains(csp, "*;") {
		t.Errorf("CSP too loose: %s", csp)
	}
	if w.Header().Get("Referrer-Policy") != "strict-origin-when-cross-origin" || w.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("headers %v", w.Header())
	}
	mustHits(t, f.rec, hit(visits.KindLink, 1))

	// Two requests get different nonces.
	w2 := f.do("GET", short, "/px", nil)
	if regexpNonce.FindStringSubmatch(w2.Header().Get("Content-Security-Policy"))[1] == nonce {
		t.Error("nonce reused")
	}
}

func TestInterstitialEveryType(t *testing.T) {
	f := newFixture(t, nil)
	tags := map[links.PixelType]string{
		links.PixelGTM: "GTM-ABC1234", links.PixelGA: "G-ABC123DEF4", links.PixelFacebook: "123456789012345",
		links.PixelAdWords: "AW-123456789", links.PixelLinkedIn: "123456", links.PixelTwitter: "o1a2b",
		links.PixelAdRoll: "Q4BTWXMRKZF7HNJ2C5D8EA/LM3P6VSG9YU1TE0RAWBKXN", links.PixelQuora: "0123456789abcdef0123456789abcdef",
		links.PixelPinterest: "2612345678901", links.PixelBing: "12345678",
		links.PixelSnapchat: "0a1b2c3d-4e5f-6789-abcd-ef0123456789", links.PixelReddit: "t2_abc123",
		links.PixelTikTok: "C1A2B3C4D5E6F7G8H9I0",
	}
	var ids []int64
	for i, pt := range links.PixelTypes {
		id := int64(100 + i)
		f.store.pixels[id] = links.Pixel{ID: id, UserID: owner, Type: pt, Tag: tags[pt]}
		ids = append(ids, id)
	}
	f.addLink(links.ShortLink{ID: 1, Alias: "all", LongURL: "https://example.com/", PixelIDs: ids})
	w := f.do("GET", short, "/all", nil)
	mustStatus(t, w, http.StatusOK)
	body, csp := w.Body.String(), w.Header().Get("Content-Security-Policy")
	for _, pt := range links.PixelTypes {
		// Every id of the tag (AdRoll's has two) is rendered.
		for id := range strings.SplitSeq(tags[pt], "/") {
			if !strings.Contains(body, `"`+id+`"`) && !strings.Contains(body, "="+id) && !strings.Contains(body, "/"+id+"/") {
				t.Errorf("%s: id %s of tag %s not rendered", pt, id, tags[pt])
			}
		}
		for _, host := range vendors[pt].scripts {
			if !strings.Contains(csp, host) {
				t.Errorf("%s: CSP lacks %s", pt, host)
			}
		}
		// The snippet's own loader is from the first script host.
		if host := vendors[pt].scripts[0]; !strings.Contains(body, `src="`+host+`/`) {
			t.Errorf("%s: no script from %s", pt, host)
		}
	}
}

// TestInterstitialAdRoll checks that an AdRoll pixel renders AdRoll's tag
// with both of its ids, and that a pixel stored with the advertisable id
// alone (accepted before the pixel id was required) is skipped: its tag
// cannot work.
func TestInterstitialAdRoll(t *testing.T) {
	const adv, pix, legacy = "Q4BTWXMRKZF7HNJ2C5D8EA", "LM3P6VSG9YU1TE0RAWBKXN", "HZ7YB2KQ5WXMRT3NC8DFJA"
	f := newFixture(t, nil)
	f.store.pixels[20] = links.Pixel{ID: 20, UserID: owner, Type: links.PixelAdRoll, Tag: adv + "/" + pix}
	f.store.pixels[21] = links.Pixel{ID: 21, UserID: owner, Type: links.PixelAdRoll, Tag: legacy}
	f.addLink(links.ShortLink{ID: 1, Alias: "roll", LongURL: "https://example.com/", PixelIDs: []int64{21, 20}})
	f.addLink(links.ShortLink{ID: 2, Alias: "old", LongURL: "https://example.com/old", PixelIDs: []int64{21}})

	w := f.do("GET", short, "/roll", nil)
	mustStatus(t, w, http.StatusOK)
	body := w.Body.String()
	for _, want := range []string{
		`window.adroll_adv_id="` + adv + `"`,
		`window.adroll_pix_id="` + pix + `"`,
		`src="https://s.adroll.com/j/` + adv + `/roundtrip.js"`,
		`track("pageView")`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %s\n%s", want, body)
		}
	}
	if n := strings.Count(body, "adroll_adv_id="); n != 1 || strings.Contains(body, legacy) {
		t.Errorf("the single-id pixel is rendered (%d AdRoll tags):\n%s", n, body)
	}
	csp := w.Header().Get("Content-Security-Policy")
	if !slices.Contains(cspSources(csp, "script-src"), "https://s.adroll.com") ||
		!slices.Contains(cspSources(csp, "connect-src"), "https://d.adroll.com") {
		t.Errorf("CSP lacks AdRoll's hosts: %s", csp)
	}
	// A link whose only pixel is a single-id AdRoll pixel redirects at once.
	mustRedirect(t, f.do("GET", short, "/old", nil), "https://example.com/old")
}

// TestInterstitialVendorHosts checks the interstitial's policy against the
// hosts the vendors' own tags and CSP guidance use: the script hosts their
// snippets load from and the hosts their beacons go to.
func TestInterstitialVendorHosts(t *testing.T) {
	want := map[links.PixelType]struct{ scripts, beacons []string }{
		// Google's CSP guide for Tag Manager and for GA4 (hits also go to www.google.com/g/collect).
		links.PixelGTM: {[]string{"https://www.googletagmanager.com"}, []string{"https://www.googletagmanager.com", "https://www.google.com"}},
		links.PixelGA: {[]string{"https://www.googletagmanager.com"},
			[]string{"https://www.google-analytics.com", "https://region1.analytics.google.com", "https://www.google.com"}},
		// Google Ads conversions and remarketing.
		links.PixelAdWords: {[]string{"https://www.googletagmanager.com", "https://www.googleadservices.com", "https://googleads.g.doubleclick.net", "https://www.google.com"},
			[]string{"https://www.googleadservices.com", "https://googleads.g.doubleclick.net", "https://www.google.com"}},
		links.PixelFacebook: {[]string{"https://connect.facebook.net"}, []string{"https://www.facebook.com"}},
		links.PixelLinkedIn: {[]string{"https://snap.licdn.com"}, []string{"https://px.ads.linkedin.com", "https://px4.ads.linkedin.com", "https://dc.ads.linkedin.com"}},
		links.PixelTwitter:  {[]string{"https://static.ads-twitter.com"}, []string{"https://analytics.twitter.com", "https://t.co", "https://ads-api.twitter.com"}},
		links.PixelAdRoll:   {[]string{"https://s.adroll.com"}, []string{"https://d.adroll.com"}},
	}
	for pt, hosts := range want {
		csp := interstitialCSP("n", []pixel{{Type: string(pt)}})
		for _, directive := range []string{"connect-src", "img-src"} {
			for _, h := range hosts.beacons {
				if !cspAllows(cspSources(csp, directive), h) {
					t.Errorf("%s: %s does not allow %s: %s", pt, directive, h, csp)
				}
			}
		}
		for _, h := range hosts.scripts {
			if !cspAllows(cspSources(csp, "script-src"), h) {
				t.Errorf("%s: script-src does not allow %s: %s", pt, h, csp)
			}
		}
	}
}

// cspSources returns the sources of one directive of a policy.
func cspSources(csp, directive string) []string {
	for d := range strings.SplitSeq(csp, ";") {
		if f := strings.Fields(d); len(f) > 0 && f[0] == directive {
			return f[1:]
		}
	}
	return nil
}

// cspAllows reports whether one of the sources (an origin, or a wildcard
// origin "https://*.example.com") matches the origin.
func cspAllows(sources []string, origin string) bool {
	for _, s := range sources {
		if s == origin {
			return true
		}
		if rest, ok := strings.CutPrefix(s, "https://*."); ok && strings.HasPrefix(origin, "https://") && strings.HasSuffix(origin, "."+rest) {
			return true
		}
	}
	return false
}

func TestInterstitialAllPixelsInvalid(t *testing.T) {
	f := newFixture(t, nil)
	f.store.pixels[13] = links.Pixel{ID: 13, UserID: owner, Type: links.PixelGTM, Tag: `"><script>`}
	f.addLink(links.ShortLink{ID: 1, Alias: "px", LongURL: "https://example.com/", PixelIDs: []int64{13, 99}})
	mustRedirect(t, f.do("GET", short, "/px", nil), "https://example.com/")
}

func TestRotator(t *testing.T) {
	f := newFixture(t, nil)
	f.store.campaigns[5] = links.Campaign{ID: 5, UserID: owner, Name: "Spring", Slug: "spring", Public: true}
	f.store.campaigns[6] = links.Campaign{ID: 6, UserID: owner, Name: "Hidden", Slug: "hidden"}
	f.store.campaigns[8] = links.Campaign{ID: 8, UserID: owner, Name: "Empty", Slug: "empty", Public: true}
	past := t0.Add(-time.Hour)
	f.addLink(links.ShortLink{ID: 3, Alias: "c3", LongURL: "https://example.com/3", CampaignID: 5})
	f.addLink(links.ShortLink{ID: 1, Alias: "c1", LongURL: "https://example.com/1", CampaignID: 5})
	f.addLink(links.ShortLink{ID: 2, Alias: "c2", LongURL: "https://example.com/2", CampaignID: 5})
	f.addLink(links.ShortLink{ID: 4, Alias: "c4", LongURL: "https://example.com/4", CampaignID: 5, ExpiresAt: &past})
	f.addLink(links.ShortLink{ID: 5, Alias: "c5", LongURL: "https://example.com/5", CampaignID: 5, PasswordHash: "x"})
	f.addLink(links.ShortLink{ID: 6, Alias: "c6", LongURL: "https://example.com/6", CampaignID: 6})
	f.addLink(links.ShortLink{ID: 7, Alias: "c7", LongURL: "https://example.com/7"})

	var got []string
	for range 7 {
		w := f.do("GET", short, "/r/spring", nil)
		mustStatus(t, w, http.StatusFound)
		got = append(got, w.Header().Get("Location"))
	}
	want := []string{"https://example.com/1", "https://example.com/2", "https://example.com/3",
		"https://example.com/1", "https://example.com/2", "https://example.com/3", "https://example.com/1"}
	if !slices.Equal(got, want) {
		t.Fatalf("rotation %v, want %v", got, want)
	}
	c := hit(visits.KindCampaign, 5)
	mustHits(t, f.rec, c, c, c, c, c, c, c)

	mustStatus(t, f.do("GET", short, "/r/hidden", nil), http.StatusNotFound)
	mustStatus(t, f.do("GET", short, "/r/empty", nil), http.StatusNotFound)
	mustStatus(t, f.do("GET", short, "/r/nope", nil), http.StatusNotFound)
	mustStatus(t, f.do("GET", short, "/r/", nil), http.StatusNotFound)
	// Rotators live on the short host only.
	mustRedirect(t, f.do("GET", branded, "/r/spring", nil), "https://brand.com/missing")
	if n := len(f.rec.all()); n != 7 {
		t.Fatalf("%d hits", n)
	}
}

func TestRotatorConcurrent(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.CacheTTL = time.Minute })
	f.store.campaigns[5] = links.Campaign{ID: 5, UserID: owner, Slug: "spring", Public: true}
	for i := int64(1); i <= 3; i++ {
		f.addLink(links.ShortLink{ID: i, Alias: "c" + string(rune('0'+i)), LongURL: "https://example.com/" + string(rune('0'+i)), CampaignID: 5})
	}
	var mu sync.Mutex
	counts := map[string]int{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 30 {
				w := f.do("GET", short, "/r/spring", nil)
				mu.Lock()
				counts[w.Header().Get("Location")]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for i := 1; i <= 3; i++ {
		if n := counts["https://example.com/"+string(rune('0'+i))]; n != 80 {
			t.Fatalf("uneven rotation: %v", counts)
		}
	}
}

func TestListPage(t *testing.T) {
	f := newFixture(t, nil)
	f.store.campaigns[5] = links.Campaign{ID: 5, UserID: owner, Name: `Spring <sale>`, Public: true}
	f.store.campaigns[6] = links.Campaign{ID: 6, UserID: owner, Name: "Hidden", Slug: "hidden"}
	past := t0.Add(-time.Hour)
	f.addLink(links.ShortLink{ID: 1, Alias: "c1", LongURL: "https://example.com/1", Title: "First <b>", CampaignID: 5})
	f.addLink(links.ShortLink{ID: 2, DomainID: 3, Alias: "c2", LongURL: "https://example.com/2", CampaignID: 5})
	f.addLink(links.ShortLink{ID: 4, Alias: "c4", LongURL: "https://example.com/4", Title: "Gone", CampaignID: 5, ExpiresAt: &past})
	f.addLink(links.ShortLink{ID: 6, Alias: "c6", LongURL: "https://example.com/6", Title: "Private", CampaignID: 6})

	w := f.do("GET", short, "/c/5", nil)
	mustStatus(t, w, http.StatusOK)
	body := w.Body.String()
	for _, want := range []string{"Spring &lt;sale&gt;", `href="https://s.example.org/c1"`, "First &lt;b&gt;",
		`href="https://go.brand.com/c2"`, ">c2</a>"} {
		if !strings.Contains(body, want) {
			t.Errorf("list lacks %s:\n%s", want, body)
		}
	}
	for _, bad := range []string{"Gone", "Private", "example.com/1"} {
		if strings.Contains(body, bad) {
			t.Errorf("list holds %s", bad)
		}
	}
	if strings.Index(body, "/c1") > strings.Index(body, "/c2") {
		t.Error("list not in ascending id order")
	}
	mustStatus(t, f.do("GET", short, "/c/6", nil), http.StatusNotFound)
	mustStatus(t, f.do("GET", short, "/c/99", nil), http.StatusNotFound)
	mustStatus(t, f.do("GET", short, "/c/abc", nil), http.StatusNotFound)
	mustStatus(t, f.do("GET", short, "/c/-5", nil), http.StatusNotFound)
	mustHits(t, f.rec)
}

func TestQR(t *testing.T) {
	password.Cost = 4
	hash, _ := password.Hash("open sesame")
	f := newFixture(t, nil)
	data := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	f.addLink(links.ShortLink{ID: 1, Alias: "abc", LongURL: "https://example.com/via-link"})
	f.addLink(links.ShortLink{ID: 2, DomainID: 3, Alias: "locked", LongURL: "https://example.com/locked", PasswordHash: hash})
	f.store.qrs[1] = links.QRCode{ID: 1, UserID: owner, Type: links.QRLink, Data: data("https://example.com/data"), LinkID: 1}
	f.store.qrs[2] = links.QRCode{ID: 2, UserID: owner, Type: links.QRLink, Data: data("https://example.com/data")}
	f.store.qrs[3] = links.QRCode{ID: 3, UserID: owner, Type: links.QRText, Data: data("hello")}
	f.store.qrs[4] = links.QRCode{ID: 4, UserID: owner, Type: links.QRLink, Data: data("https://example.com/data"), LinkID: 2}
	f.store.qrs[5] = links.QRCode{ID: 5, UserID: owner, Type: links.QRLink, Data: data("javascript:alert(1)")}

	mustRedirect(t, f.do("GET", short, "/q/1", nil), "https://example.com/via-link")
	mustRedirect(t, f.do("GET", short, "/q/2", nil), "https://example.com/data")
	mustRedirect(t, f.do("GET", short, "/q/4", nil), "https://go.brand.com/locked")
	mustHits(t, f.rec, hit(visits.KindQR, 1), hit(visits.KindQR, 2), hit(visits.KindQR, 4))
	mustStatus(t, f.do("GET", short, "/q/3", nil), http.StatusNotFound)
	mustStatus(t, f.do("GET", short, "/q/5", nil), http.StatusNotFound)
	mustStatus(t, f.do("GET", short, "/q/9", nil), http.StatusNotFound)
	mustStatus(t, f.do("GET", short, "/q/x", nil), http.StatusNotFound)
	mustRedirect(t, f.do("GET", branded, "/q/1", nil), "https://brand.com/missing")
	mustHits(t, f.rec, hit(visits.KindQR, 1), hit(visits.KindQR, 2), hit(visits.KindQR, 4))
}

func TestStoreFailure(t *testing.T) {
	f := newFixture(t, nil)
	f.store.fail = errors.New("disk on fire")
	w := f.do("GET", short, "/abc", nil)
	mustStatus(t, w, http.StatusInternalServerError)
	if strings.Contains(w.Body.String(), "disk on fire") {
		t.Fatal("internal error shown")
	}
	mustStatus(t, f.do("GET", branded, "/abc", nil), http.StatusInternalServerError)
	mustStatus(t, f.do("GET", short, "/r/spring", nil), http.StatusInternalServerError)
	mustStatus(t, f.do("GET", short, "/q/1", nil), http.StatusInternalServerError)
}

func TestCache(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.CacheTTL = time.Second })
	f.addLink(links.ShortLink{ID: 1, DomainID: 3, Alias: "abc", LongURL: "https://example.com/1"})
	for range 3 {
		mustRedirect(t, f.do("GET", branded, "/abc", nil), "https://example.com/1")
		mustRedirect(t, f.do("GET", branded, "/zzz", nil), "https://brand.com/missing")
	}
	if f.store.calls != 3 { // host, abc, zzz
		t.Fatalf("%d store calls, want 3", f.store.calls)
	}
	f.addLink(links.ShortLink{ID: 1, DomainID: 3, Alias: "abc", LongURL: "https://example.com/changed"})
	mustRedirect(t, f.do("GET", branded, "/abc", nil), "https://example.com/1")
	f.clock.Add(time.Second)
	mustRedirect(t, f.do("GET", branded, "/abc", nil), "https://example.com/changed")
}

// nopRecorder is the benchmarks' recorder: a real Capture-like read and
// nothing kept.
type nopRecorder struct{}

func (nopRecorder) Capture(r *http.Request, kind string, id, owner int64) visits.Hit {
	return visits.Hit{Kind: kind, ID: id, OwnerID: owner, UserAgent: r.Header.Get("User-Agent"), Referer: r.Header.Get("Referer")}
}

func (nopRecorder) Record(visits.Hit) {}
