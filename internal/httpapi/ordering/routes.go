package ordering

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/httpapi/respond"

	ord "github.com/seedhq/portal/internal/ordering"
)

// Paths are the request paths of the ordering API: one ending in "/" stands
// for every path below it, any other for itself.
func Paths() []string { return []string{"/api", "/api/", "/sandbox/"} }

// Routes installs every route of the ordering API on r, and the operator's
// routes over the shop (portal admin ordering): its users and roles, its
// login bans, its menu import and its ledger. The portal's operator
// administers the shop as its OWNER does, with the exam API's operator JWT
// and envelope.
func Routes(r chi.Router, o Options) {
	a := newAPI(o)

	// No credential: the login flow (the gateway's webhook carries its
	// signature).
	r.Get("/api/auth/challenge", a.challenge)
	r.Post("/api/auth/login", a.login)
	r.Get("/api/auth/poll-status", a.pollStatus)
	r.Post("/api/auth/gateway-webhook", a.gatewayWebhook)
	r.Post("/api/payments/provider-webhook", a.providerWebhook)

	// The built-in stand-ins of the messaging gateway and the payment
	// provider. A cross-site form must not post to them in the name of the
	// user's browser: they log in as any number and pay any order.
	cop := http.NewCrossOriginProtection()
	if a.sandbox != nil && a.sandbox.GatewaySecret != "" {
		r.Get("/sandbox/messenger", a.sandboxMessenger)
		r.Method("POST", "/sandbox/messenger", cop.Handler(http.HandlerFunc(a.sandboxSend)))
	}
	if a.sandbox != nil && a.sandbox.ProviderSecret != "" {
		r.Get("/sandbox/pay/{invoice}", a.sandboxPay)
		r.Method("POST", "/sandbox/pay/{invoice}", cop.Handler(http.HandlerFunc(a.sandboxPayPost)))
	}

	// Ordering JWT.
	r.Group(func(r chi.Router) {
		r.Use(a.requireUser)
		r.Get("/api/auth/me", a.me)

		// Every signed-in role: the menu and one's own orders; the state
		// machine decides who moves an order (docs/api/ordering.md).
		r.Get("/api/menu", a.menu)
		r.With(a.once).Post("/api/orders", a.createOrder)
		r.Get("/api/orders", a.listOrders)
		r.Get("/api/orders/{id}", a.getOrder)
		r.Post("/api/orders/{id}/status", a.setOrderStatus)
		r.Post("/api/orders/{id}/cancel", a.cancelOrder)
		r.With(respond.RouteBodyLimit(uploadBodyLimit)).Post("/api/payments/upload-proof", a.uploadProof)
		r.Get("/api/payments/{orderId}/proof", a.proof)
		r.Post("/api/payments/{orderId}/verify", a.verifyPayment)

		r.Group(func(r chi.Router) {
			r.Use(requireMenu(a, ord.MenuKitchen))
			r.Get("/api/kitchen/orders", a.kitchenOrders)
			r.Get("/api/kitchen/events", a.kitchenEvents)
		})
		r.With(requireMenu(a, ord.MenuPOS), a.once).Post("/api/pos/orders", a.counterOrder)

		r.Group(func(r chi.Router) {
			r.Use(requireRole(a, ord.RoleAdmin, ord.RoleOwner))
			r.Post("/api/gateway/consent", a.registerConsent)
			r.With(a.once).Post("/api/menu/categories", a.createCategory)
			r.Put("/api/menu/categories/{id}", a.updateCategory)
			r.Delete("/api/menu/categories/{id}", a.deleteCategory)
			r.With(a.once).Post("/api/menu/items", a.createMenuItem)
			r.Put("/api/menu/items/{id}", a.updateMenuItem)
			r.Delete("/api/menu/items/{id}", a.deleteMenuItem)
			r.Get("/api/settings", a.settings)
			r.Put("/api/settings", a.putSettings)
		})

		r.Group(func(r chi.Router) {
			r.Use(requireRole(a, ord.RoleOwner))
			r.Get("/api/ledger", a.ledger)
			r.Get("/api/gateway/messages", a.messages)
			r.Get("/api/users", a.listUsers)
			r.Put("/api/users/{id}/role", a.setRole)
			r.Get("/api/bans", a.listBans)
			r.Post("/api/bans/{id}/lift", a.liftBan)
		})
	})

	r.Group(func(r chi.Router) {
		r.Use(o.RequireOperator)

		r.Get("/api/v1/admin/ordering/users", a.adminUsers)
		r.Put("/api/v1/admin/ordering/users/{id}/role", a.adminSetRole)
		r.Get("/api/v1/admin/ordering/bans", a.adminBans)
		r.Post("/api/v1/admin/ordering/bans/{id}/lift", a.adminLiftBan)
		r.With(o.OperatorOnce).Post("/api/v1/admin/ordering/menu/import", a.adminImportMenu)
		r.Get("/api/v1/admin/ordering/ledger", a.adminLedger)
	})
}
