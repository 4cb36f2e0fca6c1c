package ordering_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/store/bolt"
)

// shop returns a service with a menu (rice 25,000, tea 5,000, an
// unavailable soup) and users of every role.
func shop(t *testing.T) (svc *ordering.Service, c *clock, users map[ordering.Role]ordering.User, rice, tea, soup ordering.MenuItem) {
	t.Helper()
	svc, c, _, users, rice, tea, soup = shopStore(t)
	return svc, c, users, rice, tea, soup
}

// shopStore is shop that also returns the store.
func shopStore(t *testing.T) (svc *ordering.Service, c *clock, st *bolt.Store, users map[ordering.Role]ordering.User, rice, tea, soup ordering.MenuItem) {
	t.Helper()
	svc, c, st = newServiceStore(t, "628110000001")
	ctx := t.Context()
	login := func(number string) ordering.User {
		ls := mustLogin(t, svc, number, "192.0.2.1")
		_, u, err := svc.Inbound(ctx, number, "VERIFY_"+ls.Token)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	users = map[ordering.Role]ordering.User{ordering.RoleOwner: login("628110000001")}
	for role, number := range map[ordering.Role]string{ordering.RoleCustomer: "6281234567890",
		ordering.RoleStaff: "6281234567891", ordering.RoleAdmin: "6281234567892"} {
		u := login(number)
		if role != ordering.RoleCustomer {
			var err error
			if u, err = svc.SetRole(ctx, nil, u.ID, role, nil); err != nil {
				t.Fatal(err)
			}
		}
		users[role] = u
	}
	cat, err := svc.CreateCategory(ctx, ordering.CategoryInput{Name: "Makanan"})
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string, price int64, avail bool) ordering.MenuItem {
		m, err := svc.CreateMenuItem(ctx, ordering.MenuItem{CategoryID: cat.ID, Name: name, Price: price, Available: avail})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	return svc, c, st, users, mk("Nasi goreng", 25000, true), mk("Teh", 5000, true), mk("Soto", 20000, false)
}

// TestPlaceOrder: prices come from the catalogue, shipping from the
// settings; the number has the shop's date; bad requests are refused with
// their codes and store nothing.
func TestPlaceOrder(t *testing.T) {
	ctx := t.Context()
	svc, c, users, rice, tea, soup := shop(t)
	cust := users[ordering.RoleCustomer]
	c.now = time.Date(2026, 11, 25, 18, 30, 0, 0, time.UTC) // 01:30 on the 26th in Jakarta
	o, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingDelivery, ShippingAddress: "Jl. Merdeka 1",
		Items: []ordering.OrderItemRequest{{MenuID: rice.ID, Quantity: 2, Notes: "pedas"}, {MenuID: tea.ID, Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if o.OrderNumber != "ORD-20261126-001" || o.Status != ordering.StatusPendingPayment || o.ItemsTotal != 55000 ||
		o.ShippingCost != 10000 || o.TotalPrice != 65000 || !strings.HasPrefix(o.ProviderPaymentURL, "http://portal.test/sandbox/pay/inv_") {
		t.Fatalf("order: %+v", o)
	}
	if o.ExpiresAt == nil || !o.ExpiresAt.Equal(c.now.Add(time.Hour)) {
		t.Fatalf("expiry %v, want an hour", o.ExpiresAt)
	}
	o2, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: tea.ID, Quantity: 3}}})
	if err != nil || o2.OrderNumber != "ORD-20261126-002" || o2.ShippingCost != 0 || o2.TotalPrice != 15000 {
		t.Fatalf("second order: %+v %v", o2, err)
	}
	for name, tc := range map[string]struct {
		req  ordering.OrderRequest
		code string
	}{
		"empty":         {ordering.OrderRequest{ShippingType: ordering.ShippingPickup}, "EMPTY_ORDER"},
		"quantity 0":    {ordering.OrderRequest{ShippingType: ordering.ShippingPickup, Items: []ordering.OrderItemRequest{{MenuID: tea.ID}}}, "INVALID_ORDER"},
		"unknown item":  {ordering.OrderRequest{ShippingType: ordering.ShippingPickup, Items: []ordering.OrderItemRequest{{MenuID: "nope", Quantity: 1}}}, "UNKNOWN_MENU_ITEM"},
		"unavailable":   {ordering.OrderRequest{ShippingType: ordering.ShippingPickup, Items: []ordering.OrderItemRequest{{MenuID: soup.ID, Quantity: 1}}}, "ITEM_UNAVAILABLE"},
		"bad shipping":  {ordering.OrderRequest{ShippingType: "DRONE", Items: []ordering.OrderItemRequest{{MenuID: tea.ID, Quantity: 1}}}, "INVALID_ORDER"},
		"no address":    {ordering.OrderRequest{ShippingType: ordering.ShippingDelivery, Items: []ordering.OrderItemRequest{{MenuID: tea.ID, Quantity: 1}}}, "INVALID_ORDER"},
		"half location": {ordering.OrderRequest{ShippingType: ordering.ShippingPickup, ShippingLat: new(float64), Items: []ordering.OrderItemRequest{{MenuID: tea.ID, Quantity: 1}}}, "INVALID_ORDER"},
	} {
		if _, err := svc.PlaceOrder(ctx, cust, tc.req); apperr.CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
	}
	mine, err := svc.MyOrders(ctx, cust)
	if err != nil || len(mine) != 2 {
		t.Fatalf("MyOrders: %d orders %v, want the 2 placed", len(mine), err)
	}
	// Another customer's order is not found.
	if _, err := svc.OrderFor(ctx, users[ordering.RoleOwner], o.ID); err != nil {
		t.Fatalf("owner reads the order: %v", err)
	}
	stranger := cust
	stranger.ID = "someone-else"
	if _, err := svc.OrderFor(ctx, stranger, o.ID); !errors.Is(err, ordering.ErrOrderNotFound) {
		t.Fatalf("stranger reads the order: %v", err)
	}
}

// TestShippingByDistance: base fee plus a fee per started km from the
// shop; beyond the range the order is refused.
func TestShippingByDistance(t *testing.T) {
	st := ordering.DefaultSettings()
	st.ShopLat, st.ShopLng, st.DeliveryPerKm, st.DeliveryMaxKm = -6.2000, 106.8166, 2000, 10
	lat, lng := -6.2000, 106.8346 // about 1.99 km east
	cost, err := st.ShippingCost(ordering.ShippingDelivery, &lat, &lng)
	if err != nil || cost != 10000+2*2000 {
		t.Fatalf("cost %d %v, want 14000", cost, err)
	}
	far := 107.2
	if _, err := st.ShippingCost(ordering.ShippingDelivery, &lat, &far); !errors.Is(err, ordering.ErrOutOfRange) {
		t.Fatalf("far: %v", err)
	}
	if cost, _ := st.ShippingCost(ordering.ShippingDineIn, &lat, &far); cost != 0 {
		t.Fatalf("dine-in cost %d", cost)
	}
}

// TestOrderStateMachine walks the order's life with the role allowed at
// each step, refusing the others, and records who did what.
func TestOrderStateMachine(t *testing.T) {
	ctx := t.Context()
	svc, c, users, rice, _, _ := shop(t)
	cust, staff, admin := users[ordering.RoleCustomer], users[ordering.RoleStaff], users[ordering.RoleAdmin]
	o, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: rice.ID, Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	move := func(who ordering.User, to ordering.Status, wantCode string) {
		t.Helper()
		_, err := svc.Transition(ctx, ordering.Actor{User: &who}, o.ID, to, "", nil)
		if got := apperr.CodeOf(err); err != nil && got != wantCode || err == nil && wantCode != "" {
			t.Fatalf("%s by %s: %v, want %q", to, who.Role, err, wantCode)
		}
	}
	moves := func(who ordering.User) string {
		cur, err := svc.OrderFor(ctx, who, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(ordering.Moves(ordering.Actor{User: &who}, cur))
	}
	if got := moves(cust); got != "[WAITING_VERIFICATION CANCELLED]" {
		t.Fatalf("the customer's moves of an unpaid order: %s", got)
	}
	if got := moves(staff); got != "[]" {
		t.Fatalf("the staff's moves of an unpaid order: %s", got)
	}
	move(cust, ordering.StatusPreparing, "INVALID_TRANSITION")
	move(staff, ordering.StatusWaitingVerification, "FORBIDDEN") // only the order's customer sends a receipt
	move(cust, ordering.StatusWaitingVerification, "")
	move(staff, ordering.StatusPaid, "FORBIDDEN") // STAFF without the payments menu
	move(admin, ordering.StatusPaid, "")
	move(cust, ordering.StatusPreparing, "FORBIDDEN")
	if got := moves(staff); got != "[PREPARING]" {
		t.Fatalf("the kitchen's moves of a paid order: %s", got)
	}
	move(staff, ordering.StatusPreparing, "")
	move(staff, ordering.StatusReady, "")
	move(staff, ordering.StatusOutForDelivery, "FORBIDDEN") // a pick-up order
	move(staff, ordering.StatusCompleted, "")
	got, err := svc.OrderFor(ctx, cust, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	var trail []string
	for _, h := range got.History {
		trail = append(trail, string(h.To)+" by "+h.Role)
	}
	want := "PENDING_PAYMENT by CUSTOMER, WAITING_VERIFICATION by CUSTOMER, PAID by ADMIN, PREPARING by STAFF, READY by STAFF, COMPLETED by STAFF"
	if strings.Join(trail, ", ") != want {
		t.Fatalf("history: %s", strings.Join(trail, ", "))
	}
	// Expiry: an unpaid order past its time is EXPIRED, by the system.
	o2, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: rice.ID, Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := svc.ExpireOrders(ctx); err != nil || n != 0 {
		t.Fatalf("ExpireOrders early: %d %v", n, err)
	}
	c.now = c.now.Add(time.Hour)
	if n, err := svc.ExpireOrders(ctx); err != nil || n != 1 {
		t.Fatalf("ExpireOrders: %d %v", n, err)
	}
	got, _ = svc.OrderFor(ctx, cust, o2.ID)
	if got.Status != ordering.StatusExpired || got.History[len(got.History)-1].By != ordering.ActorSystem {
		t.Fatalf("expired order: %+v", got)
	}
}

// tinyPNG is a 1×1 PNG.
var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
	"\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

// TestReceiptFlow: the customer uploads a receipt, a verifier rejects it
// with a reason (the order waits for payment again), the customer uploads
// another, an admin approves it; only the customer and verifiers read it.
func TestReceiptFlow(t *testing.T) {
	ctx := t.Context()
	svc, _, users, rice, _, _ := shop(t)
	cust, staff, admin := users[ordering.RoleCustomer], users[ordering.RoleStaff], users[ordering.RoleAdmin]
	o, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: rice.ID, Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UploadProof(ctx, cust, o.ID, []byte("not an image"), "BCA"); !errors.Is(err, ordering.ErrProofType) {
		t.Fatalf("text receipt: %v", err)
	}
	if _, err := svc.UploadProof(ctx, staff, o.ID, tinyPNG, "BCA"); apperr.CodeOf(err) != "FORBIDDEN" {
		t.Fatalf("someone else's receipt: %v", err)
	}
	got, err := svc.UploadProof(ctx, cust, o.ID, tinyPNG, "BCA 123")
	if err != nil || got.Status != ordering.StatusWaitingVerification || got.Proof == nil || got.Proof.ContentType != "image/png" {
		t.Fatalf("upload: %+v %v", got, err)
	}
	if _, err := svc.VerifyPayment(ctx, staff, o.ID, true, ""); apperr.CodeOf(err) != "FORBIDDEN" {
		t.Fatalf("STAFF without payments approves: %v", err)
	}
	if _, err := svc.VerifyPayment(ctx, admin, o.ID, false, ""); apperr.CodeOf(err) != "REASON_REQUIRED" {
		t.Fatalf("reject without reason: %v", err)
	}
	got, err = svc.VerifyPayment(ctx, admin, o.ID, false, "the amount is 5,000 short")
	if err != nil || got.Status != ordering.StatusPendingPayment || got.History[len(got.History)-1].Note != "the amount is 5,000 short" {
		t.Fatalf("reject: %+v %v", got, err)
	}
	if _, err := svc.UploadProof(ctx, cust, o.ID, tinyWebP, "BCA 123"); err != nil {
		t.Fatal(err)
	}
	payer, err := svc.SetRole(ctx, nil, staff.ID, ordering.RoleStaff, []string{ordering.MenuPayments})
	if err != nil {
		t.Fatal(err)
	}
	proof, f, err := svc.ProofFile(ctx, payer, o.ID)
	if err != nil || proof.ContentType != "image/webp" {
		t.Fatalf("verifier reads the receipt: %+v %v", proof, err)
	}
	f.Close()
	stranger := cust
	stranger.ID = "someone-else"
	if _, _, err := svc.ProofFile(ctx, stranger, o.ID); !errors.Is(err, ordering.ErrOrderNotFound) {
		t.Fatalf("stranger reads the receipt: %v", err)
	}
	got, err = svc.VerifyPayment(ctx, payer, o.ID, true, "")
	if err != nil || got.Status != ordering.StatusPaid || got.PaymentMethod != ordering.PaymentTransfer {
		t.Fatalf("approve: %+v %v", got, err)
	}
}

// tinyWebP is a 1×1 lossless WebP image.
var tinyWebP = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")

// TestProviderNotify: the merchant and the amount must match (refusals are
// recorded on the order); PAID applies once, repeats are DUPLICATE; FAILED
// is recorded; REFUNDED applies to a paid order; a payment of a cancelled
// order is recorded for the owner.
func TestProviderNotify(t *testing.T) {
	ctx := t.Context()
	svc, _, users, rice, _, _ := shop(t)
	cust := users[ordering.RoleCustomer]
	place := func() ordering.Order {
		o, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
			Items: []ordering.OrderItemRequest{{MenuID: rice.ID, Quantity: 2}}})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	o := place()
	n := ordering.ProviderNotification{InvoiceID: o.InvoiceID, MerchantID: "M-1", Amount: o.TotalPrice, Status: "PAID"}
	bad := n
	bad.MerchantID = "M-2"
	if _, _, err := svc.ProviderNotify(ctx, bad); !errors.Is(err, ordering.ErrMerchantMismatch) {
		t.Fatalf("other merchant: %v", err)
	}
	bad = n
	bad.Amount--
	if _, _, err := svc.ProviderNotify(ctx, bad); !errors.Is(err, ordering.ErrAmountMismatch) {
		t.Fatalf("short amount: %v", err)
	}
	bad = n
	bad.Status = "MAYBE"
	if _, _, err := svc.ProviderNotify(ctx, bad); !errors.Is(err, ordering.ErrProviderStatus) {
		t.Fatalf("unknown status: %v", err)
	}
	bad = n
	bad.InvoiceID = "inv_nope"
	if _, _, err := svc.ProviderNotify(ctx, bad); !errors.Is(err, ordering.ErrOrderNotFound) {
		t.Fatalf("unknown invoice: %v", err)
	}
	failed := n
	failed.Status = "FAILED"
	if res, got, err := svc.ProviderNotify(ctx, failed); err != nil || res != ordering.ProviderRecorded || got.Status != ordering.StatusPendingPayment {
		t.Fatalf("FAILED: %s %s %v", res, got.Status, err)
	}
	res, got, err := svc.ProviderNotify(ctx, n)
	if err != nil || res != ordering.ProviderApplied || got.Status != ordering.StatusPaid || got.PaymentMethod != ordering.PaymentProvider {
		t.Fatalf("PAID: %s %+v %v", res, got, err)
	}
	if res, _, err := svc.ProviderNotify(ctx, n); err != nil || res != ordering.ProviderDuplicate {
		t.Fatalf("PAID again: %s %v", res, err)
	}
	if len(got.Payments) != 4 { // two refusals, FAILED, PAID
		t.Fatalf("payment events: %+v", got.Payments)
	}
	refund := n
	refund.Status = "REFUNDED"
	if res, got, err := svc.ProviderNotify(ctx, refund); err != nil || res != ordering.ProviderApplied || got.Status != ordering.StatusRefunded {
		t.Fatalf("REFUNDED: %s %s %v", res, got.Status, err)
	}
	// A payment arriving after the customer cancelled.
	o2 := place()
	if _, err := svc.Transition(ctx, ordering.Actor{User: &cust}, o2.ID, ordering.StatusCancelled, "", nil); err != nil {
		t.Fatal(err)
	}
	late := ordering.ProviderNotification{InvoiceID: o2.InvoiceID, MerchantID: "M-1", Amount: o2.TotalPrice, Status: "PAID"}
	res, got, err = svc.ProviderNotify(ctx, late)
	if err != nil || res != ordering.ProviderRecorded || got.Status != ordering.StatusCancelled || got.Payments[0].Accepted {
		t.Fatalf("late payment: %s %+v %v", res, got, err)
	}
}

// TestCounterAndLedger: a walk-in order at the counter is paid at once and
// on the kitchen's list; the ledger totals paid orders per day and method,
// leaving out unpaid and refunded ones.
func TestCounterAndLedger(t *testing.T) {
	ctx := t.Context()
	svc, c, users, rice, tea, _ := shop(t)
	cust, staff := users[ordering.RoleCustomer], users[ordering.RoleStaff]
	changes := svc.Changes()
	defer svc.StopChanges(changes)
	c.now = time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC) // 10:00 in Jakarta
	if _, err := svc.PlaceCounterOrder(ctx, cust, ordering.OrderRequest{Items: []ordering.OrderItemRequest{{MenuID: tea.ID, Quantity: 1}}}, "CASH", ""); !errors.Is(err, ordering.ErrForbidden) {
		t.Fatalf("a customer at the counter: %v", err)
	}
	if _, err := svc.PlaceCounterOrder(ctx, staff, ordering.OrderRequest{Items: []ordering.OrderItemRequest{{MenuID: tea.ID, Quantity: 1}}}, "GOLD", ""); apperr.CodeOf(err) != "INVALID_ORDER" {
		t.Fatalf("unknown method: %v", err)
	}
	walkIn, err := svc.PlaceCounterOrder(ctx, staff, ordering.OrderRequest{Items: []ordering.OrderItemRequest{{MenuID: rice.ID, Quantity: 2}}}, "cash", "Pak Budi")
	if err != nil || walkIn.Status != ordering.StatusPaid || walkIn.PaymentMethod != "CASH" || !walkIn.Counter || walkIn.CustomerName != "Pak Budi" {
		t.Fatalf("counter order: %+v %v", walkIn, err)
	}
	select {
	case <-changes:
	default:
		t.Fatal("no change notified for the counter order")
	}
	kitchen, err := svc.KitchenOrders(ctx)
	if err != nil || len(kitchen) != 1 || kitchen[0].ID != walkIn.ID {
		t.Fatalf("kitchen: %+v %v", kitchen, err)
	}
	c.now = c.now.Add(24 * time.Hour)
	qris, err := svc.PlaceCounterOrder(ctx, staff, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: tea.ID, Quantity: 3}}}, "QRIS", "")
	if err != nil {
		t.Fatal(err)
	}
	unpaid, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: tea.ID, Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	refunded, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: tea.ID, Quantity: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []string{"PAID", "REFUNDED"} {
		if _, _, err := svc.ProviderNotify(ctx, ordering.ProviderNotification{InvoiceID: refunded.InvoiceID, MerchantID: "M-1",
			Amount: refunded.TotalPrice, Status: st}); err != nil {
			t.Fatal(err)
		}
	}
	l, err := svc.Ledger(ctx, "2026-11-25", "2026-11-26")
	if err != nil {
		t.Fatal(err)
	}
	if l.OrderCount != 2 || l.Total != walkIn.TotalPrice+qris.TotalPrice || l.ByDay["2026-11-25"] != 50000 ||
		l.ByDay["2026-11-26"] != 15000 || l.ByMethod["CASH"] != 50000 || l.ByMethod["QRIS"] != 15000 {
		t.Fatalf("ledger: %+v (unpaid %s)", l, unpaid.OrderNumber)
	}
	var b strings.Builder
	if err := l.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[1], "2026-11-25,") {
		t.Fatalf("ledger CSV:\n%s", b.String())
	}
	for _, p := range [][2]string{{"2026-11-26", "2026-11-25"}, {"25-11-2026", "2026-11-26"}, {"2025-01-01", "2026-11-26"}} {
		if _, err := svc.Ledger(ctx, p[0], p[1]); !errors.Is(err, ordering.ErrInvalidPeriod) {
			t.Errorf("Ledger %s..%s: %v", p[0], p[1], err)
		}
	}
}

// recorder is a Messenger that keeps what it sends.
type recorder struct{ sent []string }

func (r *recorder) Send(_ context.Context, to, text string) error {
	r.sent = append(r.sent, to+": "+text)
	return nil
}

// TestOutboundMessages: an order's confirmation and status changes are
// queued for the customer and sent through the gate, spaced; a message to
// a number that never consented is dropped with its reason.
func TestOutboundMessages(t *testing.T) {
	ctx := t.Context()
	svc, c, st := newServiceStore(t, "")
	ls := mustLogin(t, svc, "081234567890", "192.0.2.1")
	_, cust, err := svc.Inbound(ctx, "6281234567890", "VERIFY_"+ls.Token) // the login's message: consent
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := svc.CreateCategory(ctx, ordering.CategoryInput{Name: "Kopi"})
	item, _ := svc.CreateMenuItem(ctx, ordering.MenuItem{CategoryID: cat.ID, Name: "Kopi", Price: 8000, Available: true})
	o, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: item.ID, Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Transition(ctx, ordering.Actor{User: &cust}, o.ID, ordering.StatusCancelled, "", nil); err != nil {
		t.Fatal(err)
	}
	if err := st.EnqueueMessage(ctx, ordering.OutboundMessage{ID: "stranger", Channel: ordering.DefaultChannel, To: "6289999999999",
		Text: "hello", Status: ordering.MessageQueued, CreatedAt: c.now, NotBefore: c.now}); err != nil {
		t.Fatal(err)
	}
	m := &recorder{}
	send := func() time.Duration {
		t.Helper()
		wait, err := svc.SendNext(ctx, m, "test")
		if err != nil {
			t.Fatal(err)
		}
		return wait
	}
	if wait := send(); wait != 0 || len(m.sent) != 1 || !strings.Contains(m.sent[0], o.OrderNumber+" received") {
		t.Fatalf("first send: %v %q", wait, m.sent)
	}
	wait := send() // the cancellation, too soon after the first
	if wait < ordering.SendSpacing-ordering.SendJitter || wait > ordering.SendSpacing+ordering.SendJitter || len(m.sent) != 1 {
		t.Fatalf("second send: wait %v, sent %q", wait, m.sent)
	}
	c.now = c.now.Add(wait)
	// Due first: the stranger's message (queued before the cancellation
	// was put back), dropped without being sent; then the cancellation.
	if send(); len(m.sent) != 1 {
		t.Fatalf("the stranger's message was sent: %q", m.sent)
	}
	if send(); len(m.sent) != 2 || !strings.Contains(m.sent[1], "cancelled") {
		t.Fatalf("after the wait: %q", m.sent)
	}
	msgs, err := svc.Messages(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	byTo := map[string]ordering.OutboundMessage{}
	for _, x := range msgs {
		byTo[x.To+x.Text[:5]] = x
	}
	if x := byTo["6289999999999hello"]; x.Status != ordering.MessageDropped || !strings.Contains(x.Reason, "no consent") {
		t.Fatalf("stranger's message: %+v", x)
	}
	if len(m.sent) != 2 {
		t.Fatalf("sent %q, want the two order messages only", m.sent)
	}
	if wait, _ := svc.SendNext(ctx, m, "test"); wait != time.Second {
		t.Fatalf("an empty queue: wait %v, want the idle second", wait)
	}
}

// TestImportMenu: a CSV creates categories and items; importing again
// updates them by category and name; a file with bad rows imports nothing
// and names every bad row.
func TestImportMenu(t *testing.T) {
	ctx := t.Context()
	svc, _ := newService(t, "")
	rep, err := svc.ImportMenu(ctx, strings.NewReader("\ufeffcategory,name,description,price,available,image_url\n"+
		"Kopi,Kopi susu,gula aren,18000,yes,https://img.example/k.jpg\nKopi,Americano,,15000,,\nTeh,Teh tarik,,12000,no,\n"))
	if err != nil || rep.CategoriesCreated != 2 || rep.ItemsCreated != 3 || rep.ItemsUpdated != 0 {
		t.Fatalf("import: %+v %v", rep, err)
	}
	rep, err = svc.ImportMenu(ctx, strings.NewReader("name,price,category\nkopi SUSU,20000,kopi\nEs kopi,19000,Kopi\n"))
	if err != nil || rep.CategoriesCreated != 0 || rep.ItemsCreated != 1 || rep.ItemsUpdated != 1 {
		t.Fatalf("second import: %+v %v", rep, err)
	}
	m, err := svc.Menu(ctx, false)
	if err != nil || len(m.Categories) != 2 || len(m.Categories[0].Items) != 3 || m.Categories[1].Items[0].Available {
		t.Fatalf("menu: %+v %v", m, err)
	}
	for _, it := range m.Categories[0].Items {
		if strings.EqualFold(it.Name, "kopi susu") && it.Price != 20000 {
			t.Fatalf("kopi susu: %+v", it)
		}
	}
	_, err = svc.ImportMenu(ctx, strings.NewReader("category,name,price,available\nKue,Bolu,abc,\nKue,,1000,\nKue,Donat,5000,maybe\nKue,Lapis,-1,\nKue,Onde,3000,\n"))
	var fail *ordering.ImportFailedError
	if !errors.As(err, &fail) || len(fail.Report.Errors) != 4 || fail.Report.Errors[0].Row != 2 || apperr.CodeOf(err) != "IMPORT_REFUSED" {
		t.Fatalf("bad file: %v %+v", err, fail)
	}
	if m, _ := svc.Menu(ctx, false); len(m.Categories) != 2 {
		t.Fatalf("a refused file wrote %d categories", len(m.Categories))
	}
	if _, err := svc.ImportMenu(ctx, strings.NewReader("name,price\nx,1\n")); apperr.CodeOf(err) != "INVALID_CSV" {
		t.Fatalf("no category column: %v", err)
	}
}
