package console

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	ord "github.com/seedhq/portal/internal/ordering"
)

// shopFormat formats amounts and times on the shop's pages; their data
// embed it, so templates call {{$.Data.Rp .Price}}.
type shopFormat struct {
	// Loc is the shop's time zone (its settings).
	Loc *time.Location
}

// Rp formats an amount of rupiah as the shop's customers read it: Rp
// 25.000.
func (shopFormat) Rp(n int64) string {
	s := strconv.FormatInt(max(n, -n), 10)
	var b strings.Builder
	for i, d := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(d)
	}
	if n < 0 {
		return "Rp -" + b.String()
	}
	return "Rp " + b.String()
}

// At formats a time in the shop's time zone.
func (f shopFormat) At(t time.Time) string {
	if f.Loc == nil {
		return t.UTC().Format("2006-01-02 15:04 MST")
	}
	return t.In(f.Loc).Format("2006-01-02 15:04")
}

// Clock formats a time of today in the shop's time zone: 14:05.
func (f shopFormat) Clock(t time.Time) string {
	if f.Loc == nil {
		return t.UTC().Format("15:04")
	}
	return t.In(f.Loc).Format("15:04")
}

// shopFormatFor returns the formatting of the shop's pages: its settings'
// time zone (UTC when they cannot be read).
func (c *console) shopFormatFor(r *http.Request) shopFormat {
	st, err := c.ordering.Service.Settings(r.Context())
	if err != nil {
		c.log.Warn("console: shop settings", "err", err)
	}
	return formatOf(st)
}

// formatOf returns the formatting of the settings' time zone (UTC when it
// is not one).
func formatOf(st ord.Settings) shopFormat {
	loc, err := time.LoadLocation(st.TimeZone)
	if err != nil || st.TimeZone == "" {
		return shopFormat{}
	}
	return shopFormat{Loc: loc}
}

// The cart lives in a cookie of the shop's pages: "<menu id>*<quantity>"
// lines joined by dots. It holds choices only; prices always come from the
// menu, and the order's from Service.PlaceOrder.
const (
	cartCookie   = "portal_console_shop_cart"
	maxCartLines = 40
)

// cartLine is a menu item in the cart.
type cartLine struct {
	MenuID string
	Qty    int
}

var menuIDPattern = regexp.MustCompile(`^[0-9A-Za-z-]{1,64}$`)

// readCart returns the request's cart; malformed lines are dropped.
func readCart(r *http.Request) []cartLine {
	ck, err := r.Cookie(cartCookie)
	if err != nil {
		return nil
	}
	var cart []cartLine
	for part := range strings.SplitSeq(ck.Value, ".") {
		id, q, _ := strings.Cut(part, "*")
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 || n > ord.MaxQuantity || !menuIDPattern.MatchString(id) || len(cart) == maxCartLines {
			continue
		}
		cart = append(cart, cartLine{id, n})
	}
	return cart
}

// writeCart keeps cart in its cookie for a week (an empty one removes it).
func writeCart(w http.ResponseWriter, r *http.Request, cart []cartLine) {
	ck := &http.Cookie{Name: cartCookie, Path: "/console/shop", HttpOnly: true, Secure: secure(r),
		SameSite: http.SameSiteLaxMode, MaxAge: 7 * 24 * 3600}
	parts := make([]string, len(cart))
	for i, l := range cart {
		parts[i] = l.MenuID + "*" + strconv.Itoa(l.Qty)
	}
	if ck.Value = strings.Join(parts, "."); ck.Value == "" {
		ck.MaxAge = -1
	}
	http.SetCookie(w, ck)
}

// cartRow is a line of the cart as the storefront shows it.
type cartRow struct {
	Item     ord.MenuItem
	Qty      int
	Subtotal int64
}

// checkoutForm is the checkout form as typed.
type checkoutForm struct {
	ShippingType, Address, City, Phone, Lat, Lng, Notes string
}

// storeView is the storefront's data.
type storeView struct {
	shopFormat
	Menu ord.Menu
	// InCart is the quantity in the cart of each menu item.
	InCart     map[string]int
	Cart       []cartRow
	ItemsTotal int64
	// DeliveryFee is what a delivery costs at least (the settings' base
	// fee; the distance may add to it).
	DeliveryFee int64
	SignedIn    bool
	Form        checkoutForm
	// ShippingTypes are the checkout's choices, in the order shown.
	ShippingTypes []string
	// Tagline and Hours are the shop's line and opening hours (its
	// settings; may be empty), shown under the title.
	Tagline, Hours string
}

// shippingTypes are the checkout's choices of how an order is received.
var shippingTypes = []string{ord.ShippingPickup, ord.ShippingDineIn, ord.ShippingDelivery}

// storefront serves GET /console/shop/: the menu by category with prices,
// the cart and, for a signed-in user, the checkout form. Visitors read the
// menu and fill a cart; ordering needs a sign-in.
func (c *console) storefront(w http.ResponseWriter, r *http.Request) {
	form := checkoutForm{ShippingType: ord.ShippingPickup, Phone: shopUserFrom(r).MessengerNumber}
	c.renderStore(w, r, http.StatusOK, form, nil)
}

// renderStore renders the storefront; err, when not nil, is shown.
func (c *console) renderStore(w http.ResponseWriter, r *http.Request, status int, form checkoutForm, err error) {
	st, serr := c.ordering.Service.Settings(r.Context())
	v := c.shopViewOf(r, st)
	if err != nil {
		status = c.showError(&v, err)
	}
	sv := storeView{InCart: map[string]int{}, SignedIn: shopUserFrom(r).ID != "", Form: form, ShippingTypes: shippingTypes,
		Tagline: st.ShopTagline, Hours: st.OpeningHours}
	menu, merr := c.ordering.Service.Menu(r.Context(), true)
	if merr == nil {
		merr = serr
		sv.shopFormat = formatOf(st)
		sv.DeliveryFee, _ = st.ShippingCost(ord.ShippingDelivery, nil, nil)
	}
	if merr != nil && err == nil {
		status = c.showError(&v, merr)
	}
	sv.Menu = menu
	items := map[string]ord.MenuItem{}
	for _, sec := range menu.Categories {
		for _, it := range sec.Items {
			items[it.ID] = it
		}
	}
	cart := readCart(r)
	kept := cart[:0]
	for _, l := range cart {
		if it, ok := items[l.MenuID]; ok {
			kept = append(kept, l)
			sv.Cart = append(sv.Cart, cartRow{Item: it, Qty: l.Qty, Subtotal: it.Price * int64(l.Qty)})
			sv.ItemsTotal += it.Price * int64(l.Qty)
			sv.InCart[it.ID] = l.Qty
		}
	}
	if merr == nil && len(kept) != len(readCart(r)) {
		writeCart(w, r, kept) // items gone from the menu leave the cart
	}
	v.Data = sv
	c.render(w, r, "shop_store", status, v)
}

// errNotOnMenu refuses to put in the cart what the menu does not offer now.
var errNotOnMenu = apperr.New(apperr.Unprocessable, "ITEM_UNAVAILABLE", "this item is not on the menu now")

// updateCart serves POST /console/shop/cart (menu_id, op: add, sub or del;
// at: menu or cart, where to come back): one change of the cart.
func (c *console) updateCart(w http.ResponseWriter, r *http.Request) {
	id, op := r.PostFormValue("menu_id"), r.PostFormValue("op")
	cart := readCart(r)
	i := -1
	for j, l := range cart {
		if l.MenuID == id {
			i = j
		}
	}
	switch {
	case op == "add" && i < 0:
		menu, err := c.ordering.Service.Menu(r.Context(), true)
		if err == nil && !onMenu(menu, id) {
			err = errNotOnMenu
		}
		if err == nil && len(cart) == maxCartLines {
			err = apperr.New(apperr.Invalid, "CART_FULL", fmt.Sprintf("the cart holds at most %d different items", maxCartLines))
		}
		if err != nil {
			c.renderStore(w, r, http.StatusOK, checkoutForm{ShippingType: ord.ShippingPickup}, err)
			return
		}
		cart = append(cart, cartLine{id, 1})
	case op == "add":
		cart[i].Qty = min(cart[i].Qty+1, ord.MaxQuantity)
	case op == "sub" && i >= 0 && cart[i].Qty > 1:
		cart[i].Qty--
	case (op == "sub" || op == "del") && i >= 0:
		cart = append(cart[:i], cart[i+1:]...)
	}
	writeCart(w, r, cart)
	back := storefrontPath + "#cart"
	if r.PostFormValue("at") == "menu" {
		back = storefrontPath + "#item-" + id
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// onMenu reports whether the menu offers the item id.
func onMenu(m ord.Menu, id string) bool {
	for _, sec := range m.Categories {
		for _, it := range sec.Items {
			if it.ID == id {
				return true
			}
		}
	}
	return false
}

// errBadLocation refuses a location that is not two numbers.
var errBadLocation = apperr.New(apperr.Invalid, "INVALID_FORM", "the location must be a latitude and a longitude in degrees, or empty")

// checkout serves POST /console/shop/checkout (shipping_type, address,
// city, phone, lat, lng, notes): the cart becomes an order through
// Service.PlaceOrder, which prices it; the cart is emptied and the order's
// page shown. A refused order keeps the cart and the form, and says why.
func (c *console) checkout(w http.ResponseWriter, r *http.Request) {
	f := checkoutForm{ShippingType: r.PostFormValue("shipping_type"), Address: strings.TrimSpace(r.PostFormValue("address")),
		City: strings.TrimSpace(r.PostFormValue("city")), Phone: strings.TrimSpace(r.PostFormValue("phone")),
		Lat: strings.TrimSpace(r.PostFormValue("lat")), Lng: strings.TrimSpace(r.PostFormValue("lng")),
		Notes: strings.TrimSpace(r.PostFormValue("notes"))}
	req := ord.OrderRequest{ShippingType: f.ShippingType, ShippingAddress: f.Address, ShippingCity: f.City,
		ShippingPhone: f.Phone, Notes: f.Notes}
	if f.Lat != "" || f.Lng != "" {
		lat, err1 := strconv.ParseFloat(f.Lat, 64)
		lng, err2 := strconv.ParseFloat(f.Lng, 64)
		if err1 != nil || err2 != nil {
			c.renderStore(w, r, http.StatusBadRequest, f, errBadLocation)
			return
		}
		req.ShippingLat, req.ShippingLng = &lat, &lng
	}
	for _, l := range readCart(r) {
		req.Items = append(req.Items, ord.OrderItemRequest{MenuID: l.MenuID, Quantity: l.Qty})
	}
	o, err := c.ordering.Service.PlaceOrder(r.Context(), shopUserFrom(r), req)
	if err != nil {
		c.renderStore(w, r, apperr.KindOf(err).Status(), f, err)
		return
	}
	writeCart(w, r, nil)
	http.Redirect(w, r, "/console/shop/orders/"+o.ID, http.StatusSeeOther)
}
