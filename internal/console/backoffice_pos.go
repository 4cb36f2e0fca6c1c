package console

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	ord "github.com/seedhq/portal/internal/ordering"
)

// posForm is the point of sale's form as typed.
type posForm struct {
	// Qty are the typed quantities by menu item id.
	Qty                              map[string]string
	Method, Cash, Customer, Shipping string
}

// posView is the point of sale's data: the menu items that can be sold
// now, by category, and the form.
type posView struct {
	office
	Menu      ord.Menu
	Methods   []string
	Shippings []string
	Form      posForm
}

// newPOSForm is the empty sale: cash, eaten at the shop.
func newPOSForm() posForm {
	return posForm{Qty: map[string]string{}, Method: ord.PaymentCash, Shipping: ord.ShippingDineIn}
}

// posPage serves GET /console/shop/pos.
func (c *console) posPage(w http.ResponseWriter, r *http.Request) {
	c.renderPOS(w, r, http.StatusOK, newPOSForm(), nil)
}

// renderPOS renders the point of sale with the form f and err, if any.
func (c *console) renderPOS(w http.ResponseWriter, r *http.Request, status int, f posForm, err error) {
	pv := posView{office: c.newOffice(r.Context()), Methods: ord.CounterMethods,
		Shippings: []string{ord.ShippingDineIn, ord.ShippingPickup}, Form: f}
	m, merr := c.ordering.Service.Menu(r.Context(), true)
	if err == nil {
		err = merr
	}
	pv.Menu = m
	c.officeRender(w, r, "office_pos", status, pv, err)
}

// errPOSQuantity refuses a quantity that is not a whole number.
var errPOSQuantity = officeFormError("quantities must be whole numbers")

// posSale serves POST /console/shop/pos (qty.<item id>, method, cash,
// customer, shipping): the order is priced by the service, the cash
// received checked against its total, and it is placed through
// PlaceCounterOrder as the API's POST /api/pos/orders does; the receipt
// follows.
func (c *console) posSale(w http.ResponseWriter, r *http.Request) {
	svc := c.ordering.Service
	f := posForm{Qty: map[string]string{}, Method: r.PostFormValue("method"), Cash: strings.TrimSpace(r.PostFormValue("cash")),
		Customer: r.PostFormValue("customer"), Shipping: r.PostFormValue("shipping")}
	req := ord.OrderRequest{ShippingType: f.Shipping}
	var bad bool
	for key, vals := range r.PostForm {
		id, ok := strings.CutPrefix(key, "qty.")
		if !ok || len(vals) == 0 {
			continue
		}
		f.Qty[id] = strings.TrimSpace(vals[0])
		n, ok := officeWhole(vals[0])
		switch {
		case !ok || n < 0:
			bad = true
		case n > 0:
			req.Items = append(req.Items, ord.OrderItemRequest{MenuID: id, Quantity: int(n)})
		}
	}
	if bad {
		c.renderPOS(w, r, http.StatusBadRequest, f, errPOSQuantity)
		return
	}
	c.sortByMenu(r, req.Items)
	quote, err := svc.PriceOrder(r.Context(), req)
	if err != nil {
		c.renderPOS(w, r, apperr.KindOf(err).Status(), f, err)
		return
	}
	cash := quote.TotalPrice
	if strings.EqualFold(f.Method, ord.PaymentCash) && f.Cash != "" {
		n, ok := officeWhole(f.Cash)
		if !ok || n < quote.TotalPrice {
			c.renderPOS(w, r, http.StatusBadRequest, f,
				officeFormError("the cash received must be a whole number of rupiah, at least the total of %s", office{}.Rp(quote.TotalPrice)))
			return
		}
		cash = n
	}
	o, err := svc.PlaceCounterOrder(r.Context(), shopUserFrom(r), req, f.Method, f.Customer)
	if err != nil {
		c.renderPOS(w, r, apperr.KindOf(err).Status(), f, err)
		return
	}
	target := "/console/shop/pos/orders/" + url.PathEscape(o.ID)
	if o.PaymentMethod == ord.PaymentCash {
		target += "?cash=" + strconv.FormatInt(cash, 10)
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// sortByMenu puts the lines of a sale in the menu's order (the form's
// fields come in no order), unknown items last.
func (c *console) sortByMenu(r *http.Request, items []ord.OrderItemRequest) {
	rank := map[string]int{}
	if m, err := c.ordering.Service.Menu(r.Context(), false); err == nil {
		for _, sec := range m.Categories {
			for _, it := range sec.Items {
				rank[it.ID] = len(rank) + 1
			}
		}
	}
	slices.SortFunc(items, func(a, b ord.OrderItemRequest) int {
		ra, rb := rank[a.MenuID], rank[b.MenuID]
		if ra == 0 {
			ra = len(rank) + 1
		}
		if rb == 0 {
			rb = len(rank) + 1
		}
		return cmp.Or(cmp.Compare(ra, rb), strings.Compare(a.MenuID, b.MenuID))
	})
}

// posReceiptView is a sale's receipt: the order, and for cash the amount
// received and the change due.
type posReceiptView struct {
	office
	Order        ord.Order
	Cash, Change int64
}

// posReceipt serves GET /console/shop/pos/orders/{id}?cash=: the receipt of
// a sale, laid out for a narrow receipt printer.
func (c *console) posReceipt(w http.ResponseWriter, r *http.Request) {
	rv := posReceiptView{office: c.newOffice(r.Context())}
	o, err := c.ordering.Service.OrderFor(r.Context(), shopUserFrom(r), chi.URLParam(r, "id"))
	if err != nil {
		c.officeRender(w, r, "office_receipt", http.StatusOK, rv, err)
		return
	}
	rv.Order = o
	if cash, ok := officeWhole(r.URL.Query().Get("cash")); ok && o.PaymentMethod == ord.PaymentCash && cash >= o.TotalPrice {
		rv.Cash, rv.Change = cash, cash-o.TotalPrice
	}
	c.officeRender(w, r, "office_receipt", http.StatusOK, rv, nil)
}
