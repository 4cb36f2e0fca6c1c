package storetest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/ordering"
)

func init() {
	orderingSuite = append(orderingSuite,
		orderingTest{"Ledger", testOrderingLedger},
		orderingTest{"LedgerRange", testOrderingLedgerRange},
		orderingTest{"LedgerOfSavedOrders", func(t *testing.T, s ordering.Store) { SaveLedgerOrders(t, s).Check(t, s) }},
	)
}

// counterOrder is an order paid at the counter on creation, at at, with
// method.
func counterOrder(id, user string, at time.Time, method string) ordering.Order {
	o := newOrder(id, user, at)
	o.Status, o.PaymentMethod, o.Counter, o.CustomerName = ordering.StatusPaid, method, true, "Pak "+id
	o.ShippingType, o.ShippingCost, o.TotalPrice, o.InvoiceID, o.ProviderPaymentURL, o.ExpiresAt = ordering.ShippingPickup, 0, 50000, "", "", nil
	o.History = []ordering.StatusChange{{To: ordering.StatusPaid, By: user, Role: "STAFF", At: at, Note: "paid at the counter: " + method}}
	return o
}

// moveOrder moves the stored order id to status at at (and records method
// when it moves to PAID), failing the test on an error.
func moveOrder(t *testing.T, s ordering.Store, id string, status ordering.Status, at time.Time, method string) ordering.Order {
	t.Helper()
	o, err := s.UpdateOrder(t.Context(), id, func(o *ordering.Order) error {
		o.History = append(o.History, ordering.StatusChange{From: o.Status, To: status, By: "u-staff", Role: "STAFF", At: at})
		o.Status, o.UpdatedAt = status, at
		if status == ordering.StatusPaid {
			o.PaymentMethod, o.ExpiresAt = method, nil
		}
		return nil
	})
	mustOK(t, fmt.Sprintf("UpdateOrder %s to %s", id, status), err)
	return o
}

// checkLedger fails unless the ledger entries of [from, to) are want.
func checkLedger(t *testing.T, s ordering.Store, what string, from, to time.Time, want ...ordering.LedgerEntry) {
	t.Helper()
	got, err := s.LedgerEntries(t.Context(), from, to)
	mustOK(t, "LedgerEntries", err)
	if want == nil {
		want = []ordering.LedgerEntry{}
	}
	if got == nil {
		got = []ordering.LedgerEntry{}
	}
	check(t, what, got, want)
}

// testOrderingLedger: an order enters the ledger when it is paid (at the
// counter on creation, or moved to PAID later) with its number, method,
// amounts and status, follows its later states, stays when cancelled after
// its payment and leaves when refunded; a failed update changes nothing.
func testOrderingLedger(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	ana, kasir := mustOrderUser(t, s, "u-ana", "6281000000001"), mustOrderUser(t, s, "u-kasir", "6281000000002")
	day := func(h int) time.Time { return ordT0.Add(time.Duration(h) * time.Hour) }
	from, to := ordT0.Add(-time.Hour), ordT0.Add(48*time.Hour)
	checkLedger(t, s, "empty ledger", from, to)

	// Paid at the counter on creation, at a time with nanoseconds: the
	// ledger has the paid time as the order's history stores it.
	c1, err := s.CreateOrder(ctx, counterOrder("c1", kasir.ID, day(1).Add(789*time.Nanosecond), "CASH"), day25, nil)
	mustOK(t, "CreateOrder c1", err)
	c1Entry := ordering.LedgerEntry{PaidAt: c1.History[0].At, OrderNumber: "ORD-20261125-001", Method: "CASH", ItemsTotal: 50000,
		Total: 50000, Status: ordering.StatusPaid}
	if !c1Entry.PaidAt.Equal(day(1).Truncate(time.Microsecond)) {
		t.Fatalf("c1 stored as paid at %s", c1Entry.PaidAt.Format(time.RFC3339Nano))
	}
	checkLedger(t, s, "ledger after a counter order", from, to, c1Entry)

	// A customer's order enters the ledger when it is paid, at its paid
	// time, and follows its status; its paid time stays.
	_, err = s.CreateOrder(ctx, newOrder("o1", ana.ID, day(0)), day25, nil)
	mustOK(t, "CreateOrder o1", err)
	checkLedger(t, s, "ledger after an unpaid order", from, to, c1Entry)
	moveOrder(t, s, "o1", ordering.StatusPaid, day(2), ordering.PaymentProvider)
	o1Entry := ordering.LedgerEntry{PaidAt: day(2), OrderNumber: "ORD-20261125-002", Method: ordering.PaymentProvider,
		ItemsTotal: 50000, Shipping: 10000, Total: 60000, Status: ordering.StatusPaid}
	checkLedger(t, s, "ledger after a payment", from, to, c1Entry, o1Entry)
	moveOrder(t, s, "o1", ordering.StatusPreparing, day(3), "")
	o1Entry.Status = ordering.StatusPreparing
	checkLedger(t, s, "ledger after PREPARING", from, to, c1Entry, o1Entry)

	// Refunded: out of the ledger. Cancelled after its payment: in it.
	_, err = s.CreateOrder(ctx, newOrder("o2", ana.ID, day(0)), day25, nil)
	mustOK(t, "CreateOrder o2", err)
	moveOrder(t, s, "o2", ordering.StatusPaid, day(4), ordering.PaymentTransfer)
	o2Entry := ordering.LedgerEntry{PaidAt: day(4), OrderNumber: "ORD-20261125-003", Method: ordering.PaymentTransfer,
		ItemsTotal: 50000, Shipping: 10000, Total: 60000, Status: ordering.StatusPaid}
	checkLedger(t, s, "ledger with o2 paid", from, to, c1Entry, o1Entry, o2Entry)
	moveOrder(t, s, "o2", ordering.StatusRefunded, day(5), "")
	checkLedger(t, s, "ledger after a refund", from, to, c1Entry, o1Entry)
	moveOrder(t, s, "o1", ordering.StatusCancelled, day(6), "")
	o1Entry.Status = ordering.StatusCancelled
	checkLedger(t, s, "ledger after a cancellation", from, to, c1Entry, o1Entry)

	// An order cancelled unpaid never enters it.
	_, err = s.CreateOrder(ctx, newOrder("o3", ana.ID, day(0)), day25, nil)
	mustOK(t, "CreateOrder o3", err)
	moveOrder(t, s, "o3", ordering.StatusCancelled, day(7), "")

	// A failed update leaves the ledger as it was.
	boom := errors.New("boom")
	if _, err := s.UpdateOrder(ctx, "c1", func(o *ordering.Order) error {
		o.History = append(o.History, ordering.StatusChange{From: o.Status, To: ordering.StatusRefunded, At: day(8)})
		o.Status = ordering.StatusRefunded
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("UpdateOrder fn error: %v", err)
	}
	checkLedger(t, s, "ledger after a failed update", from, to, c1Entry, o1Entry)
}

// testOrderingLedgerRange: LedgerEntries returns the entries paid in
// [from, to), whatever the zone of from and to, by paid time, then order
// id.
func testOrderingLedgerRange(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	kasir := mustOrderUser(t, s, "u-kasir", "6281000000002")
	a, b := ordT0, ordT0.Add(24*time.Hour)
	var entries []ordering.LedgerEntry
	// r-b is numbered before r-a; both are paid at a.
	for i, p := range []struct {
		id string
		at time.Time
	}{{"r-b", a}, {"r-a", a}, {"r-early", a.Add(-time.Microsecond)}, {"r-next", a.Add(time.Microsecond)}, {"r-end", b}} {
		_, err := s.CreateOrder(ctx, counterOrder(p.id, kasir.ID, p.at, "QRIS"), day25, nil)
		mustOK(t, "CreateOrder "+p.id, err)
		entries = append(entries, ordering.LedgerEntry{PaidAt: p.at, OrderNumber: day25.Number(i + 1), Method: "QRIS",
			ItemsTotal: 50000, Total: 50000, Status: ordering.StatusPaid})
	}
	rb, ra, early, next, end := entries[0], entries[1], entries[2], entries[3], entries[4]
	checkLedger(t, s, "[a, b)", a, b, ra, rb, next)
	checkLedger(t, s, "[a, b] in WIB", a.In(wib), b.Add(time.Microsecond).In(wib), ra, rb, next, end)
	checkLedger(t, s, "[a+1µs, b+1µs)", a.Add(time.Microsecond), b.Add(time.Microsecond), next, end)
	checkLedger(t, s, "everything", a.Add(-time.Hour), b.Add(time.Hour), early, ra, rb, next, end)
	checkLedger(t, s, "[a, a)", a, a)
	checkLedger(t, s, "[b+1µs, b+1h)", b.Add(time.Microsecond), b.Add(time.Hour))
}

// LedgerOrders are the orders SaveLedgerOrders saved.
type LedgerOrders struct {
	// From and To bound the paid times of every order.
	From, To time.Time
}

// SaveLedgerOrders saves orders of every kind the ledger meets: paid at the
// counter with each method, customers' orders paid later and then moved
// on (cancelled after their payment, completed), refunded, still unpaid,
// cancelled unpaid, one without a history; some paid at the same instant.
func SaveLedgerOrders(t *testing.T, s ordering.Store) LedgerOrders {
	t.Helper()
	ctx := t.Context()
	ana, kasir := mustOrderUser(t, s, "u-ana", "6281000000001"), mustOrderUser(t, s, "u-kasir", "6281000000002")
	at := func(i int) time.Time { return ordT0.Add(time.Duration(i) * 7 * time.Minute) }
	for i := range 60 {
		id := fmt.Sprintf("l%03d", i)
		var err error
		switch i % 6 {
		case 0, 1:
			_, err = s.CreateOrder(ctx, counterOrder(id, kasir.ID, at(i/2), ordering.CounterMethods[i%3]), day25, nil)
		case 2:
			o := newOrder(id, ana.ID, at(i))
			o.History = nil
			_, err = s.CreateOrder(ctx, o, day25, nil)
		default:
			_, err = s.CreateOrder(ctx, newOrder(id, ana.ID, at(i)), day25, nil)
		}
		mustOK(t, "CreateOrder "+id, err)
		switch i % 6 {
		case 3:
			moveOrder(t, s, id, ordering.StatusPaid, at(i+1), ordering.PaymentProvider)
			moveOrder(t, s, id, ordering.StatusRefunded, at(i+2), "")
		case 4:
			moveOrder(t, s, id, ordering.StatusPaid, at(i+1), ordering.PaymentTransfer)
			moveOrder(t, s, id, ordering.StatusPreparing, at(i+2), "")
			if i%4 == 0 {
				moveOrder(t, s, id, ordering.StatusCancelled, at(i+3), "")
			} else {
				moveOrder(t, s, id, ordering.StatusCompleted, at(i+3), "")
			}
		case 5:
			if i%4 == 1 {
				moveOrder(t, s, id, ordering.StatusCancelled, at(i+1), "")
			}
		}
	}
	return LedgerOrders{From: ordT0.Add(-time.Hour), To: at(100)}
}

// Check fails unless the ledger entries of the stored orders are those
// that Order.LedgerEntry derives from them.
func (lo LedgerOrders) Check(t *testing.T, s ordering.Store) {
	t.Helper()
	orders, err := s.ListOrders(t.Context(), ordering.OrderQuery{})
	mustOK(t, "ListOrders", err)
	type keyed struct {
		id string
		e  ordering.LedgerEntry
	}
	var want []keyed
	for _, o := range orders {
		if e, ok := o.LedgerEntry(); ok {
			want = append(want, keyed{o.ID, e})
		}
	}
	slices.SortFunc(want, func(a, b keyed) int { return cmp.Or(a.e.PaidAt.Compare(b.e.PaidAt), strings.Compare(a.id, b.id)) })
	entries := make([]ordering.LedgerEntry, len(want))
	for i, k := range want {
		entries[i] = k.e
	}
	if len(entries) < 25 {
		t.Fatalf("only %d of %d orders in the ledger", len(entries), len(orders))
	}
	checkLedger(t, s, "ledger of the saved orders", lo.From, lo.To, entries...)
}
