package console

import (
	"bytes"
	"context"
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/httpapi/respond"
	ord "github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/orderweb"
)

// kitchenCard is an order on the kitchen display with the moves its user
// may make (the state machine's, Service.Transition decides).
type kitchenCard struct {
	ord.Order
	Moves []ord.Status
}

// kitchenView is the kitchen display's data.
type kitchenView struct {
	shopFormat
	Cards []kitchenCard
}

// kitchenFlow are the moves the kitchen display offers as buttons; the
// others (a cancellation by a manager) are the back office's.
var kitchenFlow = []ord.Status{ord.StatusPreparing, ord.StatusReady, ord.StatusOutForDelivery, ord.StatusCompleted}

// kitchenData reads the kitchen's orders, oldest first, as cards for u.
func (c *console) kitchenData(ctx context.Context, r *http.Request, u ord.User) (kitchenView, error) {
	list, err := c.ordering.Service.KitchenOrders(ctx)
	kv := kitchenView{shopFormat: c.shopFormatFor(r)}
	for _, o := range list {
		moves := slices.DeleteFunc(ord.Moves(ord.Actor{User: &u}, o), func(s ord.Status) bool { return !slices.Contains(kitchenFlow, s) })
		kv.Cards = append(kv.Cards, kitchenCard{Order: o, Moves: moves})
	}
	return kv, err
}

// kitchen serves GET /console/shop/kitchen (the kitchen menu): the paid
// and in-progress orders as big cards with a button for each next step;
// shop.js keeps them live (kitchenEvents) and beeps on a new order.
func (c *console) kitchen(w http.ResponseWriter, r *http.Request) {
	c.renderKitchen(w, r, http.StatusOK, nil)
}

// renderKitchen renders the kitchen display; err, when not nil, is shown.
func (c *console) renderKitchen(w http.ResponseWriter, r *http.Request, status int, err error) {
	v := c.shopView(r)
	if err != nil {
		status = c.showError(&v, err)
	}
	kv, kerr := c.kitchenData(r.Context(), r, shopUserFrom(r))
	if kerr != nil {
		status = c.showError(&v, kerr)
	}
	v.Data = kv
	c.render(w, r, "shop_kitchen", status, v)
}

// kitchenEvents serves GET /console/shop/kitchen/events (the kitchen
// menu): Server-Sent Events whose "cards" event carries the cards' HTML
// (the page's own template) on connection and whenever the kitchen's
// orders change, through the ordering API's own stream loop.
func (c *console) kitchenEvents(w http.ResponseWriter, r *http.Request) {
	u := shopUserFrom(r)
	v := c.shopView(r)
	v.Lang = language(r)
	err := orderweb.StreamChanges(w, r, c.ordering.Service, c.log, "cards", func(ctx context.Context) ([]byte, error) {
		kv, err := c.kitchenData(ctx, r, u)
		if err != nil {
			return nil, err
		}
		v.Data = kv
		var b bytes.Buffer
		err = c.pages["shop_kitchen"].ExecuteTemplate(&b, "shop-kitchen-cards", v)
		return b.Bytes(), err
	})
	if err != nil {
		c.plainError(w, err)
	}
}

// kitchenMove serves POST /console/shop/kitchen/{id}/status (status): one
// move of the order through Service.Transition, by the signed-in user, as
// POST /api/orders/{id}/status makes it. shop.js posts it for JSON (the
// display is updated by its events); a plain form comes back to the page.
func (c *console) kitchenMove(w http.ResponseWriter, r *http.Request) {
	u := shopUserFrom(r)
	_, err := c.ordering.Service.Transition(r.Context(), ord.Actor{User: &u}, chi.URLParam(r, "id"),
		ord.Status(r.PostFormValue("status")), "", nil)
	if wantsJSON(r) {
		if err != nil {
			var v view
			status, msg := c.showError(&v, err), v.Message
			if v.Error != "" {
				msg = translate(language(r), v.Error)
			}
			respond.JSON(w, status, map[string]string{"message": msg})
			return
		}
		respond.JSON(w, http.StatusOK, map[string]string{})
		return
	}
	if err != nil {
		c.renderKitchen(w, r, http.StatusOK, err)
		return
	}
	http.Redirect(w, r, "/console/shop/kitchen", http.StatusSeeOther)
}
