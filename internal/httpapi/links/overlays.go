package links

import (
	"net/http"

	link "github.com/seedhq/portal/internal/links"
)

// overlayView is the spec's CTA overlay record.
type overlayView struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
	Date string `json:"date"`
}

func newOverlayView(o link.Overlay) overlayView {
	return overlayView{ID: o.ID, Type: o.Type, Name: o.Name, Date: formatDate(o.CreatedAt)}
}

// listOverlays handles GET /api/overlay.
func (a *api) listOverlays(w http.ResponseWriter, r *http.Request) {
	p, err := pageOf(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	l, err := a.svc.ListOverlays(r.Context(), userFrom(r).ID, p)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeList(w, "cta", l, newOverlayView)
}
