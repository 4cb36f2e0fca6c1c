package ordering_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/postgres/postgrestest"
)

// Sizes of the ledger benchmark: the shop of the console's load run
// (internal/loadtest, consoleOrders and consoleCounter).
const (
	benchOrders = 10000 // orders in the store
	benchPaid   = 3000  // ... of which paid at the counter (in the ledger)
)

// BenchmarkLedger times Service.Ledger over a store holding benchOrders
// orders, benchPaid of them paid at the counter, one order a minute from
// 2026-11-18 (about a week): the whole week (every paid order) and one
// day of it.
func BenchmarkLedger(b *testing.B) {
	b.Run("bolt", func(b *testing.B) {
		st, err := bolt.Open(filepath.Join(b.TempDir(), "portal.db"), bolt.WithNoSync())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		benchLedger(b, st)
	})
	b.Run("postgres", func(b *testing.B) { benchLedger(b, postgrestest.Open(b)) })
}

func benchLedger(b *testing.B, st ordering.Store) {
	svc := seedLedgerShop(b, st)
	for _, p := range []struct{ name, from, to string }{
		{"week", "2026-11-18", "2026-11-25"},
		{"day", "2026-11-20", "2026-11-20"},
	} {
		b.Run(p.name, func(b *testing.B) {
			ctx := context.Background()
			var l ordering.Ledger
			for b.Loop() {
				var err error
				if l, err = svc.Ledger(ctx, p.from, p.to); err != nil {
					b.Fatal(err)
				}
			}
			if p.name == "week" && l.OrderCount != benchPaid {
				b.Fatalf("%d orders in the ledger, want %d", l.OrderCount, benchPaid)
			}
			b.ReportMetric(float64(l.OrderCount), "entries")
		})
	}
}

// seedLedgerShop returns a service over st holding benchOrders orders of
// two lines each: every third order up to benchPaid paid at the counter,
// the others placed by customers and waiting for payment.
func seedLedgerShop(b *testing.B, st ordering.Store) *ordering.Service {
	b.Helper()
	ctx := context.Background()
	c := &clock{now: time.Date(2026, 11, 18, 1, 0, 0, 0, time.UTC)}
	svc, err := ordering.NewService(st, ordering.Config{JWTKey: key, MessengerLinkBase: "https://wa.me/6281100000000",
		OwnerNumber: "628110000001", Challenge: okChallenge{}, Payments: ordering.SandboxPayments{BaseURL: "http://portal.test"},
		MerchantID: "M-1", Now: c.Now}, nil)
	if err != nil {
		b.Fatal(err)
	}
	login := func(number string) ordering.User {
		ls, err := svc.Login(ctx, number, "ok", "192.0.2.1")
		if err != nil {
			b.Fatal(err)
		}
		_, u, err := svc.Inbound(ctx, number, "VERIFY_"+ls.Token)
		if err != nil {
			b.Fatal(err)
		}
		return u
	}
	owner := login("628110000001")
	var customers []ordering.User
	for i := range 10 {
		customers = append(customers, login(fmt.Sprintf("62813%08d", i)))
	}
	cat, err := svc.CreateCategory(ctx, ordering.CategoryInput{Name: "Kopi", Position: 1})
	if err != nil {
		b.Fatal(err)
	}
	var items []string
	for i := range 20 {
		it, err := svc.CreateMenuItem(ctx, ordering.MenuItem{CategoryID: cat.ID, Name: fmt.Sprint("Menu ", i),
			Price: int64(10000 + 500*i), Available: true})
		if err != nil {
			b.Fatal(err)
		}
		items = append(items, it.ID)
	}
	paid := 0
	for i := range benchOrders {
		c.now = c.now.Add(time.Minute)
		req := ordering.OrderRequest{ShippingType: ordering.ShippingPickup, Items: []ordering.OrderItemRequest{
			{MenuID: items[i%len(items)], Quantity: 1 + i%3}, {MenuID: items[(i+7)%len(items)], Quantity: 1}}}
		if i%3 == 0 && paid < benchPaid {
			paid++
			_, err = svc.PlaceCounterOrder(ctx, owner, req, ordering.CounterMethods[i%len(ordering.CounterMethods)], "")
		} else {
			_, err = svc.PlaceOrder(ctx, customers[i%len(customers)], req)
		}
		if err != nil {
			b.Fatalf("order %d: %v", i, err)
		}
	}
	return svc
}
