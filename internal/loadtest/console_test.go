//go:build loadtest

package loadtest

import (
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/console"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/challenge"
	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/internal/webhook"
)

// Sizes of the console run (docs/benchmarks.md, "Console pages").
const (
	consoleServers   = 1000              // lab servers, each with a licence and a heartbeat
	consoleLinks     = 10000             // short links of one marketer
	consoleOrders    = 10000             // orders of the shop
	consoleCounter   = 3000              // ... of which paid at the counter (in the ledger)
	consoleKitchen   = 30                // ... of which still in the kitchen; the others completed
	consolePageRun   = 10 * time.Second  // timed requests per page, per store
	consoleConns     = 4                 // keep-alive connections of the load generator
	consolePageLimit = 100.0             // ms, p99 target of every page
	consoleOwner     = "628110000001"    // the shop's owner number
	consolePassword  = "console-Bench-1" // the operator's password
)

// consoleStore is what the console run needs of a store.
type consoleStore interface {
	apiStore
	links.Store
	ordering.Store
}

// TestConsoleLoad measures the console's pages (target: p99 under
// 100 ms) on both stores holding 1,000 lab servers with their licences
// and heartbeats, 10,000 short links of one marketer and 10,000 orders:
// each page for 10 s on 4 keep-alive connections back to back (a closed
// loop: the latency includes the queueing of 4 pages at once on 2 CPUs),
// signed in as the operator, the marketer or the shop's owner.
func TestConsoleLoad(t *testing.T) {
	defer printSummary()
	t.Run("bolt", func(t *testing.T) { runConsole(t, "bolt", openBolt(t)) })
	t.Run("postgres", func(t *testing.T) { runConsole(t, "postgres", openPostgres(t)) })
}

func runConsole(t *testing.T, kind string, st consoleStore) {
	ctx := t.Context()
	password.Cost = 4
	svc, ids, idem := newServices(t, st)
	if _, _, err := ids.EnsureAdmin(ctx, "admin", consolePassword); err != nil {
		t.Fatal(err)
	}
	linkSvc := links.NewService(st, links.Config{})
	key := []byte("loadtest-console-key-of-32-bytes")
	pow, err := challenge.NewPoW(key, challenge.WithSpentStore(st))
	if err != nil {
		t.Fatal(err)
	}
	ord, err := ordering.NewService(st, ordering.Config{JWTKey: key, MessengerLinkBase: "https://wa.me/6281100000000",
		OwnerNumber: consoleOwner, Challenge: pow, Payments: ordering.SandboxPayments{BaseURL: "http://portal.test"},
		Blobs: st.(interface{ Blobs() blobstore.Store }).Blobs(), MerchantID: "M-1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := webhook.NewVerifier([]string{gatewaySecretL})
	if err != nil {
		t.Fatal(err)
	}
	ordOpts := &ordhttp.Options{Service: ord, PoW: pow, Gateway: gw, ProviderSecrets: []string{providerSecret}}
	srv := httptest.NewServer(httpapi.New(httpapi.Options{Exam: svc, Identity: ids, Idempotency: idem, Links: linkSvc, Ordering: ordOpts,
		Console: console.New(console.Options{Exam: svc, Identity: ids, Key: key, Links: linkSvc,
			Ordering: &console.Ordering{Service: ord, PoW: pow}})}))
	t.Cleanup(srv.Close)

	start := time.Now()
	seedFleet(t, svc)
	marketer := seedLinks(t, linkSvc)
	shop := seedOrders(t, srv.URL, ord)
	ownerJWT := shop.owner
	report(fmt.Sprintf("console seed: %d lab servers, %d links, %d orders", consoleServers, consoleLinks, consoleOrders), kind,
		fmt.Sprintf("%.1f s", time.Since(start).Seconds()), "-", nil)

	operator := consoleSignIn(t, srv.URL+"/console/login", url.Values{"username": {"admin"}, "password": {consolePassword}}, "portal_console")
	linkSession := consoleSignIn(t, srv.URL+"/console/links/login", url.Values{"api_key": {marketer.key}}, "portal_console_links")
	addr := strings.TrimPrefix(srv.URL, "http://")
	pages := []struct {
		path, cookie string
	}{
		{"/console/fleet", "portal_console=" + operator},
		{"/console/fleet?status=online&school=Sekolah+2010050", "portal_console=" + operator},
		{"/console/licenses", "portal_console=" + operator},
		{"/console/exams", "portal_console=" + operator},
		{"/console/sync-logs", "portal_console=" + operator},
		{"/console/links/", "portal_console_links=" + linkSession},
		{"/console/links/?q=promo%2F9999", "portal_console_links=" + linkSession},
		{fmt.Sprintf("/console/links/%d/stats", marketer.link), "portal_console_links=" + linkSession},
		{fmt.Sprintf("/console/links/%d/edit", marketer.link), "portal_console_links=" + linkSession},
		{"/console/links/campaigns", "portal_console_links=" + linkSession},
		{"/console/shop/", "portal_console_shop=" + ownerJWT},
		{"/console/shop/kitchen", "portal_console_shop=" + ownerJWT},
		{"/console/shop/orders", "portal_console_shop=" + shop.customer},
		{"/console/shop/orders/" + shop.order, "portal_console_shop=" + shop.customer},
		{"/console/shop/payments", "portal_console_shop=" + ownerJWT},
		{"/console/shop/ledger", "portal_console_shop=" + ownerJWT},
		{"/console/shop/pos", "portal_console_shop=" + ownerJWT},
		{"/console/shop/users", "portal_console_shop=" + ownerJWT},
	}
	for _, p := range pages {
		req := fmt.Appendf(nil, "GET %s HTTP/1.1\r\nHost: %s\r\nCookie: %s\r\nAccept-Language: id-ID\r\n\r\n", p.path, addr, p.cookie)
		conns := make([]loadConn, consoleConns)
		for i := range conns {
			conns[i] = loadConn{addr: addr, reqs: [][]byte{req}}
		}
		res := driveHTTP(t, conns, http.StatusOK, 0, consolePageRun)
		report("console GET "+p.path, kind, res.String(), fmt.Sprintf("p99 < %.0f ms", consolePageLimit), ptr(res.P99 < consolePageLimit))
	}
}

// seedFleet gives consoleServers lab servers a licence, a handshake and
// a heartbeat, ten schools' worth of one hundred servers each.
func seedFleet(t *testing.T, svc *exam.Service) {
	ctx := t.Context()
	for i := range consoleServers {
		npsn := fmt.Sprintf("2010%04d", i/100)
		code := fmt.Sprintf("LAB-%04d", i)
		hw := "HW-" + code
		lic, err := svc.GenerateLicense(ctx, exam.LicenseInput{NPSN: npsn, SchoolName: "Sekolah " + npsn, HardwareID: hw,
			MaxStudents: 500, DurationDays: 30, OperatingMode: "SEMI_OFFLINE"})
		if err != nil {
			t.Fatal(err)
		}
		v, err := svc.VerifyServer(ctx, exam.VerifyInput{ServerCode: code, NPSN: npsn, HardwareID: hw,
			LicenseToken: lic.License.Token, ClientIP: "127.0.0.1"})
		if err != nil {
			t.Fatal(err)
		}
		id, err := svc.AuthenticateServer(ctx, v.AccessToken)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Heartbeat(ctx, id, exam.HeartbeatInput{ServerCode: code, ConnectedStudents: i % 40,
			ActiveExamsCount: i % 3, PendingAnswers: i % 7, ClientVersion: "labagent 1.0"}); err != nil {
			t.Fatal(err)
		}
	}
}

// seededMarketer is the marketer of the console run: its API key and one
// of its links.
type seededMarketer struct {
	key  string
	link int64
}

// seedLinks creates a marketer with consoleLinks short links.
func seedLinks(t *testing.T, svc *links.Service) seededMarketer {
	ctx := t.Context()
	u, key, err := svc.CreateUser(ctx, links.NewUser{Email: "bench@example.com", Username: "bench", Password: consolePassword})
	if err != nil {
		t.Fatal(err)
	}
	m := seededMarketer{key: key}
	for i := range consoleLinks {
		l, err := svc.CreateLink(ctx, u.ID, links.LinkInput{URL: fmt.Sprintf("https://example.org/promo/%d?utm_source=bench", i),
			Title: fmt.Sprintf("Promo %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		m.link = l.ID
	}
	return m
}

// seededShop is the shop of the console run: the owner's and a customer's
// JWT and one of that customer's orders.
type seededShop struct {
	owner, customer, order string
}

// seedOrders places consoleOrders orders: consoleCounter of them paid at
// the counter, all but consoleKitchen of those completed, the others by
// 20 customers and waiting for payment.
func seedOrders(t *testing.T, base string, svc *ordering.Service) seededShop {
	ctx := t.Context()
	jwt, err := loginOnce(ctx, mustClient(t, base), consoleOwner)
	if err != nil {
		t.Fatal(err)
	}
	owner, err := svc.Authenticate(ctx, jwt)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := svc.CreateCategory(ctx, ordering.CategoryInput{Name: "Kopi", Position: 1})
	if err != nil {
		t.Fatal(err)
	}
	var items []string
	for i := range 20 {
		it, err := svc.CreateMenuItem(ctx, ordering.MenuItem{CategoryID: cat.ID, Name: fmt.Sprint("Menu ", i),
			Price: int64(10000 + 500*i), Available: true})
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it.ID)
	}
	shop := seededShop{owner: jwt}
	var customers []ordering.User
	for i := range 20 {
		jwt, err := loginOnce(ctx, mustClient(t, base), fmt.Sprintf("62813%08d", i))
		if err != nil {
			t.Fatal(err)
		}
		u, err := svc.Authenticate(ctx, jwt)
		if err != nil {
			t.Fatal(err)
		}
		customers = append(customers, u)
		shop.customer = jwt
	}
	for i := range consoleOrders {
		req := ordering.OrderRequest{ShippingType: "DELIVERY", ShippingAddress: fmt.Sprintf("Jl. Merdeka %d", i), ShippingCity: "Bandung",
			Items: []ordering.OrderItemRequest{{MenuID: items[i%len(items)], Quantity: 1 + i%3}, {MenuID: items[(i+7)%len(items)], Quantity: 1}}}
		if i >= consoleCounter {
			o, err := svc.PlaceOrder(ctx, customers[i%len(customers)], req)
			if err != nil {
				t.Fatalf("order %d: %v", i, err)
			}
			if o.UserID == customers[len(customers)-1].ID {
				shop.order = o.ID
			}
			continue
		}
		req.ShippingType, req.ShippingAddress, req.ShippingCity = "PICKUP", "", ""
		o, err := svc.PlaceCounterOrder(ctx, owner, req, "CASH", fmt.Sprint("Pelanggan ", i))
		if err != nil {
			t.Fatalf("order %d: %v", i, err)
		}
		if i < consoleCounter-consoleKitchen {
			for _, to := range []ordering.Status{ordering.StatusPreparing, ordering.StatusReady, ordering.StatusCompleted} {
				if _, err := svc.Transition(ctx, ordering.Actor{User: &owner}, o.ID, to, "", nil); err != nil {
					t.Fatalf("order %d to %s: %v", i, to, err)
				}
			}
		}
	}
	return shop
}

// consoleSignIn posts a sign-in form and returns the session cookie's
// value.
func consoleSignIn(t *testing.T, loginURL string, form url.Values, cookie string) string {
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.PostForm(loginURL, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == cookie && c.Value != "" {
			return c.Value
		}
	}
	t.Fatalf("sign-in at %s: %d, no %s cookie", loginURL, resp.StatusCode, cookie)
	return ""
}
