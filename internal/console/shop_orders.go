package console

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	ord "github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/orderweb"
)

// ordersView is the data of the list of the user's orders.
type ordersView struct {
	shopFormat
	Orders []ord.Order
	// Latest is set when the list shows only the latest orders.
	Latest int
}

// myOrdersShown is how many of the user's latest orders the list shows;
// the API (GET /api/orders) gives them all.
const myOrdersShown = 50

// myOrders serves GET /console/shop/orders: the user's latest orders,
// newest first.
func (c *console) myOrders(w http.ResponseWriter, r *http.Request) {
	v := c.shopView(r)
	list, err := c.ordering.Service.RecentOrders(r.Context(), shopUserFrom(r), myOrdersShown)
	status := http.StatusOK
	if err != nil {
		status = c.showError(&v, err)
	}
	ov := ordersView{shopFormat: c.shopFormatFor(r), Orders: list}
	if len(list) == myOrdersShown {
		ov.Latest = myOrdersShown
	}
	v.Data = ov
	c.render(w, r, "shop_orders", status, v)
}

// orderView is an order's page data.
type orderView struct {
	shopFormat
	Order ord.Order
	// Pay is set while the user may pay the order (its own, unpaid):
	// through the provider's page, or by a transfer's receipt.
	Pay bool
	// Cancel is set when the user may cancel the order.
	Cancel bool
}

// orderPage serves GET /console/shop/orders/{id}: the order with its
// lines, its status and history, and what the user may do with it now (pay
// through the provider's page, upload a transfer's receipt, cancel);
// shop.js follows its status (orderEvents) and reloads the page when it
// moves.
func (c *console) orderPage(w http.ResponseWriter, r *http.Request) {
	c.renderOrder(w, r, http.StatusOK, nil)
}

// renderOrder renders the order's page; err, when not nil, is shown.
func (c *console) renderOrder(w http.ResponseWriter, r *http.Request, status int, err error) {
	v := c.shopView(r)
	if err != nil {
		status = c.showError(&v, err)
	}
	u := shopUserFrom(r)
	o, oerr := c.ordering.Service.OrderFor(r.Context(), u, chi.URLParam(r, "id"))
	if oerr != nil {
		status = c.showError(&v, oerr)
		c.render(w, r, "shop_order", status, v)
		return
	}
	moves := ord.Moves(ord.Actor{User: &u}, o)
	v.Data = orderView{shopFormat: c.shopFormatFor(r), Order: o,
		Pay:    o.UserID == u.ID && slices.Contains(moves, ord.StatusWaitingVerification),
		Cancel: slices.Contains(moves, ord.StatusCancelled)}
	c.render(w, r, "shop_order", status, v)
}

// orderEvents serves GET /console/shop/orders/{id}/events: Server-Sent
// Events whose "status" event carries the order's status, on connection
// and whenever it moves.
func (c *console) orderEvents(w http.ResponseWriter, r *http.Request) {
	u, id := shopUserFrom(r), chi.URLParam(r, "id")
	if _, err := c.ordering.Service.OrderFor(r.Context(), u, id); err != nil {
		c.plainError(w, err)
		return
	}
	err := orderweb.StreamChanges(w, r, c.ordering.Service, c.log, "status", func(ctx context.Context) ([]byte, error) {
		o, err := c.ordering.Service.OrderFor(ctx, u, id)
		return []byte(o.Status), err
	})
	if err != nil {
		c.plainError(w, err)
	}
}

// plainError answers err as text, to a script: a domain error's message
// with its status, anything else as an internal error (logged).
func (c *console) plainError(w http.ResponseWriter, err error) {
	if e := apperr.From(err); e != nil {
		http.Error(w, e.Message, e.Kind.Status())
		return
	}
	c.log.Error("console: shop", "err", err)
	http.Error(w, "internal error", http.StatusInternalServerError)
}

// errNoProof refuses a receipt form without its image.
var errNoProof = apperr.New(apperr.Invalid, "INVALID_FORM", "choose the photo or screenshot of the transfer's receipt")

// uploadProof serves POST /console/shop/orders/{id}/proof (multipart: csrf,
// proof, bank_info): the transfer's receipt through Service.UploadProof,
// which checks the image; the order then waits for the shop's check.
func (c *console) uploadProof(w http.ResponseWriter, r *http.Request) {
	f, _, err := r.FormFile("proof")
	if err != nil {
		c.renderOrder(w, r, http.StatusBadRequest, errNoProof)
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, ord.MaxProofSize+1))
	if err != nil {
		c.renderOrder(w, r, http.StatusBadRequest, errNoProof)
		return
	}
	id := chi.URLParam(r, "id")
	if _, err := c.ordering.Service.UploadProof(r.Context(), shopUserFrom(r), id, data, strings.TrimSpace(r.PostFormValue("bank_info"))); err != nil {
		c.renderOrder(w, r, apperr.KindOf(err).Status(), err)
		return
	}
	http.Redirect(w, r, "/console/shop/orders/"+id, http.StatusSeeOther)
}

// cancelOrder serves POST /console/shop/orders/{id}/cancel: the move to
// CANCELLED, which the state machine allows the customer while the order
// is unpaid.
func (c *console) cancelOrder(w http.ResponseWriter, r *http.Request) {
	u, id := shopUserFrom(r), chi.URLParam(r, "id")
	if _, err := c.ordering.Service.Transition(r.Context(), ord.Actor{User: &u}, id, ord.StatusCancelled, "", nil); err != nil {
		c.renderOrder(w, r, apperr.KindOf(err).Status(), err)
		return
	}
	http.Redirect(w, r, "/console/shop/orders/"+id, http.StatusSeeOther)
}
