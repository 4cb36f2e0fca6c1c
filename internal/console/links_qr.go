package console

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/qr"
	"github.com/seedhq/portal/internal/links/redirect"
)

// maxQRForm bounds a designer form: the logo file (qr.MaxLogoBytes), the
// current logo carried as a data URI and the fields.
const maxQRForm = 3*qr.MaxLogoBytes + 64<<10

// qrPreviewSize is the width of the designer's preview, in pixels.
const qrPreviewSize = 320

// qrDownloadSize is the width of a downloaded PNG, in pixels.
const qrDownloadSize = 1024

// qrFields are the designer's fields of each type's data, in the order
// of the API's array form (see qr.Payload).
var qrFields = map[links.QRType][]string{
	links.QRText:  {"text"},
	links.QRLink:  {"url"},
	links.QRPhone: {"phone"},
	links.QREmail: {"email", "subject", "body"},
	links.QRSMS:   {"phone", "message"},
	links.QRWiFi:  {"ssid", "password", "encryption", "hidden"},
	links.QRVCard: {"first_name", "last_name", "org", "title", "phone", "mobile", "email", "url", "address", "city",
		"region", "postal_code", "country", "note"},
}

// qrField is one field of the designer's form.
type qrField struct {
	Name, Value string
	// Kind is the control: text, textarea, email, url, tel, encryption
	// (a choice) or check (a checkbox).
	Kind string
}

// qrFieldKind returns the control of a data field.
func qrFieldKind(name string) string {
	switch name {
	case "text", "body", "message", "note", "address":
		return "textarea"
	case "email":
		return "email"
	case "url":
		return "url"
	case "phone", "mobile":
		return "tel"
	case "encryption":
		return "encryption"
	case "hidden":
		return "check"
	}
	return "text"
}

// qrDesign is a QR code as the designer edits it.
type qrDesign struct {
	ID     int64 // 0 for a new code
	Name   string
	Type   links.QRType
	Fields []qrField
	// FG and BG are the colours as #rrggbb (the colour inputs' form).
	FG, BG string
	Logo   string // data URI, empty for none
}

// data returns the design's data as the API takes it: a JSON string for
// text and link, an object of the non-empty fields for the others.
func (d qrDesign) data() json.RawMessage {
	var v any
	if len(d.Fields) == 1 && (d.Type == links.QRText || d.Type == links.QRLink) {
		v = d.Fields[0].Value
	} else {
		m := map[string]any{}
		for _, f := range d.Fields {
			switch {
			case f.Kind == "check":
				m[f.Name] = f.Value != ""
			case f.Value != "":
				m[f.Name] = f.Value
			}
		}
		v = m
	}
	b, _ := json.Marshal(v)
	return b
}

// qrRGB turns a colour input's #rrggbb into the API's rgb(r,g,b); empty
// stays empty (the default colour).
func qrRGB(hex string) (string, error) {
	if hex == "" {
		return "", nil
	}
	var r, g, b uint8
	if _, err := fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b); err != nil || len(hex) != 7 {
		return "", errQRColor
	}
	return fmt.Sprintf("rgb(%d,%d,%d)", r, g, b), nil
}

// qrHex turns the API's rgb(r,g,b) into #rrggbb; empty gives def.
func qrHex(c, def string) string {
	var r, g, b int
	if _, err := fmt.Sscanf(strings.ReplaceAll(c, " ", ""), "rgb(%d,%d,%d)", &r, &g, &b); err != nil {
		return def
	}
	return fmt.Sprintf("#%02x%02x%02x", r, g, b)
}

// errQRColor refuses a colour that is not #rrggbb.
var errQRColor = apperr.New(apperr.Invalid, "INVALID_FORM", "colours must be of the form #rrggbb")

// designOf returns the design of a stored code.
func designOf(q links.QRCode) qrDesign {
	d := qrDesign{ID: q.ID, Name: q.Name, Type: q.Type, FG: qrHex(q.Foreground, "#000000"), BG: qrHex(q.Background, "#ffffff"),
		Logo: q.Logo}
	values := map[string]string{}
	names := qrFields[q.Type]
	var (
		str string
		arr []any
		obj map[string]any
	)
	switch {
	case json.Unmarshal(q.Data, &str) == nil && len(names) > 0:
		values[names[0]] = str
	case json.Unmarshal(q.Data, &arr) == nil:
		for i, x := range arr {
			if i < len(names) {
				values[names[i]] = fmt.Sprint(x)
			}
		}
	case json.Unmarshal(q.Data, &obj) == nil:
		for k, x := range obj {
			values[k] = fmt.Sprint(x)
		}
	}
	for _, n := range names {
		f := qrField{Name: n, Kind: qrFieldKind(n), Value: values[n]}
		if f.Kind == "check" && f.Value != "true" {
			f.Value = ""
		}
		d.Fields = append(d.Fields, f)
	}
	return d
}

// newDesign is the empty design of a type.
func newDesign(t links.QRType) qrDesign {
	return designOf(links.QRCode{Type: t, Data: json.RawMessage(`{}`)})
}

// readDesign reads the designer's posted form (multipart, with an optional
// logo file). The type of a stored code never changes.
func (c *console) readDesign(r *http.Request, id int64, t links.QRType) (qrDesign, error) {
	d := newDesign(t)
	d.ID, d.Name = id, strings.TrimSpace(r.PostFormValue("name"))
	d.FG, d.BG = r.PostFormValue("foreground"), r.PostFormValue("background")
	for i := range d.Fields {
		d.Fields[i].Value = strings.TrimSpace(r.PostFormValue("d_" + d.Fields[i].Name))
	}
	if r.PostFormValue("remove_logo") == "" {
		d.Logo = r.PostFormValue("logo_data")
	}
	file, _, err := r.FormFile("logo")
	if errors.Is(err, http.ErrMissingFile) || errors.Is(err, http.ErrNotMultipart) {
		return d, nil
	}
	if err != nil {
		return d, err
	}
	defer file.Close()
	raw, err := io.ReadAll(io.LimitReader(file, qr.MaxLogoBytes+1))
	if err != nil {
		return d, err
	}
	if _, err := qr.DecodeLogo(raw); err != nil {
		return d, err
	}
	d.Logo = "data:" + http.DetectContentType(raw) + ";base64," + base64.StdEncoding.EncodeToString(raw)
	return d, nil
}

// record returns the design as a QR code record, its colours in the API's
// form, after the rules of the link service and of the renderer.
func (d qrDesign) record() (links.QRCode, error) {
	fg, err := qrRGB(d.FG)
	if err != nil {
		return links.QRCode{}, err
	}
	bg, err := qrRGB(d.BG)
	if err != nil {
		return links.QRCode{}, err
	}
	q := links.QRCode{ID: d.ID, Name: d.Name, Type: d.Type, Data: d.data(), Foreground: fg, Background: bg, Logo: d.Logo}
	if err := links.CheckQRLook(q.Type, q.Data, fg, bg); err != nil {
		return q, err
	}
	return q, links.ValidateLogo(q.Logo)
}

// qrPayload returns what the code encodes: a stored link-type code its
// tracking address on the short host (as GET /qr/{id} draws it), any
// other the payload of its data.
func (c *console) qrPayload(r *http.Request, q links.QRCode) (string, error) {
	if q.Type == links.QRLink && q.ID > 0 {
		return c.linkBaseOf(r) + "/q/" + strconv.FormatInt(q.ID, 10), nil
	}
	return qr.Payload(qr.Type(q.Type), q.Data)
}

// drawQR renders q as PNG or SVG.
func (c *console) drawQR(r *http.Request, q links.QRCode, size int, svg bool) ([]byte, error) {
	payload, err := c.qrPayload(r, q)
	if err != nil {
		return nil, err
	}
	return redirect.RenderQR(q, payload, size, svg)
}

// qrListView is the QR codes page's data.
type qrListView struct {
	Codes []links.QRCode
	Types []links.QRType
}

// qrList serves GET /console/links/qr: the marketer's QR codes and the
// designer's entry for each of the seven types.
func (c *console) qrList(w http.ResponseWriter, r *http.Request) {
	v := c.linkView(r)
	status := http.StatusOK
	l, err := c.links.ListQRs(r.Context(), linkUserFrom(r).ID, linkAllPage)
	if err != nil {
		status = c.linkError(&v, err)
	}
	v.Data = qrListView{Codes: l.Items, Types: links.QRTypes}
	c.render(w, r, "links_qr", status, v)
}

// qrDesignerView is the designer page's data.
type qrDesignerView struct {
	qrDesign
	Types   []links.QRType
	Action  string       // where the form posts
	Preview template.URL // a data URI of the preview drawn without JS, if asked
	Saved   bool
}

// qrDesignerCSP is the designer's Content-Security-Policy: the console's,
// with images also from data: (the preview drawn without JS, the logo
// inside an SVG) and blob: (the preview the script fetches).
const qrDesignerCSP = "default-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"

// renderDesigner renders the designer with d; err, when not nil, is shown.
func (c *console) renderDesigner(w http.ResponseWriter, r *http.Request, status int, dv qrDesignerView, err error) {
	v := c.linkView(r)
	if err != nil {
		status = c.linkError(&v, err)
	}
	dv.Types = links.QRTypes
	dv.Action = "/console/links/qr/new?type=" + string(dv.Type)
	if dv.ID > 0 {
		dv.Action = "/console/links/qr/" + strconv.FormatInt(dv.ID, 10)
	}
	v.Data = dv
	w.Header().Set("Content-Security-Policy", qrDesignerCSP)
	c.render(w, r, "links_qr_designer", status, v)
}

// qrType reads ?type= of the designer (text by default).
func qrType(r *http.Request) (links.QRType, error) {
	s := r.URL.Query().Get("type")
	if s == "" {
		return links.QRText, nil
	}
	t, err := qr.ParseType(s)
	return links.QRType(t), err
}

// qrNew serves GET /console/links/qr/new?type=: the designer of a new code.
func (c *console) qrNew(w http.ResponseWriter, r *http.Request) {
	t, err := qrType(r)
	if err != nil {
		c.renderDesigner(w, r, http.StatusBadRequest, qrDesignerView{qrDesign: newDesign(links.QRText)}, err)
		return
	}
	c.renderDesigner(w, r, http.StatusOK, qrDesignerView{qrDesign: newDesign(t)}, nil)
}

// ownQR reads the {id} QR code of the signed-in marketer.
func (c *console) ownQR(r *http.Request) (links.QRCode, error) {
	id, err := linkID(r)
	if err != nil {
		return links.QRCode{}, err
	}
	return c.links.GetQR(r.Context(), linkUserFrom(r).ID, id)
}

// qrEdit serves GET /console/links/qr/{id}: the designer of a stored code.
func (c *console) qrEdit(w http.ResponseWriter, r *http.Request) {
	q, err := c.ownQR(r)
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	c.renderDesigner(w, r, http.StatusOK, qrDesignerView{qrDesign: designOf(q), Saved: r.URL.Query().Has("saved")}, nil)
}

// postedDesign reads the design posted to /qr/new?type= or /qr/{id} (or,
// for the preview, with the type and id in the form).
func (c *console) postedDesign(r *http.Request) (qrDesign, error) {
	if chi.URLParam(r, "id") != "" {
		q, err := c.ownQR(r)
		if err != nil {
			return qrDesign{}, err
		}
		return c.readDesign(r, q.ID, q.Type)
	}
	t, err := qrType(r)
	if err != nil {
		return newDesign(links.QRText), err
	}
	return c.readDesign(r, 0, t)
}

// qrSave serves POST /console/links/qr/new?type= and /console/links/qr/{id}:
// with preview=1 it draws the design on the page without storing it (the
// designer without JS); otherwise it creates or updates the code through
// links.Service.CreateQR or UpdateQR. A refused design keeps the form.
func (c *console) qrSave(w http.ResponseWriter, r *http.Request) {
	d, err := c.postedDesign(r)
	if errors.Is(err, links.ErrNotFound) {
		c.linkNotFound(w, r, err)
		return
	}
	var q links.QRCode
	if err == nil {
		q, err = d.record()
	}
	if err != nil {
		c.renderDesigner(w, r, http.StatusBadRequest, qrDesignerView{qrDesign: d}, err)
		return
	}
	owner := linkUserFrom(r).ID
	if r.PostFormValue("preview") != "" {
		png, err := c.drawQR(r, q, qrPreviewSize, false)
		if err != nil {
			c.renderDesigner(w, r, http.StatusBadRequest, qrDesignerView{qrDesign: d}, err)
			return
		}
		c.renderDesigner(w, r, http.StatusOK, qrDesignerView{qrDesign: d,
			Preview: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))}, nil)
		return
	}
	if d.ID == 0 {
		q, err = c.links.CreateQR(r.Context(), owner, links.QRInput{Name: q.Name, Type: q.Type, Data: q.Data,
			Background: q.Background, Foreground: q.Foreground, Logo: q.Logo})
	} else {
		q, err = c.links.UpdateQR(r.Context(), owner, d.ID, links.QRPatch{Data: q.Data, Background: &q.Background,
			Foreground: &q.Foreground, Logo: &q.Logo})
	}
	if err != nil {
		c.renderDesigner(w, r, http.StatusBadRequest, qrDesignerView{qrDesign: d}, err)
		return
	}
	http.Redirect(w, r, "/console/links/qr/"+strconv.FormatInt(q.ID, 10)+"?saved", http.StatusSeeOther)
}

// qrPreview serves POST /console/links/qr/preview (the designer's script):
// the design of the form (type and id in it) drawn as PNG, stored nowhere.
// A refused design answers 400 with the reason as plain text.
func (c *console) qrPreview(w http.ResponseWriter, r *http.Request) {
	var (
		d   qrDesign
		err error
	)
	t, err := qr.ParseType(r.PostFormValue("type"))
	if err == nil {
		var id int64
		if id, err = linkFormID(r.PostFormValue("id")); err == nil && id > 0 {
			var q links.QRCode
			if q, err = c.links.GetQR(r.Context(), linkUserFrom(r).ID, id); err == nil {
				t = qr.Type(q.Type)
			}
		}
		if err == nil {
			d, err = c.readDesign(r, id, links.QRType(t))
		}
	}
	var png []byte
	if err == nil {
		var q links.QRCode
		if q, err = d.record(); err == nil {
			png, err = c.drawQR(r, q, qrPreviewSize, false)
		}
	}
	if err != nil {
		var v view
		status := c.linkError(&v, err)
		msg := v.Message
		if msg == "" {
			msg = translate(language(r), v.Error)
		}
		http.Error(w, msg, status)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Cache-Control", "no-store")
	w.Write(png)
}

// qrDownload serves GET /console/links/qr/{id}/download.png and .svg: the
// stored code as a file.
func (c *console) qrDownload(w http.ResponseWriter, r *http.Request) {
	q, err := c.ownQR(r)
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	format := chi.URLParam(r, "format")
	body, err := c.drawQR(r, q, qrDownloadSize, format == "svg")
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", map[string]string{"png": "image/png", "svg": "image/svg+xml"}[format])
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="qr-%d.%s"`, q.ID, format))
	h.Set("Cache-Control", "no-store")
	w.Write(body)
}
