package console_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/console"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres"
)

// marketerPassword is the account password of the harness's marketers.
const marketerPassword = "marketer-Password-1"

// linkPortal is the router with the console and the link service over one
// store, with two marketers: ana (with a password) and budi.
type linkPortal struct {
	srv     *httptest.Server
	links   *links.Service
	store   links.Store
	ana     links.User
	anaKey  string
	budi    links.User
	budiKey string
}

// linkStores are the stores the marketers' router tests run on: bbolt,
// and PostgreSQL when its test server is reachable (else skipped).
var linkStores = []struct {
	name string
	open func(t *testing.T) interface {
		exam.Store
		links.Store
	}
}{
	{"bolt", func(t *testing.T) interface {
		exam.Store
		links.Store
	} {
		st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}},
	{"postgres", func(t *testing.T) interface {
		exam.Store
		links.Store
	} {
		ctx := context.Background()
		st, err := postgres.Open(ctx, pgtest.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		if err := st.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		return st
	}},
}

// forEachLinkStore runs fn on a fresh portal over each store.
func forEachLinkStore(t *testing.T, fn func(t *testing.T, p *linkPortal)) {
	for _, s := range linkStores {
		t.Run(s.name, func(t *testing.T) { fn(t, newLinkPortal(t, s.open(t))) })
	}
}

// newLinkPortal serves the router with the console and the link API.
func newLinkPortal(t *testing.T, st interface {
	exam.Store
	links.Store
}) *linkPortal {
	t.Helper()
	exam.BcryptCost, links.BcryptCost = 4, 4
	ctx := context.Background()
	svc, err := exam.NewService(ctx, st, exam.Config{TempDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ls := links.NewService(st, links.Config{})
	p := &linkPortal{links: ls, store: st}
	if p.ana, p.anaKey, err = ls.CreateUser(ctx, links.NewUser{Email: "ana@example.com", Username: "ana", Password: marketerPassword}); err != nil {
		t.Fatal(err)
	}
	if p.budi, p.budiKey, err = ls.CreateUser(ctx, links.NewUser{Email: "budi@example.com", Username: "budi"}); err != nil {
		t.Fatal(err)
	}
	p.srv = httptest.NewServer(httpapi.New(httpapi.Options{Exam: svc, Links: ls, LinkBaseURL: "https://s.example",
		Console: console.New(console.Options{Exam: svc, Key: []byte("console-test-key-of-32-bytes!!!!"), Links: ls,
			LinkBaseURL: "https://s.example"})}))
	t.Cleanup(p.srv.Close)
	return p
}

// marketerCSRF returns the CSRF token of a page.
func marketerCSRF(t *testing.T, body string) string {
	t.Helper()
	i := strings.Index(body, `name="csrf" value="`)
	if i < 0 {
		t.Fatal("no CSRF token on the page")
	}
	csrf := body[i+len(`name="csrf" value="`):]
	return csrf[:strings.Index(csrf, `"`)]
}

// signInKey signs c in as the holder of key and returns a page's CSRF token.
func (p *linkPortal) signInKey(t *testing.T, c *http.Client, key string) string {
	t.Helper()
	resp, _ := post(t, c, p.srv.URL+"/console/links/login", url.Values{"api_key": {key}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in with a key: %d", resp.StatusCode)
	}
	resp, body := get(t, c, p.srv.URL+"/console/links/")
	if resp.StatusCode != 200 {
		t.Fatalf("links page after sign-in: %d", resp.StatusCode)
	}
	return marketerCSRF(t, body)
}

// TestMarketerSignIn: a marketer signs in with the account password (by
// username or email) or the API key; a wrong password says so; failures
// are throttled; the session cookie holds no key; rotating the key or
// changing the password ends the session; sign-out needs the token.
func TestMarketerSignIn(t *testing.T) {
	forEachLinkStore(t, func(t *testing.T, p *linkPortal) {
		c := browser(t)
		resp, _ := get(t, c, p.srv.URL+"/console/links/")
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/console/links/login") {
			t.Fatalf("links without a session: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		resp, body := post(t, c, p.srv.URL+"/console/links/login", url.Values{"login": {"ana"}, "password": {"wrong"}})
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "Wrong username, email, password or API key") {
			t.Fatalf("wrong password: %d", resp.StatusCode)
		}
		resp, _ = post(t, c, p.srv.URL+"/console/links/login", url.Values{"login": {"budi"}, "password": {""}})
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a user without a password: %d", resp.StatusCode)
		}
		resp, body = get(t, c, p.srv.URL+"/console/links/login?next=/console/links/campaigns")
		if !strings.Contains(body, `name="next" value="/console/links/campaigns"`) {
			t.Fatal("the sign-in page does not keep where to go next")
		}
		resp, _ = post(t, c, p.srv.URL+"/console/links/login", url.Values{"login": {"ana"}, "password": {marketerPassword},
			"next": {"//evil.example/"}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/console/links/" {
			t.Fatalf("sign-in with a next page elsewhere: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		resp, _ = post(t, c, p.srv.URL+"/console/links/login", url.Values{"login": {"ANA@example.com"}, "password": {marketerPassword},
			"next": {"/console/links/campaigns"}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/console/links/campaigns" {
			t.Fatalf("sign-in with the password: %d", resp.StatusCode)
		}
		var cookie *http.Cookie
		for _, ck := range resp.Cookies() {
			if ck.Name == "portal_console_links" {
				cookie = ck
			}
		}
		if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || strings.Contains(cookie.Value, p.anaKey) ||
			time.Until(cookie.Expires) > 12*time.Hour+time.Minute {
			t.Fatalf("session cookie: %+v", cookie)
		}
		resp, body = get(t, c, p.srv.URL+"/console/links/")
		if resp.StatusCode != 200 || !strings.Contains(body, "Short links") || !strings.Contains(body, "(ana)") {
			t.Fatalf("links page: %d", resp.StatusCode)
		}

		// A forged session (another user's id under the same MAC) is refused.
		forged := browser(t)
		u, _ := url.Parse(p.srv.URL + "/console/")
		parts := strings.SplitN(cookie.Value, ".", 2)
		forged.Jar.SetCookies(u, []*http.Cookie{{Name: cookie.Name, Value: "2." + parts[1], Path: "/console"}})
		if resp, _ := get(t, forged, p.srv.URL+"/console/links/"); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("forged session: %d, want a redirect to the sign-in", resp.StatusCode)
		}

		// Changing the password ends the session.
		pw := "another-Password-2"
		if _, err := p.links.UpdateAccount(t.Context(), p.ana.ID, links.AccountUpdate{Password: &pw}); err != nil {
			t.Fatal(err)
		}
		if resp, _ := get(t, c, p.srv.URL+"/console/links/"); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("after a password change: %d, want the sign-in", resp.StatusCode)
		}

		// Signed in with the key; rotating it ends the session.
		k := browser(t)
		csrf := p.signInKey(t, k, p.budiKey)
		if resp, _ := post(t, k, p.srv.URL+"/console/links/logout", url.Values{}); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("sign-out without the token: %d", resp.StatusCode)
		}
		if resp, _ := post(t, k, p.srv.URL+"/console/links/logout", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-out: %d", resp.StatusCode)
		}
		p.signInKey(t, k, p.budiKey)
		if _, err := p.links.RotateAPIKey(t.Context(), p.budi.ID); err != nil {
			t.Fatal(err)
		}
		if resp, _ := get(t, k, p.srv.URL+"/console/links/"); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("after the key's rotation: %d, want the sign-in", resp.StatusCode)
		}
		if resp, _ := post(t, k, p.srv.URL+"/console/links/login", url.Values{"api_key": {p.budiKey}}); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("the rotated key: %d", resp.StatusCode)
		}

		// Five wrong passwords for ana from this address block her here.
		for range 5 {
			post(t, c, p.srv.URL+"/console/links/login", url.Values{"login": {"ana"}, "password": {"wrong"}})
		}
		resp, body = post(t, c, p.srv.URL+"/console/links/login", url.Values{"login": {"ana"}, "password": {pw}})
		if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "Too many failed sign-ins") || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("throttled: %d", resp.StatusCode)
		}
		resp, _ = post(t, c, p.srv.URL+"/console/links/login", url.Values{"login": {"ana"}, "password": {pw}},
			"Sec-Fetch-Site", "cross-site")
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("cross-site sign-in: %d", resp.StatusCode)
		}
	})
}

// TestMarketerLinks: a marketer creates a link through the form (refused
// input keeps the form and stores nothing), finds it by search and
// filters, edits it, sees its statistics, and deletes it after the
// confirmation; another marketer's link answers 404 on every page and
// action; a form without its token is refused.
func TestMarketerLinks(t *testing.T) {
	forEachLinkStore(t, func(t *testing.T, p *linkPortal) {
		ctx := t.Context()
		c := browser(t)
		csrf := p.signInKey(t, c, p.anaKey)
		camp, err := p.links.CreateCampaign(ctx, p.ana.ID, links.CampaignInput{Name: "Summer"})
		if err != nil {
			t.Fatal(err)
		}

		resp, body := post(t, c, p.srv.URL+"/console/links/new", url.Values{"csrf": {csrf}, "url": {"ftp://nope"}, "alias": {"promo"}})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `value="promo"`) || !strings.Contains(body, `role="alert"`) {
			t.Fatalf("refused link: %d", resp.StatusCode)
		}
		if l, _ := p.links.ListLinks(ctx, p.ana.ID, links.LinkFilter{}, links.Page{}); l.Total != 0 {
			t.Fatalf("a refused link was stored: %d", l.Total)
		}
		if resp, _ := post(t, c, p.srv.URL+"/console/links/new", url.Values{"url": {"https://example.com/a"}}); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("create without the token: %d", resp.StatusCode)
		}
		resp, _ = post(t, c, p.srv.URL+"/console/links/new", url.Values{"csrf": {csrf}, "url": {"https://example.com/summer"},
			"alias": {"promo"}, "title": {"Summer sale"}, "campaign": {fmtID(camp.ID)}, "expiry": {"2099-01-02T03:04"}, "password": {"secret"}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("create: %d", resp.StatusCode)
		}
		resp, body = get(t, c, p.srv.URL+resp.Header.Get("Location"))
		if resp.StatusCode != 200 || !strings.Contains(body, "https://s.example/promo") || !strings.Contains(body, "Short link created") {
			t.Fatalf("list after create: %d", resp.StatusCode)
		}
		other, err := p.links.CreateLink(ctx, p.ana.ID, links.LinkInput{URL: "https://example.com/other", Custom: "other"})
		if err != nil {
			t.Fatal(err)
		}
		for q, want := range map[string][]string{
			"?q=SUMMER":                   {"promo"},
			"?campaign=" + fmtID(camp.ID): {"promo"},
			"?q=other":                    {"other"},
			"":                            {"promo", "other"},
		} {
			_, body := get(t, c, p.srv.URL+"/console/links/"+q)
			for _, alias := range []string{"promo", "other"} {
				if got := strings.Contains(body, "https://s.example/"+alias); got != slices.Contains(want, alias) {
					t.Errorf("list %q shows %s: %v", q, alias, got)
				}
			}
		}
		if _, body := get(t, c, p.srv.URL+"/console/links/?lang=id"); !strings.Contains(body, "Tautan pendek") || !strings.Contains(body, `lang="id"`) {
			t.Error("the links page in Indonesian")
		}
		if _, body := get(t, c, p.srv.URL+"/console/links/campaigns"); !strings.Contains(body, "Kampanye baru") {
			t.Error("the language chosen is not kept on the next page")
		}
		get(t, c, p.srv.URL+"/console/links/?lang=en")
		l, _ := p.links.ListLinks(ctx, p.ana.ID, links.LinkFilter{Search: "promo"}, links.Page{})
		promo := l.Items[0]
		if promo.PasswordHash == "" || promo.ExpiresAt == nil || promo.CampaignID != camp.ID || promo.Title != "Summer sale" {
			t.Fatalf("stored link: %+v", promo)
		}

		resp, body = get(t, c, p.srv.URL+"/console/links/"+fmtID(promo.ID)+"/edit")
		if resp.StatusCode != 200 || !strings.Contains(body, `value="2099-01-02T03:04"`) || !strings.Contains(body, "remove_password") {
			t.Fatalf("edit form: %d", resp.StatusCode)
		}
		resp, _ = post(t, c, p.srv.URL+"/console/links/"+fmtID(promo.ID)+"/edit", url.Values{"csrf": {csrf},
			"url": {"https://example.com/summer2"}, "alias": {"promo"}, "title": {"Summer sale"}, "remove_password": {"1"}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("edit: %d", resp.StatusCode)
		}
		if got, _ := p.links.GetLink(ctx, p.ana.ID, promo.ID); got.LongURL != "https://example.com/summer2" || got.PasswordHash != "" ||
			got.ExpiresAt != nil || got.CampaignID != 0 {
			t.Fatalf("after edit: %+v", got)
		}
		resp, body = post(t, c, p.srv.URL+"/console/links/"+fmtID(promo.ID)+"/edit", url.Values{"csrf": {csrf},
			"url": {"https://example.com/x"}, "alias": {"other"}})
		if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "already used") {
			t.Fatalf("edit to a taken alias: %d", resp.StatusCode)
		}

		if err := p.store.SaveVisits(ctx, []visits.Visit{
			{Kind: visits.KindLink, ID: promo.ID, OwnerID: p.ana.ID, At: time.Now(), Visitor: "a", Country: "ID", Browser: "Chrome", OS: "Android", Device: visits.DeviceMobile},
			{Kind: visits.KindLink, ID: promo.ID, OwnerID: p.ana.ID, At: time.Now(), Visitor: "b", Country: "US", Browser: "Safari", OS: "iOS", Referrer: "google.com"},
		}); err != nil {
			t.Fatal(err)
		}
		resp, body = get(t, c, p.srv.URL+"/console/links/"+fmtID(promo.ID)+"/stats")
		if resp.StatusCode != 200 || strings.Count(body, "<svg") != 6 || !strings.Contains(body, `<th scope="row">Android</th>`) ||
			!strings.Contains(body, `<th scope="row">Mobile</th>`) || !strings.Contains(body, `<time datetime="`+time.Now().UTC().Format("2006-01-02")+`">`) ||
			!strings.Contains(body, "google.com") || strings.Contains(body, "style=") {
			t.Fatalf("stats page: %d\n%s", resp.StatusCode, body)
		}

		// Another marketer's link answers 404 on every page and action.
		b := browser(t)
		bcsrf := p.signInKey(t, b, p.budiKey)
		for _, path := range []string{"/edit", "/stats", "/delete"} {
			if resp, _ := get(t, b, p.srv.URL+"/console/links/"+fmtID(promo.ID)+path); resp.StatusCode != http.StatusNotFound {
				t.Errorf("budi GET %s of ana's link: %d", path, resp.StatusCode)
			}
		}
		for _, path := range []string{"/edit", "/delete"} {
			if resp, _ := post(t, b, p.srv.URL+"/console/links/"+fmtID(promo.ID)+path, url.Values{"csrf": {bcsrf}, "url": {"https://evil.example"}}); resp.StatusCode != http.StatusNotFound {
				t.Errorf("budi POST %s of ana's link: %d", path, resp.StatusCode)
			}
		}
		if _, body := get(t, b, p.srv.URL+"/console/links/?q=promo"); strings.Contains(body, "s.example/promo") {
			t.Error("budi's list shows ana's link")
		}
		if resp, _ := post(t, b, p.srv.URL+"/console/links/"+fmtID(other.ID)+"/delete", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("ana's token in budi's session: %d", resp.StatusCode)
		}

		resp, body = get(t, c, p.srv.URL+"/console/links/"+fmtID(promo.ID)+"/delete")
		if resp.StatusCode != 200 || !strings.Contains(body, "https://s.example/promo") {
			t.Fatalf("delete confirmation: %d", resp.StatusCode)
		}
		if resp, _ := post(t, c, p.srv.URL+"/console/links/"+fmtID(promo.ID)+"/delete", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("delete: %d", resp.StatusCode)
		}
		if _, err := p.links.GetLink(ctx, p.ana.ID, promo.ID); err == nil {
			t.Fatal("the link is still there after delete")
		}
	})
}

// TestMarketerCampaignsAndDomains: campaigns with rotator settings and
// branded domains through their forms; refusals keep the form.
func TestMarketerCampaignsAndDomains(t *testing.T) {
	forEachLinkStore(t, func(t *testing.T, p *linkPortal) {
		ctx := t.Context()
		c := browser(t)
		csrf := p.signInKey(t, c, p.anaKey)
		if resp, _ := post(t, c, p.srv.URL+"/console/links/campaigns", url.Values{"csrf": {csrf}, "name": {"Summer"}, "slug": {"summer"}, "public": {"1"}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("create campaign: %d", resp.StatusCode)
		}
		_, body := get(t, c, p.srv.URL+"/console/links/campaigns")
		if !strings.Contains(body, "https://s.example/r/summer") {
			t.Fatal("the rotator's address is not shown")
		}
		cs, _ := p.links.ListCampaigns(ctx, p.ana.ID, links.Page{})
		id := fmtID(cs.Items[0].ID)
		if resp, _ := post(t, c, p.srv.URL+"/console/links/campaigns/"+id, url.Values{"csrf": {csrf}, "name": {"Summer 2"}, "slug": {""}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("update campaign: %d", resp.StatusCode)
		}
		if got, _ := p.links.GetCampaign(ctx, p.ana.ID, cs.Items[0].ID); got.Name != "Summer 2" || got.Slug != "" || got.Public {
			t.Fatalf("after update: %+v", got)
		}
		resp, body := post(t, c, p.srv.URL+"/console/links/campaigns", url.Values{"csrf": {csrf}, "name": {"Bad"}, "slug": {"a b"}})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `value="Bad"`) {
			t.Fatalf("refused campaign: %d", resp.StatusCode)
		}
		b := browser(t)
		p.signInKey(t, b, p.budiKey)
		if resp, _ := get(t, b, p.srv.URL+"/console/links/campaigns/"+id); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("budi opens ana's campaign: %d", resp.StatusCode)
		}

		if resp, _ := post(t, c, p.srv.URL+"/console/links/domains", url.Values{"csrf": {csrf}, "domain": {"https://go.example.com"}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("add domain: %d", resp.StatusCode)
		}
		resp, body = post(t, c, p.srv.URL+"/console/links/domains", url.Values{"csrf": {csrf}, "domain": {"https://go.example.com"}})
		if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "already registered") {
			t.Fatalf("taken domain: %d", resp.StatusCode)
		}
		ds, _ := p.links.ListDomains(ctx, p.ana.ID, links.Page{})
		if _, err := p.links.CreateLink(ctx, p.ana.ID, links.LinkInput{URL: "https://example.com", Custom: "gogo", DomainID: ds.Items[0].ID}); err != nil {
			t.Fatal(err)
		}
		_, body = get(t, c, p.srv.URL+"/console/links/?domain="+fmtID(ds.Items[0].ID))
		if !strings.Contains(body, "https://go.example.com/gogo") {
			t.Fatal("a link of a branded domain shows its short address on the domain")
		}
		resp, body = post(t, c, p.srv.URL+"/console/links/domains/"+fmtID(ds.Items[0].ID)+"/delete", url.Values{"csrf": {csrf}})
		if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "still use") {
			t.Fatalf("delete a domain in use: %d", resp.StatusCode)
		}
	})
}

// qrPost posts fields and an optional logo file as multipart.
func qrPost(t *testing.T, c *http.Client, u string, fields url.Values, logo []byte) (*http.Response, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, vs := range fields {
		for _, v := range vs {
			mw.WriteField(k, v)
		}
	}
	if logo != nil {
		fw, _ := mw.CreateFormFile("logo", "logo.png")
		fw.Write(logo)
	}
	mw.Close()
	req, _ := http.NewRequest("POST", u, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// TestMarketerQR: the designer previews a design without storing it (the
// script's endpoint and the no-JS button), refuses unreadable colours,
// stores a Wi-Fi code with a logo, edits it, downloads it as PNG and SVG
// and shows its scans; another marketer's code answers 404.
func TestMarketerQR(t *testing.T) {
	forEachLinkStore(t, func(t *testing.T, p *linkPortal) {
		ctx := t.Context()
		c := browser(t)
		csrf := p.signInKey(t, c, p.anaKey)
		for _, typ := range []string{"text", "vcard", "link", "email", "phone", "sms", "wifi"} {
			if resp, body := get(t, c, p.srv.URL+"/console/links/qr/new?type="+typ); resp.StatusCode != 200 || !strings.Contains(body, `name="type" value="`+typ+`"`) {
				t.Fatalf("designer of %s: %d", typ, resp.StatusCode)
			}
		}
		design := url.Values{"csrf": {csrf}, "type": {"wifi"}, "name": {"Office"}, "d_ssid": {"Office"}, "d_password": {"s3cret!!"},
			"d_encryption": {"WPA"}, "foreground": {"#102a43"}, "background": {"#ffffff"}}
		resp, img := qrPost(t, c, p.srv.URL+"/console/links/qr/preview", design, nil)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("preview: %d %s", resp.StatusCode, img)
		}
		if _, err := png.Decode(bytes.NewReader(img)); err != nil {
			t.Fatalf("preview is not a PNG: %v", err)
		}
		bad := url.Values{}
		for k, v := range design {
			bad[k] = v
		}
		bad.Set("foreground", "#eeeeee")
		if resp, msg := qrPost(t, c, p.srv.URL+"/console/links/qr/preview", bad, nil); resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(msg), "contrast") {
			t.Fatalf("unreadable colours: %d %s", resp.StatusCode, msg)
		}
		design.Set("preview", "1")
		resp, page := qrPost(t, c, p.srv.URL+"/console/links/qr/new?type=wifi", design, nil)
		if resp.StatusCode != 200 || !strings.Contains(string(page), `src="data:image/png;base64,`) || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "img-src 'self' data: blob:") {
			t.Fatalf("no-JS preview: %d", resp.StatusCode)
		}
		if l, _ := p.links.ListQRs(ctx, p.ana.ID, links.Page{}); l.Total != 0 {
			t.Fatal("a preview stored a QR code")
		}
		design.Del("preview")
		if resp, _ := qrPost(t, c, p.srv.URL+"/console/links/qr/new?type=wifi", url.Values{"type": {"wifi"}}, nil); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("designer without the token: %d", resp.StatusCode)
		}
		resp, _ = qrPost(t, c, p.srv.URL+"/console/links/qr/new?type=wifi", design, logoPNG())
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("save: %d", resp.StatusCode)
		}
		l, _ := p.links.ListQRs(ctx, p.ana.ID, links.Page{})
		if l.Total != 1 || l.Items[0].Type != links.QRWiFi || !strings.HasPrefix(l.Items[0].Logo, "data:image/png;base64,") || l.Items[0].Foreground != "rgb(16,42,67)" {
			t.Fatalf("stored code: %+v", l.Items)
		}
		id := fmtID(l.Items[0].ID)
		resp, body := get(t, c, p.srv.URL+"/console/links/qr/"+id)
		if resp.StatusCode != 200 || !strings.Contains(body, `value="Office"`) || !strings.Contains(body, `name="logo_data"`) {
			t.Fatalf("edit designer: %d", resp.StatusCode)
		}
		edit := url.Values{"csrf": {csrf}, "d_ssid": {"Guest"}, "d_encryption": {"nopass"}, "foreground": {"#000000"},
			"background": {"#ffffff"}, "logo_data": {l.Items[0].Logo}, "remove_logo": {"1"}}
		if resp, _ := qrPost(t, c, p.srv.URL+"/console/links/qr/"+id, edit, nil); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("edit: %d", resp.StatusCode)
		}
		if q, _ := p.links.GetQR(ctx, p.ana.ID, l.Items[0].ID); !strings.Contains(string(q.Data), "Guest") || q.Logo != "" {
			t.Fatalf("after edit: %+v", q)
		}
		resp, body = get(t, c, p.srv.URL+"/console/links/qr/"+id+"/download.svg")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(body, "<svg") ||
			!strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
			t.Fatalf("SVG download: %d", resp.StatusCode)
		}
		if resp, body := get(t, c, p.srv.URL+"/console/links/qr/"+id+"/download.png"); resp.StatusCode != 200 || !strings.HasPrefix(body, "\x89PNG") {
			t.Fatalf("PNG download: %d", resp.StatusCode)
		}
		if err := p.store.SaveVisits(ctx, []visits.Visit{{Kind: visits.KindQR, ID: l.Items[0].ID, OwnerID: p.ana.ID, At: time.Now(),
			Country: "ID", Browser: "Chrome", OS: "Android", Device: visits.DeviceMobile}}); err != nil {
			t.Fatal(err)
		}
		resp, body = get(t, c, p.srv.URL+"/console/links/qr/"+id+"/stats")
		if resp.StatusCode != 200 || !strings.Contains(body, "Scans") || !strings.Contains(body, `<th scope="row">Mobile</th>`) ||
			!strings.Contains(body, "https://s.example/qr/"+id) {
			t.Fatalf("QR statistics: %d", resp.StatusCode)
		}
		b := browser(t)
		bcsrf := p.signInKey(t, b, p.budiKey)
		for _, path := range []string{"", "/download.png", "/stats"} {
			if resp, _ := get(t, b, p.srv.URL+"/console/links/qr/"+id+path); resp.StatusCode != http.StatusNotFound {
				t.Errorf("budi GET ana's code%s: %d", path, resp.StatusCode)
			}
		}
		edit.Set("csrf", bcsrf)
		if resp, _ := qrPost(t, c, p.srv.URL+"/console/links/qr/"+id, edit, nil); resp.StatusCode != http.StatusForbidden {
			t.Errorf("budi's token on ana's session: %d", resp.StatusCode)
		}
		if resp, _ := qrPost(t, b, p.srv.URL+"/console/links/qr/"+id, edit, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("budi saves ana's code: %d", resp.StatusCode)
		}
	})
}

// logoPNG is a small PNG logo.
func logoPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 32, 32))
	for i := range img.Pix {
		img.Pix[i] = 0xc0
	}
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

func fmtID(n int64) string { return strconv.FormatInt(n, 10) }
