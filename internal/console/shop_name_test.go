package console_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/ordering"
)

// The shop's texts in the tests of its name.
const (
	shopName    = "Warung Bu Tini"
	shopTagline = "Nasi goreng & kopi tubruk sejak 1998"
	shopHours   = "Sen–Jum 07.00–21.00\nSab 08.00–14.00"
)

var (
	// brandRE is the name in a page's header.
	brandRE = regexp.MustCompile(`<span class="brand">([^<]*)</span>`)
	// titleRE is a page's title.
	titleRE = regexp.MustCompile(`<title>([^<]*)</title>`)
)

// pageNames returns the name in the header and the title of a page, as the
// browser reads them (unescaped).
func pageNames(t *testing.T, what, body string) (brand, title string) {
	t.Helper()
	b, ti := brandRE.FindStringSubmatch(body), titleRE.FindStringSubmatch(body)
	if b == nil || ti == nil {
		t.Fatalf("%s: no brand or no title in\n%s", what, body)
	}
	return html.UnescapeString(b[1]), html.UnescapeString(ti[1])
}

// setShopTexts stores the shop's name, tagline and hours in its settings.
func (p *portal) setShopTexts(t *testing.T, name, tagline, hours string) {
	t.Helper()
	st, err := p.shop.Settings(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	st.ShopName, st.ShopTagline, st.OpeningHours = name, tagline, hours
	if _, err := p.shop.SetSettings(t.Context(), st); err != nil {
		t.Fatal(err)
	}
}

// customerPage is a customer page of the shop and the client that reads it.
type customerPage struct {
	path   string
	client *http.Client
}

// customerPages signs a customer in, places an order and returns the
// shop's customer pages with their readers: the storefront, my orders and
// the order (the customer), the sign-in (a visitor) and the waiting page
// of a sign-in (a visitor who started one).
func (p *portal) customerPages(t *testing.T) []customerPage {
	t.Helper()
	cust, _ := p.signInShop(t, customerNumber)
	o, err := p.shop.PlaceOrder(t.Context(), p.shopUser(t, customerNumber), ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: p.menu[0].ID, Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	waiting := browser(t)
	p.startShopLogin(t, waiting, "081234567899")
	return []customerPage{{"/console/shop/", cust}, {"/console/shop/login", browser(t)}, {"/console/shop/login/wait", waiting},
		{"/console/shop/orders", cust}, {"/console/shop/orders/" + o.ID, cust}}
}

// TestShopName: every customer page of the shop (storefront, sign-in,
// waiting page, my orders, an order) shows the shop's name from its
// settings in its header and its title, never the product's name; the
// storefront shows the tagline and the opening hours; without a name the
// pages say "Shop" ("Toko" in Indonesian); the operators' and the
// marketers' pages keep the console's name. On both stores.
func TestShopName(t *testing.T) {
	forEachStore(t, func(t *testing.T, kind string) {
		p := newPortal(t, onStore(kind), storefrontMenu)
		pages := p.customerPages(t)

		// No name set: the neutral default, in the page's language.
		for _, lang := range []struct{ query, name, title string }{{"?lang=en", "Shop", "Our menu · Shop"}, {"?lang=id", "Toko", "Menu kami · Toko"}} {
			resp, body := get(t, browser(t), p.srv.URL+"/console/shop/"+lang.query)
			brand, title := pageNames(t, "storefront "+lang.query, body)
			if resp.StatusCode != 200 || brand != lang.name || title != lang.title || strings.Contains(body, "Portal console") {
				t.Fatalf("storefront %s without a name: %d, brand %q, title %q", lang.query, resp.StatusCode, brand, title)
			}
		}

		p.setShopTexts(t, shopName, shopTagline, shopHours)
		for _, pg := range pages {
			resp, body := get(t, pg.client, p.srv.URL+pg.path)
			brand, title := pageNames(t, pg.path, body)
			if resp.StatusCode != 200 || brand != shopName || !strings.HasSuffix(title, " · "+shopName) {
				t.Errorf("%s: %d, brand %q, title %q; want %q in both", pg.path, resp.StatusCode, brand, title, shopName)
			}
			if strings.Contains(body, "Portal console") {
				t.Errorf("%s names the product to the shop's customers", pg.path)
			}
		}
		_, body := get(t, browser(t), p.srv.URL+"/console/shop/")
		if !strings.Contains(body, `<p class="tagline">`+html.EscapeString(shopTagline)+`</p>`) ||
			!strings.Contains(body, html.EscapeString(shopHours)) {
			t.Fatalf("the storefront lacks the tagline or the hours:\n%s", body)
		}

		// The operators' and the marketers' consoles keep their name.
		for _, path := range []string{"/console/login", "/console/links/login"} {
			_, body := get(t, browser(t), p.srv.URL+path+"?lang=en")
			if brand, title := pageNames(t, path, body); brand != "Portal console" || !strings.HasSuffix(title, "· Portal console") ||
				strings.Contains(body, shopName) {
				t.Errorf("%s: brand %q, title %q; want the console's own name", path, brand, title)
			}
		}
	})
}

// xssVectors are OWASP's cross-site scripting vectors typed as the shop's
// texts: each must stay text on every page.
var xssVectors = []string{
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(1)>`,
	`javascript:alert(1)`,
	`'><svg/onload=alert(1)>`,
	`</title><script>alert(1)</script>`,
}

// markupRE finds what an escaping failure would leave: an element a
// vector brought in, an event handler inside a tag, or a javascript:
// address in an attribute (the escaped text holds no "<").
var markupRE = regexp.MustCompile(`(?i)<script>alert|<img|<svg|<[^<>]*\son(error|load)=|(href|src|action)="?\s*javascript:`)

// TestShopNameEscaped: the shop's name, tagline and hours are untrusted
// text: each OWASP vector typed into them comes back on every customer
// page as the same text (in the header, the title and the storefront's
// intro), and nothing of it becomes markup.
func TestShopNameEscaped(t *testing.T) {
	p := newPortal(t, storefrontMenu)
	pages := p.customerPages(t)
	for _, v := range xssVectors {
		p.setShopTexts(t, v, v, v)
		for _, pg := range pages {
			_, body := get(t, pg.client, p.srv.URL+pg.path)
			if m := markupRE.FindString(body); m != "" {
				t.Errorf("shop name %q: %s holds %q:\n%s", v, pg.path, m, body)
			}
			if brand, title := pageNames(t, pg.path, body); brand != v || !strings.HasSuffix(title, " · "+v) {
				t.Errorf("shop name %q: %s shows brand %q, title %q", v, pg.path, brand, title)
			}
		}
		_, body := get(t, browser(t), p.srv.URL+"/console/shop/")
		if got := strings.Count(body, html.EscapeString(v)); got < 4 { // header, title, tagline, hours
			t.Errorf("shop texts %q: the storefront shows them escaped %d times, want 4:\n%s", v, got, body)
		}
	}
}

// TestOfficeSettingsShopTexts: the settings page edits the shop's name,
// tagline and opening hours with the other settings; a name the service
// refuses is shown again with its message; the storefront shows what was
// saved, escaped.
func TestOfficeSettingsShopTexts(t *testing.T) {
	s := newOfficeShop(t)
	const page = "/console/shop/settings"
	resp, body := s.get(officeAdmin, page)
	officeExpect(t, "settings", resp, body, 200, `id="shop_name" name="shop_name" value=""`, `<textarea id="opening_hours"`)
	form := url.Values{"order_prefix": {"ORD"}, "time_zone": {"Asia/Jakarta"}, "delivery_base_fee": {"10000"}, "delivery_per_km": {"0"},
		"payment_expiry_minutes": {"60"}, "shop_name": {strings.Repeat("W", 61)}, "shop_tagline": {shopTagline},
		"opening_hours": {"Sen–Jum 07.00–21.00\r\nSab 08.00–14.00"}}
	resp, body = s.post(officeAdmin, page, page, form)
	officeExpect(t, "a long name", resp, body, 400, "shopName is 61 characters long; at most 60 are allowed",
		`value="`+strings.Repeat("W", 61)+`"`, html.EscapeString(shopTagline))
	form.Set("shop_name", `Warung "Bu Tini" <b>`)
	resp, _ = s.post(officeAdmin, page, page, form)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", resp.StatusCode)
	}
	st, _ := s.shop.Settings(t.Context())
	if st.ShopName != `Warung "Bu Tini" <b>` || st.ShopTagline != shopTagline || st.OpeningHours != shopHours {
		t.Fatalf("saved %q %q %q", st.ShopName, st.ShopTagline, st.OpeningHours)
	}
	resp, body = s.get(officeOwner, page+"?saved=1")
	officeExpect(t, "saved", resp, body, 200, `value="Warung &#34;Bu Tini&#34; &lt;b&gt;"`, ">"+shopHours+"</textarea>")
	_, body = get(t, browser(t), s.srv.URL+"/console/shop/")
	if brand, _ := pageNames(t, "storefront", body); brand != st.ShopName || strings.Contains(body, "<b>") {
		t.Fatalf("the storefront's brand %q", brand)
	}
}
