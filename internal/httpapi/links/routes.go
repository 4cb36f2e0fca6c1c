package links

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"
)

// Paths are the request paths of the link-management API: one ending in "/"
// stands for every path below it, any other for itself.
func Paths() []string { return []string{"/api", "/api/"} }

// Routes installs every route of the link-management API on r: the link
// user's routes behind the API key and the per-key rate limit, and the
// operator routes that manage the users.
func Routes(r chi.Router, o Options) {
	a := newAPI(o)

	r.Group(func(r chi.Router) {
		r.Use(a.requireKey, a.rateLimit)

		r.Get("/api/account", a.account)
		r.Put("/api/account/update", a.updateAccount)

		r.Get("/api/domains", a.listDomains)
		r.With(a.once).Post("/api/domain/add", a.addDomain)
		r.Put("/api/domain/{id}/update", a.updateDomain)
		r.Delete("/api/domain/{id}/delete", a.remove("domain", a.svc.DeleteDomain, "Domain has been deleted successfully."))

		r.Get("/api/overlay", a.listOverlays)
		r.Get("/api/splash", a.listSplashes)

		r.Get("/api/campaigns", a.listCampaigns)
		r.With(a.once).Post("/api/campaign/add", a.addCampaign)
		r.Post("/api/campaign/{campaignid}/assign/{linkid}", a.assignCampaign)
		r.Put("/api/campaign/{id}/update", a.updateCampaign)
		r.Delete("/api/campaign/{id}/delete", a.remove("campaign", a.svc.DeleteCampaign, "Campaign has been deleted successfully."))

		r.Get("/api/channels", a.listChannels)
		r.Get("/api/channel/{id}", a.listChannelItems)
		r.With(a.once).Post("/api/channel/add", a.addChannel)
		r.Post("/api/channel/{channelid}/assign/{type}/{itemid}", a.assignChannel)
		r.Put("/api/channel/{id}/update", a.updateChannel)
		r.Delete("/api/channel/{id}/delete", a.remove("channel", a.svc.DeleteChannel, "Channel has been deleted successfully.")) // its items are unassigned

		r.Get("/api/pixels", a.listPixels)
		r.With(a.once).Post("/api/pixel/add", a.addPixel)
		r.Put("/api/pixel/{id}/update", a.updatePixel)
		r.Delete("/api/pixel/{id}/delete", a.remove("pixel", a.svc.DeletePixel, "Pixel has been deleted successfully."))

		r.Get("/api/qr", a.listQRs)
		r.Get("/api/qr/{id}", a.getQR)
		r.With(a.once).Post("/api/qr/add", a.addQR)
		r.Put("/api/qr/{id}/update", a.updateQR)
		r.Delete("/api/qr/{id}/delete", a.remove("QR code", a.svc.DeleteQR, "QR has been deleted successfully."))

		r.Get("/api/urls", a.listURLs)
		r.Get("/api/url/{id}", a.getURL)
		r.With(a.once).Post("/api/url/add", a.addURL)
		r.Put("/api/url/{id}/update", a.updateURL)
		r.Delete("/api/url/{id}/delete", a.remove("link", a.svc.DeleteLink, "Link has been deleted successfully."))
	})

	// Operator JWT, exam envelope.
	r.Group(func(r chi.Router) {
		r.Use(o.RequireOperator)

		r.With(o.OperatorOnce).Post("/api/v1/admin/link-users", a.createUser)
		r.Get("/api/v1/admin/link-users", a.listUsers)
		r.Post("/api/v1/admin/link-users/{id}/rotate-key", a.rotateKey)
		r.Put("/api/v1/admin/link-users/{id}/password", a.setPassword)
		r.With(o.OperatorOnce).Post("/api/v1/admin/link-overlays", a.createOverlay)
		r.With(o.OperatorOnce).Post("/api/v1/admin/link-splashes", a.createSplash)
	})
}

// remove returns the handler of a DELETE /api/<resource>/{id}/delete
// route: what names the resource in a bad-id error, del removes the caller's
// record, msg is the success message.
func (a *api) remove(what string, del func(ctx context.Context, owner, id int64) error, msg string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id", what)
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		if err := del(r.Context(), userFrom(r).ID, id); err != nil {
			a.writeError(w, r, err)
			return
		}
		writeOK(w, msg)
	}
}
