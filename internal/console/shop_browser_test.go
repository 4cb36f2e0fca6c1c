package console_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/ordering/challenge"
	"github.com/seedhq/portal/internal/testkit"
)

// shopSignInSteps signs in as number from the storefront's sign-in link:
// the browser solves the real proof of work (shop.js, crypto.subtle), the
// stand-in's button sends the message, and the page goes on by itself.
func shopSignInSteps(number, landing string) []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		chromedp.WaitVisible(chromedp.ID("number")),
		chromedp.SendKeys(chromedp.ID("number"), number),
		chromedp.Click(chromedp.CSS("#shop-login button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#standin button")),
		chromedp.Click(chromedp.CSS("#standin button")),
		chromedp.WaitVisible(chromedp.CSS(landing)),
	}
}

// noSideways is the check that the page does not scroll sideways.
const noSideways = `document.documentElement.scrollWidth <= window.innerWidth`

// TestBrowserShop drives the shop in headless Chromium: a customer on a
// phone puts two items in the cart, signs in through the page, orders,
// pays on the payment stand-in and follows the order; the owner's kitchen
// display, open meanwhile, receives the paid order live (Server-Sent
// Events, no reload) and moves it, and the customer's page follows.
func TestBrowserShop(t *testing.T) {
	execPath := testkit.FindBrowser(t, "the shop's console pages")
	p := newShopPortal(t, "bolt", challenge.DefaultMaxNumber)
	base := p.srv.URL
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	phone, stopPhone := testkit.NewBrowser(ctx, execPath, 390, 844)
	defer stopPhone()
	desk, stopDesk := testkit.NewBrowser(ctx, execPath, 1200, 900)
	defer stopDesk()
	do := func(bctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// clickLoad clicks what makes the page load another and waits for it.
	clickLoad := func(bctx context.Context, what, sel string) {
		t.Helper()
		if _, err := chromedp.Run(bctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(sel)))); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// eventually waits for expr to hold on a page that may reload
	// meanwhile (the order's page does when its status moves).
	eventually := func(bctx context.Context, what, expr string) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if ok, err := chromedp.Run(bctx, chromedp.Evaluate[bool](expr)); err == nil && ok {
				return
			}
		}
		t.Fatalf("%s: %s did not come true within 15 s", what, expr)
	}
	check := func(bctx context.Context, what, expr string) {
		t.Helper()
		ok, err := chromedp.Run(bctx, chromedp.Evaluate[bool](expr))
		if err != nil || !ok {
			t.Fatalf("%s: %s is not true (%v)", what, expr, err)
		}
	}

	// The customer, on a phone: two items in the cart before signing in.
	do(phone, "the storefront", chromedp.Navigate(base+"/console/shop/"))
	clickLoad(phone, "add an item", "#item-"+p.rice.ID+" button")
	clickLoad(phone, "add another", "#item-"+p.tea.ID+" button")
	check(phone, "two lines in the cart", `document.querySelectorAll('#cart tbody tr').length === 2`)
	check(phone, "the cart's total", `document.querySelector('#cart tfoot').textContent.includes('Rp 30.000')`)
	check(phone, "the storefront on a phone", noSideways)
	shot(t, phone, "shop-store")

	// The kitchen display is open before the order is paid.
	do(desk, "the owner signs in to the kitchen", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(base + "/console/shop/kitchen")},
		shopSignInSteps(ownerNumber, "#kitchen-cards")...)...)
	do(desk, "turn the sound on", chromedp.Click(chromedp.ID("sound")),
		chromedp.Poll[chromedp.Void](`document.getElementById('sound').getAttribute('aria-pressed') === 'true'`))
	check(desk, "an empty kitchen", `document.getElementById('kitchen-cards').textContent.includes('No order to prepare')`)
	_, err := chromedp.Run(desk, chromedp.Evaluate[bool](`window.keptOpen = true`))
	if err != nil {
		t.Fatal(err)
	}

	do(phone, "sign in to order",
		chromedp.Click(chromedp.CSS(`a[href="/console/shop/login?next=/console/shop/"]`)),
	)
	steps, start := shopSignInSteps(customerNumber, "#checkout"), time.Now()
	do(phone, "sign in to order", steps[:4]...) // up to the waiting page
	check(phone, "the waiting page on a phone", noSideways)
	t.Logf("the proof of work (maxnumber %d) and the sign-in form took %v in the browser", challenge.DefaultMaxNumber, time.Since(start))
	do(phone, "sign in to order", steps[4:]...)
	check(phone, "the checkout on a phone", noSideways)
	do(phone, "place the order",
		chromedp.Click(chromedp.CSS(`#checkout button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("order-status")),
	)
	status, err := chromedp.Run(phone, chromedp.Text(chromedp.ID("order-status")))
	if err != nil || status != "Waiting for payment" {
		t.Fatalf("the new order's status %q (%v)", status, err)
	}
	check(phone, "the order page on a phone", noSideways)
	shot(t, phone, "shop-order")

	orderURL, err := chromedp.Run(phone, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	do(phone, "pay on the payment stand-in",
		chromedp.Click(chromedp.ID("pay-online")),
		chromedp.WaitVisible(chromedp.CSS("button.pay")),
		chromedp.Click(chromedp.CSS("button.pay")),
		chromedp.WaitVisible(chromedp.CSS("p.ok")),
		chromedp.Navigate(orderURL),
		chromedp.Poll[chromedp.Void](`document.getElementById('order-status').textContent === 'Paid'`),
	)

	// The kitchen got the order live, without a reload.
	do(desk, "the paid order on the kitchen display",
		chromedp.WaitVisible(chromedp.CSS(`.ticket[data-status=PAID]`)),
	)
	check(desk, "the kitchen page was not reloaded", `window.keptOpen === true`)
	check(desk, "the new order is announced", `document.getElementById('kitchen-status').textContent.includes('New order')`)
	check(desk, "the card lists both items", `document.querySelector('.ticket').textContent.includes('Nasi goreng') && document.querySelector('.ticket').textContent.includes('Es teh')`)
	shot(t, desk, "shop-kitchen")
	do(desk, "start preparing",
		chromedp.Click(chromedp.CSS(".move-PREPARING")),
		chromedp.WaitVisible(chromedp.CSS(`.ticket[data-status=PREPARING]`)),
	)
	// The customer's page follows by itself.
	eventually(phone, "the customer's page follows", `document.getElementById('order-status').textContent === 'Preparing'`)
	do(desk, "ready, then completed",
		chromedp.Click(chromedp.CSS(".move-READY")),
		chromedp.WaitVisible(chromedp.CSS(`.ticket[data-status=READY]`)),
		chromedp.Click(chromedp.CSS(".move-COMPLETED")),
		chromedp.Poll[chromedp.Void](`document.getElementById('kitchen-cards').textContent.includes('No order to prepare')`),
	)
	check(desk, "the kitchen page was not reloaded", `window.keptOpen === true`)
	eventually(phone, "the customer sees it completed", `document.getElementById('order-status').textContent === 'Completed'`)
	history, err := chromedp.Run(phone, chromedp.Text(chromedp.CSS("main")))
	if err != nil || !strings.Contains(history, "OWNER") {
		t.Fatalf("the order's history does not name the kitchen's moves (%v)", err)
	}
}
