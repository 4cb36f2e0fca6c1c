package ordering

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seedhq/portal/internal/apperr"
)

// Counter payment methods (the point of sale).
var CounterMethods = []string{PaymentCash, "QRIS", "CARD"}

// PlaceCounterOrder creates the order of a walk-in customer at the point of
// sale, paid on creation (method: CASH, QRIS or CARD), for the staff user
// u (allowed the pos menu). It goes straight to the kitchen (PAID).
func (s *Service) PlaceCounterOrder(ctx context.Context, u User, req OrderRequest, method, customerName string) (Order, error) {
	if !u.Allows(MenuPOS) {
		return Order{}, ErrForbidden
	}
	method = strings.ToUpper(strings.TrimSpace(method))
	if !slices.Contains(CounterMethods, method) {
		return Order{}, invalidOrder("paymentMethod must be one of %s", strings.Join(CounterMethods, ", "))
	}
	if req.ShippingType == "" {
		req.ShippingType = ShippingDineIn
	}
	if req.ShippingType == ShippingDelivery {
		return Order{}, invalidOrder("the point of sale takes PICKUP and DINE_IN orders")
	}
	customerName = strings.TrimSpace(customerName)
	if utf8.RuneCountInString(customerName) > MaxNameLen {
		return Order{}, invalidOrder("customerName is longer than %d characters", MaxNameLen)
	}
	if err := req.validate(); err != nil {
		return Order{}, err
	}
	st, o, err := s.priceOrder(ctx, req)
	if err != nil {
		return Order{}, err
	}
	now := s.cfg.Now().UTC()
	o.ID, o.UserID, o.Status, o.CreatedAt, o.UpdatedAt = newID(), u.ID, StatusPaid, now, now
	o.Counter, o.CustomerName, o.PaymentMethod = true, customerName, method
	o.History = []StatusChange{{To: StatusPaid, By: u.ID, Role: string(u.Role), At: now, Note: "paid at the counter: " + method}}
	o.Payments = []PaymentEvent{{At: now, Source: "counter", Status: ProviderPaid, Amount: o.TotalPrice, Accepted: true}}
	out, err := s.storeOrder(ctx, st, o, now, nil)
	if err != nil {
		return Order{}, err
	}
	s.notify()
	return out, nil
}

// KitchenStatuses are the states the kitchen display shows.
var KitchenStatuses = []Status{StatusPaid, StatusPreparing, StatusReady, StatusOutForDelivery}

// KitchenOrders returns the paid and in-progress orders, oldest first.
func (s *Service) KitchenOrders(ctx context.Context) ([]Order, error) {
	list, err := s.store.ListOrders(ctx, OrderQuery{Statuses: KitchenStatuses})
	if err != nil {
		return nil, fmt.Errorf("kitchen orders: %w", err)
	}
	return list, nil
}

// Changes returns a channel that receives a value (without blocking the
// sender) whenever an order of this instance changes: the kitchen
// display's live updates wake on it and read the store again. Other
// instances' changes are seen by reading the store at an interval.
func (s *Service) Changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{}, 1)
	s.watchers = append(s.watchers, ch)
	return ch
}

// StopChanges forgets a channel of Changes.
func (s *Service) StopChanges(ch <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchers = slices.DeleteFunc(s.watchers, func(w chan struct{}) bool { return w == ch })
}

// notify wakes the watchers of Changes.
func (s *Service) notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.watchers {
		select {
		case w <- struct{}{}:
		default:
		}
	}
}

// LedgerEntry is a paid order in the ledger.
type LedgerEntry struct {
	Day         string    `json:"day"` // the shop's date of the payment, YYYY-MM-DD
	PaidAt      time.Time `json:"paidAt"`
	OrderNumber string    `json:"orderNumber"`
	Method      string    `json:"paymentMethod"`
	ItemsTotal  int64     `json:"itemsTotal"`
	Shipping    int64     `json:"shippingCost"`
	Total       int64     `json:"totalPrice"`
	Status      Status    `json:"status"`
}

// Ledger is the paid orders of a period with their totals.
type Ledger struct {
	From       string           `json:"from"`
	To         string           `json:"to"`
	Entries    []LedgerEntry    `json:"entries"`
	ByDay      map[string]int64 `json:"totalsByDay"`
	ByMethod   map[string]int64 `json:"totalsByMethod"`
	Total      int64            `json:"total"`
	OrderCount int              `json:"orderCount"`
}

// ErrInvalidPeriod refuses a ledger period.
var ErrInvalidPeriod = apperr.New(apperr.Invalid, "INVALID_PERIOD", "from and to must be dates (YYYY-MM-DD), from not after to, at most 366 days")

// Ledger returns the orders paid between the shop's dates from and to
// (inclusive, YYYY-MM-DD), with totals per day and per payment method.
// Refunded orders are left out; orders cancelled after their payment stay
// (the money was taken; the refund is settled outside). It reads the
// store's ledger entries (Order.LedgerEntry, kept as orders are written),
// never the orders themselves.
func (s *Service) Ledger(ctx context.Context, from, to string) (Ledger, error) {
	st, err := s.Settings(ctx)
	if err != nil {
		return Ledger{}, err
	}
	loc := st.location()
	f, err1 := time.ParseInLocation(time.DateOnly, from, loc)
	t, err2 := time.ParseInLocation(time.DateOnly, to, loc)
	if err1 != nil || err2 != nil || t.Before(f) || t.Sub(f) > 366*24*time.Hour {
		return Ledger{}, ErrInvalidPeriod
	}
	entries, err := s.store.LedgerEntries(ctx, f, t.AddDate(0, 0, 1))
	if err != nil {
		return Ledger{}, fmt.Errorf("ledger: %w", err)
	}
	l := Ledger{From: from, To: to, Entries: entries, ByDay: map[string]int64{}, ByMethod: map[string]int64{}}
	if l.Entries == nil {
		l.Entries = []LedgerEntry{}
	}
	for i := range l.Entries {
		e := &l.Entries[i]
		e.Day = e.PaidAt.In(loc).Format(time.DateOnly)
		l.ByDay[e.Day] += e.Total
		l.ByMethod[e.Method] += e.Total
		l.Total += e.Total
	}
	l.OrderCount = len(l.Entries)
	return l, nil
}

// PaidAt returns when o became PAID (its first move to PAID in History),
// and false when it never did.
func (o Order) PaidAt() (time.Time, bool) {
	for _, h := range o.History {
		if h.To == StatusPaid {
			return h.At, true
		}
	}
	return time.Time{}, false
}

// LedgerEntry returns o's entry in the ledger (Day left empty: it depends
// on the shop's time zone), and false when o is not in the ledger: never
// paid, or refunded. Stores keep the entries of their orders with it
// (Store.LedgerEntries).
func (o Order) LedgerEntry() (LedgerEntry, bool) {
	paidAt, ok := o.PaidAt()
	if !ok || o.Status == StatusRefunded {
		return LedgerEntry{}, false
	}
	return LedgerEntry{PaidAt: paidAt, OrderNumber: o.OrderNumber, Method: o.PaymentMethod,
		ItemsTotal: o.ItemsTotal, Shipping: o.ShippingCost, Total: o.TotalPrice, Status: o.Status}, true
}

// WriteCSV writes the ledger's entries as CSV with a header line.
func (l Ledger) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"day", "paid_at", "order_number", "payment_method", "items_total", "shipping_cost", "total_price", "status"})
	for _, e := range l.Entries {
		cw.Write([]string{e.Day, e.PaidAt.UTC().Format(time.RFC3339), e.OrderNumber, e.Method, strconv.FormatInt(e.ItemsTotal, 10),
			strconv.FormatInt(e.Shipping, 10), strconv.FormatInt(e.Total, 10), string(e.Status)})
	}
	cw.Flush()
	return cw.Error()
}
