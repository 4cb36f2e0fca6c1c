package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
)

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
