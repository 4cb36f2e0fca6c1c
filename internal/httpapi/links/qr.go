package links

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/httpapi/respond"
	link "github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/qr"
	"github.com/seedhq/portal/internal/links/visits"
)

// qrView is the spec's QR code record; type, data, background,
// foreground and logo are additions (shown with a single code).
type qrView struct {
	ID    int64  `json:"id"`
	Link  string `json:"link"`
	Scans int64  `json:"scans"`
	Name  string `json:"name"`
	Date  string `json:"date"`
}

type qrDetails struct {
	qrView
	Type       string          `json:"type"`
	Data       json.RawMessage `json:"data"`
	Background string          `json:"background"`
	Foreground string          `json:"foreground"`
	Logo       string          `json:"logo"`
}

func (a *api) newQRView(r *http.Request, q link.QRCode) qrView {
	return qrView{ID: q.ID, Link: a.qrLink(r, q.ID), Scans: q.Scans, Name: q.Name, Date: formatDate(q.CreatedAt)}
}

// listQRs handles GET /api/qr.
func (a *api) listQRs(w http.ResponseWriter, r *http.Request) {
	p, err := pageOf(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	l, err := a.svc.ListQRs(r.Context(), userFrom(r).ID, p)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeList(w, "qrs", l, func(q link.QRCode) qrView { return a.newQRView(r, q) })
}

// getQR handles GET /api/qr/{id}: the record in details, its scan
// statistics in data.
func (a *api) getQR(w http.ResponseWriter, r *http.Request) {
	q, st, ok := getWithStats(a, w, r, "QR code", a.svc.GetQR, a.svc.QRStats)
	if !ok {
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Error   int          `json:"error"`
		Details qrDetails    `json:"details"`
		Data    visits.Stats `json:"data"`
	}{0, qrDetails{qrView: a.newQRView(r, q), Type: string(q.Type), Data: q.Data,
		Background: q.Background, Foreground: q.Foreground, Logo: q.Logo}, st})
}

type qrRequest struct {
	Type       string          `json:"type"`
	Data       json.RawMessage `json:"data"`
	Background *string         `json:"background"`
	Foreground *string         `json:"foreground"`
	Logo       *string         `json:"logo"`
	Name       string          `json:"name"` // addition: defaults to the type
}

// addQR handles POST /api/qr/add.
func (a *api) addQR(w http.ResponseWriter, r *http.Request) {
	var req qrRequest
	if !a.decode(w, r, &req) {
		return
	}
	t, err := qr.ParseType(req.Type)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if err := link.CheckQRLook(link.QRType(t), req.Data, deref(req.Foreground), deref(req.Background)); err != nil {
		a.writeError(w, r, err)
		return
	}
	q, err := a.svc.CreateQR(r.Context(), userFrom(r).ID, link.QRInput{Name: req.Name, Type: link.QRType(t),
		Data: req.Data, Background: deref(req.Background), Foreground: deref(req.Foreground), Logo: deref(req.Logo)})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Error int    `json:"error"`
		ID    int64  `json:"id"`
		Link  string `json:"link"`
	}{0, q.ID, a.qrLink(r, q.ID)})
}

type qrPatchRequest struct {
	Type       *string         `json:"type"` // accepted only when it is the code's type
	Data       json.RawMessage `json:"data"`
	Background *string         `json:"background"`
	Foreground *string         `json:"foreground"`
	Logo       *string         `json:"logo"`
}

// updateQR handles PUT /api/qr/{id}/update: data required, checked
// against the code's type, which never changes.
func (a *api) updateQR(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id", "QR code")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var req qrPatchRequest
	if !a.decode(w, r, &req) {
		return
	}
	owner := userFrom(r).ID
	cur, err := a.svc.GetQR(r.Context(), owner, id)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if req.Type != nil && !strings.EqualFold(strings.TrimSpace(*req.Type), string(cur.Type)) {
		a.writeError(w, r, apperr.Errorf(apperr.Invalid, "VALIDATION_FAILED",
			"the type of a QR code cannot be changed (it is %s)", cur.Type))
		return
	}
	fg, bg := cur.Foreground, cur.Background
	setIf(&fg, req.Foreground)
	setIf(&bg, req.Background)
	if err := link.CheckQRLook(cur.Type, req.Data, fg, bg); err != nil {
		a.writeError(w, r, err)
		return
	}
	if _, err := a.svc.UpdateQR(r.Context(), owner, id, link.QRPatch{Data: req.Data,
		Background: req.Background, Foreground: req.Foreground, Logo: req.Logo}); err != nil {
		a.writeError(w, r, err)
		return
	}
	writeOK(w, "QR has been updated successfully.")
}
