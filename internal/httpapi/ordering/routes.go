package ordering

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	ord "github.com/seedhq/portal/internal/ordering"
)

// Routes installs every route of the ordering API on r.
func Routes(r chi.Router, o Options) {
	a := newAPI(o)

	// No credential: the login flow (the gateway's webhook carries its
	// signature).
	r.Get("/api/auth/challenge", a.challenge)
	r.Post("/api/auth/login", a.login)
	r.Get("/api/auth/poll-status", a.pollStatus)
	r.Post("/api/auth/gateway-webhook", a.gatewayWebhook)

	// The built-in messaging gateway stand-in.
	if a.sandbox != nil {
		r.Get("/sandbox/messenger", a.sandboxMessenger)
		// A cross-site form must not send messages in the name of the
		// user's browser: the stand-in logs in as any number.
		r.Method("POST", "/sandbox/messenger", http.NewCrossOriginProtection().Handler(http.HandlerFunc(a.sandboxSend)))
	}

	// Ordering JWT.
	r.Group(func(r chi.Router) {
		r.Use(a.requireUser)
		r.Get("/api/auth/me", a.me)

		// Every signed-in role: the menu and one's own orders; the state
		// machine decides who moves an order (docs/api/ordering.md).
		r.Get("/api/menu", a.menu)
		r.Post("/api/orders", a.createOrder)
		r.Get("/api/orders", a.listOrders)
		r.Get("/api/orders/{id}", a.getOrder)
		r.Post("/api/orders/{id}/status", a.setOrderStatus)
		r.Post("/api/orders/{id}/cancel", a.cancelOrder)

		r.Group(func(r chi.Router) {
			r.Use(requireRole(a, ord.RoleAdmin, ord.RoleOwner))
			r.Post("/api/menu/categories", a.createCategory)
			r.Put("/api/menu/categories/{id}", a.updateCategory)
			r.Delete("/api/menu/categories/{id}", a.deleteCategory)
			r.Post("/api/menu/items", a.createMenuItem)
			r.Put("/api/menu/items/{id}", a.updateMenuItem)
			r.Delete("/api/menu/items/{id}", a.deleteMenuItem)
			r.Get("/api/settings", a.settings)
			r.Put("/api/settings", a.putSettings)
		})

		r.Group(func(r chi.Router) {
			r.Use(requireRole(a, ord.RoleOwner))
			r.Get("/api/users", a.listUsers)
			r.Put("/api/users/{id}/role", a.setRole)
			r.Get("/api/bans", a.listBans)
			r.Post("/api/bans/{id}/lift", a.liftBan)
		})
	})
}
