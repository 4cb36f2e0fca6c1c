package console_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"mime/multipart"
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

// officeChallenge accepts every login's anti-bot challenge: the tests sign
// in through the service, not through a browser solving one.
type officeChallenge struct{}

func (officeChallenge) Verify(context.Context, string, string) error { return nil }

// officeStore opens a store for the shop's tests.
type officeStore struct {
	name string
	open func(t *testing.T) exam.Store
}

// officeStores are bbolt and, when PORTAL_TEST_DATABASE_URL is set,
// PostgreSQL.
func officeStores() []officeStore {
	stores := []officeStore{{"bolt", func(t *testing.T) exam.Store {
		st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}}}
	if os.Getenv(pgtest.EnvURL) != "" {
		stores = append(stores, officeStore{"postgres", func(t *testing.T) exam.Store {
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
	officeOwner    = "081100000001"
	officeAdmin    = "081100000002"
	officeCashier  = "081100000003" // STAFF: point of sale only
	officeKitchen  = "081100000004" // STAFF: kitchen only
	officePayer    = "081100000005" // STAFF: payments only
	officeCustomer = "081100000006"
)

// officeShop is a portal with the console and the ordering API, its users
// signed in, and a small menu.
type officeShop struct {
	t   *testing.T
	srv *httptest.Server
	svc *ord.Service
	// users and their signed-in console clients, by number
	users   map[string]ord.User
	jwts    map[string]string
	clients map[string]*http.Client
	coffee  ord.MenuItem // Rp 12.000
	tea     ord.MenuItem // Rp 8.000
}

// newOfficeShop builds the portal over the store: the owner, an admin, three
// staff users with one menu each and a customer, signed in.
func newOfficeShop(t *testing.T, open func(*testing.T) exam.Store) *officeShop {
	t.Helper()
	exam.BcryptCost = 4
	ctx := context.Background()
	st := open(t)
	esvc, err := exam.NewService(ctx, st, exam.Config{TempDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := ord.NewService(st.(ord.Store), ord.Config{JWTKey: []byte("ordering-test-key-of-32-bytes!!!"),
		MessengerLinkBase: "https://wa.me/6281100000000", OwnerNumber: officeOwner, Challenge: officeChallenge{},
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
	s := &officeShop{t: t, srv: srv, svc: svc, users: map[string]ord.User{}, jwts: map[string]string{},
		clients: map[string]*http.Client{}}
	for _, u := range []struct {
		number string
		role   ord.Role
		menus  []string
	}{{officeOwner, ord.RoleOwner, nil}, {officeAdmin, ord.RoleAdmin, nil}, {officeCashier, ord.RoleStaff, []string{ord.MenuPOS}},
		{officeKitchen, ord.RoleStaff, []string{ord.MenuKitchen}}, {officePayer, ord.RoleStaff, []string{ord.MenuPayments}},
		{officeCustomer, ord.RoleCustomer, nil}} {
		jwt, user := s.login(u.number)
		if u.role != user.Role {
			if user, err = svc.SetRole(ctx, nil, user.ID, u.role, u.menus); err != nil {
				t.Fatal(err)
			}
		}
		s.users[u.number], s.jwts[u.number], s.clients[u.number] = user, jwt, s.client(jwt)
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
func (s *officeShop) login(number string) (string, ord.User) {
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
func (s *officeShop) client(jwt string) *http.Client {
	c := browser(s.t)
	u, _ := url.Parse(s.srv.URL + "/console/")
	c.Jar.SetCookies(u, []*http.Cookie{{Name: "portal_console_shop", Value: jwt, Path: "/console"}})
	return c
}

// get fetches a back-office page as the user of number.
func (s *officeShop) get(number, path string) (*http.Response, string) {
	s.t.Helper()
	return get(s.t, s.clients[number], s.srv.URL+path)
}

// post sends a form as the user of number with the CSRF token of its
// session (read from the page at from).
func (s *officeShop) post(number, from, path string, form url.Values) (*http.Response, string) {
	s.t.Helper()
	_, page := s.get(number, from)
	form.Set("csrf", officeCSRF(s.t, page))
	return post(s.t, s.clients[number], s.srv.URL+path, form)
}

// officeCSRF reads the CSRF token of a page's forms.
func officeCSRF(t *testing.T, page string) string {
	t.Helper()
	const attr = `name="csrf" value="`
	i := strings.Index(page, attr)
	if i < 0 {
		t.Fatalf("no CSRF token on the page: %.300s", page)
	}
	v := page[i+len(attr):]
	return v[:strings.Index(v, `"`)]
}

// officeExpect fails unless the answer has the status and contains every text.
func officeExpect(t *testing.T, what string, resp *http.Response, body string, status int, texts ...string) {
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
func (s *officeShop) forbidden(path string, numbers ...string) {
	s.t.Helper()
	for _, n := range numbers {
		resp, body := s.get(n, path)
		officeExpect(s.t, n+" on "+path, resp, body, http.StatusForbidden, "may not open this page")
	}
}

// officePNG is a small receipt image.
func officePNG(t *testing.T) []byte {
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
func (s *officeShop) waitingOrder() ord.Order {
	s.t.Helper()
	ctx := context.Background()
	cust := s.users[officeCustomer]
	o, err := s.svc.PlaceOrder(ctx, cust, ord.OrderRequest{ShippingType: ord.ShippingPickup,
		Items: []ord.OrderItemRequest{{MenuID: s.coffee.ID, Quantity: 1}}})
	if err != nil {
		s.t.Fatal(err)
	}
	if o, err = s.svc.UploadProof(ctx, cust, o.ID, officePNG(s.t), "BCA a.n. Sari"); err != nil {
		s.t.Fatal(err)
	}
	return o
}

// TestOfficePOS: a cashier sells two coffees and a tea for cash and gets
// the receipt with the change; short cash, bad quantities and an empty sale
// are refused on the page and place nothing; a post without the token is
// refused; the kitchen-only staff, a customer are forbidden.
func TestOfficePOS(t *testing.T) {
	for _, so := range officeStores() {
		t.Run(so.name, func(t *testing.T) {
			s := newOfficeShop(t, so.open)
			resp, body := s.get(officeCashier, "/console/shop/pos")
			officeExpect(t, "pos", resp, body, 200, "Kopi susu", "Rp 12.000", `name="qty.`+s.coffee.ID+`"`, `value="QRIS"`, "/console/shop/pos")
			resp, idBody := s.get(officeCashier, "/console/shop/pos?lang=id")
			officeExpect(t, "pos in Indonesian", resp, idBody, 200, "Terima pembayaran", "Tunai", `lang="id"`)
			if strings.Contains(body, "/console/shop/ledger") || strings.Contains(body, "/console/shop/payments\"") {
				t.Fatal("a cashier's menu shows the owner's or the payments pages")
			}
			sale := func(cash string, qty ...string) url.Values {
				return url.Values{"qty." + s.coffee.ID: {qty[0]}, "qty." + s.tea.ID: {qty[1]}, "method": {"CASH"},
					"cash": {cash}, "customer": {"Budi"}, "shipping": {"DINE_IN"}}
			}
			resp, body = s.post(officeCashier, "/console/shop/pos", "/console/shop/pos", sale("20000", "2", "1"))
			officeExpect(t, "short cash", resp, body, 400, "at least the total of Rp 32.000", `value="20000"`)
			resp, body = s.post(officeCashier, "/console/shop/pos", "/console/shop/pos", sale("", "two", "1"))
			officeExpect(t, "bad quantity", resp, body, 400, "quantities must be whole numbers", `value="two"`)
			resp, body = s.post(officeCashier, "/console/shop/pos", "/console/shop/pos", sale("", "", "0"))
			officeExpect(t, "empty sale", resp, body, 400, "at least one item")
			if l, _ := s.svc.KitchenOrders(context.Background()); len(l) != 0 {
				t.Fatalf("refused sales placed %d orders", len(l))
			}
			resp, _ = post(t, s.clients[officeCashier], s.srv.URL+"/console/shop/pos", sale("50000", "2", "1"))
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("a sale without the form's token: %d", resp.StatusCode)
			}

			resp, _ = s.post(officeCashier, "/console/shop/pos", "/console/shop/pos", sale("50000", "2", "1"))
			loc := resp.Header.Get("Location")
			if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/console/shop/pos/orders/") || !strings.HasSuffix(loc, "?cash=50000") {
				t.Fatalf("sale: %d %s", resp.StatusCode, loc)
			}
			resp, body = s.get(officeCashier, loc)
			officeExpect(t, "receipt", resp, body, 200, "ORD-", "Kopi susu", "Rp 24.000", "Rp 32.000", "Rp 50.000", "Rp 18.000", "Budi", "data-print")
			l, _ := s.svc.KitchenOrders(context.Background())
			if len(l) != 1 || l[0].TotalPrice != 32_000 || l[0].PaymentMethod != "CASH" || !l[0].Counter {
				t.Fatalf("placed: %+v", l)
			}

			s.forbidden("/console/shop/pos", officeKitchen, officeCustomer, officePayer)
			s.forbidden(loc, officeKitchen, officeCustomer)
			resp, _ = s.post(officeKitchen, "/console/shop/pos", "/console/shop/pos", sale("50000", "1", "0"))
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("a sale by the kitchen: %d", resp.StatusCode)
			}
		})
	}
}

// TestOfficePayments: a receipt waiting for verification is listed with
// its image (served with its type, not sniffed, to the payments users
// only); a rejection needs its reason; a rejected order sent again is
// approved and goes to the kitchen; the cashier without the payments menu
// and an admin-less customer are forbidden.
func TestOfficePayments(t *testing.T) {
	for _, so := range officeStores() {
		t.Run(so.name, func(t *testing.T) {
			s := newOfficeShop(t, so.open)
			o := s.waitingOrder()
			proof := "/console/shop/payments/" + o.ID + "/proof"
			resp, body := s.get(officePayer, "/console/shop/payments")
			officeExpect(t, "payments", resp, body, 200, o.OrderNumber, `src="`+proof+`"`, "BCA a.n. Sari", "Rp 12.000")
			resp, img := s.get(officePayer, proof)
			officeExpect(t, "proof", resp, img, 200, "PNG")
			if resp.Header.Get("Content-Type") != "image/png" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Fatalf("proof headers: %v", resp.Header)
			}
			s.forbidden("/console/shop/payments", officeCashier, officeKitchen, officeCustomer)
			s.forbidden(proof, officeCashier, officeCustomer)

			verify := "/console/shop/payments/" + o.ID + "/verify"
			resp, body = s.post(officePayer, "/console/shop/payments", verify, url.Values{"decision": {"reject"}, "reason": {"  "}})
			officeExpect(t, "rejection without a reason", resp, body, 400, "needs its reason")
			resp, _ = post(t, s.clients[officePayer], s.srv.URL+verify, url.Values{"decision": {"approve"}})
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("a decision without the form's token: %d", resp.StatusCode)
			}
			resp, _ = s.post(officeCashier, "/console/shop/pos", verify, url.Values{"decision": {"approve"}})
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("a decision by the cashier: %d", resp.StatusCode)
			}
			resp, _ = s.post(officePayer, "/console/shop/payments", verify, url.Values{"decision": {"reject"}, "reason": {"Amount differs"}})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("rejection: %d", resp.StatusCode)
			}
			resp, body = s.get(officePayer, resp.Header.Get("Location"))
			officeExpect(t, "after the rejection", resp, body, 200, "payment rejected", "No payment is waiting")
			got, _ := s.svc.OrderFor(context.Background(), s.users[officeOwner], o.ID)
			if got.Status != ord.StatusPendingPayment {
				t.Fatalf("rejected order: %s", got.Status)
			}

			if _, err := s.svc.UploadProof(context.Background(), s.users[officeCustomer], o.ID, officePNG(t), ""); err != nil {
				t.Fatal(err)
			}
			resp, _ = s.post(officeOwner, "/console/shop/payments", verify, url.Values{"decision": {"approve"}})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("approval: %d", resp.StatusCode)
			}
			resp, body = s.post(officeOwner, "/console/shop/payments", verify, url.Values{"decision": {"approve"}})
			officeExpect(t, "approving twice", resp, body, http.StatusConflict, "cannot move")
			if got, _ = s.svc.OrderFor(context.Background(), s.users[officeOwner], o.ID); got.Status != ord.StatusPaid {
				t.Fatalf("approved order: %s", got.Status)
			}
		})
	}
}

// TestOfficeMenu: an admin adds a category and an item, changes the item,
// sees refused input again with the service's message, cannot delete a
// category with items, imports a CSV (all rows or none); staff and
// customers are forbidden.
func TestOfficeMenu(t *testing.T) {
	for _, so := range officeStores() {
		t.Run(so.name, func(t *testing.T) {
			s := newOfficeShop(t, so.open)
			const page = "/console/shop/menu"
			resp, body := s.get(officeAdmin, page)
			officeExpect(t, "menu", resp, body, 200, "Drinks", "Kopi susu", "Rp 8.000")
			s.forbidden(page, officeCashier, officeKitchen, officePayer, officeCustomer)
			s.forbidden("/console/shop/settings", officeCashier, officeCustomer)

			resp, _ = s.post(officeAdmin, page, "/console/shop/menu/categories", url.Values{"name": {"Snacks"}, "position": {"2"}})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("new category: %d", resp.StatusCode)
			}
			m, _ := s.svc.Menu(context.Background(), false)
			if len(m.Categories) != 2 || m.Categories[1].Name != "Snacks" {
				t.Fatalf("categories: %+v", m.Categories)
			}
			snacks := m.Categories[1].ID
			item := url.Values{"category": {snacks}, "name": {"Pisang goreng"}, "price": {"5O00"}, "available": {"1"}}
			resp, body = s.post(officeAdmin, page, "/console/shop/menu/items", item)
			officeExpect(t, "bad price", resp, body, 400, "price must be a whole number", `value="Pisang goreng"`, `value="5O00"`)
			item.Set("price", "5000")
			item.Set("name", " ")
			resp, body = s.post(officeAdmin, page, "/console/shop/menu/items", item)
			officeExpect(t, "no name", resp, body, 400, "name is required", `value="5000"`)
			item.Set("name", "Pisang goreng")
			resp, _ = s.post(officeAdmin, page, "/console/shop/menu/items", item)
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("new item: %d", resp.StatusCode)
			}
			m, _ = s.svc.Menu(context.Background(), false)
			banana := m.Categories[1].Items[0]
			if banana.Price != 5000 || !banana.Available {
				t.Fatalf("item: %+v", banana)
			}
			item.Del("available")
			item.Set("price", "6000")
			resp, _ = s.post(officeOwner, page, "/console/shop/menu/items/"+banana.ID, item)
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("update item: %d", resp.StatusCode)
			}
			m, _ = s.svc.Menu(context.Background(), false)
			if b := m.Categories[1].Items[0]; b.Price != 6000 || b.Available {
				t.Fatalf("updated item: %+v", b)
			}
			item.Set("price", "-1")
			resp, body = s.post(officeAdmin, page, "/console/shop/menu/items/"+banana.ID, item)
			officeExpect(t, "negative price", resp, body, 400, "price must be an integer amount", `value="-1"`, "<details open>")

			resp, body = s.post(officeAdmin, page, "/console/shop/menu/categories/"+snacks+"/delete", url.Values{})
			officeExpect(t, "delete a category with items", resp, body, http.StatusConflict, "still has items")
			resp, _ = s.post(officeAdmin, page, "/console/shop/menu/items/"+banana.ID+"/delete", url.Values{})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("delete item: %d", resp.StatusCode)
			}
			resp, _ = s.post(officeAdmin, page, "/console/shop/menu/categories/"+snacks+"/delete", url.Values{})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("delete category: %d", resp.StatusCode)
			}
			resp, _ = s.post(officeKitchen, page, "/console/shop/menu/categories", url.Values{"name": {"Hacked"}})
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("a category by the kitchen: %d", resp.StatusCode)
			}

			resp, body = s.importCSV(officeAdmin, "category,name,price\nFood,Nasi goreng,20000\nFood,Mie goreng,abc\n")
			officeExpect(t, "bad import", resp, body, http.StatusUnprocessableEntity, "Nothing was imported", "<td>3</td>", "whole number of rupiah")
			if m, _ = s.svc.Menu(context.Background(), false); len(m.Categories) != 1 {
				t.Fatalf("a refused import wrote %d categories", len(m.Categories))
			}
			resp, body = s.importCSV(officeAdmin, "category,name,price,available\nFood,Nasi goreng,20000,yes\nDrinks,Kopi susu,13000,yes\n")
			officeExpect(t, "import", resp, body, 200, "Import done: 1 categories created, 1 items created, 1 items updated", "Nasi goreng", "Rp 13.000")
		})
	}
}

// importCSV posts a menu CSV as the user of number.
func (s *officeShop) importCSV(number, csv string) (*http.Response, string) {
	s.t.Helper()
	_, page := s.get(number, "/console/shop/menu")
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.WriteField("csrf", officeCSRF(s.t, page))
	fw, _ := mw.CreateFormFile("file", "menu.csv")
	fw.Write([]byte(csv))
	mw.Close()
	req, _ := http.NewRequest("POST", s.srv.URL+"/console/shop/menu/import", &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := s.clients[number].Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// TestOfficeSettings: the settings form shows the settings; numbers that
// are not and settings the service refuses are shown again with the
// message; good ones are saved.
func TestOfficeSettings(t *testing.T) {
	s := newOfficeShop(t, officeStores()[0].open)
	const page = "/console/shop/settings"
	resp, body := s.get(officeAdmin, page)
	officeExpect(t, "settings", resp, body, 200, `value="ORD"`, `value="Asia/Jakarta"`, `value="10000"`)
	form := url.Values{"order_prefix": {"KOPI"}, "time_zone": {"Asia/Makassar"}, "shop_lat": {"-8.65"}, "shop_lng": {"115.2"},
		"delivery_base_fee": {"8000"}, "delivery_per_km": {"2000"}, "delivery_max_km": {"NaN"}, "payment_expiry_minutes": {"30"}}
	resp, body = s.post(officeAdmin, page, page, form)
	officeExpect(t, "not a number", resp, body, 400, "must be numbers", `value="KOPI"`)
	form.Set("delivery_max_km", "10")
	form.Set("order_prefix", "kopi 1")
	resp, body = s.post(officeAdmin, page, page, form)
	officeExpect(t, "bad prefix", resp, body, 400, "orderPrefix must be 1 to 8", `value="kopi 1"`)
	form.Set("order_prefix", "KOPI")
	resp, _ = s.post(officeAdmin, page, page, form)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != page+"?saved=1" {
		t.Fatalf("save: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	st, _ := s.svc.Settings(context.Background())
	if st.OrderPrefix != "KOPI" || st.ShopLat != -8.65 || st.DeliveryMaxKm != 10 || st.PaymentExpiryMinutes != 30 {
		t.Fatalf("saved: %+v", st)
	}
	resp, body = s.get(officeOwner, page+"?saved=1")
	officeExpect(t, "saved", resp, body, 200, "Settings saved.", `value="Asia/Makassar"`)
	s.forbidden(page, officeKitchen, officeCashier)
}

// TestOfficeLedger: after a sale, the owner's ledger has the day's total,
// the chart with its table and the CSV export (the API's columns); a bad
// period is refused on the page; an admin is forbidden.
func TestOfficeLedger(t *testing.T) {
	for _, so := range officeStores() {
		t.Run(so.name, func(t *testing.T) {
			s := newOfficeShop(t, so.open)
			o, err := s.svc.PlaceCounterOrder(context.Background(), s.users[officeCashier], ord.OrderRequest{ShippingType: ord.ShippingDineIn,
				Items: []ord.OrderItemRequest{{MenuID: s.tea.ID, Quantity: 3}}}, "QRIS", "")
			if err != nil {
				t.Fatal(err)
			}
			resp, body := s.get(officeOwner, "/console/shop/ledger")
			officeExpect(t, "ledger", resp, body, 200, "<svg", `class="bar"`, "Rp 24.000", "QRIS", o.OrderNumber, "ledger.csv?from=", `scope="row"`)
			if strings.Contains(body, "style=") {
				t.Fatal("the ledger has an inline style, which the CSP refuses")
			}
			resp, body = s.get(officeOwner, "/console/shop/ledger?from=2026-02-10&to=2026-01-01")
			officeExpect(t, "bad period", resp, body, 400, "from not after to")
			resp, csv := s.get(officeOwner, "/console/shop/ledger.csv")
			officeExpect(t, "csv", resp, csv, 200, "day,paid_at,order_number,payment_method,items_total,shipping_cost,total_price,status\n", o.OrderNumber+",QRIS,24000,0,24000,PAID")
			if resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" || !strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
				t.Fatalf("csv headers: %v", resp.Header)
			}
			s.forbidden("/console/shop/ledger", officeAdmin, officeCashier, officeCustomer)
			s.forbidden("/console/shop/ledger.csv", officeAdmin)
		})
	}
}

// TestOfficeUsers: the owner gives a staff user the payments menu and
// makes the admin a customer; its own role and a bad role are refused with
// the service's message; bans are listed and lifted; an admin is
// forbidden both pages.
func TestOfficeUsers(t *testing.T) {
	for _, so := range officeStores() {
		t.Run(so.name, func(t *testing.T) {
			s := newOfficeShop(t, so.open)
			const page = "/console/shop/users"
			resp, body := s.get(officeOwner, page)
			officeExpect(t, "users", resp, body, 200, "6281100000003", "(you)", `value="payments"`)
			kitchen := s.users[officeKitchen]
			resp, _ = s.post(officeOwner, page, page+"/"+kitchen.ID+"/role", url.Values{"role": {"STAFF"}, "menus": {"kitchen", "payments"}})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("set role: %d", resp.StatusCode)
			}
			resp, body = s.get(officeKitchen, "/console/shop/payments")
			officeExpect(t, "payments after the grant", resp, body, 200)
			s.forbidden("/console/shop/pos", officeKitchen)
			resp, body = s.post(officeOwner, page, page+"/"+s.users[officeOwner].ID+"/role", url.Values{"role": {"STAFF"}})
			officeExpect(t, "own role", resp, body, 403, "cannot change its own role")
			resp, body = s.post(officeOwner, page, page+"/"+kitchen.ID+"/role", url.Values{"role": {"BOSS"}})
			officeExpect(t, "bad role", resp, body, 400, "role must be CUSTOMER, STAFF, ADMIN or OWNER")
			resp, _ = s.post(officeAdmin, "/console/shop/menu", page+"/"+kitchen.ID+"/role", url.Values{"role": {"OWNER"}})
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("a role set by an admin: %d", resp.StatusCode)
			}
			s.forbidden(page, officeAdmin, officeKitchen, officeCustomer)

			// Four unverified sign-ins of a number: the fourth is refused and
			// the number banned for an hour.
			for range 4 {
				s.svc.Login(context.Background(), "081299990000", "solved", "198.51.100.7")
			}
			resp, body = s.get(officeOwner, "/console/shop/bans")
			officeExpect(t, "bans", resp, body, 200, "6281299990000", "1 hour")
			bans, _ := s.svc.Bans(context.Background())
			var id string
			for _, b := range bans {
				if b.Value == "6281299990000" {
					id = b.ID
				}
			}
			s.forbidden("/console/shop/bans", officeAdmin)
			resp, _ = s.post(officeOwner, "/console/shop/bans", "/console/shop/bans/"+id+"/lift", url.Values{})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("lift: %d", resp.StatusCode)
			}
			if _, err := s.svc.Login(context.Background(), "081299990000", "solved", "198.51.100.7"); err != nil {
				t.Fatalf("a login after the lift: %v", err)
			}
			resp, body = s.post(officeOwner, "/console/shop/bans", "/console/shop/bans/nope/lift", url.Values{})
			officeExpect(t, "lift a missing ban", resp, body, 404, "no such ban")
		})
	}
}

// TestOfficeCSRF: every back-office form is refused, and changes nothing,
// without its token, with another session's token, or posted cross-site.
func TestOfficeCSRF(t *testing.T) {
	s := newOfficeShop(t, officeStores()[0].open)
	_, adminPage := s.get(officeAdmin, "/console/shop/menu")
	_, ownerPage := s.get(officeOwner, "/console/shop/menu")
	other, own := officeCSRF(t, adminPage), officeCSRF(t, ownerPage)
	id := s.users[officeKitchen].ID
	for _, path := range []string{"/console/shop/pos", "/console/shop/payments/x/verify", "/console/shop/menu/categories",
		"/console/shop/menu/categories/x", "/console/shop/menu/categories/x/delete", "/console/shop/menu/items",
		"/console/shop/menu/items/" + s.tea.ID, "/console/shop/menu/items/" + s.tea.ID + "/delete", "/console/shop/settings",
		"/console/shop/users/" + id + "/role", "/console/shop/bans/x/lift"} {
		form := url.Values{"name": {"X"}, "role": {"ADMIN"}, "order_prefix": {"X"}, "price": {"1"}, "category": {s.tea.CategoryID}}
		for what, hdr := range map[string][]string{"no token": nil, "another session's token": {"Body", form.Encode() + "&csrf=" + other},
			"cross-site": {"Body", form.Encode() + "&csrf=" + own, "Sec-Fetch-Site", "cross-site"}} {
			if resp, _ := post(t, s.clients[officeOwner], s.srv.URL+path, form, hdr...); resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s: %d, want 403", path, what, resp.StatusCode)
			}
		}
	}
	if u, _ := s.svc.Users(context.Background()); !officeHasMenus(u, id, "kitchen") {
		t.Fatal("a refused form changed a role")
	}
	if m, _ := s.svc.Menu(context.Background(), false); len(m.Categories) != 1 || len(m.Categories[0].Items) != 2 {
		t.Fatalf("a refused form changed the menu: %+v", m)
	}
}

// TestOfficeNoInlineCode: no back-office page has an inline style or
// script, which the console's CSP (default-src 'self') would block.
func TestOfficeNoInlineCode(t *testing.T) {
	s := newOfficeShop(t, officeStores()[0].open)
	s.waitingOrder()
	for _, page := range []string{"pos", "payments", "menu", "settings", "ledger", "users", "bans"} {
		resp, body := s.get(officeOwner, "/console/shop/"+page)
		officeExpect(t, page, resp, body, 200, "/console/static/office.css")
		if strings.Contains(body, "style=") || strings.Contains(body, "<style") || strings.Contains(body, "<script>") ||
			strings.Contains(body, " onclick=") {
			t.Errorf("%s has inline code", page)
		}
	}
}
