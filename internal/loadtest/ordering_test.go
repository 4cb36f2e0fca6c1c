//go:build loadtest

package loadtest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/httpapi"
	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/challenge"
	"github.com/seedhq/portal/internal/webhook"
	"github.com/seedhq/portal/pkg/client"
)

// Sizes of the ordering runs.
const (
	orderCustomers = 50               // concurrent customers placing orders
	orderRun       = 60 * time.Second // timed orders per store
	loginWorkers   = 8                // concurrent complete logins
	loginRun       = 20 * time.Second
	providerConns  = 8
	providerOrders = 200000 // at most this many unpaid orders are paid by the provider run
	orderTarget    = 50.0   // ms, p99 of an order with 50 customers
	gatewaySecretL = "whsec_bG9hZHRlc3QtZ2F0ZXdheS1zZWNyZXQtMzJieXRlcyE="
	providerSecret = "loadtest-provider-secret"
)

// orderingStore is what the ordering runs need of a store.
type orderingStore interface {
	apiStore
	ordering.Store
}

// TestOrderingLoad measures the ordering API on PostgreSQL (the target)
// and bbolt: complete messenger logins per second (challenge solved by the
// client, login, signed gateway webhook, poll), orders per second from 50
// customers back to back for 60 s with p50/p99 (and every order stored
// checked), and provider webhooks per second.
func TestOrderingLoad(t *testing.T) {
	defer printSummary()
	t.Run("postgres", func(t *testing.T) { runOrdering(t, "postgres", openPostgres(t)) })
	t.Run("bolt", func(t *testing.T) { runOrdering(t, "bolt", openBolt(t)) })
}

func runOrdering(t *testing.T, kind string, st orderingStore) {
	ctx := t.Context()
	svcExam, ids, idem := newServices(t, st)
	key := []byte("loadtest-ordering-key-32-bytes!!")
	pow, err := challenge.NewPoW(key, challenge.WithSpentStore(st))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := ordering.NewService(st, ordering.Config{JWTKey: key, MessengerLinkBase: "https://wa.me/6281100000000",
		OwnerNumber: "628110000001", Challenge: pow, Payments: ordering.SandboxPayments{BaseURL: "http://portal.test"},
		Blobs: st.(interface{ Blobs() blobstore.Store }).Blobs(), MerchantID: "M-1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := webhook.NewVerifier([]string{gatewaySecretL})
	if err != nil {
		t.Fatal(err)
	}
	// Customers come from many addresses: the load generator is a trusted
	// proxy and names each login's address in X-Forwarded-For.
	srv := httptest.NewServer(httpapi.New(httpapi.Options{Exam: svcExam, Identity: ids, Idempotency: idem, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Ordering: &ordhttp.Options{Service: svc, PoW: pow, Gateway: gw, ProviderSecrets: []string{providerSecret}}}))
	t.Cleanup(srv.Close)
	srvURL := srv.URL
	addr := strings.TrimPrefix(srvURL, "http://")

	// Logins: each worker logs new numbers in, end to end.
	var logins atomic.Int64
	var seq atomic.Int64
	var wg sync.WaitGroup
	stopAt := time.Now().Add(loginRun)
	loginLat := make([][]time.Duration, loginWorkers)
	for w := range loginWorkers {
		wg.Go(func() {
			from := &forwardedFor{}
			c, _ := client.NewClient(srvURL, client.WithHTTPClient(&http.Client{Transport: from}))
			for time.Now().Before(stopAt) {
				t0 := time.Now()
				n := seq.Add(1)
				from.addr = fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255)
				number := fmt.Sprintf("62812%08d", n)
				if _, err := loginOnce(ctx, c, number); err != nil {
					t.Error(err)
					return
				}
				loginLat[w] = append(loginLat[w], time.Since(t0))
				logins.Add(1)
			}
		})
	}
	wg.Wait()
	lr := summarize(t, loginLat, loginRun)
	report("complete messenger logins (challenge, login, signed webhook, poll), 8 workers", kind, lr.String(), "-", nil)

	// The menu and 50 customers.
	owner, err := loginOnce(ctx, mustClient(t, srvURL), "628110000001")
	if err != nil {
		t.Fatal(err)
	}
	oc := mustClient(t, srvURL, client.WithOrderingToken(owner))
	cat, _, err := oc.Ordering.Menu.CreateCategory(ctx, "Kopi", 1)
	if err != nil {
		t.Fatal(err)
	}
	var itemIDs []string
	for i := range 20 {
		it, _, err := oc.Ordering.Menu.CreateItem(ctx, &client.MenuItem{CategoryID: cat.ID, Name: fmt.Sprint("Menu ", i), Price: int64(10000 + 500*i)})
		if err != nil {
			t.Fatal(err)
		}
		itemIDs = append(itemIDs, it.ID)
	}
	conns := make([]loadConn, orderCustomers)
	for i := range conns {
		jwt, err := loginOnce(ctx, mustClient(t, srvURL), fmt.Sprintf("62813%08d", i))
		if err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf(`{"shippingType":"DELIVERY","shippingAddress":"Jl. Merdeka %d","shippingCity":"Bandung","items":[{"menuId":%q,"quantity":2},{"menuId":%q,"quantity":1,"notes":"pedas"}]}`,
			i, itemIDs[i%len(itemIDs)], itemIDs[(i+7)%len(itemIDs)])
		req := fmt.Sprintf("POST /api/orders HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			addr, jwt, len(body), body)
		conns[i] = loadConn{addr: addr, reqs: [][]byte{[]byte(req)}}
	}
	before := countOrders(t, st)
	res := driveHTTP(t, conns, http.StatusCreated, 0, orderRun)
	stored := countOrders(t, st) - before
	report(fmt.Sprintf("orders, %d customers back to back, 60 s", orderCustomers), kind, res.String(),
		"p99 < 50 ms", ptr(res.P99 < orderTarget))
	report("orders stored", kind, fmt.Sprintf("%d of %d created (201)", stored, res.N), "all", ptr(stored == res.N))
	// The same customers at half that rate, an open loop whose latency
	// counts from each order's scheduled time: a busy lunch hour, not the
	// CPU's limit.
	pace := time.Duration(float64(time.Second) * float64(orderCustomers) / (res.PerSec / 2))
	half := driveHTTP(t, conns, http.StatusCreated, pace, 30*time.Second)
	report(fmt.Sprintf("orders, %d customers at half that rate (open loop), 30 s", orderCustomers), kind, half.String(), "-", nil)

	// Provider webhooks: PAID for orders placed beforehand.
	list, err := st.ListOrders(ctx, ordering.OrderQuery{Statuses: []ordering.Status{ordering.StatusPendingPayment}, Limit: providerOrders})
	if err != nil {
		t.Fatal(err)
	}
	pconns := make([]loadConn, providerConns)
	for i, o := range list {
		body := fmt.Sprintf(`{"invoiceId":%q,"merchantId":"M-1","amount":%d,"status":"PAID","paidAt":"2026-11-25T10:00:00Z"}`, o.InvoiceID, o.TotalPrice)
		req := fmt.Sprintf("POST /api/payments/provider-webhook HTTP/1.1\r\nHost: %s\r\nx-provider-signature: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			addr, webhook.SignHex(providerSecret, []byte(body)), len(body), body)
		c := &pconns[i%providerConns]
		c.addr, c.reqs = addr, append(c.reqs, []byte(req))
	}
	pr := driveHTTP(t, pconns, http.StatusOK, 0, 10*time.Second)
	what := "each applied once"
	if pr.N > len(list) {
		what = fmt.Sprintf("%d orders: the last %d were repeats (DUPLICATE)", len(list), pr.N-len(list))
	}
	report("provider webhooks (PAID, signed), 8 connections, 10 s", kind, fmt.Sprintf("%s; %s", pr, what), "-", nil)
}

// loginOnce logs number in through the HTTP API and returns the JWT.
func loginOnce(ctx context.Context, c *client.Client, number string) (string, error) {
	ls, _, err := c.Ordering.Auth.Login(ctx, number, "")
	if err != nil {
		return "", fmt.Errorf("login: %w", err)
	}
	if _, _, err := c.Ordering.Auth.DeliverGatewayMessage(ctx, gatewaySecretL, "m"+ls.Token[4:], number, "VERIFY_"+ls.Token); err != nil {
		return "", fmt.Errorf("gateway: %w", err)
	}
	st, _, err := c.Ordering.Auth.Poll(ctx, ls.Token)
	if err != nil {
		return "", fmt.Errorf("poll: %w", err)
	}
	if st.Status != "VERIFIED" {
		return "", fmt.Errorf("poll: %s", st.Status)
	}
	return st.Token, nil
}

func mustClient(t *testing.T, base string, opts ...client.Option) *client.Client {
	c, err := client.NewClient(base, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func countOrders(t *testing.T, st ordering.Store) int {
	list, err := st.ListOrders(t.Context(), ordering.OrderQuery{})
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

// forwardedFor is a transport that names the client's address in
// X-Forwarded-For, as a reverse proxy in front of the portal would.
type forwardedFor struct{ addr string }

func (f *forwardedFor) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-For", f.addr)
	return http.DefaultTransport.RoundTrip(r)
}
