package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	ord "github.com/seedhq/portal/internal/ordering"
)

// The shop's test users, by messenger number.
const (
	officeOwner    = ownerNumber
	officeAdmin    = "081100000002"
	officeCashier  = "081100000003" // STAFF: point of sale only
	officeKitchen  = "081100000004" // STAFF: kitchen only
	officePayer    = "081100000005" // STAFF: payments only
	officeCustomer = "081100000006"
)

// officeShop is a portal with its back-office users signed in, and a
// small menu.
type officeShop struct {
	*portal
	t *testing.T
	// users and their signed-in console clients, by number
	users   map[string]ord.User
	jwts    map[string]string
	clients map[string]*http.Client
	coffee  ord.MenuItem // Rp 12.000
	tea     ord.MenuItem // Rp 8.000
}

// newOfficeShop builds the portal with the menu of a coffee and a tea, and
// signs in the owner, an admin, three staff users with one menu each and a
// customer.
func newOfficeShop(t *testing.T, opts ...portalOption) *officeShop {
	t.Helper()
	p := newPortal(t, append(opts, withMenu("Drinks", ord.MenuItem{Name: "Kopi susu", Price: 12_000},
		ord.MenuItem{Name: "Teh manis", Price: 8_000, Position: 1}))...)
	s := &officeShop{portal: p, t: t, users: map[string]ord.User{}, jwts: map[string]string{},
		clients: map[string]*http.Client{}, coffee: p.menu[0], tea: p.menu[1]}
	for _, u := range []struct {
		number string
		role   ord.Role
		menus  []string
	}{{officeOwner, ord.RoleOwner, nil}, {officeAdmin, ord.RoleAdmin, nil}, {officeCashier, ord.RoleStaff, []string{ord.MenuPOS}},
		{officeKitchen, ord.RoleStaff, []string{ord.MenuKitchen}}, {officePayer, ord.RoleStaff, []string{ord.MenuPayments}},
		{officeCustomer, ord.RoleCustomer, nil}} {
		c, _ := p.signInShop(t, u.number)
		user := p.shopUser(t, u.number)
		if u.role != user.Role {
			var err error
			if user, err = p.shop.SetRole(context.Background(), nil, user.ID, u.role, u.menus); err != nil {
				t.Fatal(err)
			}
		}
		s.users[u.number], s.jwts[u.number], s.clients[u.number] = user, p.shopCookie(c, "portal_console_shop"), c
	}
	return s
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
	form.Set("csrf", csrfOf(s.t, page))
	return post(s.t, s.clients[number], s.srv.URL+path, form)
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

// waitingOrder places a customer's order of a coffee and sends its receipt.
func (s *officeShop) waitingOrder() ord.Order {
	s.t.Helper()
	ctx := context.Background()
	cust := s.users[officeCustomer]
	o, err := s.shop.PlaceOrder(ctx, cust, ord.OrderRequest{ShippingType: ord.ShippingPickup,
		Items: []ord.OrderItemRequest{{MenuID: s.coffee.ID, Quantity: 1}}})
	if err != nil {
		s.t.Fatal(err)
	}
	if o, err = s.shop.UploadProof(ctx, cust, o.ID, testPNG(40, 30), "BCA a.n. Sari"); err != nil {
		s.t.Fatal(err)
	}
	return o
}

// TestOfficePOS: a cashier sells two coffees and a tea for cash and gets
// the receipt with the change; short cash, bad quantities and an empty sale
// are refused on the page and place nothing; a post without the token is
// refused; the kitchen-only staff, a customer are forbidden.
func TestOfficePOS(t *testing.T) {
	forEachStore(t, func(t *testing.T, kind string) {
		s := newOfficeShop(t, onStore(kind))
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
		if l, _ := s.shop.KitchenOrders(context.Background()); len(l) != 0 {
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
		l, _ := s.shop.KitchenOrders(context.Background())
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

// TestOfficePayments: a receipt waiting for verification is listed with
// its image (served with its type, not sniffed, to the payments users
// only); a rejection needs its reason; a rejected order sent again is
// approved and goes to the kitchen; the cashier without the payments menu
// and an admin-less customer are forbidden.
func TestOfficePayments(t *testing.T) {
	forEachStore(t, func(t *testing.T, kind string) {
		s := newOfficeShop(t, onStore(kind))
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
		got, _ := s.shop.OrderFor(context.Background(), s.users[officeOwner], o.ID)
		if got.Status != ord.StatusPendingPayment {
			t.Fatalf("rejected order: %s", got.Status)
		}

		if _, err := s.shop.UploadProof(context.Background(), s.users[officeCustomer], o.ID, testPNG(40, 30), ""); err != nil {
			t.Fatal(err)
		}
		resp, _ = s.post(officeOwner, "/console/shop/payments", verify, url.Values{"decision": {"approve"}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("approval: %d", resp.StatusCode)
		}
		resp, body = s.post(officeOwner, "/console/shop/payments", verify, url.Values{"decision": {"approve"}})
		officeExpect(t, "approving twice", resp, body, http.StatusConflict, "cannot move")
		if got, _ = s.shop.OrderFor(context.Background(), s.users[officeOwner], o.ID); got.Status != ord.StatusPaid {
			t.Fatalf("approved order: %s", got.Status)
		}
	})
}

// TestOfficeMenu: an admin adds a category and an item, changes the item,
// sees refused input again with the service's message, cannot delete a
// category with items, imports a CSV (all rows or none); staff and
// customers are forbidden.
func TestOfficeMenu(t *testing.T) {
	forEachStore(t, func(t *testing.T, kind string) {
		s := newOfficeShop(t, onStore(kind))
		const page = "/console/shop/menu"
		resp, body := s.get(officeAdmin, page)
		officeExpect(t, "menu", resp, body, 200, "Drinks", "Kopi susu", "Rp 8.000")
		s.forbidden(page, officeCashier, officeKitchen, officePayer, officeCustomer)
		s.forbidden("/console/shop/settings", officeCashier, officeCustomer)

		resp, _ = s.post(officeAdmin, page, "/console/shop/menu/categories", url.Values{"name": {"Snacks"}, "position": {"2"}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("new category: %d", resp.StatusCode)
		}
		m, _ := s.shop.Menu(context.Background(), false)
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
		m, _ = s.shop.Menu(context.Background(), false)
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
		m, _ = s.shop.Menu(context.Background(), false)
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
		if m, _ = s.shop.Menu(context.Background(), false); len(m.Categories) != 1 {
			t.Fatalf("a refused import wrote %d categories", len(m.Categories))
		}
		resp, body = s.importCSV(officeAdmin, "category,name,price,available\nFood,Nasi goreng,20000,yes\nDrinks,Kopi susu,13000,yes\n")
		officeExpect(t, "import", resp, body, 200, "Import done: 1 categories created, 1 items created, 1 items updated", "Nasi goreng", "Rp 13.000")
	})
}

// importCSV posts a menu CSV as the user of number.
func (s *officeShop) importCSV(number, csv string) (*http.Response, string) {
	s.t.Helper()
	_, page := s.get(number, "/console/shop/menu")
	return postMultipart(s.t, s.clients[number], s.srv.URL+"/console/shop/menu/import", url.Values{"csrf": {csrfOf(s.t, page)}},
		formFile{"file", "menu.csv", []byte(csv)})
}

// TestOfficeSettings: the settings form shows the settings; numbers that
// are not and settings the service refuses are shown again with the
// message; good ones are saved.
func TestOfficeSettings(t *testing.T) {
	s := newOfficeShop(t)
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
	st, _ := s.shop.Settings(context.Background())
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
	forEachStore(t, func(t *testing.T, kind string) {
		s := newOfficeShop(t, onStore(kind))
		o, err := s.shop.PlaceCounterOrder(context.Background(), s.users[officeCashier], ord.OrderRequest{ShippingType: ord.ShippingDineIn,
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

// TestOfficeUsers: the owner gives a staff user the payments menu and
// makes the admin a customer; its own role and a bad role are refused with
// the service's message; bans are listed and lifted; an admin is
// forbidden both pages.
func TestOfficeUsers(t *testing.T) {
	forEachStore(t, func(t *testing.T, kind string) {
		s := newOfficeShop(t, onStore(kind))
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
			s.shop.Login(context.Background(), "081299990000", s.solveChallenge(t), "198.51.100.7")
		}
		resp, body = s.get(officeOwner, "/console/shop/bans")
		officeExpect(t, "bans", resp, body, 200, "6281299990000", "1 hour")
		bans, _ := s.shop.Bans(context.Background())
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
		if _, err := s.shop.Login(context.Background(), "081299990000", s.solveChallenge(t), "198.51.100.7"); err != nil {
			t.Fatalf("a login after the lift: %v", err)
		}
		resp, body = s.post(officeOwner, "/console/shop/bans", "/console/shop/bans/nope/lift", url.Values{})
		officeExpect(t, "lift a missing ban", resp, body, 404, "no such ban")
	})
}

// TestOfficeCSRF: every back-office form is refused, and changes nothing,
// without its token, with another session's token, or posted cross-site.
func TestOfficeCSRF(t *testing.T) {
	s := newOfficeShop(t)
	_, adminPage := s.get(officeAdmin, "/console/shop/menu")
	_, ownerPage := s.get(officeOwner, "/console/shop/menu")
	other, own := csrfOf(t, adminPage), csrfOf(t, ownerPage)
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
	if u, _ := s.shop.Users(context.Background()); !officeHasMenus(u, id, "kitchen") {
		t.Fatal("a refused form changed a role")
	}
	if m, _ := s.shop.Menu(context.Background(), false); len(m.Categories) != 1 || len(m.Categories[0].Items) != 2 {
		t.Fatalf("a refused form changed the menu: %+v", m)
	}
}

// TestOfficeNoInlineCode: no back-office page has an inline style or
// script, which the console's CSP (default-src 'self') would block.
func TestOfficeNoInlineCode(t *testing.T) {
	s := newOfficeShop(t)
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
