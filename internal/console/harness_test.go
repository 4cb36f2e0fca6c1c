package console_test

// The harness of the console's tests: how a test portal is built, how a
// test signs in to each area (operators, marketers, the shop) over HTTP
// and in a headless browser, and the small HTTP helpers every test uses.
//
// A test builds its portal with newPortal, on bbolt by default; a test that
// runs on both stores wraps itself in forEachStore and passes onStore(kind).

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/console"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/challenge"
	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/postgres/postgrestest"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/browsertest"
	"github.com/seedhq/portal/internal/webhook"
)

// The accounts every portal has.
const (
	// adminPassword is the operator admin's password.
	adminPassword = "console-Password-1"
	// marketerPassword is the account password of the marketer ana (budi
	// has none: he signs in with his API key).
	marketerPassword = "marketer-Password-1"
	// ownerNumber is the shop's owner: its first sign-in makes it OWNER.
	ownerNumber = "6281100000001"
)

// easyPoW is the default difficulty of the shop's proof of work, quickly
// solved in Go (withPoW sets another).
const easyPoW = 2000

// The portal's keys and the stand-ins' secrets.
const (
	consoleKey     = "console-test-key-of-32-bytes!!!!"
	orderingKey    = "ordering-test-key-of-32-bytes!!!"
	gatewaySecret  = "whsec_dGVzdC1nYXRld2F5LXNlY3JldC0zMi1ieXRlcyEh"
	providerSecret = "provider-secret"
	merchantID     = "M-1"
	linkBaseURL    = "https://s.example"
)

// testStore is what both stores implement: the Store of every domain the
// console serves.
type testStore interface {
	exam.Store
	identity.Store
	idempotency.Store
	links.Store
	ordering.Store
}

// storeKinds are the stores the console's tests run on.
var storeKinds = []string{"bolt", "postgres"}

// openStore opens a new, empty store of kind, closed when the test ends.
// A PostgreSQL store is a database of its own on the test server, see
// pgtest: the test is skipped loudly (failed in CI) when it is unreachable.
func openStore(t *testing.T, kind string) testStore {
	t.Helper()
	if kind == "postgres" {
		return postgrestest.Open(t)
	}
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// forEachStore runs test as a subtest on each of storeKinds.
func forEachStore(t *testing.T, test func(t *testing.T, kind string)) {
	t.Helper()
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) { test(t, kind) })
	}
}

// portal is the router with the console and its three APIs over one store,
// wired as cmd/portal wires them, with every area's accounts:
//   - the operator admin ("admin", adminPassword);
//   - the marketers ana (marketerPassword and anaKey) and budi (budiKey);
//   - the shop, whose first sign-in of ownerNumber is its owner; the shop
//     signs in with the built-in proof of work, the messaging gateway's and
//     the payment provider's stand-ins (the sandbox), on a testkit.Clock.
type portal struct {
	srv   *httptest.Server
	store testStore

	exam *exam.Service
	ids  *identity.Service

	links           *links.Service
	ana, budi       links.User
	anaKey, budiKey string

	shop     *ordering.Service
	ordering *ordhttp.Options  // the ordering API's configuration
	shopOpts *console.Ordering // what the console's shop shares with it
	pow      *challenge.PoW
	clock    *testkit.Clock
	menu     []ordering.MenuItem // the items of withMenu, in its order
}

// portalConfig is what the portalOptions set.
type portalConfig struct {
	kind     string
	powMax   int64
	category string
	items    []ordering.MenuItem
}

// portalOption changes how newPortal builds a portal.
type portalOption func(*portalConfig)

// onStore builds the portal on a store of kind (default "bolt").
func onStore(kind string) portalOption { return func(c *portalConfig) { c.kind = kind } }

// withPoW sets the difficulty of the proof of work (default easyPoW).
func withPoW(maxNumber int64) portalOption { return func(c *portalConfig) { c.powMax = maxNumber } }

// withMenu gives the shop a category of available items (default: no
// menu); the portal's menu holds them as stored.
func withMenu(category string, items ...ordering.MenuItem) portalOption {
	return func(c *portalConfig) { c.category, c.items = category, items }
}

// newPortal builds and serves a portal; it is closed when the test ends.
func newPortal(t *testing.T, opts ...portalOption) *portal {
	t.Helper()
	cfg := portalConfig{kind: "bolt", powMax: easyPoW}
	for _, o := range opts {
		o(&cfg)
	}
	password.Cost = 4
	ctx := context.Background()
	p := &portal{store: openStore(t, cfg.kind), clock: testkit.NewClock(time.Now())}
	// The server's address is needed before its handler: the stand-ins'
	// links point at it.
	p.srv = httptest.NewUnstartedServer(nil)
	base := "http://" + p.srv.Listener.Addr().String()
	var err error

	if p.ids, err = identity.Open(ctx, p.store, nil, identity.Config{}); err != nil {
		t.Fatal(err)
	}
	if p.exam, err = exam.NewService(ctx, p.store, exam.Config{Tokens: p.ids.Tokens(), TempDir: t.TempDir()}, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.ids.EnsureAdmin(ctx, "admin", adminPassword); err != nil {
		t.Fatal(err)
	}

	p.links = links.NewService(p.store, links.Config{Blobs: p.store.(interface{ Blobs() blobstore.Store }).Blobs()})
	if p.ana, p.anaKey, err = p.links.CreateUser(ctx, links.NewUser{Email: "ana@example.com", Username: "ana", Password: marketerPassword}); err != nil {
		t.Fatal(err)
	}
	if p.budi, p.budiKey, err = p.links.CreateUser(ctx, links.NewUser{Email: "budi@example.com", Username: "budi"}); err != nil {
		t.Fatal(err)
	}

	if p.pow, err = challenge.NewPoW([]byte(orderingKey), challenge.WithMaxNumber(cfg.powMax), challenge.WithClock(p.clock.Now),
		challenge.WithSpentStore(p.store)); err != nil {
		t.Fatal(err)
	}
	if p.shop, err = ordering.NewService(p.store, ordering.Config{JWTKey: []byte(orderingKey), MessengerLinkBase: base + "/sandbox/messenger",
		OwnerNumber: ownerNumber, Challenge: p.pow, Payments: ordering.SandboxPayments{BaseURL: base},
		Blobs: p.store.(interface{ Blobs() blobstore.Store }).Blobs(), MerchantID: merchantID, Now: p.clock.Now}, nil); err != nil {
		t.Fatal(err)
	}
	gw, err := webhook.NewVerifier([]string{gatewaySecret})
	if err != nil {
		t.Fatal(err)
	}
	p.ordering = &ordhttp.Options{Service: p.shop, PoW: p.pow, Gateway: gw, ProviderSecrets: []string{providerSecret}, Now: p.clock.Now,
		Sandbox: &ordhttp.Sandbox{GatewaySecret: gatewaySecret, ProviderSecret: providerSecret, MerchantID: merchantID}}
	if cfg.category != "" {
		cat, err := p.shop.CreateCategory(ctx, ordering.CategoryInput{Name: cfg.category})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range cfg.items {
			it.CategoryID, it.Available = cat.ID, true
			m, err := p.shop.CreateMenuItem(ctx, it)
			if err != nil {
				t.Fatal(err)
			}
			p.menu = append(p.menu, m)
		}
	}

	p.shopOpts = &console.Ordering{Service: p.shop, PoW: p.pow, Now: p.clock.Now, MessengerStandIn: true}
	p.srv.Config.Handler = httpapi.New(httpapi.Options{Exam: p.exam, Identity: p.ids, Idempotency: idempotency.New(p.store, idempotency.Options{}), Links: p.links, LinkBaseURL: linkBaseURL, Ordering: p.ordering,
		Console: console.New(console.Options{Exam: p.exam, Identity: p.ids, Key: []byte(consoleKey), Links: p.links, LinkBaseURL: linkBaseURL,
			Ordering: p.shopOpts})})
	p.srv.Start()
	t.Cleanup(p.srv.Close)
	return p
}

// browser is a client with a cookie jar that does not follow redirects.
func browser(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// get fetches u with the header pairs hdr (name, value, ...).
func get(t *testing.T, c *http.Client, u string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return send(t, c, req)
}

// post sends form (or, with a "Body" pair in hdr, that body as it is).
func post(t *testing.T, c *http.Client, u string, form url.Values, hdr ...string) (*http.Response, string) {
	t.Helper()
	body := form.Encode()
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Body" {
			body = hdr[i+1]
		}
	}
	req, _ := http.NewRequest("POST", u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] != "Body" {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	return send(t, c, req)
}

// formFile is a file of a multipart form: its field, file name and content.
type formFile struct {
	field, name string
	data        []byte
}

// postMultipart sends fields and files as a multipart form.
func postMultipart(t *testing.T, c *http.Client, u string, fields url.Values, files ...formFile) (*http.Response, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, vs := range fields {
		for _, v := range vs {
			mw.WriteField(k, v)
		}
	}
	for _, f := range files {
		fw, _ := mw.CreateFormFile(f.field, f.name)
		fw.Write(f.data)
	}
	mw.Close()
	req, _ := http.NewRequest("POST", u, &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return send(t, c, req)
}

// send sends req with c and returns the answer and its body.
func send(t *testing.T, c *http.Client, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// testPNG is a width×height PNG image: light grey, with a red line across
// its first third.
func testPNG(width, height int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	for i := range img.Pix {
		img.Pix[i] = 0xc0
	}
	for x := range width {
		img.Set(x, height/3, color.RGBA{R: 200, G: 30, B: 30, A: 255})
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

// csrfOf returns the CSRF token of a page's forms.
func csrfOf(t *testing.T, page string) string {
	t.Helper()
	const attr = `name="csrf" value="`
	i := strings.Index(page, attr)
	if i < 0 {
		t.Fatalf("no CSRF token on the page: %.300s", page)
	}
	v := page[i+len(attr):]
	return v[:strings.Index(v, `"`)]
}

// signIn signs c in as the operator admin and returns a page's CSRF token.
func (p *portal) signIn(t *testing.T, c *http.Client) string {
	t.Helper()
	post(t, c, p.srv.URL+"/console/login", url.Values{"username": {"admin"}, "password": {adminPassword}})
	_, body := get(t, c, p.srv.URL+"/console/fleet")
	return csrfOf(t, body)
}

// signInMarketer signs c in as the holder of key and returns a page's CSRF
// token.
func (p *portal) signInMarketer(t *testing.T, c *http.Client, key string) string {
	t.Helper()
	resp, _ := post(t, c, p.srv.URL+"/console/links/login", url.Values{"api_key": {key}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in with a key: %d", resp.StatusCode)
	}
	resp, body := get(t, c, p.srv.URL+"/console/links/")
	if resp.StatusCode != 200 {
		t.Fatalf("links page after sign-in: %d", resp.StatusCode)
	}
	return csrfOf(t, body)
}

// signInShop signs a new client in to the shop as number through the
// console's pages and the messenger stand-in, and returns it with a page's
// CSRF token.
func (p *portal) signInShop(t *testing.T, number string) (*http.Client, string) {
	t.Helper()
	c := browser(t)
	text := p.startShopLogin(t, c, number)
	resp, body := post(t, c, p.srv.URL+"/sandbox/messenger", url.Values{"from": {number}, "text": {text}}, "Accept", "application/json")
	if resp.StatusCode != 200 || !strings.Contains(body, "VERIFIED") {
		t.Fatalf("stand-in: %d %s", resp.StatusCode, body)
	}
	if status, a, _ := p.pollShop(t, c); status != 200 || a["status"] != "VERIFIED" {
		t.Fatalf("poll: %d %v", status, a)
	}
	_, body = get(t, c, p.srv.URL+"/console/shop/")
	return c, csrfOf(t, body)
}

// solveChallenge fetches a proof-of-work challenge and solves it.
func (p *portal) solveChallenge(t *testing.T) string {
	t.Helper()
	_, body := get(t, p.srv.Client(), p.srv.URL+"/api/auth/challenge")
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

// verifyText is the message that verifies a shop sign-in.
var verifyText = regexp.MustCompile(`VERIFY_tok_[A-Z2-7]{26}`)

// startShopLogin posts the shop's sign-in form for number and returns the
// waiting page's message text (VERIFY_<token>).
func (p *portal) startShopLogin(t *testing.T, c *http.Client, number string) string {
	t.Helper()
	base := p.srv.URL
	resp, body := post(t, c, base+"/console/shop/login", url.Values{"number": {number}, "challenge": {p.solveChallenge(t)},
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

// pollShop posts the waiting page's poll as shop.js does and returns the
// status, the decoded answer and the answer as it came.
func (p *portal) pollShop(t *testing.T, c *http.Client) (int, map[string]any, string) {
	t.Helper()
	resp, body := post(t, c, p.srv.URL+"/console/shop/login/poll", nil, "Accept", "application/json")
	var a map[string]any
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("poll: %d %q", resp.StatusCode, body)
	}
	return resp.StatusCode, a, body
}

// shopCookie returns c's cookie of that name for the shop.
func (p *portal) shopCookie(c *http.Client, name string) string {
	u, _ := url.Parse(p.srv.URL + "/console/shop/login/wait")
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// shopUser returns the shop's user of a number.
func (p *portal) shopUser(t *testing.T, number string) ordering.User {
	t.Helper()
	n, err := ordering.NormalizeNumber(number, "ID")
	if err != nil {
		t.Fatal(err)
	}
	us, err := p.shop.Users(t.Context())
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

// screenshots: with UPDATE_SCREENSHOTS=1 the browser tests save the main
// pages into docs/console/ (the README shows them).
var screenshots = os.Getenv("UPDATE_SCREENSHOTS") == "1"

// headless is the headless browser of a browser test, found on the machine
// (or the test is skipped, see testkit.FindBrowser), with the test's
// deadline.
type headless struct {
	t        *testing.T
	ctx      context.Context
	execPath string
}

// newHeadless finds the browser; what names what is tested in it, and the
// test's tabs close after timeout at the latest.
func newHeadless(t *testing.T, what string, timeout time.Duration) *headless {
	t.Helper()
	execPath := browsertest.Find(t, what)
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	t.Cleanup(cancel)
	return &headless{t: t, ctx: ctx, execPath: execPath}
}

// tab opens a browser window of width×height, closed when the test ends.
func (h *headless) tab(width, height int) *tab {
	ctx, stop := browsertest.New(h.ctx, h.execPath, width, height)
	h.t.Cleanup(stop)
	return &tab{t: h.t, ctx: ctx}
}

// tab is a browser window driven by a test: a step that fails ends the
// test.
type tab struct {
	t   *testing.T
	ctx context.Context
}

// do runs the steps, what naming them in a failure.
func (b *tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// text returns the text of the element sel.
func (b *tab) text(sel string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// check fails the test unless the JavaScript expression expr is true.
func (b *tab) check(what, expr string) {
	b.t.Helper()
	ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](expr))
	if err != nil || !ok {
		b.t.Fatalf("%s: %s is not true (%v)", what, expr, err)
	}
}

// eventually waits for expr to hold on a page that may reload meanwhile
// (the order's page does when its status moves).
func (b *tab) eventually(what, expr string) {
	b.t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](expr)); err == nil && ok {
			return
		}
	}
	b.t.Fatalf("%s: %s did not come true within 15 s", what, expr)
}

// clickLoad clicks what makes the page load another and waits for it.
func (b *tab) clickLoad(what, sel string) {
	b.t.Helper()
	b.loadAfter(what, chromedp.Click(chromedp.CSS(sel)))
}

// loadAfter runs act, which makes the page load another, and waits until
// the new document has loaded. The old document is marked first and the
// wait is for a document without the mark: a load event alone may be the
// one of the page before, when the step that showed that page returned
// before its load event fired.
func (b *tab) loadAfter(what string, act chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.portalTestOld = true`)); err != nil {
		b.t.Fatalf("%s: mark the page: %v", what, err)
	}
	b.do(what, act)
	b.eventually(what+": the next page loaded", `document.portalTestOld === undefined && document.readyState === 'complete'`)
}

// fitsWidth is true when the page does not scroll sideways (wide tables
// scroll in their own box).
const fitsWidth = `document.documentElement.scrollWidth <= window.innerWidth`

// fits reports whether the page fits the window's width.
func (b *tab) fits() (bool, error) {
	return chromedp.Run(b.ctx, chromedp.Evaluate[bool](fitsWidth))
}

// shot saves the window as docs/console/<name>.png when screenshots are on.
func (b *tab) shot(name string) {
	b.t.Helper()
	b.save(name, chromedp.CaptureScreenshot())
}

// shotPage saves the whole page, beyond the window, as
// docs/console/<name>.png when screenshots are on.
func (b *tab) shotPage(name string) {
	b.t.Helper()
	b.save(name, chromedp.FullScreenshot(100))
}

func (b *tab) save(name string, capture chromedp.Action[[]byte]) {
	b.t.Helper()
	if !screenshots {
		return
	}
	png, err := chromedp.Run(b.ctx, capture)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "..", "docs", "console", name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// passwordSignInSteps sign in through a password form: they open page,
// type login into the field of id loginField and secret into the password
// field, send the form and wait for the first page's filters.
func passwordSignInSteps(page, loginField, login, secret string) []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		chromedp.Navigate(page),
		chromedp.WaitVisible(chromedp.ID(loginField)),
		chromedp.SendKeys(chromedp.ID(loginField), login),
		chromedp.SendKeys(chromedp.ID("password"), secret),
		chromedp.Submit(chromedp.ID("password")),
		chromedp.WaitVisible(chromedp.CSS("form.filters")),
	}
}

// operatorSignInSteps sign the operator admin in through the form.
func (p *portal) operatorSignInSteps() []chromedp.Action[chromedp.Void] {
	return passwordSignInSteps(p.srv.URL+"/console/", "username", "admin", adminPassword)
}

// marketerSignInSteps sign ana in through the password form.
func (p *portal) marketerSignInSteps() []chromedp.Action[chromedp.Void] {
	return passwordSignInSteps(p.srv.URL+"/console/links/", "login", "ana", marketerPassword)
}

// shopSignInSteps sign in as number on the shop's sign-in page, open: the
// browser solves the real proof of work (shop.js, crypto.subtle), the
// stand-in's button sends the message, and the page goes on by itself to
// the page that shows landing.
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

// shopSession puts the shop session jwt in the browser, as the shop's
// sign-in page does once the messenger login is verified.
func (p *portal) shopSession(jwt string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		httpOnly := true
		_, err := cdp.Call(ctx, t, network.SetCookie, network.SetCookieParams{Name: "portal_console_shop", Value: jwt,
			URL: p.srv.URL + "/console/", Path: "/console", HTTPOnly: &httpOnly})
		return err
	})
}
