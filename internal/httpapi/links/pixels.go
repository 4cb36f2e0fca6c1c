package links

import (
	"net/http"

	"github.com/seedhq/portal/internal/httpapi/respond"
	link "github.com/seedhq/portal/internal/links"
)

// pixelView is the spec's pixel record.
type pixelView struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
	Tag  string `json:"tag"`
	Date string `json:"date"`
}

func newPixelView(p link.Pixel) pixelView {
	return pixelView{ID: p.ID, Type: string(p.Type), Name: p.Name, Tag: p.Tag, Date: formatDate(p.CreatedAt)}
}

// listPixels handles GET /api/pixels.
func (a *api) listPixels(w http.ResponseWriter, r *http.Request) {
	p, err := pageOf(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	l, err := a.svc.ListPixels(r.Context(), userFrom(r).ID, p)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeList(w, "pixels", l, newPixelView)
}

type pixelRequest struct {
	Type string `json:"type"`
	Name string `json:"name"`
	Tag  string `json:"tag"`
}

// addPixel handles POST /api/pixel/add.
func (a *api) addPixel(w http.ResponseWriter, r *http.Request) {
	var req pixelRequest
	if !a.decode(w, r, &req) {
		return
	}
	px, err := a.svc.CreatePixel(r.Context(), userFrom(r).ID,
		link.PixelInput{Type: link.PixelType(req.Type), Name: req.Name, Tag: req.Tag})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, idBody{ID: px.ID})
}

type pixelPatchRequest struct {
	Name *string `json:"name"`
	Tag  string  `json:"tag"`
}

// updatePixel handles PUT /api/pixel/{id}/update: tag required, checked
// against the pixel's type, which never changes.
func (a *api) updatePixel(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id", "pixel")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var req pixelPatchRequest
	if !a.decode(w, r, &req) {
		return
	}
	if _, err := a.svc.UpdatePixel(r.Context(), userFrom(r).ID, id, link.PixelPatch{Name: req.Name, Tag: req.Tag}); err != nil {
		a.writeError(w, r, err)
		return
	}
	writeOK(w, "Pixel has been updated successfully.")
}
