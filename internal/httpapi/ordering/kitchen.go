package ordering

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/httpapi/respond"
	ord "github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/orderweb"
)

// kitchenOrders serves GET /api/kitchen/orders (kitchen menu): the paid and
// in-progress orders, oldest first.
func (a *api) kitchenOrders(w http.ResponseWriter, r *http.Request) {
	list, err := a.svc.KitchenOrders(r.Context())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, ordersAnswer(list))
}

// kitchenEvents serves GET /api/kitchen/events (kitchen menu): Server-Sent
// Events. An "orders" event carries the kitchen's list (as GET
// /api/kitchen/orders' "orders") on connection and whenever it changes: at
// once for changes made through this instance, within 2 s for the others.
func (a *api) kitchenEvents(w http.ResponseWriter, r *http.Request) {
	err := orderweb.StreamChanges(w, r, a.svc, a.log, "orders", func(ctx context.Context) ([]byte, error) {
		list, err := a.svc.KitchenOrders(ctx)
		if err != nil {
			return nil, err
		}
		return json.Marshal(publicList(list))
	})
	if err != nil {
		a.writeError(w, r, err)
	}
}

// counterRequest is an order at the point of sale: the order's fields
// (shippingType PICKUP or DINE_IN, the default) and the payment taken.
type counterRequest struct {
	orderRequest
	PaymentMethod string `json:"paymentMethod"`
	CustomerName  string `json:"customerName"`
}

// counterOrder serves POST /api/pos/orders (pos menu): a walk-in
// customer's order, paid on creation (CASH, QRIS or CARD).
func (a *api) counterOrder(w http.ResponseWriter, r *http.Request) {
	var req counterRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	o, err := a.svc.PlaceCounterOrder(r.Context(), userFrom(r.Context()), req.domain(), req.PaymentMethod, req.CustomerName)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusCreated, orderAnswer(o))
}

type ledgerResponse struct {
	Success bool `json:"success"`
	ord.Ledger
}

// ledger serves GET /api/ledger?from=YYYY-MM-DD&to=YYYY-MM-DD[&format=csv]
// (OWNER): the paid orders of the period with totals per day and method.
func (a *api) ledger(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	l, err := a.svc.Ledger(r.Context(), q.Get("from"), q.Get("to"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if q.Get("format") == "csv" {
		if err := orderweb.WriteLedgerCSV(w, l); err != nil {
			a.log.Warn("ordering: ledger CSV", "err", err)
		}
		return
	}
	respond.JSON(w, http.StatusOK, ledgerResponse{Success: true, Ledger: l})
}

type consentRequest struct {
	MessengerNumber string `json:"messengerNumber"`
}

type consentResponse struct {
	Success bool        `json:"success"`
	Consent ord.Consent `json:"consent"`
}

// registerConsent serves POST /api/gateway/consent ({messengerNumber};
// ADMIN, OWNER): the number may receive the shop's messages.
func (a *api) registerConsent(w http.ResponseWriter, r *http.Request) {
	var req consentRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	c, err := a.svc.RegisterConsent(r.Context(), req.MessengerNumber)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, consentResponse{Success: true, Consent: c})
}

type messagesResponse struct {
	Success  bool                  `json:"success"`
	Messages []ord.OutboundMessage `json:"messages"`
}

// messages serves GET /api/gateway/messages?limit= (OWNER): the latest
// outbound messages, newest first, with their state (QUEUED, SENDING, SENT,
// DROPPED, FAILED) and reason.
func (a *api) messages(w http.ResponseWriter, r *http.Request) {
	limit := 100
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			a.writeError(w, r, apperr.New(apperr.Invalid, "INVALID_QUERY", "limit must be an integer from 1 to 1000"))
			return
		}
		limit = n
	}
	list, err := a.svc.Messages(r.Context(), limit)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	for i := range list {
		list[i].LeaseOwner, list[i].LeaseUntil = "", nil
	}
	if list == nil {
		list = []ord.OutboundMessage{}
	}
	respond.JSON(w, http.StatusOK, messagesResponse{Success: true, Messages: list})
}
