package console_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/console"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"
	ord "github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres"
	"github.com/seedhq/portal/internal/webhook"
)

// anyChallenge accepts every login's anti-bot challenge: the tests sign
// in through the service, not through a browser solving one.
type anyChallenge struct{}

func (anyChallenge) Verify(context.Context, string, string) error { return nil }

// shopStore opens a store for the shop's tests.
type shopStore struct {
	name string
	open func(t *testing.T) exam.Store
}

// shopStores are bbolt and, when PORTAL_TEST_DATABASE_URL is set,
// PostgreSQL.
func shopStores() []shopStore {
	stores := []shopStore{{"bolt", func(t *testing.T) exam.Store {
		st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}}}
	if os.Getenv(pgtest.EnvURL) != "" {
		stores = append(stores, shopStore{"postgres", func(t *testing.T) exam.Store {
			ctx := context.Background()
			st, err := postgres.Open(ctx, pgtest.NewDatabase(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			if err := st.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			return st
		}})
	}
	return stores
}

// The shop's test users, by messenger number.
const (
	ownerNumber    = "081100000001"
	adminNumber    = "081100000002"
	cashierNumber  = "081100000003" // STAFF: point of sale only
	kitchenNumber  = "081100000004" // STAFF: kitchen only
	cashierPayNum  = "081100000005" // STAFF: payments only
	customerNumber = "081100000006"
)

// shop is a portal with the console and the ordering API, its users
// signed in, and a small menu.
type shop struct {
	t   *testing.T
	srv *httptest.Server
	svc *ord.Service
	// users and their signed-in console clients, by number
	users   map[string]ord.User
	clients map[string]*http.Client
	coffee  ord.MenuItem // Rp 12.000
	tea     ord.MenuItem // Rp 8.000
}

// newShop builds the portal over the store: the owner, an admin, three
// staff users with one menu each and a customer, signed in.
func newShop(t *testing.T, open func(*testing.T) exam.Store) *shop {
	t.Helper()
	exam.BcryptCost = 4
	ctx := context.Background()
	st := open(t)
	esvc, err := exam.NewService(ctx, st, exam.Config{TempDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := ord.NewService(st.(ord.Store), ord.Config{JWTKey: []byte("ordering-test-key-of-32-bytes!!!"),
		MessengerLinkBase: "https://wa.me/6281100000000", OwnerNumber: ownerNumber, Challenge: anyChallenge{},
		Payments: ord.SandboxPayments{BaseURL: "http://portal.test"}, ProofDir: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := webhook.NewVerifier([]string{"whsec_dGVzdC1nYXRld2F5LXNlY3JldC0zMi1ieXRlcyEh"})
	if err != nil {
		t.Fatal(err)
	}
	oo := &ordhttp.Options{Service: svc, Gateway: gw, ProviderSecrets: []string{"provider-secret"}}
	srv := httptest.NewServer(httpapi.New(httpapi.Options{Exam: esvc, Ordering: oo,
		Console: console.New(console.Options{Exam: esvc, Ordering: oo, Key: []byte("console-test-key-of-32-bytes!!!!")})}))
	t.Cleanup(srv.Close)
	s := &shop{t: t, srv: srv, svc: svc, users: map[string]ord.User{}, clients: map[string]*http.Client{}}
	for _, u := range []struct {
		number string
		role   ord.Role
		menus  []string
	}{{ownerNumber, ord.RoleOwner, nil}, {adminNumber, ord.RoleAdmin, nil}, {cashierNumber, ord.RoleStaff, []string{ord.MenuPOS}},
		{kitchenNumber, ord.RoleStaff, []string{ord.MenuKitchen}}, {cashierPayNum, ord.RoleStaff, []string{ord.MenuPayments}},
		{customerNumber, ord.RoleCustomer, nil}} {
		jwt, user := s.login(u.number)
		if u.role != user.Role {
			if user, err = svc.SetRole(ctx, nil, user.ID, u.role, u.menus); err != nil {
				t.Fatal(err)
			}
		}
		s.users[u.number], s.clients[u.number] = user, s.client(jwt)
	}
	cat, err := svc.CreateCategory(ctx, ord.CategoryInput{Name: "Drinks"})
	if err != nil {
		t.Fatal(err)
	}
	if s.coffee, err = svc.CreateMenuItem(ctx, ord.MenuItem{CategoryID: cat.ID, Name: "Kopi susu", Price: 12_000, Available: true}); err != nil {
		t.Fatal(err)
	}
	if s.tea, err = svc.CreateMenuItem(ctx, ord.MenuItem{CategoryID: cat.ID, Name: "Teh manis", Price: 8_000, Available: true, Position: 1}); err != nil {
		t.Fatal(err)
	}
	return s
}

// login completes a messenger login of number through the service (the
// sign-in page is not the back office's) and returns its JWT and user.
func (s *shop) login(number string) (string, ord.User) {
	s.t.Helper()
	ctx := context.Background()
	start, err := s.svc.Login(ctx, number, "solved", "192.0.2.1")
	if err != nil {
		s.t.Fatal(err)
	}
	if _, _, err := s.svc.Inbound(ctx, number, "VERIFY_"+start.Token); err != nil {
		s.t.Fatal(err)
	}
	res, err := s.svc.Poll(ctx, start.Token, "192.0.2.1")
	if err != nil || res.JWT == "" {
		s.t.Fatalf("poll: %+v %v", res, err)
	}
	return res.JWT, res.User
}

// client returns a console client whose shop session is jwt.
func (s *shop) client(jwt string) *http.Client {
	c := browser(s.t)
	u, _ := url.Parse(s.srv.URL + "/console/")
	c.Jar.SetCookies(u, []*http.Cookie{{Name: "portal_console_shop", Value: jwt, Path: "/console"}})
	return c
}

// get fetches a back-office page as the user of number.
func (s *shop) get(number, path string) (*http.Response, string) {
	s.t.Helper()
	return get(s.t, s.clients[number], s.srv.URL+path)
}

// post sends a form as the user of number with the CSRF token of its
// session (read from the page at from).
func (s *shop) post(number, from, path string, form url.Values) (*http.Response, string) {
	s.t.Helper()
	_, page := s.get(number, from)
	form.Set("csrf", csrfOf(s.t, page))
	return post(s.t, s.clients[number], s.srv.URL+path, form)
}

// csrfOf reads the CSRF token of a page's forms.
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

// expect fails unless the answer has the status and contains every text.
func expect(t *testing.T, what string, resp *http.Response, body string, status int, texts ...string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("%s: status %d, want %d: %.600s", what, resp.StatusCode, status, body)
	}
	for _, s := range texts {
		if !strings.Contains(body, s) {
			t.Fatalf("%s: the page lacks %q: %.2000s", what, s, body)
		}
	}
}

// forbidden checks that each of the numbers gets 403 on GET path.
func (s *shop) forbidden(path string, numbers ...string) {
	s.t.Helper()
	for _, n := range numbers {
		resp, body := s.get(n, path)
		expect(s.t, n+" on "+path, resp, body, http.StatusForbidden, "may not open this page")
	}
}

// proofPNG is a small receipt image.
func proofPNG(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for x := range 40 {
		img.Set(x, 10, color.RGBA{200, 30, 30, 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// waitingOrder places a customer's order of a coffee and sends its receipt.
func (s *shop) waitingOrder() ord.Order {
	s.t.Helper()
	ctx := context.Background()
	cust := s.users[customerNumber]
	o, err := s.svc.PlaceOrder(ctx, cust, ord.OrderRequest{ShippingType: ord.ShippingPickup,
		Items: []ord.OrderItemRequest{{MenuID: s.coffee.ID, Quantity: 1}}})
	if err != nil {
		s.t.Fatal(err)
	}
	if o, err = s.svc.UploadProof(ctx, cust, o.ID, proofPNG(s.t), "BCA a.n. Sari"); err != nil {
		s.t.Fatal(err)
	}
	return o
}

// TestOfficePOS: a cashier sells two coffees and a tea for cash and gets
// the receipt with the change; short cash, bad quantities and an empty sale
// are refused on the page and place nothing; a post without the token is
// refused; the kitchen-only staff, a customer are forbidden.
func TestOfficePOS(t *testing.T) {
	for _, so := range shopStores() {
		t.Run(so.name, func(t *testing.T) {
			s := newShop(t, so.open)
			resp, body := s.get(cashierNumber, "/console/shop/pos")
			expect(t, "pos", resp, body, 200, "Kopi susu", "Rp 12.000", `name="qty.`+s.coffee.ID+`"`, `value="QRIS"`, "/console/shop/pos")
			if strings.Contains(body, "/console/shop/ledger") || strings.Contains(body, "/console/shop/payments\"") {
				t.Fatal("a cashier's menu shows the owner's or the payments pages")
			}
			sale := func(cash string, qty ...string) url.Values {
				return url.Values{"qty." + s.coffee.ID: {qty[0]}, "qty." + s.tea.ID: {qty[1]}, "method": {"CASH"},
					"cash": {cash}, "customer": {"Budi"}, "shipping": {"DINE_IN"}}
			}
			resp, body = s.post(cashierNumber, "/console/shop/pos", "/console/shop/pos", sale("20000", "2", "1"))
			expect(t, "short cash", resp, body, 400, "at least the total of Rp 32.000", `value="20000"`)
			resp, body = s.post(cashierNumber, "/console/shop/pos", "/console/shop/pos", sale("", "two", "1"))
			expect(t, "bad quantity", resp, body, 400, "quantities must be whole numbers", `value="two"`)
			resp, body = s.post(cashierNumber, "/console/shop/pos", "/console/shop/pos", sale("", "", "0"))
			expect(t, "empty sale", resp, body, 400, "at least one item")
			if l, _ := s.svc.KitchenOrders(context.Background()); len(l) != 0 {
				t.Fatalf("refused sales placed %d orders", len(l))
			}
			resp, _ = post(t, s.clients[cashierNumber], s.srv.URL+"/console/shop/pos", sale("50000", "2", "1"))
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("a sale without the form's token: %d", resp.StatusCode)
			}

			resp, _ = s.post(cashierNumber, "/console/shop/pos", "/console/shop/pos", sale("50000", "2", "1"))
			loc := resp.Header.Get("Location")
			if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/console/shop/pos/orders/") || !strings.HasSuffix(loc, "?cash=50000") {
				t.Fatalf("sale: %d %s", resp.StatusCode, loc)
			}
			resp, body = s.get(cashierNumber, loc)
			expect(t, "receipt", resp, body, 200, "ORD-", "Kopi susu", "Rp 24.000", "Rp 32.000", "Rp 50.000", "Rp 18.000", "Budi", "data-print")
			l, _ := s.svc.KitchenOrders(context.Background())
			if len(l) != 1 || l[0].TotalPrice != 32_000 || l[0].PaymentMethod != "CASH" || !l[0].Counter {
				t.Fatalf("placed: %+v", l)
			}

			s.forbidden("/console/shop/pos", kitchenNumber, customerNumber, cashierPayNum)
			s.forbidden(loc, kitchenNumber, customerNumber)
			resp, _ = s.post(kitchenNumber, "/console/shop/pos", "/console/shop/pos", sale("50000", "1", "0"))
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("a sale by the kitchen: %d", resp.StatusCode)
			}
		})
	}
}
