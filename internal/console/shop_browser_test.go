package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/ordering/challenge"
)

// TestBrowserShop drives the shop in headless Chromium on both stores: a
// customer on a
// phone puts two items in the cart, signs in through the page, orders,
// pays on the payment stand-in and follows the order; the owner's kitchen
// display, open meanwhile, receives the paid order live (Server-Sent
// Events, no reload) and moves it, and the customer's page follows.
func TestBrowserShop(t *testing.T) {
	forEachStore(t, browseShop)
}

func browseShop(t *testing.T, kind string) {
	chrome := newHeadless(t, "the shop's console pages", 120*time.Second)
	p := newPortal(t, onStore(kind), withPoW(challenge.DefaultMaxNumber), storefrontMenu)
	p.setShopTexts(t, shopName, shopTagline, shopHours)
	rice, tea := p.menu[0], p.menu[1]
	base := p.srv.URL
	phone := chrome.tab(390, 844)
	desk := chrome.tab(1200, 900)

	// The customer, on a phone: two items in the cart before signing in.
	phone.do("the storefront", chromedp.Navigate(base+"/console/shop/"))
	phone.clickLoad("add an item", "#item-"+rice.ID+" button")
	phone.clickLoad("add another", "#item-"+tea.ID+" button")
	phone.check("two lines in the cart", `document.querySelectorAll('#cart tbody tr').length === 2`)
	phone.check("the cart's total", `document.querySelector('#cart tfoot').textContent.includes('Rp 30.000')`)
	phone.check("the storefront on a phone", fitsWidth)
	phone.check("the storefront names the shop", `document.querySelector('.brand').textContent === `+jsString(shopName))
	phone.shot("shop-store")

	// The kitchen display is open before the order is paid.
	desk.do("the owner signs in to the kitchen", append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(base + "/console/shop/kitchen")},
		shopSignInSteps(ownerNumber, "#kitchen-cards")...)...)
	desk.do("turn the sound on", chromedp.Click(chromedp.ID("sound")),
		chromedp.Poll[chromedp.Void](`document.getElementById('sound').getAttribute('aria-pressed') === 'true'`))
	desk.check("an empty kitchen", `document.getElementById('kitchen-cards').textContent.includes('No order to prepare')`)
	_, err := chromedp.Run(desk.ctx, chromedp.Evaluate[bool](`window.keptOpen = true`))
	if err != nil {
		t.Fatal(err)
	}

	phone.do("sign in to order",
		chromedp.Click(chromedp.CSS(`a[href="/console/shop/login?next=/console/shop/"]`)),
	)
	steps, start := shopSignInSteps(customerNumber, "#checkout"), time.Now()
	phone.do("sign in to order", steps[:4]...) // up to the waiting page
	phone.check("the waiting page on a phone", fitsWidth)
	t.Logf("the proof of work (maxnumber %d) and the sign-in form took %v in the browser", challenge.DefaultMaxNumber, time.Since(start))
	phone.do("sign in to order", steps[4:]...)
	phone.check("the checkout on a phone", fitsWidth)
	phone.do("place the order",
		chromedp.Click(chromedp.CSS(`#checkout button[type=submit]`)),
		chromedp.WaitVisible(chromedp.ID("order-status")),
	)
	status, err := chromedp.Run(phone.ctx, chromedp.Text(chromedp.ID("order-status")))
	if err != nil || status != "Waiting for payment" {
		t.Fatalf("the new order's status %q (%v)", status, err)
	}
	phone.check("the order page on a phone", fitsWidth)
	phone.shot("shop-order")

	orderURL, err := chromedp.Run(phone.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	phone.do("pay on the payment stand-in",
		chromedp.Click(chromedp.ID("pay-online")),
		chromedp.WaitVisible(chromedp.CSS("button.pay")),
		chromedp.Click(chromedp.CSS("button.pay")),
		chromedp.WaitVisible(chromedp.CSS("p.ok")),
		chromedp.Navigate(orderURL),
		chromedp.Poll[chromedp.Void](`document.getElementById('order-status').textContent === 'Paid'`),
	)

	// The kitchen got the order live, without a reload.
	desk.do("the paid order on the kitchen display",
		chromedp.WaitVisible(chromedp.CSS(`.ticket[data-status=PAID]`)),
	)
	desk.check("the kitchen page was not reloaded", `window.keptOpen === true`)
	desk.check("the new order is announced", `document.getElementById('kitchen-status').textContent.includes('New order')`)
	desk.check("the card lists both items", `document.querySelector('.ticket').textContent.includes('Nasi goreng') && document.querySelector('.ticket').textContent.includes('Es teh')`)
	desk.shot("shop-kitchen")
	desk.do("start preparing",
		chromedp.Click(chromedp.CSS(".move-PREPARING")),
		chromedp.WaitVisible(chromedp.CSS(`.ticket[data-status=PREPARING]`)),
	)
	// The customer's page follows by itself.
	phone.eventually("the customer's page follows", `document.getElementById('order-status').textContent === 'Preparing'`)
	desk.do("ready, then completed",
		chromedp.Click(chromedp.CSS(".move-READY")),
		chromedp.WaitVisible(chromedp.CSS(`.ticket[data-status=READY]`)),
		chromedp.Click(chromedp.CSS(".move-COMPLETED")),
		chromedp.Poll[chromedp.Void](`document.getElementById('kitchen-cards').textContent.includes('No order to prepare')`),
	)
	desk.check("the kitchen page was not reloaded", `window.keptOpen === true`)
	phone.eventually("the customer sees it completed", `document.getElementById('order-status').textContent === 'Completed'`)
	history, err := chromedp.Run(phone.ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil || !strings.Contains(history, "OWNER") {
		t.Fatalf("the order's history does not name the kitchen's moves (%v)", err)
	}
}
