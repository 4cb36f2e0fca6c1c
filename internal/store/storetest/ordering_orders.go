package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/ordering"
)

func init() {
	orderingSuite = append(orderingSuite,
		orderingTest{"Menu", testOrderingMenu},
		orderingTest{"Settings", testOrderingSettings},
		orderingTest{"Orders", testOrderingOrders},
		orderingTest{"OrderNumbersUnderConcurrency", testOrderNumbers},
		orderingTest{"OrderNumbersPast999", testOrderNumbersPast999},
	)
}

// mustOrderUser creates a user through a verified login and returns it.
func mustOrderUser(t *testing.T, s ordering.Store, id, number string) ordering.User {
	t.Helper()
	mustToken(t, s, "h-"+id, number)
	_, u := verify(t, s, "h-"+id, id)
	return u
}

func newOrder(id, user string, at time.Time) ordering.Order {
	lat, lng := -6.2, 106.8
	exp := at.Add(time.Hour)
	return ordering.Order{ID: id, UserID: user, Status: ordering.StatusPendingPayment, Items: []ordering.OrderItem{
		{MenuID: "m-rice", Name: "Nasi goreng", Price: 25000, Quantity: 2, Notes: "pedas", Subtotal: 50000}},
		ItemsTotal: 50000, ShippingCost: 10000, TotalPrice: 60000, ShippingType: ordering.ShippingDelivery,
		ShippingAddress: "Jl. Merdeka 1", ShippingCity: "Bandung", ShippingPhone: "0812", ShippingLat: &lat, ShippingLng: &lng,
		InvoiceID: "inv-" + id, ProviderPaymentURL: "http://p/" + id, CreatedAt: at, UpdatedAt: at, ExpiresAt: &exp,
		History: []ordering.StatusChange{{To: ordering.StatusPendingPayment, By: user, Role: "CUSTOMER", At: at}}}
}

// day25 numbers the orders of 2026-11-25.
var day25 = ordering.Numbering{Prefix: "ORD", Day: "20261125"}

func testOrderingOrders(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	ana, budi := mustOrderUser(t, s, "u-ana", "6281000000001"), mustOrderUser(t, s, "u-budi", "6281000000002")
	o1, err := s.CreateOrder(ctx, newOrder("o1", ana.ID, ordT0), day25, nil)
	mustOK(t, "CreateOrder", err)
	o2, err := s.CreateOrder(ctx, newOrder("o2", budi.ID, ordT0.Add(time.Minute)), day25, nil)
	mustOK(t, "CreateOrder", err)
	conf := msg("conf-o3", ordT0)
	conf.Text = "Order " + ordering.OrderNumberMark + " received"
	o3, err := s.CreateOrder(ctx, newOrder("o3", ana.ID, ordT0.Add(2*time.Minute)), ordering.Numbering{Prefix: "ORD", Day: "20261126"}, &conf)
	mustOK(t, "CreateOrder", err)
	if o1.OrderNumber != "ORD-20261125-001" || o2.OrderNumber != "ORD-20261125-002" || o3.OrderNumber != "ORD-20261126-001" {
		t.Fatalf("numbers %s %s %s", o1.OrderNumber, o2.OrderNumber, o3.OrderNumber)
	}
	got, err := s.GetOrder(ctx, "o1")
	mustOK(t, "GetOrder", err)
	check(t, "order", got, o1)
	// o3's confirmation was queued with it, with its number.
	msgs, err := s.ListMessages(ctx, 0)
	mustOK(t, "ListMessages", err)
	if len(msgs) != 1 || msgs[0].Text != "Order ORD-20261126-001 received" || msgs[0].OrderID != "o3" {
		t.Fatalf("messages after the orders: %+v", msgs)
	}
	got, err = s.GetOrderByInvoice(ctx, "inv-o2")
	mustOK(t, "GetOrderByInvoice", err)
	check(t, "order by invoice", got, o2)
	if _, err := s.GetOrder(ctx, "nope"); !errors.Is(err, ordering.ErrOrderNotFound) {
		t.Fatalf("GetOrder unknown: %v", err)
	}
	if _, err := s.GetOrderByInvoice(ctx, "nope"); !errors.Is(err, ordering.ErrOrderNotFound) {
		t.Fatalf("GetOrderByInvoice unknown: %v", err)
	}
	mine, err := s.ListOrders(ctx, ordering.OrderQuery{UserID: ana.ID, NewestFirst: true})
	mustOK(t, "ListOrders", err)
	check(t, "ana's orders", mine, []ordering.Order{o3, o1})

	paidAt := ordT0.Add(time.Hour)
	o2, err = s.UpdateOrder(ctx, "o2", func(o *ordering.Order) error {
		o.History = append(o.History, ordering.StatusChange{From: o.Status, To: ordering.StatusPaid, By: "provider", Role: "provider", At: paidAt})
		o.Status, o.PaymentMethod, o.UpdatedAt, o.ExpiresAt = ordering.StatusPaid, ordering.PaymentProvider, paidAt, nil
		return nil
	})
	mustOK(t, "UpdateOrder", err)
	got, _ = s.GetOrder(ctx, "o2")
	check(t, "updated order", got, o2)
	paid, err := s.ListOrders(ctx, ordering.OrderQuery{Statuses: []ordering.Status{ordering.StatusPaid, ordering.StatusPreparing}})
	mustOK(t, "ListOrders by status", err)
	check(t, "paid orders", paid, []ordering.Order{o2})
	pending, err := s.ListOrders(ctx, ordering.OrderQuery{Statuses: []ordering.Status{ordering.StatusPendingPayment}, Limit: 1})
	mustOK(t, "ListOrders pending", err)
	check(t, "first pending order", pending, []ordering.Order{o1})
	boom := errors.New("boom")
	if _, err := s.UpdateOrder(ctx, "o1", func(o *ordering.Order) error { o.Status = ordering.StatusCancelled; return boom }); !errors.Is(err, boom) {
		t.Fatalf("UpdateOrder fn error: %v", err)
	}
	got, _ = s.GetOrder(ctx, "o1")
	check(t, "order after a failed update", got, o1)
	if _, err := s.UpdateOrder(ctx, "nope", func(*ordering.Order) error { return nil }); !errors.Is(err, ordering.ErrOrderNotFound) {
		t.Fatalf("UpdateOrder unknown: %v", err)
	}
}

// testOrderNumbers: orders created at once from many goroutines get
// distinct numbers 1..n, without gaps.
func testOrderNumbers(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	u := mustOrderUser(t, s, "u-c", "6281000000003")
	const n = 40
	var wg sync.WaitGroup
	numbers := make([]string, n)
	for i := range n {
		wg.Go(func() {
			o, err := s.CreateOrder(ctx, newOrder(fmt.Sprint("c", i), u.ID, ordT0), day25, nil)
			if err != nil {
				t.Errorf("CreateOrder: %v", err)
			}
			numbers[i] = o.OrderNumber
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, num := range numbers {
		seen[num] = true
	}
	for i := 1; i <= n; i++ {
		if !seen[day25.Number(i)] {
			t.Fatalf("number %s missing from %v", day25.Number(i), numbers)
		}
	}
}

// testOrderNumbersPast999: the 1,000th order of a day has four digits, as
// Numbering.Number writes it.
func testOrderNumbersPast999(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	u := mustOrderUser(t, s, "u-n", "6281000000004")
	var last ordering.Order
	for i := range 1000 {
		o, err := s.CreateOrder(ctx, newOrder(fmt.Sprintf("n%04d", i), u.ID, ordT0), day25, nil)
		mustOK(t, "CreateOrder", err)
		if want := day25.Number(i + 1); o.OrderNumber != want {
			t.Fatalf("order %d numbered %s, want %s", i+1, o.OrderNumber, want)
		}
		last = o
	}
	if last.OrderNumber != "ORD-20261125-1000" {
		t.Fatalf("the 1,000th order is %s", last.OrderNumber)
	}
	got, err := s.GetOrder(ctx, last.ID)
	mustOK(t, "GetOrder", err)
	if got.OrderNumber != last.OrderNumber {
		t.Fatalf("stored body says %s, row %s", got.OrderNumber, last.OrderNumber)
	}
}
