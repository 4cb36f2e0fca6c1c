package console_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/console"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/challenge"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres"
	"github.com/seedhq/portal/internal/webhook"
)

// The shop's test numbers: the owner (made OWNER by its first login), a
// customer, and a member of the kitchen's staff.
const (
	ownerNumber    = "6281100000001"
	customerNumber = "081234567890"
	staffNumber    = "081234567891"
)

// easyPoW is the difficulty of the router tests' challenges, solved in Go.
const easyPoW = 2000

// shopClock is the ordering service's clock, moved by the tests.
type shopClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *shopClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *shopClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// shopPortal is a portal serving the ordering API and the console's shop
// with the built-in gateway and payment stand-ins, and a menu.
type shopPortal struct {
	srv        *httptest.Server
	svc        *ordering.Service
	opts       *ordhttp.Options
	clock      *shopClock
	rice, tea  ordering.MenuItem
	categoryID string
}

// shopStore opens a fresh store of the kind ("bolt" or "postgres").
func shopStore(t *testing.T, kind string) interface {
	exam.Store
	ordering.Store
} {
	t.Helper()
	if kind == "postgres" {
		st, err := postgres.Open(context.Background(), pgtest.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		if err := st.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		return st
	}
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// newShopPortal builds the portal as cmd/portal's newOrdering does without
// a gateway or a provider: the proof of work (of difficulty maxNumber), the
// messenger and payment stand-ins.
func newShopPortal(t *testing.T, kind string, maxNumber int64) *shopPortal {
	t.Helper()
	exam.BcryptCost = 4
	st := shopStore(t, kind)
	ctx := context.Background()
	esvc, err := exam.NewService(ctx, st, exam.Config{TempDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	clk := &shopClock{now: time.Now()}
	key := []byte("ordering-test-key-of-32-bytes!!!")
	pow, err := challenge.NewPoW(key, challenge.WithMaxNumber(maxNumber), challenge.WithClock(clk.Now), challenge.WithSpentStore(st))
	if err != nil {
		t.Fatal(err)
	}
	const gatewaySecret = "whsec_dGVzdC1nYXRld2F5LXNlY3JldC0zMi1ieXRlcyEh"
	const providerSecret = "provider-secret"
	p := &shopPortal{clock: clk}
	p.srv = httptest.NewUnstartedServer(nil)
	base := "http://" + p.srv.Listener.Addr().String()
	p.svc, err = ordering.NewService(st, ordering.Config{JWTKey: key, MessengerLinkBase: base + "/sandbox/messenger",
		OwnerNumber: ownerNumber, Challenge: pow, Payments: ordering.SandboxPayments{BaseURL: base},
		ProofDir: t.TempDir(), MerchantID: "M-1", Now: clk.Now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := webhook.NewVerifier([]string{gatewaySecret})
	if err != nil {
		t.Fatal(err)
	}
	ordOpts := &ordhttp.Options{Service: p.svc, PoW: pow, Gateway: gw, ProviderSecrets: []string{providerSecret}, Now: clk.Now,
		Sandbox: &ordhttp.Sandbox{GatewaySecret: gatewaySecret, ProviderSecret: providerSecret, MerchantID: "M-1"}}
	p.opts = ordOpts
	p.srv.Config.Handler = httpapi.New(httpapi.Options{Exam: esvc, Ordering: ordOpts,
		Console: console.New(console.Options{Exam: esvc, Key: []byte("console-test-key-of-32-bytes!!!!"), Ordering: ordOpts})})
	p.srv.Start()
	t.Cleanup(p.srv.Close)

	cat, err := p.svc.CreateCategory(ctx, ordering.CategoryInput{Name: "Makanan"})
	if err != nil {
		t.Fatal(err)
	}
	p.categoryID = cat.ID
	for _, it := range []*ordering.MenuItem{{Name: "Nasi goreng", Description: "Dengan telur", Price: 25000}, {Name: "Es teh", Price: 5000}} {
		it.CategoryID, it.Available = cat.ID, true
		m, err := p.svc.CreateMenuItem(ctx, *it)
		if err != nil {
			t.Fatal(err)
		}
		*it = m
		if p.rice.ID == "" {
			p.rice = m
		} else {
			p.tea = m
		}
	}
	return p
}

// shopCookie returns the browser's cookie of that name for the shop.
func shopCookie(c *http.Client, base, name string) string {
	u, _ := url.Parse(base + "/console/shop/login/wait")
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// solved fetches a proof-of-work challenge and solves it.
func solved(t *testing.T, c *http.Client, base string) string {
	t.Helper()
	_, body := get(t, c, base+"/api/auth/challenge")
	var ch challenge.Challenge
	if err := json.Unmarshal([]byte(body), &ch); err != nil {
		t.Fatal(err)
	}
	tok, err := challenge.Solve(ch)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

var verifyText = regexp.MustCompile(`VERIFY_tok_[A-Z2-7]{26}`)

// startShopLogin posts the sign-in form for number and returns the waiting
// page's message text (VERIFY_<token>).
func startShopLogin(t *testing.T, c *http.Client, base, number string) string {
	t.Helper()
	resp, body := post(t, c, base+"/console/shop/login", url.Values{"number": {number}, "challenge": {solved(t, c, base)},
		"next": {"/console/shop/orders"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/console/shop/login/wait" {
		t.Fatalf("sign-in form: %d %s\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	resp, body = get(t, c, base+"/console/shop/login/wait")
	text := verifyText.FindString(body)
	if resp.StatusCode != 200 || text == "" || !strings.Contains(body, `action="/sandbox/messenger"`) ||
		!strings.Contains(body, base+"/sandbox/messenger?text="+text) {
		t.Fatalf("waiting page: %d\n%s", resp.StatusCode, body)
	}
	return text
}

// pollShop posts the waiting page's poll as shop.js does.
func pollShop(t *testing.T, c *http.Client, base string) (int, map[string]any, string) {
	t.Helper()
	resp, body := post(t, c, base+"/console/shop/login/poll", nil, "Accept", "application/json")
	var a map[string]any
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("poll: %d %q", resp.StatusCode, body)
	}
	return resp.StatusCode, a, body
}

// shopSignIn signs a new browser in as number through the console's pages
// and the messenger stand-in, and returns it with a page's CSRF token.
func (p *shopPortal) shopSignIn(t *testing.T, number string) (*http.Client, string) {
	t.Helper()
	c := browser(t)
	text := startShopLogin(t, c, p.srv.URL, number)
	resp, body := post(t, c, p.srv.URL+"/sandbox/messenger", url.Values{"from": {number}, "text": {text}}, "Accept", "application/json")
	if resp.StatusCode != 200 || !strings.Contains(body, "VERIFIED") {
		t.Fatalf("stand-in: %d %s", resp.StatusCode, body)
	}
	if status, a, _ := pollShop(t, c, p.srv.URL); status != 200 || a["status"] != "VERIFIED" {
		t.Fatalf("poll: %d %v", status, a)
	}
	_, body = get(t, c, p.srv.URL+"/console/shop/")
	return c, csrfOf(t, body)
}

// csrfOf returns the CSRF token of a page's forms.
func csrfOf(t *testing.T, body string) string {
	t.Helper()
	i := strings.Index(body, `name="csrf" value="`)
	if i < 0 {
		t.Fatal("no CSRF token on the page")
	}
	s := body[i+len(`name="csrf" value="`):]
	return s[:strings.Index(s, `"`)]
}

// TestShopSignIn: the sign-in end to end on both stores (the challenge,
// the form, the stand-in's message, the poll that sets the session
// cookie), the JWT in no page nor answer, `next` kept local, sign-out.
func TestShopSignIn(t *testing.T) {
	for _, kind := range []string{"bolt", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			p := newShopPortal(t, kind, easyPoW)
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
			text := startShopLogin(t, c, base, customerNumber)
			pending := shopCookie(c, base, "portal_console_shop_login")
			if pending == "" || strings.Contains(pending, text[len("VERIFY_"):]) {
				t.Fatalf("the pending sign-in's cookie %q", pending)
			}
			if status, a, _ := pollShop(t, c, base); status != 200 || a["status"] != "PENDING" || a["expiresIn"] == nil {
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
			status, a, raw := pollShop(t, c, base)
			if status != 200 || a["status"] != "VERIFIED" || a["next"] != "/console/shop/orders" {
				t.Fatalf("poll after the message: %d %v", status, a)
			}
			jwt := shopCookie(c, base, "portal_console_shop")
			if !strings.HasPrefix(jwt, "ey") || strings.Contains(raw, jwt) {
				t.Fatalf("session cookie %q, poll answer %s", jwt, raw)
			}
			if u, err := p.svc.Authenticate(context.Background(), jwt); err != nil || u.Role != ordering.RoleCustomer {
				t.Fatalf("the session is not the customer's JWT: %+v %v", u, err)
			}
			if shopCookie(c, base, "portal_console_shop_login") != "" {
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
			if _, a, _ = pollShop(t, c, base); a["status"] != "FAILED" {
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
}

// TestShopSignInRefusals: an invalid number, a missing challenge, a
// cross-site post, an expired link and a banned number are refused with
// a clear message.
func TestShopSignInRefusals(t *testing.T) {
	p := newShopPortal(t, "bolt", easyPoW)
	base := p.srv.URL
	c := browser(t)
	resp, body := post(t, c, base+"/console/shop/login", url.Values{"number": {"12"}, "challenge": {solved(t, c, base)}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "not a valid phone number") || !strings.Contains(body, `value="12"`) {
		t.Fatalf("invalid number: %d", resp.StatusCode)
	}
	if resp, body = post(t, c, base+"/console/shop/login", url.Values{"number": {customerNumber}}); resp.StatusCode != http.StatusForbidden ||
		!strings.Contains(body, "anti-bot check did not pass") {
		t.Fatalf("no challenge: %d", resp.StatusCode)
	}
	if resp, _ = post(t, c, base+"/console/shop/login", url.Values{"number": {customerNumber}, "challenge": {solved(t, c, base)}},
		"Sec-Fetch-Site", "cross-site"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site sign-in: %d, want 403", resp.StatusCode)
	}
	if resp, _ = post(t, c, base+"/console/shop/login/poll", nil, "Sec-Fetch-Site", "cross-site"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site poll: %d, want 403", resp.StatusCode)
	}

	startShopLogin(t, c, base, customerNumber)
	p.clock.add(ordering.LoginTTL + time.Second)
	if status, a, _ := pollShop(t, c, base); status != http.StatusGone || a["status"] != "FAILED" ||
		!strings.Contains(a["message"].(string), "expired") {
		t.Fatalf("expired link: %d %v", status, a)
	}
	// The number's third unverified sign-in is the last one allowed.
	startShopLogin(t, c, base, customerNumber)
	startShopLogin(t, c, base, customerNumber)
	resp, body = post(t, c, base+"/console/shop/login", url.Values{"number": {customerNumber}, "challenge": {solved(t, c, base)}})
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "Try again in 60 minutes") {
		t.Fatalf("banned number: %d\n%s", resp.StatusCode, body)
	}
	_, body = post(t, c, base+"/console/shop/login?lang=id", url.Values{"number": {customerNumber}, "challenge": {solved(t, c, base)}})
	if !strings.Contains(body, "Coba lagi dalam 24 jam") {
		t.Fatalf("no Indonesian ban message:\n%s", body)
	}
}

// TestShopSignInWithoutPoW: with Turnstile or hCaptcha configured (no
// built-in challenge), the sign-in page says the console cannot show
// their widget, and offers no form.
func TestShopSignInWithoutPoW(t *testing.T) {
	p := newShopPortal(t, "bolt", easyPoW)
	p.opts.PoW = nil
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
	for _, kind := range []string{"bolt", "postgres"} {
		t.Run(kind, func(t *testing.T) { testStorefrontAndKitchen(t, kind) })
	}
}

func testStorefrontAndKitchen(t *testing.T, kind string) {
	p := newShopPortal(t, kind, easyPoW)
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
	if resp, _ := post(t, c, base+"/console/shop/cart", url.Values{"menu_id": {p.rice.ID}, "op": {"add"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cart without the form's token: %d", resp.StatusCode)
	}
	for _, id := range []string{p.rice.ID, p.rice.ID, p.tea.ID} {
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

	cust, csrf := p.shopSignIn(t, customerNumber)
	for _, id := range []string{p.rice.ID, p.tea.ID, p.tea.ID} {
		post(t, cust, base+"/console/shop/cart", url.Values{"csrf": {csrf}, "menu_id": {id}, "op": {"add"}})
	}
	post(t, cust, base+"/console/shop/cart", url.Values{"csrf": {csrf}, "menu_id": {p.tea.ID}, "op": {"sub"}})
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
	mine, err := p.svc.MyOrders(ctx, mustUser(t, p, customerNumber))
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
	other, _ := p.shopSignIn(t, "081234567899")
	if resp, _ := get(t, other, base+orderPath); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("another customer's order: %d", resp.StatusCode)
	}

	// The kitchen's STAFF: the order appears once paid, live.
	staff, staffCSRF := p.shopSignIn(t, staffNumber)
	if _, err := p.svc.SetRole(ctx, nil, mustUser(t, p, staffNumber).ID, ordering.RoleStaff, []string{ordering.MenuKitchen}); err != nil {
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
	got, _ := p.svc.OrderFor(ctx, mustUser(t, p, customerNumber), o.ID)
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
	p := newShopPortal(t, "bolt", easyPoW)
	base := p.srv.URL
	cust, csrf := p.shopSignIn(t, customerNumber)
	place := func() string {
		post(t, cust, base+"/console/shop/cart", url.Values{"csrf": {csrf}, "menu_id": {p.rice.ID}, "op": {"add"}})
		resp, _ := post(t, cust, base+"/console/shop/checkout", url.Values{"csrf": {csrf}, "shipping_type": {"DINE_IN"}})
		return resp.Header.Get("Location")
	}
	upload := func(path string, data []byte) (*http.Response, string) {
		var b strings.Builder
		mw := multipart.NewWriter(&b)
		mw.WriteField("csrf", csrf)
		mw.WriteField("bank_info", "BCA a.n. Ani")
		fw, _ := mw.CreateFormFile("proof", "receipt.png")
		fw.Write(data)
		mw.Close()
		return post(t, cust, base+path+"/proof", nil, "Content-Type", mw.FormDataContentType(), "Body", b.String())
	}
	first := place()
	if resp, body := upload(first, []byte("not an image")); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "must be a JPEG, PNG or WebP") {
		t.Fatalf("bad receipt: %d", resp.StatusCode)
	}
	if resp, _ := upload(first, tinyPNG); resp.StatusCode != http.StatusSeeOther {
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

// tinyPNG is a 1×1 PNG.
var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
	"\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

// mustUser returns the user of a number.
func mustUser(t *testing.T, p *shopPortal, number string) ordering.User {
	t.Helper()
	n, err := ordering.NormalizeNumber(number, "ID")
	if err != nil {
		t.Fatal(err)
	}
	us, err := p.svc.Users(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range us {
		if u.MessengerNumber == n {
			return u
		}
	}
	t.Fatalf("no user %s", number)
	return ordering.User{}
}

// eventStream reads Server-Sent Events.
type eventStream struct {
	r *bufio.Reader
}

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
