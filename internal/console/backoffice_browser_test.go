package console_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	ord "github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/testkit"
)

// signInShop puts the shop session of the user of number in the browser,
// as the shop's sign-in page does once the messenger login is verified.
func (s *officeShop) signInShop(number string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		httpOnly := true
		_, err := cdp.Call(ctx, t, network.SetCookie, network.SetCookieParams{Name: "portal_console_shop", Value: s.jwts[number],
			URL: s.srv.URL + "/console/", Path: "/console", HTTPOnly: &httpOnly})
		return err
	})
}

// TestBrowserOffice drives the back office in headless Chromium as the
// owner: a cash sale through the point of sale's buttons with its running
// total and change, the receipt; a payment approved with its receipt image
// shown; the ledger's chart; a user's role set. Then a staff user with the
// kitchen only is refused the point of sale, and every page at a phone's width
// does not scroll sideways.
func TestBrowserOffice(t *testing.T) {
	execPath := testkit.FindBrowser(t, "the shop's back office")
	s := newOfficeShop(t, officeStores()[0].open)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	bctx, stop := testkit.NewBrowser(ctx, execPath, 1200, 900)
	defer stop()
	do := func(bctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(bctx context.Context, sel string) string {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return v
	}
	plus := `#q-` + s.coffee.ID + ` ~ button`

	// A sale: two coffees with the + button, 30.000 in cash.
	do(bctx, "point of sale", s.signInShop(officeOwner),
		chromedp.Navigate(s.srv.URL+"/console/shop/pos"),
		chromedp.WaitVisible(chromedp.CSS(plus)),
		chromedp.Click(chromedp.CSS(plus)),
		chromedp.Click(chromedp.CSS(plus)),
		chromedp.SendKeys(chromedp.ID("cash"), "30000"),
	)
	if got := text(bctx, "#pos-total"); got != "Rp 24.000" {
		t.Fatalf("running total %q", got)
	}
	if got := text(bctx, "#pos-change"); got != "Rp 6.000" {
		t.Fatalf("change %q", got)
	}
	shot(t, bctx, "office-pos")
	do(bctx, "take payment", chromedp.Click(chromedp.CSS("button.big")), chromedp.WaitVisible(chromedp.CSS(".receipt")))
	shot(t, bctx, "office-receipt")
	if r := text(bctx, ".receipt"); !strings.Contains(r, "2") || !strings.Contains(r, "Rp 24.000") || !strings.Contains(r, "Rp 6.000") {
		t.Fatalf("receipt: %q", r)
	}
	// Printed: the receipt alone, in a narrow column.
	media := func(m string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: m})
			return err
		})
	}
	do(bctx, "print media", media("print"))
	printed, err := chromedp.Run(bctx, chromedp.Evaluate[string](`[getComputedStyle(document.querySelector('.bar')).display,
		document.querySelector('[data-print]').getClientRects().length,
		document.querySelector('.receipt').getBoundingClientRect().width < 300].join(' ')`))
	if err != nil || printed != "none 0 true" {
		t.Fatalf("printed receipt: %q (%v)", printed, err)
	}
	do(bctx, "screen media", media(""))

	// A payment to verify, with its receipt image.
	o := s.waitingOrder()
	do(bctx, "payments", chromedp.Navigate(s.srv.URL+"/console/shop/payments"), chromedp.WaitVisible(chromedp.CSS("img.proof-img")))
	loaded, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`new Promise(ok => { const i = document.querySelector('img.proof-img');
		if (i.complete) ok(i.naturalWidth === 40); else i.onload = () => ok(i.naturalWidth === 40); })`, chromedp.EvalAwaitPromise))
	if err != nil || !loaded {
		t.Fatalf("the receipt image is not shown (%v)", err)
	}
	do(bctx, "approve", chromedp.Click(chromedp.CSS(`button[value=approve]`)), chromedp.WaitVisible(chromedp.CSS("p.ok")))
	if got := text(bctx, "p.ok"); !strings.Contains(got, o.OrderNumber) || !strings.Contains(got, "approved") {
		t.Fatalf("after approval: %q", got)
	}

	// The ledger: today's bar is drawn, its table beside it.
	do(bctx, "ledger", chromedp.Navigate(s.srv.URL+"/console/shop/ledger"), chromedp.WaitVisible(chromedp.CSS("svg.chart-svg")))
	bars, err := chromedp.Run(bctx, chromedp.Evaluate[[]float64](`Array.from(document.querySelectorAll('svg.chart-svg rect.bar')).map(r => r.getBBox().height)`))
	if err != nil || len(bars) != 14 || bars[13] <= 0 {
		t.Fatalf("chart bars %v (%v)", bars, err)
	}
	if total := text(bctx, ".ledger-sum"); !strings.Contains(total, "Rp 36.000") {
		t.Fatalf("ledger total %q", total)
	}
	shot(t, bctx, "office-ledger")

	// A role: the kitchen user gets the payments menu too.
	kitchen := s.users[officeKitchen]
	do(bctx, "set a role", chromedp.Navigate(s.srv.URL+"/console/shop/users"),
		chromedp.WaitVisible(chromedp.ID("role-"+kitchen.ID)),
		chromedp.Click(chromedp.CSS(`#u-`+kitchen.ID+` ~ fieldset input[value=payments]`)),
		chromedp.Submit(chromedp.ID("role-"+kitchen.ID)),
		chromedp.WaitVisible(chromedp.CSS("p.ok")),
	)
	if u, _ := s.svc.Users(context.Background()); !officeHasMenus(u, kitchen.ID, "kitchen,payments") {
		t.Fatalf("the kitchen user's menus were not set: %+v", u)
	}

	// The kitchen user may not open the point of sale, and its menu does
	// not offer it.
	do(bctx, "kitchen user", s.signInShop(officeKitchen), chromedp.Navigate(s.srv.URL+"/console/shop/pos"),
		chromedp.WaitVisible(chromedp.CSS("p.error")))
	if got := text(bctx, "p.error"); !strings.Contains(got, "may not open") {
		t.Fatalf("kitchen user on the point of sale: %q", got)
	}
	if nav := text(bctx, "nav"); strings.Contains(nav, "Point of sale") {
		t.Fatalf("the kitchen user's menu offers the point of sale: %q", nav)
	}

	// A phone: every back-office page fits its width (wide tables scroll
	// in their own box).
	phone, stopPhone := testkit.NewBrowser(ctx, execPath, 375, 800)
	defer stopPhone()
	do(phone, "phone", s.signInShop(officeOwner))
	for _, page := range []string{"pos", "payments", "menu", "settings", "ledger", "users", "bans"} {
		do(phone, page+" on a phone", chromedp.Navigate(s.srv.URL+"/console/shop/"+page), chromedp.WaitVisible(chromedp.CSS("h1")))
		overflow, err := chromedp.Run(phone, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
		if err != nil || overflow {
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
