package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/testkit/proc"
	"github.com/seedhq/portal/pkg/client"
)

// TestOrderingEndToEndBolt runs a shop through the real binary on the
// embedded store: messenger logins with the built-in challenge and gateway
// stand-in, the menu, an order.
func TestOrderingEndToEndBolt(t *testing.T) {
	t.Parallel()
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), nil, "--ordering-owner-number", "0811-0000-001")
	runOrderingScenario(t, p)
}

// TestOrderingEndToEndPostgres is the same on PostgreSQL.
func TestOrderingEndToEndPostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), nil, "--ordering-owner-number", "0811-0000-001",
		"--database-url", pgtest.NewDatabase(t))
	runOrderingScenario(t, p)
}

// messengerLogin logs number in through pkg/client: the challenge is solved,
// the verification message goes through "portal admin ordering
// simulate-message" (the gateway stand-in), and WaitVerified takes the JWT.
func messengerLogin(t *testing.T, p *portalProc, number string) *client.Client {
	t.Helper()
	c, _ := messengerLoginToken(t, p, number)
	return c
}

// messengerLoginToken is messengerLogin that also returns the ordering JWT.
func messengerLoginToken(t *testing.T, p *portalProc, number string) (*client.Client, string) {
	t.Helper()
	ctx := t.Context()
	c, err := client.NewClient(p.apiURL(t))
	if err != nil {
		t.Fatal(err)
	}
	ls, _, err := c.Ordering.Auth.Login(ctx, number, "")
	if err != nil {
		t.Fatalf("login %s: %v", number, err)
	}
	if !strings.HasPrefix(ls.MagicLink, p.URL+"/sandbox/messenger?text=VERIFY_tok_") || ls.ExpiresIn != 90 {
		t.Fatalf("login: %+v", ls)
	}
	res := runPortal(t, nil, "", "admin", "ordering", "simulate-message", "--url", p.URL, "--from", number,
		"--text", "VERIFY_"+ls.Token, "--output", "json")
	if res.Code != 0 || !strings.Contains(res.Stdout, `"VERIFIED"`) {
		t.Fatalf("simulate-message: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	st, err := c.Ordering.Auth.WaitVerified(ctx, ls.Token, 50*time.Millisecond)
	if err != nil {
		t.Fatalf("WaitVerified: %v", err)
	}
	if st.User == nil || st.Token == "" {
		t.Fatalf("verified: %+v", st)
	}
	if _, _, err := c.Ordering.Auth.Poll(ctx, ls.Token); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("second poll: %v, want 409 TOKEN_USED", err)
	}
	return c, st.Token
}

func runOrderingScenario(t *testing.T, p *portalProc) {
	ctx := t.Context()
	owner := messengerLogin(t, p, "08110000001")
	me, _, err := owner.Ordering.Auth.Me(ctx)
	if err != nil || me.Role != "OWNER" {
		t.Fatalf("owner: %+v %v", me, err)
	}
	cat, _, err := owner.Ordering.Menu.CreateCategory(ctx, "Kopi", 1)
	if err != nil {
		t.Fatal(err)
	}
	latte, _, err := owner.Ordering.Menu.CreateItem(ctx, &client.MenuItem{CategoryID: cat.ID, Name: "Es kopi susu", Price: 18000})
	if err != nil {
		t.Fatal(err)
	}
	cust := messengerLogin(t, p, "081234567890")
	menu, _, err := cust.Ordering.Menu.Get(ctx)
	if err != nil || len(menu) != 1 || len(menu[0].Items) != 1 {
		t.Fatalf("menu: %+v %v", menu, err)
	}
	o, _, err := cust.Ordering.Orders.Create(ctx, &client.OrderRequest{ShippingType: "PICKUP",
		Items: []client.OrderItemRequest{{MenuID: latte.ID, Quantity: 2, Notes: "less ice"}}})
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().In(mustLoadLocation(t, "Asia/Jakarta")).Format("20060102")
	if o.Status != "PENDING_PAYMENT" || o.TotalPrice != 36000 || o.OrderNumber != "ORD-"+today+"-001" ||
		!strings.HasPrefix(o.ProviderPaymentURL, p.URL+"/sandbox/pay/inv_") {
		t.Fatalf("order: %+v", o)
	}
	if _, _, err := cust.Ordering.Users.List(ctx); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a customer lists users: %v, want 403", err)
	}
	users, _, err := owner.Ordering.Users.List(ctx)
	if err != nil || len(users) != 2 {
		t.Fatalf("users: %+v %v", users, err)
	}
	if _, _, err := cust.Ordering.Orders.Cancel(ctx, o.ID); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	got, _, err := cust.Ordering.Orders.Get(ctx, o.ID)
	if err != nil || got.Status != "CANCELLED" || len(got.History) != 2 {
		t.Fatalf("cancelled order: %+v %v", got, err)
	}

	// Paid by a receipt, verified by the owner, then on the kitchen's list.
	o2, _, err := cust.Ordering.Orders.Create(ctx, &client.OrderRequest{ShippingType: "PICKUP",
		Items: []client.OrderItemRequest{{MenuID: latte.ID, Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cust.Ordering.Payments.UploadProof(ctx, o2.ID, "BCA 123", onePixelPNG); err != nil {
		t.Fatalf("upload proof: %v", err)
	}
	if paid, _, err := owner.Ordering.Payments.Verify(ctx, o2.ID, true, ""); err != nil || paid.Status != "PAID" {
		t.Fatalf("verify: %+v %v", paid, err)
	}
	kitchen, _, err := owner.Ordering.Kitchen.Orders(ctx)
	if err != nil || len(kitchen) != 1 || kitchen[0].ID != o2.ID {
		t.Fatalf("kitchen: %+v %v", kitchen, err)
	}
	ledger, _, err := owner.Ordering.Ledger.Get(ctx, today[:4]+"-"+today[4:6]+"-"+today[6:], today[:4]+"-"+today[4:6]+"-"+today[6:])
	if err != nil || ledger.Total != 18000 || ledger.TotalsByMethod["BANK_TRANSFER"] != 18000 {
		t.Fatalf("ledger: %+v %v", ledger, err)
	}
	// The customer's messages go out through the gate (the stand-in keeps
	// them): the first at once, the others 2 s ± 0.5 s apart.
	deadline := time.Now().Add(30 * time.Second)
	for {
		msgs, _, err := owner.Ordering.Gateway.Messages(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		sent := 0
		for _, m := range msgs {
			if m.Status == "SENT" && m.To == "6281234567890" {
				sent++
			}
		}
		if sent >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("messages after 30 s: %+v", msgs)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// adminOrdering runs "portal admin ordering args..." against p as its
// operator.
func adminOrdering(t *testing.T, p *portalProc, args ...string) proc.Result {
	t.Helper()
	pw, err := os.ReadFile(filepath.Join(p.DataDir, "initial-admin-password"))
	if err != nil {
		t.Fatal(err)
	}
	return runPortal(t, []string{"PORTAL_ADMIN_PASSWORD=" + strings.TrimSpace(string(pw))}, "",
		append([]string{"admin", "ordering", "--url", p.URL}, args...)...)
}

// TestOrderingAdminCommands: the operator imports a menu from CSV (a bad
// file imports nothing and names its rows), reads the users and exports the
// ledger, through the real binary.
func TestOrderingAdminCommands(t *testing.T) {
	t.Parallel()
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), nil, "--ordering-owner-number", "0811-0000-001")
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "menu.csv"), filepath.Join(dir, "bad.csv")
	os.WriteFile(good, []byte("category,name,price,available\nKopi,Kopi susu,18000,yes\nKopi,Americano,15000,\nTeh,Teh,5000,no\n"), 0o600)
	os.WriteFile(bad, []byte("category,name,price\nKue,Bolu,abc\nKue,Donat,5000\n"), 0o600)
	res := adminOrdering(t, p, "menu", "import", good, "--output", "json")
	if res.Code != 0 || !strings.Contains(res.Stdout, `"itemsCreated": 3`) {
		t.Fatalf("menu import: %s", res)
	}
	res = adminOrdering(t, p, "menu", "import", bad)
	if res.Code != 1 || !strings.Contains(res.Stderr, "bad.csv:2: price must be a whole number of rupiah") || !strings.Contains(res.Stderr, "IMPORT_REFUSED") {
		t.Fatalf("bad menu import: %s", res)
	}
	owner := messengerLogin(t, p, "08110000001")
	menu, _, err := owner.Ordering.Menu.Get(t.Context())
	if err != nil || len(menu) != 2 || len(menu[0].Items)+len(menu[1].Items) != 3 {
		t.Fatalf("menu after the imports: %+v %v", menu, err)
	}
	res = adminOrdering(t, p, "users", "list", "--output", "json")
	if res.Code != 0 || !strings.Contains(res.Stdout, `"role": "OWNER"`) {
		t.Fatalf("users list: %s", res)
	}
	today := time.Now().In(mustLoadLocation(t, "Asia/Jakarta")).Format(time.DateOnly)
	res = adminOrdering(t, p, "ledger", "--from", today, "--to", today, "--output", "csv")
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, "day,paid_at,order_number") {
		t.Fatalf("ledger csv: %s", res)
	}
	if res := adminOrdering(t, p, "ledger", "--from", "nope", "--to", today); res.Code != 1 || !strings.Contains(res.Stderr, "INVALID_PERIOD") {
		t.Fatalf("ledger with a bad date: %s", res)
	}
}

// onePixelPNG is a 1×1 PNG.
var onePixelPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
	"\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

func mustLoadLocation(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// fakeWAHA records the messages a portal sends through a WAHA API.
type fakeWAHA struct {
	mu    sync.Mutex
	texts []string
	first chan struct{} // closed at the first message
}

func (f *fakeWAHA) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m struct{ ChatID, Text string }
	if r.URL.Path != "/api/sendText" || r.Header.Get("X-Api-Key") != "waha-key" || json.NewDecoder(r.Body).Decode(&m) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.texts = append(f.texts, m.ChatID+" "+m.Text)
	if len(f.texts) == 1 {
		close(f.first)
	}
	f.mu.Unlock()
	w.Write([]byte(`{"id":"msg"}`))
}

func (f *fakeWAHA) received() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.texts)
}

// TestOrderingMessagesKillNine: with a real gateway (a fake WAHA API), three
// order confirmations are queued; the portal is killed with SIGKILL right
// after the first reaches the gateway, and restarted: every message reaches
// the gateway at most once, and the queue ends with none waiting.
func TestOrderingMessagesKillNine(t *testing.T) {
	t.Parallel()
	waha := &fakeWAHA{first: make(chan struct{})}
	srv := httptest.NewServer(waha)
	defer srv.Close()
	const secret = "whsec_a2lsbC1uaW5lLWdhdGV3YXktc2VjcmV0LTMyYnl0ZXM="
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), nil, "--ordering-owner-number", "0811-0000-001",
		"--ordering-gateway-secret", secret, "--ordering-messenger-link", "https://wa.me/6281100000000",
		"--ordering-waha-url", srv.URL, "--ordering-waha-key", "waha-key")
	ctx := t.Context()
	login := func(base, number string) string {
		t.Helper()
		c, err := client.NewClient(base)
		if err != nil {
			t.Fatal(err)
		}
		ls, _, err := c.Ordering.Auth.Login(ctx, number, "")
		if err != nil {
			t.Fatalf("login %s: %v", number, err)
		}
		if _, _, err := c.Ordering.Auth.DeliverGatewayMessage(ctx, secret, "m-"+number, number, "VERIFY_"+ls.Token); err != nil {
			t.Fatalf("gateway message: %v", err)
		}
		st, err := c.Ordering.Auth.WaitVerified(ctx, ls.Token, 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		return st.Token
	}
	ownerJWT, custJWT := login(p.URL, "08110000001"), login(p.URL, "081234567890")
	api := p.apiURL(t)
	owner, _ := client.NewClient(api, client.WithOrderingToken(ownerJWT))
	cust, _ := client.NewClient(api, client.WithOrderingToken(custJWT))
	cat, _, err := owner.Ordering.Menu.CreateCategory(ctx, "Teh", 1)
	if err != nil {
		t.Fatal(err)
	}
	tea, _, err := owner.Ordering.Menu.CreateItem(ctx, &client.MenuItem{CategoryID: cat.ID, Name: "Teh", Price: 5000})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, _, err := cust.Ordering.Orders.Create(ctx, &client.OrderRequest{ShippingType: "PICKUP",
			Items: []client.OrderItemRequest{{MenuID: tea.ID, Quantity: 1}}}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-waha.first:
	case <-time.After(30 * time.Second):
		t.Fatal("no message reached the gateway")
	}
	p.Kill()
	p2 := &portalProc{Proc: p.Restart(), DataDir: p.DataDir}
	p2.Addr = p2.WaitListening(time.Minute)
	p2.URL = "http://" + p2.Addr
	owner, _ = client.NewClient(p2.URL, client.WithOrderingToken(ownerJWT))
	// The message interrupted while SENDING is marked FAILED once its
	// 30 s lease is over.
	deadline := time.Now().Add(90 * time.Second)
	var msgs []client.OutboundMessage
	for {
		msgs, _, err = owner.Ordering.Gateway.Messages(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		waiting := 0
		for _, m := range msgs {
			if m.Status == "QUEUED" || m.Status == "SENDING" {
				waiting++
			}
		}
		if waiting == 0 && len(msgs) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("messages still waiting after the restart: %+v", msgs)
		}
		time.Sleep(200 * time.Millisecond)
	}
	got := waha.received()
	counts := map[string]int{}
	for _, text := range got {
		counts[text]++
		if counts[text] > 1 {
			t.Errorf("sent twice: %s", text)
		}
	}
	sent := 0
	for _, m := range msgs {
		switch m.Status {
		case "SENT":
			sent++
			if counts["6281234567890@c.us "+m.Text] != 1 {
				t.Errorf("message %s is SENT but reached the gateway %d times", m.ID, counts["6281234567890@c.us "+m.Text])
			}
		case "FAILED":
			if !strings.Contains(m.Reason, "interrupted") {
				t.Errorf("message %s failed: %s", m.ID, m.Reason)
			}
		default:
			t.Errorf("message %s ended %s", m.ID, m.Status)
		}
	}
	if len(got) < 2 || sent < 2 {
		t.Fatalf("%d messages reached the gateway, %d SENT; want the two after the restart at least: %q", len(got), sent, got)
	}
}
