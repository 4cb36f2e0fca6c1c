package console_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
	"github.com/seedhq/portal/internal/ordering"
)

// showcaseMenu is a warung's menu by category, in the order shown.
var showcaseMenu = []struct {
	category string
	items    []ordering.MenuItem
}{
	{"Makanan", []ordering.MenuItem{
		{Name: "Nasi goreng spesial", Description: "Telur ceplok, ayam suwir, kerupuk dan acar", Price: 25000},
		{Name: "Mie ayam bakso", Description: "Mie buatan sendiri, dua butir bakso sapi", Price: 20000},
		{Name: "Soto ayam", Description: "Dengan nasi, koya dan sambal", Price: 18000},
		{Name: "Gado-gado", Description: "Sayur rebus, tahu, tempe, bumbu kacang", Price: 17000},
	}},
	{"Minuman", []ordering.MenuItem{
		{Name: "Es teh manis", Price: 5000},
		{Name: "Es jeruk", Description: "Jeruk peras segar", Price: 8000},
		{Name: "Kopi tubruk", Description: "Kopi robusta Temanggung", Price: 7000},
	}},
	{"Camilan", []ordering.MenuItem{
		{Name: "Pisang goreng", Description: "Tiga potong", Price: 10000},
		{Name: "Tahu isi", Description: "Lima potong, dengan cabai rawit", Price: 10000},
	}},
}

// showcaseCampaign is a marketer's campaign: its links (alias, title, the
// address they lead to, a referrer of their visits) and how many visits
// each had over the last three weeks.
var showcaseCampaign = []struct {
	alias, title, url, referrer string
	visits                      int
}{
	{"kopi-ig", "Instagram bio", "https://kopisenja.example/promo/akhir-tahun?utm_source=instagram", "instagram.com", 412},
	{"kopi-wa", "WhatsApp broadcast", "https://kopisenja.example/promo/akhir-tahun?utm_source=whatsapp", "", 268},
	{"kopi-tiktok", "TikTok video", "https://kopisenja.example/promo/akhir-tahun?utm_source=tiktok", "tiktok.com", 187},
	{"kopi-poster", "Poster at the cashier (QR)", "https://kopisenja.example/promo/akhir-tahun?utm_source=poster", "", 95},
}

// TestBrowserShowcase opens the console's pages with realistic content, at
// 1280 and 390 px: a warung's storefront with a menu of three categories
// and two items in the cart, a campaign's links by their clicks, and the
// statistics of its most clicked link. With UPDATE_SCREENSHOTS=1 it saves
// docs/console/showcase-{shop,campaign,campaign-stats}[-phone].png, the
// pictures of the README.
func TestBrowserShowcase(t *testing.T) {
	chrome := newHeadless(t, "the showcase pages", 120*time.Second)
	p := newPortal(t)
	ctx := t.Context()
	p.setShopTexts(t, "Warung Bu Tini", "Masakan rumahan & kopi tubruk sejak 1998", "Senin–Jumat 07.00–21.00\nSabtu 08.00–14.00")
	var rice, tea ordering.MenuItem
	for i, c := range showcaseMenu {
		cat, err := p.shop.CreateCategory(ctx, ordering.CategoryInput{Name: c.category, Position: i})
		if err != nil {
			t.Fatal(err)
		}
		for j, it := range c.items {
			it.CategoryID, it.Available, it.Position = cat.ID, true, j
			m, err := p.shop.CreateMenuItem(ctx, it)
			if err != nil {
				t.Fatal(err)
			}
			switch m.Name {
			case "Nasi goreng spesial":
				rice = m
			case "Es teh manis":
				tea = m
			}
		}
	}

	camp, err := p.links.CreateCampaign(ctx, p.ana.ID, links.CampaignInput{Name: "Promo Akhir Tahun 2026"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.links.CreateLink(ctx, p.ana.ID, links.LinkInput{URL: "https://kopisenja.example/menu", Custom: "menu", Title: "Menu"}); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	var top int64
	for i, c := range showcaseCampaign {
		l, err := p.links.CreateLink(ctx, p.ana.ID, links.LinkInput{URL: c.url, Custom: c.alias, Title: c.title, CampaignID: camp.ID})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			top = l.ID
		}
		var vs []visits.Visit
		for n := range c.visits {
			// Spread over three weeks, most from phones in Indonesia, some
			// visitors twice in a day.
			day := (n * n * 7 / c.visits) % 21
			v := visits.Visit{Kind: visits.KindLink, ID: l.ID, OwnerID: p.ana.ID, At: now.Add(-time.Duration(day*24+n%13) * time.Hour),
				Referrer: c.referrer, Country: "ID", Browser: "Chrome", OS: "Android", Device: visits.DeviceMobile,
				Visitor: fmt.Sprintf("v%d-%d", day, n%17)}
			if c.referrer == "instagram.com" {
				v.Browser, v.Social = "Instagram App", visits.SocialInstagram
			}
			if n%6 == 0 {
				v.Referrer, v.Social = "", ""
			}
			switch n % 10 {
			case 3, 7:
				v.Browser, v.OS = "Safari", "iOS"
			case 5:
				v.Browser, v.OS, v.Device = "Chrome", "Windows", visits.DeviceDesktop
			case 9:
				v.Country = []string{"MY", "SG", "ID"}[n%3]
			}
			vs = append(vs, v)
		}
		if err := p.store.SaveVisits(ctx, vs); err != nil {
			t.Fatal(err)
		}
	}

	for _, width := range []int{1280, 390} {
		suffix := map[int]string{1280: "", 390: "-phone"}[width]
		tab := chrome.tab(width, 800)

		tab.do("the storefront", chromedp.Navigate(p.srv.URL+"/console/shop/?lang=id"), chromedp.WaitVisible(chromedp.CSS(".shop-intro")))
		tab.clickLoad("add the fried rice", "#item-"+rice.ID+" button")
		tab.clickLoad("add the iced tea", "#item-"+tea.ID+" button")
		tab.check("two lines in the cart", `document.querySelectorAll('#cart tbody tr').length === 2`)
		tab.check("the cart's total", `document.querySelector('#cart tfoot').textContent.includes('Rp 30.000')`)
		tab.check("three categories", `document.querySelectorAll('main h2[id^="cat-"]').length === 3`)
		tab.check("the storefront fits", fitsWidth)
		tab.check("the page's top", `(window.scrollTo(0, 0), true)`)
		tab.shot("showcase-shop" + suffix)

		tab.do("sign in", p.marketerSignInSteps()...)
		tab.do("the campaign's links", chromedp.Navigate(fmt.Sprintf("%s/console/links/?campaign=%d&order=clicks&lang=en", p.srv.URL, camp.ID)),
			chromedp.WaitVisible(chromedp.CSS("table")))
		tab.check("the campaign's four links, most clicked first", `document.querySelectorAll('tbody tr').length === 4 &&
			document.querySelector('tbody tr td:nth-child(3)').textContent.trim() === '412'`)
		tab.check("the campaign is chosen", `document.querySelector('#campaign option:checked').textContent === 'Promo Akhir Tahun 2026'`)
		tab.check("the list fits", fitsWidth)
		tab.shot("showcase-campaign" + suffix)

		tab.do("the top link's statistics", chromedp.Navigate(fmt.Sprintf("%s/console/links/%d/stats", p.srv.URL, top)),
			chromedp.WaitVisible(chromedp.CSS("section.days svg")))
		tab.check("the clicks", `document.querySelector('.totals dd').textContent === '412'`)
		tab.check("the referrers", `document.body.textContent.includes('instagram.com') && document.body.textContent.includes('Direct')`)
		tab.check("the statistics fit", fitsWidth)
		tab.shot("showcase-campaign-stats" + suffix)
	}
}
