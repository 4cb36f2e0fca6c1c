package ordering

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/apperr"
)

// ProviderNotification is the payment provider's webhook body (the spec's
// fields), its signature already checked by the HTTP edge.
type ProviderNotification struct {
	InvoiceID  string    `json:"invoiceId"`
	MerchantID string    `json:"merchantId"`
	Amount     int64     `json:"amount"`
	Status     string    `json:"status"`
	PaidAt     time.Time `json:"paidAt"`
}

// Provider statuses (docs/api/ordering.md, "Provider webhook").
const (
	ProviderPaid     = "PAID"
	ProviderExpired  = "EXPIRED"
	ProviderFailed   = "FAILED"
	ProviderRefunded = "REFUNDED"
)

// Errors of provider notifications.
var (
	ErrMerchantMismatch = apperr.New(apperr.Unprocessable, "MERCHANT_MISMATCH", "merchantId is not this shop's")
	ErrAmountMismatch   = apperr.New(apperr.Unprocessable, "AMOUNT_MISMATCH", "amount is not the order's total")
	ErrProviderStatus   = apperr.New(apperr.Invalid, "INVALID_PROVIDER_STATUS", "status must be PAID, EXPIRED, FAILED or REFUNDED")
)

// ProviderResult says what a notification did.
type ProviderResult string

// Results of a provider notification.
const (
	ProviderApplied   ProviderResult = "APPLIED"   // the order moved
	ProviderDuplicate ProviderResult = "DUPLICATE" // already applied: nothing changed
	ProviderRecorded  ProviderResult = "RECORDED"  // recorded on the order, no move (FAILED, or too late)
)

// ProviderNotify applies a payment notification to the order of its
// invoice. The merchant and the amount must be the order's (else the
// notification is refused and recorded on the order). PAID moves an unpaid
// order to PAID (payment method PROVIDER), EXPIRED an unpaid order to
// EXPIRED, REFUNDED a paid one to REFUNDED; FAILED is recorded and the order
// waits for payment still. A notification that finds the order already
// where it leads is DUPLICATE and changes nothing, so repeats are harmless.
func (s *Service) ProviderNotify(ctx context.Context, n ProviderNotification) (ProviderResult, Order, error) {
	var to Status
	switch n.Status = strings.ToUpper(strings.TrimSpace(n.Status)); n.Status {
	case ProviderPaid:
		to = StatusPaid
	case ProviderExpired:
		to = StatusExpired
	case ProviderRefunded:
		to = StatusRefunded
	case ProviderFailed:
	default:
		return "", Order{}, ErrProviderStatus
	}
	o, err := s.store.GetOrderByInvoice(ctx, n.InvoiceID)
	if err != nil {
		return "", Order{}, err
	}
	now := s.cfg.Now().UTC()
	event := PaymentEvent{At: now, Source: "provider", Status: n.Status, Amount: n.Amount}
	var refusal error
	switch {
	case s.cfg.MerchantID != "" && n.MerchantID != s.cfg.MerchantID:
		refusal = ErrMerchantMismatch
	case n.Amount != o.TotalPrice:
		refusal = ErrAmountMismatch
	}
	if refusal != nil {
		event.Reason = apperr.From(refusal).Message
		if _, err := s.store.UpdateOrder(ctx, o.ID, func(o *Order) error {
			o.Payments = append(o.Payments, event)
			return nil
		}); err != nil {
			return "", Order{}, fmt.Errorf("record refused notification: %w", err)
		}
		s.log.Warn("ordering: provider notification refused", "order", o.OrderNumber, "invoice", n.InvoiceID,
			"reason", event.Reason, "amount", n.Amount, "merchant", n.MerchantID)
		return "", Order{}, refusal
	}
	record := func(ev PaymentEvent) (ProviderResult, Order, error) {
		o, err := s.store.UpdateOrder(ctx, o.ID, func(o *Order) error {
			o.Payments = append(o.Payments, ev)
			return nil
		})
		if err != nil {
			return "", Order{}, fmt.Errorf("record notification: %w", err)
		}
		return ProviderRecorded, o, nil
	}
	switch {
	case to == "":
		event.Accepted, event.Reason = true, "payment failed at the provider: the order still waits for payment"
		return record(event)
	case hasEvent(o, n.Status):
		return ProviderDuplicate, o, nil
	case o.Status == to || to == StatusPaid && isPaidOrLater(o.Status):
		// There already by another way (a receipt verified, then the
		// provider's payment): recorded for the owner to settle.
		event.Reason = "the order is " + string(o.Status) + " already"
		s.log.Warn("ordering: provider notification for an order already there", "order", o.OrderNumber, "status", n.Status)
		return record(event)
	}
	event.Accepted = true
	moved, err := s.Transition(ctx, Actor{System: ActorProvider}, o.ID, to, "provider: "+n.Status, func(o *Order) {
		o.Payments = append(o.Payments, event)
		if to == StatusPaid {
			o.PaymentMethod = PaymentProvider
		}
	})
	if apperr.CodeOf(err) == ErrBadTransition.Code {
		// Too late (a cancelled order paid, an expired one refunded):
		// recorded for the owner to settle.
		event.Accepted, event.Reason = false, apperr.From(err).Message
		s.log.Warn("ordering: provider notification for an order that cannot take it", "order", o.OrderNumber, "status", n.Status)
		return record(event)
	}
	if err != nil {
		return "", Order{}, err
	}
	return ProviderApplied, moved, nil
}

// isPaidOrLater reports whether an order in st has been paid.
func isPaidOrLater(st Status) bool {
	switch st {
	case StatusPaid, StatusPreparing, StatusReady, StatusOutForDelivery, StatusCompleted, StatusRefunded:
		return true
	}
	return false
}

// hasEvent reports whether o recorded an accepted provider notification of
// the status.
func hasEvent(o Order, status string) bool {
	for _, e := range o.Payments {
		if e.Source == "provider" && e.Status == status && e.Accepted {
			return true
		}
	}
	return false
}

// OrderByInvoice returns the order of a provider invoice (the payment
// sandbox shows it).
func (s *Service) OrderByInvoice(ctx context.Context, invoiceID string) (Order, error) {
	return s.store.GetOrderByInvoice(ctx, invoiceID)
}
