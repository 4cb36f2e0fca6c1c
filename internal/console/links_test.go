package console_test

import (
	"image/png"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// TestMarketerSignIn: a marketer signs in with the account password (by
// username or email) or the API key; a wrong password says so; failures
// are throttled; the session cookie holds no key; rotating the key or
// changing the password ends the session; sign-out needs the token.
func TestMarketerSignIn(t *testing.T) {
	forEachStore(t, func(t *testing.T, kind string) {
		p := newPortal(t, onStore(kind))
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
		_, body = get(t, c, p.srv.URL+"/console/links/login?next=/console/links/campaigns")
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
		csrf := p.signInMarketer(t, k, p.budiKey)
		if resp, _ := post(t, k, p.srv.URL+"/console/links/logout", url.Values{}); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("sign-out without the token: %d", resp.StatusCode)
		}
		if resp, _ := post(t, k, p.srv.URL+"/console/links/logout", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-out: %d", resp.StatusCode)
		}
		p.signInMarketer(t, k, p.budiKey)
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
	forEachStore(t, func(t *testing.T, kind string) {
		p := newPortal(t, onStore(kind))
		ctx := t.Context()
		c := browser(t)
		csrf := p.signInMarketer(t, c, p.anaKey)
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
		bcsrf := p.signInMarketer(t, b, p.budiKey)
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
	forEachStore(t, func(t *testing.T, kind string) {
		p := newPortal(t, onStore(kind))
		ctx := t.Context()
		c := browser(t)
		csrf := p.signInMarketer(t, c, p.anaKey)
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
		p.signInMarketer(t, b, p.budiKey)
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

// TestMarketerQR: the designer previews a design without storing it (the
// script's endpoint and the no-JS button), refuses unreadable colours,
// stores a Wi-Fi code with a logo, edits it, downloads it as PNG and SVG
// and shows its scans; another marketer's code answers 404.
func TestMarketerQR(t *testing.T) {
	forEachStore(t, func(t *testing.T, kind string) {
		p := newPortal(t, onStore(kind))
		ctx := t.Context()
		c := browser(t)
		csrf := p.signInMarketer(t, c, p.anaKey)
		for _, typ := range []string{"text", "vcard", "link", "email", "phone", "sms", "wifi"} {
			if resp, body := get(t, c, p.srv.URL+"/console/links/qr/new?type="+typ); resp.StatusCode != 200 || !strings.Contains(body, `name="type" value="`+typ+`"`) {
				t.Fatalf("designer of %s: %d", typ, resp.StatusCode)
			}
		}
		design := url.Values{"csrf": {csrf}, "type": {"wifi"}, "name": {"Office"}, "d_ssid": {"Office"}, "d_password": {"s3cret!!"},
			"d_encryption": {"WPA"}, "foreground": {"#102a43"}, "background": {"#ffffff"}}
		resp, img := postMultipart(t, c, p.srv.URL+"/console/links/qr/preview", design)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("preview: %d %s", resp.StatusCode, img)
		}
		if _, err := png.Decode(strings.NewReader(img)); err != nil {
			t.Fatalf("preview is not a PNG: %v", err)
		}
		bad := url.Values{}
		for k, v := range design {
			bad[k] = v
		}
		bad.Set("foreground", "#eeeeee")
		if resp, msg := postMultipart(t, c, p.srv.URL+"/console/links/qr/preview", bad); resp.StatusCode != http.StatusBadRequest || !strings.Contains(msg, "contrast") {
			t.Fatalf("unreadable colours: %d %s", resp.StatusCode, msg)
		}
		design.Set("preview", "1")
		resp, page := postMultipart(t, c, p.srv.URL+"/console/links/qr/new?type=wifi", design)
		if resp.StatusCode != 200 || !strings.Contains(page, `src="data:image/png;base64,`) || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "img-src 'self' data: blob:") {
			t.Fatalf("no-JS preview: %d", resp.StatusCode)
		}
		if l, _ := p.links.ListQRs(ctx, p.ana.ID, links.Page{}); l.Total != 0 {
			t.Fatal("a preview stored a QR code")
		}
		design.Del("preview")
		if resp, _ := postMultipart(t, c, p.srv.URL+"/console/links/qr/new?type=wifi", url.Values{"type": {"wifi"}}); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("designer without the token: %d", resp.StatusCode)
		}
		resp, _ = postMultipart(t, c, p.srv.URL+"/console/links/qr/new?type=wifi", design, formFile{"logo", "logo.png", testPNG(32, 32)})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("save: %d", resp.StatusCode)
		}
		l, _ := p.links.ListQRs(ctx, p.ana.ID, links.Page{})
		// The logo is kept in the blob store; the record refers to it.
		if l.Total != 1 || l.Items[0].Type != links.QRWiFi || !links.IsLogoRef(l.Items[0].Logo) || l.Items[0].Foreground != "rgb(16,42,67)" {
			t.Fatalf("stored code: %+v", l.Items)
		}
		if q, err := p.links.GetQR(ctx, p.ana.ID, l.Items[0].ID); err != nil || !strings.HasPrefix(q.Logo, "data:image/png;base64,") {
			t.Fatalf("GetQR's logo: %.40q %v", q.Logo, err)
		}
		id := fmtID(l.Items[0].ID)
		resp, body := get(t, c, p.srv.URL+"/console/links/qr/"+id)
		if resp.StatusCode != 200 || !strings.Contains(body, `value="Office"`) || !strings.Contains(body, `name="logo_data"`) {
			t.Fatalf("edit designer: %d", resp.StatusCode)
		}
		edit := url.Values{"csrf": {csrf}, "d_ssid": {"Guest"}, "d_encryption": {"nopass"}, "foreground": {"#000000"},
			"background": {"#ffffff"}, "logo_data": {l.Items[0].Logo}, "remove_logo": {"1"}}
		if resp, _ := postMultipart(t, c, p.srv.URL+"/console/links/qr/"+id, edit); resp.StatusCode != http.StatusSeeOther {
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
		bcsrf := p.signInMarketer(t, b, p.budiKey)
		for _, path := range []string{"", "/download.png", "/stats"} {
			if resp, _ := get(t, b, p.srv.URL+"/console/links/qr/"+id+path); resp.StatusCode != http.StatusNotFound {
				t.Errorf("budi GET ana's code%s: %d", path, resp.StatusCode)
			}
		}
		edit.Set("csrf", bcsrf)
		if resp, _ := postMultipart(t, c, p.srv.URL+"/console/links/qr/"+id, edit); resp.StatusCode != http.StatusForbidden {
			t.Errorf("budi's token on ana's session: %d", resp.StatusCode)
		}
		if resp, _ := postMultipart(t, b, p.srv.URL+"/console/links/qr/"+id, edit); resp.StatusCode != http.StatusNotFound {
			t.Errorf("budi saves ana's code: %d", resp.StatusCode)
		}
	})
}

// fmtID formats an id as the console's addresses write it.
func fmtID(n int64) string { return strconv.FormatInt(n, 10) }
