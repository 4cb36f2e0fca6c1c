package console_test

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/ordering"
)

// The shop's test numbers (besides the portal's ownerNumber): a customer
// and a member of the kitchen's staff.
const (
	customerNumber = "081234567890"
	staffNumber    = "081234567891"
)

// storefrontMenu is the shop's menu in the storefront's tests: under
// Makanan, a fried rice (Rp 25.000, the portal's menu[0]) and an iced tea
// (Rp 5.000, menu[1]).
var storefrontMenu = withMenu("Makanan", ordering.MenuItem{Name: "Nasi goreng", Description: "Dengan telur", Price: 25000},
	ordering.MenuItem{Name: "Es teh", Price: 5000})

// TestShopSignIn: the sign-in end to end on both stores (the challenge,
// the form, the stand-in's message, the poll that sets the session
// cookie), the JWT in no page nor answer, `next` kept local, sign-out.
func TestShopSignIn(t *testing.T) {
	forEachStore(t, func(t *testing.T, kind string) {
		p := newPortal(t, onStore(kind), storefrontMenu)
		base := p.srv.URL
		c := browser(t)
		resp, _ := get(t, c, base+"/console/shop/orders")
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/console/shop/login?next=%2Fconsole%2Fshop%2Forders" {
			t.Fatalf("orders without a session: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		resp, body := get(t, c, base+"/console/shop/login?next=https://evil.example/")
		if resp.StatusCode != 200 ||
			!strings.Contains(body, `id="shop-login"`) || !strings.Contains(body, `name="next" value="/console/shop/"`) ||
			!strings.Contains(body, "/console/static/shop.js") {
			t.Fatalf("sign-in page: %d\n%s", resp.StatusCode, body)
		}
		text := p.startShopLogin(t, c, customerNumber)
		pending := p.shopCookie(c, "portal_console_shop_login")
		if pending == "" || strings.Contains(pending, text[len("VERIFY_"):]) {
			t.Fatalf("the pending sign-in's cookie %q", pending)
		}
		if status, a, _ := p.pollShop(t, c); status != 200 || a["status"] != "PENDING" || a["expiresIn"] == nil {
			t.Fatalf("poll before the message: %d %v", status, a)
		}
		// Without JavaScript, the Continue button comes back to the
		// waiting page while the message has not come.
		if resp, _ := post(t, c, base+"/console/shop/login/poll", nil); resp.StatusCode != http.StatusSeeOther ||
			resp.Header.Get("Location") != "/console/shop/login/wait" {
			t.Fatalf("continue before the message: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		resp, body = post(t, c, base+"/sandbox/messenger", url.Values{"from": {customerNumber}, "text": {text}}, "Accept", "application/json")
		if resp.StatusCode != 200 || !strings.Contains(body, "VERIFIED") {
			t.Fatalf("stand-in: %d %s", resp.StatusCode, body)
		}
		status, a, raw := p.pollShop(t, c)
		if status != 200 || a["status"] != "VERIFIED" || a["next"] != "/console/shop/orders" {
			t.Fatalf("poll after the message: %d %v", status, a)
		}
		jwt := p.shopCookie(c, "portal_console_shop")
		if !strings.HasPrefix(jwt, "ey") || strings.Contains(raw, jwt) {
			t.Fatalf("session cookie %q, poll answer %s", jwt, raw)
		}
		if u, err := p.shop.Authenticate(context.Background(), jwt); err != nil || u.Role != ordering.RoleCustomer {
			t.Fatalf("the session is not the customer's JWT: %+v %v", u, err)
		}
		if p.shopCookie(c, "portal_console_shop_login") != "" {
			t.Fatal("the pending sign-in's cookie outlives the sign-in")
		}
		for _, page := range []string{"/console/shop/", "/console/shop/orders", "/console/shop/login/wait", "/console/shop/login"} {
			resp, body := get(t, c, base+page)
			if strings.Contains(body, jwt) || resp.StatusCode >= 400 {
				t.Fatalf("%s: %d, or it shows the JWT", page, resp.StatusCode)
			}
		}
		_, body = get(t, c, base+"/console/shop/orders")
		if !strings.Contains(body, "You have no order yet") || !strings.Contains(body, "62812") {
			t.Fatalf("orders page: %s", body)
		}
		if strings.Contains(body, "/console/shop/kitchen") {
			t.Fatal("a customer's menu offers the kitchen")
		}
		// The poll is spent: a second one says so.
		if _, a, _ = p.pollShop(t, c); a["status"] != "FAILED" {
			t.Fatalf("poll after the sign-in: %v", a)
		}
		csrf := csrfOf(t, body)
		if resp, _ := post(t, c, base+"/console/shop/logout", url.Values{}); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("sign-out without the form's token: %d", resp.StatusCode)
		}
		if resp, _ := post(t, c, base+"/console/shop/logout", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-out: %d", resp.StatusCode)
		}
		if resp, _ := get(t, c, base+"/console/shop/orders"); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("orders after sign-out: %d", resp.StatusCode)
		}
	})
}

// TestShopSignInRefusals: an invalid number (one with letters included),
// a missing challenge, a cross-site post, an expired link and a banned
// number are refused with a clear message.
func TestShopSignInRefusals(t *testing.T) {
	p := newPortal(t, storefrontMenu)
	base := p.srv.URL
	c := browser(t)
	resp, body := post(t, c, base+"/console/shop/login", url.Values{"number": {"12"}, "challenge": {p.solveChallenge(t)}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "not a valid phone number") || !strings.Contains(body, `value="12"`) {
		t.Fatalf("invalid number: %d", resp.StatusCode)
	}
	// Letters are not keypad digits here: 0812-FOOD-BAR is not 0812-3663-227.
	for _, n := range []string{"0812-FOOD-BAR", "62812abc345", "\uff10\uff18\uff11\uff12 3456 7890"} {
		resp, body = post(t, c, base+"/console/shop/login", url.Values{"number": {n}, "challenge": {p.solveChallenge(t)}})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "not a valid phone number") {
			t.Fatalf("number %q: %d, want 400 and the invalid number message", n, resp.StatusCode)
		}
	}
	if resp, body = post(t, c, base+"/console/shop/login", url.Values{"number": {customerNumber}}); resp.StatusCode != http.StatusForbidden ||
		!strings.Contains(body, "anti-bot check did not pass") {
		t.Fatalf("no challenge: %d", resp.StatusCode)
	}
	if resp, _ = post(t, c, base+"/console/shop/login", url.Values{"number": {customerNumber}, "challenge": {p.solveChallenge(t)}},
		"Sec-Fetch-Site", "cross-site"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site sign-in: %d, want 403", resp.StatusCode)
	}
	if resp, _ = post(t, c, base+"/console/shop/login/poll", nil, "Sec-Fetch-Site", "cross-site"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site poll: %d, want 403", resp.StatusCode)
	}

	p.startShopLogin(t, c, customerNumber)
	p.clock.Add(ordering.LoginTTL + time.Second)
	if status, a, _ := p.pollShop(t, c); status != http.StatusGone || a["status"] != "FAILED" ||
		!strings.Contains(a["message"].(string), "expired") {
		t.Fatalf("expired link: %d %v", status, a)
	}
	// The number's third unverified sign-in is the last one allowed.
	p.startShopLogin(t, c, customerNumber)
	p.startShopLogin(t, c, customerNumber)
	resp, body = post(t, c, base+"/console/shop/login", url.Values{"number": {customerNumber}, "challenge": {p.solveChallenge(t)}})
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "Try again in 60 minutes") {
		t.Fatalf("banned number: %d\n%s", resp.StatusCode, body)
	}
	_, body = post(t, c, base+"/console/shop/login?lang=id", url.Values{"number": {customerNumber}, "challenge": {p.solveChallenge(t)}})
	if !strings.Contains(body, "Coba lagi dalam 24 jam") {
		t.Fatalf("no Indonesian ban message:\n%s", body)
	}
}

// TestShopSignInWithoutPoW: with Turnstile or hCaptcha configured (no
// built-in challenge), the sign-in page says the console cannot show
// their widget, and offers no form.
func TestShopSignInWithoutPoW(t *testing.T) {
	p := newPortal(t, storefrontMenu)
	p.shopOpts.PoW = nil
	resp, body := get(t, browser(t), p.srv.URL+"/console/shop/login")
	if resp.StatusCode != 200 || !strings.Contains(body, "Turnstile or hCaptcha") || strings.Contains(body, `id="shop-login"`) {
		t.Fatalf("sign-in page without the proof of work: %d\n%s", resp.StatusCode, body)
	}
}

// payOrder pays the order on the payment stand-in, as its Pay button does.
func payOrder(t *testing.T, c *http.Client, o ordering.Order) {
	t.Helper()
	u, _ := url.Parse(o.ProviderPaymentURL)
	resp, body := post(t, c, u.String(), url.Values{"status": {"PAID"}}, "Accept", "application/json")
	if resp.StatusCode != 200 {
		t.Fatalf("pay: %d %s", resp.StatusCode, body)
	}
}

// TestShopStorefrontAndKitchen: a visitor reads the menu and fills a
// cart; the signed-in customer places the order (priced by the service)
// and follows it; it is paid on the stand-in; a customer is refused the
// kitchen; a kitchen STAFF sees it live and moves it to COMPLETED; forms
// without their token are refused. On both stores.
func TestShopStorefrontAndKitchen(t *testing.T) {
	forEachStore(t, testStorefrontAndKitchen)
}

// testStorefrontAndKitchen is TestShopStorefrontAndKitchen on a store of
// kind.
func testStorefrontAndKitchen(t *testing.T, kind string) {
	p := newPortal(t, onStore(kind), storefrontMenu)
	rice, tea := p.menu[0], p.menu[1]
	base := p.srv.URL
	ctx := context.Background()
	c := browser(t)
	resp, body := get(t, c, base+"/console/shop/")
	if resp.StatusCode != 200 || !strings.Contains(body, "Nasi goreng") || !strings.Contains(body, "Rp 25.000") ||
		!strings.Contains(body, "Makanan") || !strings.Contains(body, "Your cart is empty") {
		t.Fatalf("storefront for a visitor: %d\n%s", resp.StatusCode, body)
	}
	if _, body := get(t, c, base+"/console/shop/?lang=id"); !strings.Contains(body, "Menu kami") {
		t.Fatal("no Indonesian storefront")
	}
	if _, body := get(t, c, base+"/console/shop/login"); !strings.Contains(body, "Masuk ke toko") {
		t.Fatal("the storefront's language choice was not kept")
	}
	get(t, c, base+"/console/shop/?lang=en")
	csrf := csrfOf(t, body)
	if resp, _ := post(t, c, base+"/console/shop/cart", url.Values{"menu_id": {rice.ID}, "op": {"add"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cart without the form's token: %d", resp.StatusCode)
	}
	for _, id := range []string{rice.ID, rice.ID, tea.ID} {
		if resp, _ := post(t, c, base+"/console/shop/cart", url.Values{"csrf": {csrf}, "menu_id": {id}, "op": {"add"}, "at": {"menu"}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("add to cart: %d", resp.StatusCode)
		}
	}
	if _, body = post(t, c, base+"/console/shop/cart", url.Values{"csrf": {csrf}, "menu_id": {"nope"}, "op": {"add"}}); !strings.Contains(body, "not on the menu") {
		t.Fatal("an unknown item was put in the cart")
	}
	_, body = get(t, c, base+"/console/shop/")
	if !strings.Contains(body, "Rp 55.000") || !strings.Contains(body, "Sign in to order") || strings.Contains(body, `action="/console/shop/checkout"`) {
		t.Fatalf("cart of a visitor:\n%s", body)
	}
	if resp, _ := post(t, c, base+"/console/shop/checkout", url.Values{"csrf": {csrf}, "shipping_type": {"PICKUP"}}); resp.StatusCode != http.StatusSeeOther ||
		!strings.HasPrefix(resp.Header.Get("Location"), "/console/shop/login") {
		t.Fatalf("checkout of a visitor: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}

	cust, csrf := p.signInShop(t, customerNumber)
	for _, id := range []string{rice.ID, tea.ID, tea.ID} {
		post(t, cust, base+"/console/shop/cart", url.Values{"csrf": {csrf}, "menu_id": {id}, "op": {"add"}})
	}
	post(t, cust, base+"/console/shop/cart", url.Values{"csrf": {csrf}, "menu_id": {tea.ID}, "op": {"sub"}})
	_, body = get(t, cust, base+"/console/shop/")
	if !strings.Contains(body, `action="/console/shop/checkout"`) || !strings.Contains(body, "Rp 30.000") {
		t.Fatalf("cart of the customer:\n%s", body)
	}
	if resp, body = post(t, cust, base+"/console/shop/checkout", url.Values{"csrf": {csrf}, "shipping_type": {"DELIVERY"}, "notes": {"pedas"}}); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, "shippingAddress is required") || !strings.Contains(body, `value="pedas"`) {
		t.Fatalf("delivery without an address: %d", resp.StatusCode)
	}
	if resp, _ := post(t, cust, base+"/console/shop/checkout", url.Values{"shipping_type": {"PICKUP"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("checkout without the form's token: %d", resp.StatusCode)
	}
	resp, _ = post(t, cust, base+"/console/shop/checkout", url.Values{"csrf": {csrf}, "shipping_type": {"PICKUP"}, "notes": {"tanpa es"}})
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/console/shop/orders/") {
		t.Fatalf("checkout: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	orderPath := resp.Header.Get("Location")
	mine, err := p.shop.MyOrders(ctx, p.shopUser(t, customerNumber))
	if err != nil || len(mine) != 1 || mine[0].TotalPrice != 30000 || len(mine[0].Items) != 2 {
		t.Fatalf("the placed order: %+v %v", mine, err)
	}
	o := mine[0]
	_, body = get(t, cust, base+orderPath)
	for _, want := range []string{o.OrderNumber, "Waiting for payment", "Rp 30.000", "Pay online", `href="` + o.ProviderPaymentURL + `"`,
		`enctype="multipart/form-data"`, "Cancel this order", "tanpa es", `data-events="/console/shop/orders/` + o.ID + `/events"`} {
		if !strings.Contains(body, want) {
			t.Errorf("order page lacks %q", want)
		}
	}
	if _, body = get(t, cust, base+"/console/shop/"); strings.Contains(body, "Rp 30.000") {
		t.Fatal("the cart was not emptied by the order")
	}
	if _, body = get(t, cust, base+"/console/shop/orders"); !strings.Contains(body, o.OrderNumber) {
		t.Fatal("my orders lacks the order")
	}

	// A customer is refused the kitchen; another customer cannot read
	// the order.
	if resp, body := get(t, cust, base+"/console/shop/kitchen"); resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "may not open this page") {
		t.Fatalf("kitchen for a customer: %d", resp.StatusCode)
	}
	if resp, _ := post(t, cust, base+"/console/shop/kitchen/"+o.ID+"/status", url.Values{"csrf": {csrf}, "status": {"PREPARING"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("kitchen move by a customer: %d", resp.StatusCode)
	}
	other, _ := p.signInShop(t, "081234567899")
	if resp, _ := get(t, other, base+orderPath); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("another customer's order: %d", resp.StatusCode)
	}

	// The kitchen's STAFF: the order appears once paid, live.
	staff, staffCSRF := p.signInShop(t, staffNumber)
	if _, err := p.shop.SetRole(ctx, nil, p.shopUser(t, staffNumber).ID, ordering.RoleStaff, []string{ordering.MenuKitchen}); err != nil {
		t.Fatal(err)
	}
	_, body = get(t, staff, base+"/console/shop/kitchen")
	if !strings.Contains(body, "No order to prepare") || !strings.Contains(body, `href="/console/shop/kitchen"`) {
		t.Fatalf("empty kitchen:\n%s", body)
	}
	events := openEvents(t, staff, base+"/console/shop/kitchen/events")
	if first := events.next(t, "cards"); !strings.Contains(first, "No order to prepare") {
		t.Fatalf("first kitchen event: %q", first)
	}
	status := openEvents(t, cust, base+orderPath+"/events")
	if s := status.next(t, "status"); s != "PENDING_PAYMENT" {
		t.Fatalf("order status event: %q", s)
	}
	payOrder(t, cust, o)
	if card := events.next(t, "cards"); !strings.Contains(card, o.OrderNumber) || !strings.Contains(card, "1 ×</strong> Es teh") || !strings.Contains(card, "Start preparing") {
		t.Fatalf("the kitchen did not get the paid order live: %q", card)
	}
	if s := status.next(t, "status"); s != "PAID" {
		t.Fatalf("order status event after payment: %q", s)
	}
	if resp, _ := post(t, staff, base+"/console/shop/kitchen/"+o.ID+"/status", url.Values{"status": {"PREPARING"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("kitchen move without the form's token: %d", resp.StatusCode)
	}
	if resp, _ := post(t, staff, base+"/console/shop/kitchen/"+o.ID+"/status", url.Values{"csrf": {staffCSRF}, "status": {"PREPARING"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("to PREPARING: %d", resp.StatusCode)
	}
	if card := events.next(t, "cards"); !strings.Contains(card, `data-status="PREPARING"`) {
		t.Fatalf("kitchen event after PREPARING: %q", card)
	}
	resp, body = post(t, staff, base+"/console/shop/kitchen/"+o.ID+"/status", url.Values{"csrf": {staffCSRF}, "status": {"COMPLETED"}}, "Accept", "application/json")
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "cannot move to COMPLETED") {
		t.Fatalf("a move the machine has not: %d %s", resp.StatusCode, body)
	}
	for _, to := range []string{"READY", "COMPLETED"} {
		if resp, body := post(t, staff, base+"/console/shop/kitchen/"+o.ID+"/status", url.Values{"csrf": {staffCSRF}, "status": {to}}, "Accept", "application/json"); resp.StatusCode != 200 {
			t.Fatalf("to %s: %d %s", to, resp.StatusCode, body)
		}
	}
	got, _ := p.shop.OrderFor(ctx, p.shopUser(t, customerNumber), o.ID)
	if got.Status != ordering.StatusCompleted || got.History[len(got.History)-1].Role != "STAFF" {
		t.Fatalf("order after the kitchen: %+v", got)
	}
	_, body = get(t, cust, base+orderPath)
	for _, want := range []string{"Completed", "Preparing", "STAFF", "provider: PAID"} {
		if !strings.Contains(body, want) {
			t.Errorf("order history lacks %q", want)
		}
	}
	if strings.Contains(body, "Pay online") || strings.Contains(body, "Cancel this order") {
		t.Error("a completed order offers payment or cancellation")
	}
}

// TestShopProofAndCancel: a receipt is uploaded through the order page
// (the order waits for the check); another order is cancelled; a bad
// file is refused with a message.
func TestShopProofAndCancel(t *testing.T) {
	p := newPortal(t, storefrontMenu)
	rice := p.menu[0]
	base := p.srv.URL
	cust, csrf := p.signInShop(t, customerNumber)
	place := func() string {
		post(t, cust, base+"/console/shop/cart", url.Values{"csrf": {csrf}, "menu_id": {rice.ID}, "op": {"add"}})
		resp, _ := post(t, cust, base+"/console/shop/checkout", url.Values{"csrf": {csrf}, "shipping_type": {"DINE_IN"}})
		return resp.Header.Get("Location")
	}
	upload := func(path string, data []byte) (*http.Response, string) {
		return postMultipart(t, cust, base+path+"/proof", url.Values{"csrf": {csrf}, "bank_info": {"BCA a.n. Ani"}},
			formFile{"proof", "receipt.png", data})
	}
	first := place()
	if resp, body := upload(first, []byte("not an image")); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "must be a JPEG, PNG or WebP") {
		t.Fatalf("bad receipt: %d", resp.StatusCode)
	}
	if resp, _ := upload(first, testPNG(1, 1)); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("receipt: %d", resp.StatusCode)
	}
	_, body := get(t, cust, base+first)
	if !strings.Contains(body, "Payment being checked") || !strings.Contains(body, "Receipt received") || strings.Contains(body, "Pay online") {
		t.Fatal("the order page does not show the receipt waiting for the check")
	}
	second := place()
	if resp, _ := post(t, cust, base+second+"/cancel", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel: %d", resp.StatusCode)
	}
	if _, body = get(t, cust, base+second); !strings.Contains(body, "Cancelled") {
		t.Fatal("the cancelled order does not say so")
	}
	if resp, body := post(t, cust, base+second+"/cancel", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusConflict || !strings.Contains(body, "cannot move") {
		t.Fatalf("cancel twice: %d", resp.StatusCode)
	}
}

// eventStream reads Server-Sent Events.
type eventStream struct {
	r *bufio.Reader
}

// openEvents opens the event stream at u, closed when the test ends.
func openEvents(t *testing.T, c *http.Client, u string) *eventStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
	resp, err := c.Do(req)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events %s: %v %v", u, resp, err)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	return &eventStream{r: bufio.NewReader(resp.Body)}
}

// next returns the data of the next event of that name, within 10 s.
func (s *eventStream) next(t *testing.T, name string) string {
	t.Helper()
	type result struct {
		data string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		var event string
		var data []string
		for {
			line, err := s.r.ReadString('\n')
			if err != nil {
				ch <- result{err: err}
				return
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case strings.HasPrefix(line, "event: "):
				event = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				data = append(data, line[len("data: "):])
			case line == "" && event != "":
				if event == name {
					ch <- result{data: strings.Join(data, "\n")}
					return
				}
				event, data = "", nil
			}
		}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("events: %v", r.err)
		}
		return r.data
	case <-time.After(10 * time.Second):
		t.Fatalf("no %q event within 10 s", name)
		return ""
	}
}
