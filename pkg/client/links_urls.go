package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
)

// --- Pixels ---------------------------------------------------------------------

// LinkPixel is a tracking pixel.
type LinkPixel struct {
	ID int64 `json:"id"`
	// Type is the vendor, such as "gtmpixel" or "fbpixel"
	// (docs/api/links.md lists them with the tag each takes).
	Type string `json:"type"`
	Name string `json:"name"`
	Tag  string `json:"tag"`
	// Date is the creation time, "YYYY-MM-DD HH:MM:SS" UTC.
	Date string `json:"date"`
}

// LinkPixelRequest is the body of a pixel creation.
type LinkPixelRequest struct {
	Type string `json:"type"`
	Name string `json:"name"`
	Tag  string `json:"tag"`
}

// LinkPixelUpdate is the body of a pixel update: Tag is required (checked
// against the pixel's type, which never changes); a nil Name is kept.
type LinkPixelUpdate struct {
	Name *string `json:"name,omitempty"`
	Tag  string  `json:"tag"`
}

// List returns one page of the caller's pixels (GET /api/pixels).
func (s *LinkPixelsService) List(ctx context.Context, opts *LinkListOptions) ([]*LinkPixel, *Response, error) {
	return linkList[LinkPixel](ctx, s.client, "api/pixels", "pixels", opts.values())
}

// All walks every page of the caller's pixels from opts' page.
func (s *LinkPixelsService) All(ctx context.Context, opts *LinkListOptions) iter.Seq2[*LinkPixel, error] {
	return linkAll(ctx, opts, s.List)
}

// Add creates a pixel and returns its id (POST /api/pixel/add).
func (s *LinkPixelsService) Add(ctx context.Context, p *LinkPixelRequest) (int64, *Response, error) {
	ctx = creating(ctx)
	if p == nil {
		p = &LinkPixelRequest{}
	}
	var out struct {
		ID int64 `json:"id"`
	}
	resp, err := s.client.linkCall(ctx, http.MethodPost, "api/pixel/add", nil, p, &out)
	return out.ID, resp, err
}

// Update changes a pixel's tag and name (PUT /api/pixel/:id/update).
func (s *LinkPixelsService) Update(ctx context.Context, id int64, p *LinkPixelUpdate) (*Response, error) {
	if p == nil {
		p = &LinkPixelUpdate{}
	}
	return s.client.linkCall(ctx, http.MethodPut, linkPath("api/pixel/%d/update", id), nil, p, nil)
}

// Delete deletes a pixel (DELETE /api/pixel/:id/delete).
func (s *LinkPixelsService) Delete(ctx context.Context, id int64) (*Response, error) {
	return s.client.linkCall(ctx, http.MethodDelete, linkPath("api/pixel/%d/delete", id), nil, nil, nil)
}

// --- QR codes -------------------------------------------------------------------

// QR code types (LinkQRRequest.Type).
const (
	LinkQRText  = "text"
	LinkQRVCard = "vcard"
	LinkQRLink  = "link"
	LinkQREmail = "email"
	LinkQRPhone = "phone"
	LinkQRSMS   = "sms"
	LinkQRWiFi  = "wifi"
)

// LinkQR is a QR code as lists show it.
type LinkQR struct {
	ID int64 `json:"id"`
	// Link is the address of the code's image, <short base>/qr/<id>.
	Link  string `json:"link"`
	Scans int64  `json:"scans"`
	Name  string `json:"name"`
	// Date is the creation time, "YYYY-MM-DD HH:MM:SS" UTC.
	Date string `json:"date"`
}

// LinkQRCode is one QR code with what it encodes and its look, as Get
// returns it.
type LinkQRCode struct {
	LinkQR
	Type string `json:"type"`
	// Data is the encoded content: a JSON string for text, link, email and
	// phone; a string, array or object for vcard, sms and wifi.
	Data json.RawMessage `json:"data"`
	// Background and Foreground are "rgb(r,g,b)".
	Background string `json:"background"`
	Foreground string `json:"foreground"`
	Logo       string `json:"logo"`

	// Stats is the code's scan statistics ("data" of the answer).
	Stats *LinkStats `json:"-"`
}

// LinkQRRequest is the body of a QR code creation.
type LinkQRRequest struct {
	// Type is one of the LinkQR* constants.
	Type string `json:"type"`
	// Data is the content, marshalled as JSON: a string for text, link,
	// email and phone; a string, slice, map or struct for vcard, sms and
	// wifi (a json.RawMessage is sent as is).
	Data       any     `json:"data"`
	Background *string `json:"background,omitempty"`
	Foreground *string `json:"foreground,omitempty"`
	Logo       *string `json:"logo,omitempty"`
	// Name defaults to the type.
	Name string `json:"name,omitempty"`
}

// LinkQRUpdate is the body of a QR code update: Data is required (checked
// against the code's type); Type may be sent only when it is the code's
// own; nil fields are kept.
type LinkQRUpdate struct {
	Type       *string `json:"type,omitempty"`
	Data       any     `json:"data,omitempty"`
	Background *string `json:"background,omitempty"`
	Foreground *string `json:"foreground,omitempty"`
	Logo       *string `json:"logo,omitempty"`
}

// List returns one page of the caller's QR codes (GET /api/qr).
func (s *LinkQRService) List(ctx context.Context, opts *LinkListOptions) ([]*LinkQR, *Response, error) {
	return linkList[LinkQR](ctx, s.client, "api/qr", "qrs", opts.values())
}

// All walks every page of the caller's QR codes from opts' page.
func (s *LinkQRService) All(ctx context.Context, opts *LinkListOptions) iter.Seq2[*LinkQR, error] {
	return linkAll(ctx, opts, s.List)
}

// Get returns a QR code with its statistics in Stats (GET /api/qr/:id).
func (s *LinkQRService) Get(ctx context.Context, id int64) (*LinkQRCode, *Response, error) {
	var out struct {
		Details *LinkQRCode `json:"details"`
		Data    *LinkStats  `json:"data"`
	}
	resp, err := s.client.linkCall(ctx, http.MethodGet, linkPath("api/qr/%d", id), nil, nil, &out)
	if err != nil {
		return nil, resp, err
	}
	if out.Details == nil {
		out.Details = new(LinkQRCode)
	}
	out.Details.Stats = out.Data
	return out.Details, resp, nil
}

// Add creates a QR code (POST /api/qr/add); the result has its ID and Link.
func (s *LinkQRService) Add(ctx context.Context, q *LinkQRRequest) (*LinkQR, *Response, error) {
	ctx = creating(ctx)
	if q == nil {
		q = &LinkQRRequest{}
	}
	out := new(LinkQR)
	resp, err := s.client.linkCall(ctx, http.MethodPost, "api/qr/add", nil, q, out)
	if err != nil {
		return nil, resp, err
	}
	if out.Name == "" {
		out.Name = q.Name
	}
	return out, resp, nil
}

// Update changes a QR code (PUT /api/qr/:id/update).
func (s *LinkQRService) Update(ctx context.Context, id int64, q *LinkQRUpdate) (*Response, error) {
	if q == nil {
		q = &LinkQRUpdate{}
	}
	return s.client.linkCall(ctx, http.MethodPut, linkPath("api/qr/%d/update", id), nil, q, nil)
}

// Delete deletes a QR code (DELETE /api/qr/:id/delete).
func (s *LinkQRService) Delete(ctx context.Context, id int64) (*Response, error) {
	return s.client.linkCall(ctx, http.MethodDelete, linkPath("api/qr/%d/delete", id), nil, nil, nil)
}

// --- Short links ---------------------------------------------------------------

// LinkURL is a short link.
type LinkURL struct {
	ID           int64  `json:"id"`
	Alias        string `json:"alias"`
	ShortURL     string `json:"shorturl"`
	LongURL      string `json:"longurl"`
	Clicks       int64  `json:"clicks"`
	UniqueClicks int64  `json:"uniqueClicks"`
	Title        string `json:"title"`
	Description  string `json:"description"`
	// Date is the creation time, "YYYY-MM-DD HH:MM:SS" UTC.
	Date string `json:"date"`
	// Campaign is the campaign's id, 0 for none.
	Campaign int64 `json:"campaign"`
	// Domain is the branded domain's id, 0 for the short host.
	Domain int64 `json:"domain"`
	// Expiry is "YYYY-MM-DD HH:MM:SS" UTC, "" when the link does not
	// expire.
	Expiry string `json:"expiry"`
	// Password tells whether the link asks for a password.
	Password bool    `json:"password"`
	Pixels   []int64 `json:"pixels"`
	Channels []int64 `json:"channels"`

	// Stats is the link's statistics, set by Get only.
	Stats *LinkStats `json:"-"`
}

// LinkURLListOptions selects one page of short links and their order.
type LinkURLListOptions struct {
	LinkListOptions
	// Order is LinkOrderDate (the default) or LinkOrderClicks.
	Order string
}

// LinkURLRequest is the body of a short-link creation; empty fields are not
// sent.
type LinkURLRequest struct {
	// URL is the long URL (required).
	URL string `json:"url"`
	// Custom is the alias; empty: a generated one.
	Custom string `json:"custom,omitempty"`
	// Domain is a branded domain's id; 0: the short host.
	Domain int64 `json:"domain,omitempty"`
	// Expiry is "YYYY-MM-DD HH:MM:SS" UTC, RFC 3339 or "YYYY-MM-DD".
	Expiry      string  `json:"expiry,omitempty"`
	Password    string  `json:"password,omitempty"`
	Pixels      []int64 `json:"pixels,omitempty"`
	Campaign    int64   `json:"campaign,omitempty"`
	Channels    []int64 `json:"channel,omitempty"`
	Title       string  `json:"title,omitempty"`
	Description string  `json:"description,omitempty"`
}

// LinkURLUpdate is the body of a short-link update: nil fields are kept.
// Expiry "" removes the expiry, Password "" the password; Channels set to
// an empty slice leaves every channel.
type LinkURLUpdate struct {
	URL         *string  `json:"url,omitempty"`
	Custom      *string  `json:"custom,omitempty"`
	Domain      *int64   `json:"domain,omitempty"`
	Expiry      *string  `json:"expiry,omitempty"`
	Password    *string  `json:"password,omitempty"`
	Pixels      *[]int64 `json:"pixels,omitempty"`
	Campaign    *int64   `json:"campaign,omitempty"`
	Channels    *[]int64 `json:"channel,omitempty"`
	Title       *string  `json:"title,omitempty"`
	Description *string  `json:"description,omitempty"`
}

// List returns one page of the caller's short links (GET /api/urls).
func (s *LinkURLsService) List(ctx context.Context, opts *LinkURLListOptions) ([]*LinkURL, *Response, error) {
	if opts == nil {
		opts = &LinkURLListOptions{}
	}
	q := opts.values()
	if opts.Order != "" {
		q.Set("order", opts.Order)
	}
	return linkList[LinkURL](ctx, s.client, "api/urls", "urls", q)
}

// All walks every page of the caller's short links from opts' page.
func (s *LinkURLsService) All(ctx context.Context, opts *LinkURLListOptions) iter.Seq2[*LinkURL, error] {
	o := LinkURLListOptions{}
	if opts != nil {
		o = *opts
	}
	return linkAll(ctx, &o.LinkListOptions, func(ctx context.Context, p *LinkListOptions) ([]*LinkURL, *Response, error) {
		return s.List(ctx, &LinkURLListOptions{LinkListOptions: *p, Order: o.Order})
	})
}

// Get returns a short link with its statistics in Stats (GET /api/url/:id).
func (s *LinkURLsService) Get(ctx context.Context, id int64) (*LinkURL, *Response, error) {
	var out struct {
		Details *LinkURL   `json:"details"`
		Data    *LinkStats `json:"data"`
	}
	resp, err := s.client.linkCall(ctx, http.MethodGet, linkPath("api/url/%d", id), nil, nil, &out)
	if err != nil {
		return nil, resp, err
	}
	if out.Details == nil {
		out.Details = &LinkURL{ID: id}
	}
	out.Details.Stats = out.Data
	return out.Details, resp, nil
}

// Add creates a short link (POST /api/url/add); the result has its ID and
// ShortURL only. An alias used on that domain is ErrConflict
// (CodeAliasTaken).
func (s *LinkURLsService) Add(ctx context.Context, u *LinkURLRequest) (*LinkURL, *Response, error) {
	ctx = creating(ctx)
	if u == nil {
		u = &LinkURLRequest{}
	}
	return s.write(ctx, http.MethodPost, "api/url/add", u)
}

// Update changes a short link (PUT /api/url/:id/update); the result has
// its ID and ShortURL only.
func (s *LinkURLsService) Update(ctx context.Context, id int64, u *LinkURLUpdate) (*LinkURL, *Response, error) {
	if u == nil {
		u = &LinkURLUpdate{}
	}
	return s.write(ctx, http.MethodPut, linkPath("api/url/%d/update", id), u)
}

func (s *LinkURLsService) write(ctx context.Context, method, path string, body any) (*LinkURL, *Response, error) {
	var out struct {
		ID       int64  `json:"id"`
		ShortURL string `json:"shorturl"`
	}
	resp, err := s.client.linkCall(ctx, method, path, nil, body, &out)
	if err != nil {
		return nil, resp, err
	}
	return &LinkURL{ID: out.ID, ShortURL: out.ShortURL}, resp, nil
}

// Delete deletes a short link; it leaves its channels and campaign (DELETE
// /api/url/:id/delete).
func (s *LinkURLsService) Delete(ctx context.Context, id int64) (*Response, error) {
	return s.client.linkCall(ctx, http.MethodDelete, linkPath("api/url/%d/delete", id), nil, nil, nil)
}
