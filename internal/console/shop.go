package console

import (
	"context"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	ord "github.com/seedhq/portal/internal/ordering"
)

// mountShop serves the shop's back office and storefront under
// /console/shop/: the sign-in, the storefront (open to visitors), the
// customer's orders and the kitchen display here, the back office in
// mountBackOffice.
func (c *console) mountShop(r chi.Router, cop *http.CrossOriginProtection) {
	kitchen := func(h http.Handler) http.Handler { return c.shopUser(c.shopAllow(shopMenu(ord.MenuKitchen), h)) }
	// form guards a form's post: same-origin, then who may post it, then
	// the form's token.
	form := func(who func(http.Handler) http.Handler, h http.HandlerFunc) http.Handler {
		return cop.Handler(who(c.checkCSRF(shopArea, h)))
	}

	r.Get("/login", c.shopLoginPage)
	r.Method(http.MethodPost, "/login", cop.Handler(http.HandlerFunc(c.shopLogin)))
	r.Get("/login/wait", c.shopWaitPage)
	r.Method(http.MethodPost, "/login/poll", cop.Handler(http.HandlerFunc(c.shopPoll)))
	r.Method(http.MethodPost, "/logout", form(c.shopUser, c.shopLogout))

	r.Method(http.MethodGet, "/", c.shopVisitor(http.HandlerFunc(c.storefront)))
	r.Method(http.MethodPost, "/cart", form(c.shopVisitor, c.updateCart))
	r.Method(http.MethodPost, "/checkout", form(c.shopUser, c.checkout))
	r.Method(http.MethodGet, "/orders", c.shopUser(http.HandlerFunc(c.myOrders)))
	r.Method(http.MethodGet, "/orders/{id}", c.shopUser(http.HandlerFunc(c.orderPage)))
	r.Method(http.MethodGet, "/orders/{id}/events", c.shopUser(http.HandlerFunc(c.orderEvents)))
	r.With(limitBody(ord.MaxProofSize+64<<10)).Method(http.MethodPost, "/orders/{id}/proof", form(c.shopUser, c.uploadProof))
	r.Method(http.MethodPost, "/orders/{id}/cancel", form(c.shopUser, c.cancelOrder))

	r.Method(http.MethodGet, "/kitchen", kitchen(http.HandlerFunc(c.kitchen)))
	r.Method(http.MethodGet, "/kitchen/events", kitchen(http.HandlerFunc(c.kitchenEvents)))
	r.Method(http.MethodPost, "/kitchen/{id}/status", form(kitchen, c.kitchenMove))

	c.mountBackOffice(r, cop)
}

// ctxShopUser keeps the signed-in shop user in a request's context.
const ctxShopUser ctxKey = 100

// shopUser admits requests with a valid ordering session (the ordering
// API's own JWT, checked as the API checks it) and keeps the user in the
// context; others are sent to the shop's sign-in page, and back here after.
func (c *console) shopUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, ok := c.shopSession(w, r)
		if !ok {
			http.Redirect(w, r, shopArea.login+"?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// shopVisitor admits every request, keeping the user of a valid ordering
// session in the context as shopUser does (the storefront is open to
// visitors and knows its signed-in customers).
func (c *console) shopVisitor(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, _ = c.shopSession(w, r)
		next.ServeHTTP(w, r)
	})
}

// shopSession returns r with the user of its ordering session in its
// context, and whether it has a valid one; a session that no longer holds
// (expired, its user gone) is cleared, one that cannot be checked now (the
// store failed) is kept.
func (c *console) shopSession(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	token := session(r, shopArea)
	if token == "" {
		return r, false
	}
	u, err := c.ordering.Service.Authenticate(r.Context(), token)
	if err != nil {
		if apperr.From(err) == nil {
			c.log.Error("console: shop session", "err", err)
		} else {
			clearSession(w, r, shopArea)
		}
		return r, false
	}
	return r.WithContext(context.WithValue(r.Context(), ctxShopUser, u)), true
}

// shopUserFrom returns the signed-in shop user.
func shopUserFrom(r *http.Request) ord.User {
	u, _ := r.Context().Value(ctxShopUser).(ord.User)
	return u
}

// shopAllow admits, after shopUser, the users that allowed accepts; the
// others get the forbidden page.
func (c *console) shopAllow(allowed func(ord.User) bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed(shopUserFrom(r)) {
			c.forbidden(w, r, c.shopView(r))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// shopMenu allows the users of a back-office menu (ord.MenuKitchen,
// MenuPOS, MenuPayments): ADMIN, OWNER and the STAFF it was given to.
func shopMenu(menu string) func(ord.User) bool {
	return func(u ord.User) bool { return u.Allows(menu) }
}

// shopRoles allows the users of the given roles.
func shopRoles(roles ...ord.Role) func(ord.User) bool {
	return func(u ord.User) bool {
		for _, role := range roles {
			if u.Role == role {
				return true
			}
		}
		return false
	}
}

// shopNav is the shop area's menu for u, following the role matrix and
// u's allowedMenus.
func shopNav(u ord.User) []navItem {
	nav := []navItem{{"/console/shop/", "shop.nav.store"}, {"/console/shop/orders", "shop.nav.orders"}}
	for _, m := range []struct{ menu, href, key string }{
		{ord.MenuKitchen, "/console/shop/kitchen", "shop.nav.kitchen"},
		{ord.MenuPOS, "/console/shop/pos", "shop.nav.pos"},
		{ord.MenuPayments, "/console/shop/payments", "shop.nav.payments"},
	} {
		if u.Allows(m.menu) {
			nav = append(nav, navItem{m.href, m.key})
		}
	}
	if shopRoles(ord.RoleAdmin, ord.RoleOwner)(u) {
		nav = append(nav, navItem{"/console/shop/menu", "shop.nav.menu"}, navItem{"/console/shop/settings", "shop.nav.settings"})
	}
	if u.Role == ord.RoleOwner {
		nav = append(nav, navItem{"/console/shop/ledger", "shop.nav.ledger"}, navItem{"/console/shop/users", "shop.nav.users"},
			navItem{"/console/shop/bans", "shop.nav.bans"})
	}
	return nav
}

// shopView starts the view of a shop page with the shop's settings read
// (their name when they cannot be read: the default).
func (c *console) shopView(r *http.Request) view {
	st, err := c.ordering.Service.Settings(r.Context())
	if err != nil {
		c.log.Warn("console: shop settings", "err", err)
	}
	return c.shopViewOf(r, st)
}

// shopViewOf starts the view of a shop page of the shop whose settings are
// st: its header and title name the shop (shopBrand). On a page without a
// session (the sign-in, the storefront to a visitor) it has no user, and
// its CSRF token is the one of no session (a visitor's cart forms; a stale
// session cookie was cleared by shopVisitor).
func (c *console) shopViewOf(r *http.Request, st ord.Settings) view {
	brand := shopBrand(st, language(r))
	u := shopUserFrom(r)
	if u.ID == "" {
		return view{CSRF: c.csrfToken(""), Brand: brand}
	}
	who := u.Name
	if who == "" {
		who = u.MessengerNumber
	}
	return view{Who: who, Nav: shopNav(u), Logout: "/console/shop/logout", CSRF: c.csrfToken(session(r, shopArea)), Brand: brand}
}

// shopBrand is the name the shop's pages show in lang: the shop's name
// from its settings, else a neutral word ("Shop", "Toko"), never the
// product's name. It is text: the templates escape it.
func shopBrand(st ord.Settings, lang string) string {
	if st.ShopName != "" {
		return st.ShopName
	}
	return translate(lang, "shop.brand.default")
}
