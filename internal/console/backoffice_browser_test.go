package console_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	ord "github.com/seedhq/portal/internal/ordering"
)

// TestBrowserOffice drives the back office in headless Chromium, on both
// stores, as the
// owner: a cash sale through the point of sale's buttons with its running
// total and change, the receipt; a payment approved with its receipt image
// shown; the ledger's chart; a user's role set. Then a staff user with the
// kitchen only is refused the point of sale, and every page at a phone's width
// does not scroll sideways.
func TestBrowserOffice(t *testing.T) {
	forEachStore(t, browseOffice)
}

func browseOffice(t *testing.T, kind string) {
	chrome := newHeadless(t, "the shop's back office", 90*time.Second)
	s := newOfficeShop(t, onStore(kind))
	s.setShopTexts(t, shopName, shopTagline, shopHours)
	desk := chrome.tab(1200, 900)
	plus := `#q-` + s.coffee.ID + ` ~ button`

	// A sale: two coffees with the + button, 30.000 in cash.
	desk.do("point of sale", s.shopSession(s.jwts[officeOwner]),
		chromedp.Navigate(s.srv.URL+"/console/shop/pos"),
		chromedp.WaitVisible(chromedp.CSS(plus)),
		chromedp.Click(chromedp.CSS(plus)),
		chromedp.Click(chromedp.CSS(plus)),
		chromedp.SendKeys(chromedp.ID("cash"), "30000"),
	)
	if got := desk.text("#pos-total"); got != "Rp 24.000" {
		t.Fatalf("running total %q", got)
	}
	if got := desk.text("#pos-change"); got != "Rp 6.000" {
		t.Fatalf("change %q", got)
	}
	desk.shot("office-pos")
	desk.do("take payment", chromedp.Click(chromedp.CSS("button.big")), chromedp.WaitVisible(chromedp.CSS(".receipt")))
	desk.shot("office-receipt")
	if r := desk.text(".receipt"); !strings.Contains(r, "2") || !strings.Contains(r, "Rp 24.000") || !strings.Contains(r, "Rp 6.000") {
		t.Fatalf("receipt: %q", r)
	}
	// Printed: the receipt alone, in a narrow column.
	media := func(m string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: m})
			return err
		})
	}
	desk.do("print media", media("print"))
	printed, err := chromedp.Run(desk.ctx, chromedp.Evaluate[string](`[getComputedStyle(document.querySelector('.bar')).display,
		document.querySelector('[data-print]').getClientRects().length,
		document.querySelector('.receipt').getBoundingClientRect().width < 300].join(' ')`))
	if err != nil || printed != "none 0 true" {
		t.Fatalf("printed receipt: %q (%v)", printed, err)
	}
	desk.do("screen media", media(""))

	// A payment to verify, with its receipt image.
	o := s.waitingOrder()
	desk.do("payments", chromedp.Navigate(s.srv.URL+"/console/shop/payments"), chromedp.WaitVisible(chromedp.CSS("img.proof-img")))
	loaded, err := chromedp.Run(desk.ctx, chromedp.Evaluate[bool](`new Promise(ok => { const i = document.querySelector('img.proof-img');
		if (i.complete) ok(i.naturalWidth === 40); else i.onload = () => ok(i.naturalWidth === 40); })`, chromedp.EvalAwaitPromise))
	if err != nil || !loaded {
		t.Fatalf("the receipt image is not shown (%v)", err)
	}
	desk.do("approve", chromedp.Click(chromedp.CSS(`button[value=approve]`)), chromedp.WaitVisible(chromedp.CSS("p.ok")))
	if got := desk.text("p.ok"); !strings.Contains(got, o.OrderNumber) || !strings.Contains(got, "approved") {
		t.Fatalf("after approval: %q", got)
	}

	// The ledger: today's bar is drawn, its table beside it.
	desk.do("ledger", chromedp.Navigate(s.srv.URL+"/console/shop/ledger"), chromedp.WaitVisible(chromedp.CSS("svg.chart-svg")))
	bars, err := chromedp.Run(desk.ctx, chromedp.Evaluate[[]float64](`Array.from(document.querySelectorAll('svg.chart-svg rect.bar')).map(r => r.getBBox().height)`))
	if err != nil || len(bars) != 14 || bars[13] <= 0 {
		t.Fatalf("chart bars %v (%v)", bars, err)
	}
	if total := desk.text(".ledger-sum"); !strings.Contains(total, "Rp 36.000") {
		t.Fatalf("ledger total %q", total)
	}
	desk.shot("office-ledger")

	// A role: the kitchen user gets the payments menu too.
	kitchen := s.users[officeKitchen]
	desk.do("set a role", chromedp.Navigate(s.srv.URL+"/console/shop/users"),
		chromedp.WaitVisible(chromedp.ID("role-"+kitchen.ID)),
		chromedp.Click(chromedp.CSS(`#u-`+kitchen.ID+` ~ fieldset input[value=payments]`)),
		chromedp.Submit(chromedp.ID("role-"+kitchen.ID)),
		chromedp.WaitVisible(chromedp.CSS("p.ok")),
	)
	if u, _ := s.shop.Users(context.Background()); !officeHasMenus(u, kitchen.ID, "kitchen,payments") {
		t.Fatalf("the kitchen user's menus were not set: %+v", u)
	}

	// The kitchen user may not open the point of sale, and its menu does
	// not offer it.
	desk.do("kitchen user", s.shopSession(s.jwts[officeKitchen]), chromedp.Navigate(s.srv.URL+"/console/shop/pos"),
		chromedp.WaitVisible(chromedp.CSS("p.error")))
	if got := desk.text("p.error"); !strings.Contains(got, "may not open") {
		t.Fatalf("kitchen user on the point of sale: %q", got)
	}
	if nav := desk.text("nav"); strings.Contains(nav, "Point of sale") {
		t.Fatalf("the kitchen user's menu offers the point of sale: %q", nav)
	}

	// A phone: every back-office page fits its width (wide tables scroll
	// in their own box).
	phone := chrome.tab(375, 800)
	phone.do("phone", s.shopSession(s.jwts[officeOwner]))
	for _, page := range []string{"pos", "payments", "menu", "settings", "ledger", "users", "bans"} {
		phone.do(page+" on a phone", chromedp.Navigate(s.srv.URL+"/console/shop/"+page), chromedp.WaitVisible(chromedp.CSS("h1")))
		if fits, err := phone.fits(); err != nil || !fits {
			t.Fatalf("at a phone's width the %s page scrolls sideways (%v)", page, err)
		}
	}
}

// officeHasMenus reports whether the user id has exactly the menus (comma-separated).
func officeHasMenus(users []ord.User, id, menus string) bool {
	for _, u := range users {
		if u.ID == id {
			return strings.Join(u.AllowedMenus, ",") == menus
		}
	}
	return false
}
