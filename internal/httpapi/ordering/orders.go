package ordering

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/httpapi/respond"
	ord "github.com/seedhq/portal/internal/ordering"
)

// orderRequest is the body of POST /api/orders (the spec's fields).
type orderRequest struct {
	ShippingType    string             `json:"shippingType"`
	ShippingAddress string             `json:"shippingAddress"`
	ShippingCity    string             `json:"shippingCity"`
	ShippingPhone   string             `json:"shippingPhone"`
	ShippingLat     *float64           `json:"shippingLat"`
	ShippingLng     *float64           `json:"shippingLng"`
	Notes           string             `json:"notes"`
	Items           []orderItemRequest `json:"items"`
}

type orderItemRequest struct {
	MenuID   string `json:"menuId"`
	Quantity int    `json:"quantity"`
	Notes    string `json:"notes"`
}

func (req orderRequest) domain() ord.OrderRequest {
	out := ord.OrderRequest{ShippingType: req.ShippingType, ShippingAddress: req.ShippingAddress, ShippingCity: req.ShippingCity,
		ShippingPhone: req.ShippingPhone, ShippingLat: req.ShippingLat, ShippingLng: req.ShippingLng, Notes: req.Notes}
	for _, it := range req.Items {
		out.Items = append(out.Items, ord.OrderItemRequest{MenuID: it.MenuID, Quantity: it.Quantity, Notes: it.Notes})
	}
	return out
}

type orderResponse struct {
	Success bool      `json:"success"`
	Order   ord.Order `json:"order"`
}

// orderAnswer is the answer that carries the order o.
func orderAnswer(o ord.Order) orderResponse {
	return orderResponse{Success: true, Order: public(o)}
}

type ordersResponse struct {
	Success bool        `json:"success"`
	Orders  []ord.Order `json:"orders"`
}

// ordersAnswer is the answer that carries the orders of list.
func ordersAnswer(list []ord.Order) ordersResponse {
	return ordersResponse{Success: true, Orders: publicList(list)}
}

// public returns o as the API shows it: less the name of its receipt's
// file in the proof directory, which is the portal's own business (the
// receipt is read through GET /api/payments/{orderId}/proof).
func public(o ord.Order) ord.Order {
	if o.Proof != nil {
		p := *o.Proof
		p.File = ""
		o.Proof = &p
	}
	return o
}

// publicList is public for each order of list; never nil.
func publicList(list []ord.Order) []ord.Order {
	out := make([]ord.Order, len(list))
	for i, o := range list {
		out[i] = public(o)
	}
	return out
}

// createOrder serves POST /api/orders (every signed-in role): 201 with the
// order (id, orderNumber, status PENDING_PAYMENT, totalPrice, shippingCost,
// providerPaymentUrl, and the rest of the order).
func (a *api) createOrder(w http.ResponseWriter, r *http.Request) {
	var req orderRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	o, err := a.svc.PlaceOrder(r.Context(), userFrom(r.Context()), req.domain())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusCreated, orderAnswer(o))
}

// listOrders serves GET /api/orders: the user's own orders, newest first.
func (a *api) listOrders(w http.ResponseWriter, r *http.Request) {
	list, err := a.svc.MyOrders(r.Context(), userFrom(r.Context()))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, ordersAnswer(list))
}

// getOrder serves GET /api/orders/{id}: the user's own order with its
// history (the staff read any); another customer's order is 404.
func (a *api) getOrder(w http.ResponseWriter, r *http.Request) {
	o, err := a.svc.OrderFor(r.Context(), userFrom(r.Context()), chi.URLParam(r, "id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, orderAnswer(o))
}

type statusRequest struct {
	Status ord.Status `json:"status"`
	Note   string     `json:"note"`
}

// setOrderStatus serves POST /api/orders/{id}/status ({status, note}): one
// move of the order state machine, by a role that may make it
// (docs/api/ordering.md, "Order states").
func (a *api) setOrderStatus(w http.ResponseWriter, r *http.Request) {
	var req statusRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	u := userFrom(r.Context())
	o, err := a.svc.Transition(r.Context(), ord.Actor{User: &u}, chi.URLParam(r, "id"), req.Status, req.Note, nil)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, orderAnswer(o))
}

// cancelOrder serves POST /api/orders/{id}/cancel: the customer's unpaid
// order, or any order an ADMIN or OWNER may cancel.
func (a *api) cancelOrder(w http.ResponseWriter, r *http.Request) {
	u := userFrom(r.Context())
	o, err := a.svc.Transition(r.Context(), ord.Actor{User: &u}, chi.URLParam(r, "id"), ord.StatusCancelled, "", nil)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, orderAnswer(o))
}
