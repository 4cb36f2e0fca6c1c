package ordering

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seedhq/portal/internal/apperr"
)

// Status is the state of an order (docs/api/ordering.md, "Order states").
type Status string

// The states of an order.
const (
	StatusPendingPayment      Status = "PENDING_PAYMENT"
	StatusWaitingVerification Status = "WAITING_VERIFICATION"
	StatusPaid                Status = "PAID"
	StatusPreparing           Status = "PREPARING"
	StatusReady               Status = "READY"
	StatusOutForDelivery      Status = "OUT_FOR_DELIVERY"
	StatusCompleted           Status = "COMPLETED"
	StatusCancelled           Status = "CANCELLED"
	StatusExpired             Status = "EXPIRED"
	StatusRefunded            Status = "REFUNDED"
)

// OrderItem is a line of an order, priced from the catalogue when the order
// was made.
type OrderItem struct {
	MenuID   string `json:"menuId"`
	Name     string `json:"name"`
	Price    int64  `json:"price"`
	Quantity int    `json:"quantity"`
	Notes    string `json:"notes"`
	Subtotal int64  `json:"subtotal"`
}

// StatusChange is one transition of an order: who made it and when.
type StatusChange struct {
	From Status    `json:"from,omitempty"`
	To   Status    `json:"to"`
	By   string    `json:"by"` // a user id, or "provider", "system"
	Role string    `json:"role"`
	At   time.Time `json:"at"`
	Note string    `json:"note,omitempty"`
}

// Order is a customer's order.
type Order struct {
	ID                 string         `json:"id"`
	OrderNumber        string         `json:"orderNumber"`
	UserID             string         `json:"userId"`
	Status             Status         `json:"status"`
	Items              []OrderItem    `json:"items"`
	ItemsTotal         int64          `json:"itemsTotal"`
	ShippingCost       int64          `json:"shippingCost"`
	TotalPrice         int64          `json:"totalPrice"`
	ShippingType       string         `json:"shippingType"`
	ShippingAddress    string         `json:"shippingAddress"`
	ShippingCity       string         `json:"shippingCity"`
	ShippingPhone      string         `json:"shippingPhone"`
	ShippingLat        *float64       `json:"shippingLat"`
	ShippingLng        *float64       `json:"shippingLng"`
	Notes              string         `json:"notes"`
	InvoiceID          string         `json:"invoiceId"`
	ProviderPaymentURL string         `json:"providerPaymentUrl"`
	PaymentMethod      string         `json:"paymentMethod"`
	CreatedAt          time.Time      `json:"createdAt"`
	UpdatedAt          time.Time      `json:"updatedAt"`
	ExpiresAt          *time.Time     `json:"expiresAt"`
	History            []StatusChange `json:"history"`
	// Proof is the customer's payment receipt, once uploaded.
	Proof *Proof `json:"proof,omitempty"`
	// Payments are the payment notifications and decisions, accepted or
	// refused, in order.
	Payments []PaymentEvent `json:"payments,omitempty"`
	// Counter marks an order made at the point of sale for a walk-in
	// customer (UserID is then the cashier's), CustomerName the name given.
	Counter      bool   `json:"counter,omitempty"`
	CustomerName string `json:"customerName,omitempty"`
}

// Payment methods recorded on paid orders.
const (
	PaymentProvider = "PROVIDER"      // the payment provider's notification
	PaymentTransfer = "BANK_TRANSFER" // a receipt verified by the staff
	PaymentCash     = "CASH"          // at the counter
)

// Order limits.
const (
	MaxOrderItems = 100
	MaxQuantity   = 999
	MaxNotesLen   = 500
	MaxAddressLen = 500
)

// Errors of orders.
var (
	ErrOrderNotFound = apperr.New(apperr.NotFound, "ORDER_NOT_FOUND", "no such order")
	ErrEmptyOrder    = apperr.New(apperr.Invalid, "EMPTY_ORDER", "an order needs at least one item")
	ErrUnavailable   = apperr.New(apperr.Unprocessable, "ITEM_UNAVAILABLE", "a menu item of the order is not available now")
	ErrBadTransition = apperr.New(apperr.Conflict, "INVALID_TRANSITION", "the order cannot move to that state from its current one")
)

func invalidOrder(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, "INVALID_ORDER", format, args...)
}

// OrderRequest is what a customer (or the counter) asks for.
type OrderRequest struct {
	ShippingType    string
	ShippingAddress string
	ShippingCity    string
	ShippingPhone   string
	ShippingLat     *float64
	ShippingLng     *float64
	Notes           string
	Items           []OrderItemRequest
}

// OrderItemRequest is a line of an OrderRequest.
type OrderItemRequest struct {
	MenuID   string
	Quantity int
	Notes    string
}

// PaymentLinker gives an order its invoice and payment page at the payment
// provider.
type PaymentLinker interface {
	// Invoice returns the provider's invoice id and payment URL of o.
	Invoice(ctx context.Context, o Order) (invoiceID, paymentURL string, err error)
}

// validate checks the request's own fields.
func (r *OrderRequest) validate() error {
	if len(r.Items) == 0 {
		return ErrEmptyOrder
	}
	if len(r.Items) > MaxOrderItems {
		return invalidOrder("an order has at most %d lines", MaxOrderItems)
	}
	switch r.ShippingType {
	case ShippingDelivery, ShippingPickup, ShippingDineIn:
	default:
		return invalidOrder("shippingType must be DELIVERY, PICKUP or DINE_IN")
	}
	if r.ShippingType == ShippingDelivery && strings.TrimSpace(r.ShippingAddress) == "" {
		return invalidOrder("shippingAddress is required for a delivery")
	}
	if (r.ShippingLat == nil) != (r.ShippingLng == nil) {
		return invalidOrder("shippingLat and shippingLng go together")
	}
	if r.ShippingLat != nil && (*r.ShippingLat < -90 || *r.ShippingLat > 90 || *r.ShippingLng < -180 || *r.ShippingLng > 180) {
		return invalidOrder("shippingLat must be within -90..90 and shippingLng within -180..180")
	}
	for _, f := range []struct{ name, v string }{{"shippingAddress", r.ShippingAddress}, {"shippingCity", r.ShippingCity},
		{"shippingPhone", r.ShippingPhone}, {"notes", r.Notes}} {
		if utf8.RuneCountInString(f.v) > MaxAddressLen {
			return invalidOrder("%s is longer than %d characters", f.name, MaxAddressLen)
		}
	}
	for i, it := range r.Items {
		switch {
		case it.MenuID == "":
			return invalidOrder("items[%d].menuId is required", i)
		case it.Quantity < 1 || it.Quantity > MaxQuantity:
			return invalidOrder("items[%d].quantity must be from 1 to %d", i, MaxQuantity)
		case utf8.RuneCountInString(it.Notes) > MaxNotesLen:
			return invalidOrder("items[%d].notes is longer than %d characters", i, MaxNotesLen)
		}
	}
	return nil
}

// Numbering names the counter of an order number: the prefix and the
// shop's day (YYYYMMDD).
type Numbering struct {
	Prefix, Day string
}

// Counter is the key of the day's counter.
func (n Numbering) Counter() string { return n.Prefix + "-" + n.Day }

// Number formats the seq-th order number of the day: PREFIX-YYYYMMDD-NNN,
// NNN at least three digits (the 1,000th order of a day is
// PREFIX-YYYYMMDD-1000).
func (n Numbering) Number(seq int) string {
	return fmt.Sprintf("%s-%s-%03d", n.Prefix, n.Day, seq)
}

// OrderNumberMark stands for the order's number in the text of a message
// queued with the order, before the number is known.
const OrderNumberMark = "{orderNumber}"

// PlaceOrder prices req from the catalogue (never from the client), adds
// the shipping cost of the settings, and stores the order of the user in
// PENDING_PAYMENT with its number and the provider's payment URL.
func (s *Service) PlaceOrder(ctx context.Context, u User, req OrderRequest) (Order, error) {
	if err := req.validate(); err != nil {
		return Order{}, err
	}
	st, o, err := s.priceOrder(ctx, req)
	if err != nil {
		return Order{}, err
	}
	now := s.cfg.Now().UTC()
	expires := now.Add(time.Duration(st.PaymentExpiryMinutes) * time.Minute)
	o.ID, o.UserID, o.Status, o.CreatedAt, o.UpdatedAt, o.ExpiresAt = newID(), u.ID, StatusPendingPayment, now, now, &expires
	o.History = []StatusChange{{To: StatusPendingPayment, By: u.ID, Role: string(u.Role), At: now}}
	if o.InvoiceID, o.ProviderPaymentURL, err = s.cfg.Payments.Invoice(ctx, o); err != nil {
		return Order{}, fmt.Errorf("payment invoice: %w", err)
	}
	numbered := o
	numbered.OrderNumber = OrderNumberMark
	out, err := s.storeOrder(ctx, st, o, now, s.newMessage(o, u.MessengerNumber, statusText(numbered, "")))
	if err != nil {
		return Order{}, err
	}
	s.wakeSender()
	return out, nil
}

// PriceOrder checks and prices req as PlaceOrder would, without storing
// anything: the point of sale's total before the cash is taken.
func (s *Service) PriceOrder(ctx context.Context, req OrderRequest) (Order, error) {
	if err := req.validate(); err != nil {
		return Order{}, err
	}
	_, o, err := s.priceOrder(ctx, req)
	return o, err
}

// priceOrder reads the settings and the ordered items in one read and
// builds the order's lines and totals from them.
func (s *Service) priceOrder(ctx context.Context, req OrderRequest) (Settings, Order, error) {
	ids := make([]string, len(req.Items))
	for i, line := range req.Items {
		ids[i] = line.MenuID
	}
	st, ok, items, err := s.store.OrderInputs(ctx, ids)
	if err != nil {
		return Settings{}, Order{}, fmt.Errorf("price order: %w", err)
	}
	if !ok {
		st = DefaultSettings()
	}
	o, err := st.price(req, items)
	return st, o, err
}

// price builds the order's lines and totals from the items (the
// catalogue's) and the shipping rule of st.
func (st Settings) price(req OrderRequest, items []MenuItem) (Order, error) {
	var err error
	byID := make(map[string]MenuItem, len(items))
	for _, it := range items {
		byID[it.ID] = it
	}
	o := Order{ShippingType: req.ShippingType, ShippingAddress: strings.TrimSpace(req.ShippingAddress),
		ShippingCity: strings.TrimSpace(req.ShippingCity), ShippingPhone: strings.TrimSpace(req.ShippingPhone),
		ShippingLat: req.ShippingLat, ShippingLng: req.ShippingLng, Notes: strings.TrimSpace(req.Notes)}
	for i, line := range req.Items {
		it, ok := byID[line.MenuID]
		if !ok {
			return Order{}, apperr.Errorf(apperr.Unprocessable, "UNKNOWN_MENU_ITEM", "items[%d].menuId %q is not on the menu", i, line.MenuID)
		}
		if !it.Available {
			return Order{}, apperr.Errorf(apperr.Unprocessable, ErrUnavailable.Code, "items[%d]: %s is not available now", i, it.Name)
		}
		sub := it.Price * int64(line.Quantity)
		o.Items = append(o.Items, OrderItem{MenuID: it.ID, Name: it.Name, Price: it.Price, Quantity: line.Quantity,
			Notes: strings.TrimSpace(line.Notes), Subtotal: sub})
		o.ItemsTotal += sub
	}
	if o.ShippingCost, err = st.ShippingCost(req.ShippingType, req.ShippingLat, req.ShippingLng); err != nil {
		return Order{}, err
	}
	o.TotalPrice = o.ItemsTotal + o.ShippingCost
	return o, nil
}

// storeOrder stores o with the next number of the shop's day and, when
// message is not nil, queues message with it (OrderNumberMark in its text
// becomes the number).
func (s *Service) storeOrder(ctx context.Context, st Settings, o Order, now time.Time, message *OutboundMessage) (Order, error) {
	n := Numbering{Prefix: st.OrderPrefix, Day: now.In(st.location()).Format("20060102")}
	out, err := s.store.CreateOrder(ctx, o, n, message)
	if err != nil {
		return Order{}, fmt.Errorf("create order: %w", err)
	}
	s.log.Info("ordering: order placed", "order", out.OrderNumber, "total", out.TotalPrice, "status", out.Status)
	return out, nil
}

// OrderFor returns the order id of u: its own, or any order for the staff
// (kitchen, counter, payment verification). Another customer's order is
// ErrOrderNotFound, as a missing one.
func (s *Service) OrderFor(ctx context.Context, u User, id string) (Order, error) {
	o, err := s.store.GetOrder(ctx, id)
	if err != nil {
		return Order{}, err
	}
	if o.UserID != u.ID && u.Role == RoleCustomer {
		return Order{}, ErrOrderNotFound
	}
	return o, nil
}

// MyOrders returns u's orders, newest first.
func (s *Service) MyOrders(ctx context.Context, u User) ([]Order, error) {
	list, err := s.store.ListOrders(ctx, OrderQuery{UserID: u.ID, NewestFirst: true})
	if err != nil {
		return nil, fmt.Errorf("list orders: %w", err)
	}
	return list, nil
}

// RecentOrders returns u's latest n orders, newest first.
func (s *Service) RecentOrders(ctx context.Context, u User, n int) ([]Order, error) {
	list, err := s.store.ListOrders(ctx, OrderQuery{UserID: u.ID, NewestFirst: true, Limit: n})
	if err != nil {
		return nil, fmt.Errorf("list recent orders: %w", err)
	}
	return list, nil
}

// OrderQuery selects orders.
type OrderQuery struct {
	UserID      string   // "": any user
	Statuses    []Status // empty: any
	NewestFirst bool     // else oldest first
	Limit       int      // 0: no limit
}

// Actor is who moves an order: a user, or the portal itself ("system": the
// expiry) or the payment provider ("provider").
type Actor struct {
	User   *User
	System string
}

func (a Actor) by() (by, role string) {
	if a.User != nil {
		return a.User.ID, string(a.User.Role)
	}
	return a.System, a.System
}

// transitionRule is one allowed move of the order state machine.
type transitionRule struct {
	from, to Status
	// may reports whether the actor may make it on o.
	may func(a Actor, o Order) bool
}

func staff(menu string) func(Actor, Order) bool {
	return func(a Actor, _ Order) bool { return a.User != nil && a.User.Allows(menu) }
}

func system(name string) func(Actor, Order) bool {
	return func(a Actor, _ Order) bool { return a.User == nil && a.System == name }
}

func manager(a Actor, _ Order) bool {
	return a.User != nil && (a.User.Role == RoleAdmin || a.User.Role == RoleOwner)
}

func customerOrManager(a Actor, o Order) bool {
	return manager(a, o) || a.User != nil && a.User.ID == o.UserID
}

func either(fs ...func(Actor, Order) bool) func(Actor, Order) bool {
	return func(a Actor, o Order) bool {
		for _, f := range fs {
			if f(a, o) {
				return true
			}
		}
		return false
	}
}

// Actors of system transitions.
const (
	ActorSystem   = "system"
	ActorProvider = "provider"
)

// transitions is the order state machine (docs/api/ordering.md).
var transitions = []transitionRule{
	{StatusPendingPayment, StatusWaitingVerification, func(a Actor, o Order) bool { return a.User != nil && a.User.ID == o.UserID }},
	{StatusWaitingVerification, StatusPaid, staff(MenuPayments)},
	{StatusWaitingVerification, StatusPendingPayment, staff(MenuPayments)},
	{StatusPendingPayment, StatusPaid, system(ActorProvider)},
	{StatusWaitingVerification, StatusPaid, system(ActorProvider)},
	{StatusPendingPayment, StatusCancelled, customerOrManager},
	{StatusWaitingVerification, StatusCancelled, manager},
	{StatusPendingPayment, StatusExpired, either(system(ActorSystem), system(ActorProvider))},
	{StatusPaid, StatusPreparing, staff(MenuKitchen)},
	{StatusPreparing, StatusReady, staff(MenuKitchen)},
	{StatusReady, StatusOutForDelivery, func(a Actor, o Order) bool {
		return o.ShippingType == ShippingDelivery && staff(MenuKitchen)(a, o)
	}},
	{StatusReady, StatusCompleted, func(a Actor, o Order) bool {
		return o.ShippingType != ShippingDelivery && (staff(MenuKitchen)(a, o) || staff(MenuPOS)(a, o))
	}},
	{StatusOutForDelivery, StatusCompleted, either(staff(MenuKitchen), staff(MenuPOS))},
	{StatusPaid, StatusCancelled, manager},
	{StatusPreparing, StatusCancelled, manager},
	{StatusPaid, StatusRefunded, system(ActorProvider)},
	{StatusPreparing, StatusRefunded, system(ActorProvider)},
}

// allowed reports whether the actor may move o to the state.
func allowed(a Actor, o Order, to Status) bool {
	return slices.ContainsFunc(transitions, func(t transitionRule) bool {
		return t.from == o.Status && t.to == to && t.may(a, o)
	})
}

// Moves returns the states the actor may move o to now, in the order of
// the state machine: what a screen offers as buttons (Transition still
// decides).
func Moves(a Actor, o Order) []Status {
	var out []Status
	for _, t := range transitions {
		if t.from == o.Status && !slices.Contains(out, t.to) && t.may(a, o) {
			out = append(out, t.to)
		}
	}
	return out
}

// errForbiddenMove refuses a move the machine has but the actor may not make.
var errForbiddenMove = apperr.New(apperr.Forbidden, "FORBIDDEN", "your role may not move this order to that state")

// Transition moves the order id to the state on behalf of the actor, with a
// note (a rejection's reason), and records who and when in its history.
// The move must exist from the order's current state (ErrBadTransition) and
// the actor must be one who may make it (403). fn, when not nil, changes the
// order in the same transaction (a payment method, a receipt).
func (s *Service) Transition(ctx context.Context, a Actor, id string, to Status, note string, fn func(*Order)) (Order, error) {
	now := s.cfg.Now().UTC()
	o, err := s.store.UpdateOrder(ctx, id, func(o *Order) error {
		if a.User != nil && a.User.Role == RoleCustomer && o.UserID != a.User.ID {
			return ErrOrderNotFound
		}
		if !slices.ContainsFunc(transitions, func(t transitionRule) bool { return t.from == o.Status && t.to == to }) {
			return apperr.Errorf(apperr.Conflict, ErrBadTransition.Code, "an order in %s cannot move to %s", o.Status, to)
		}
		if !allowed(a, *o, to) {
			return errForbiddenMove
		}
		by, role := a.by()
		o.History = append(o.History, StatusChange{From: o.Status, To: to, By: by, Role: role, At: now, Note: note})
		o.Status, o.UpdatedAt = to, now
		if to != StatusPendingPayment && to != StatusWaitingVerification {
			o.ExpiresAt = nil
		}
		if fn != nil {
			fn(o)
		}
		return nil
	})
	if err != nil {
		return Order{}, err
	}
	s.log.Info("ordering: order moved", "order", o.OrderNumber, "to", to, "by", o.History[len(o.History)-1].By)
	s.notify()
	if text := statusText(o, note); text != "" {
		s.queueMessage(ctx, o, text)
	}
	return o, nil
}

// ExpireOrders moves the unpaid orders past their expiry to EXPIRED and
// returns how many it moved.
func (s *Service) ExpireOrders(ctx context.Context) (int, error) {
	now := s.cfg.Now().UTC()
	list, err := s.store.ListOrders(ctx, OrderQuery{Statuses: []Status{StatusPendingPayment}})
	if err != nil {
		return 0, fmt.Errorf("expire orders: %w", err)
	}
	n := 0
	for _, o := range list {
		if o.ExpiresAt == nil || now.Before(*o.ExpiresAt) {
			continue
		}
		_, err := s.Transition(ctx, Actor{System: ActorSystem}, o.ID, StatusExpired, "unpaid at its expiry", nil)
		if err != nil && !errors.Is(err, ErrBadTransition) {
			return n, err
		}
		if err == nil {
			n++
		}
	}
	return n, nil
}

// SandboxPayments is the built-in payment provider stand-in: invoices are
// paid on the portal's own page /sandbox/pay/{invoice}.
type SandboxPayments struct {
	// BaseURL is the portal's public base URL.
	BaseURL string
}

// Invoice returns a new invoice id and its sandbox page.
func (p SandboxPayments) Invoice(_ context.Context, _ Order) (string, string, error) {
	id := "inv_" + rand.Text()
	return id, strings.TrimSuffix(p.BaseURL, "/") + "/sandbox/pay/" + id, nil
}

// ExpiryInterval is how often RunExpiry looks for unpaid orders past their
// expiry.
const ExpiryInterval = time.Minute

// RunExpiry expires unpaid orders every ExpiryInterval until ctx is done.
// Several instances may run it at once: an order moves once (the others
// find it EXPIRED already).
func (s *Service) RunExpiry(ctx context.Context) {
	t := time.NewTicker(ExpiryInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n, err := s.ExpireOrders(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("ordering: expiring unpaid orders", "err", err, "expired", n)
		}
	}
}
