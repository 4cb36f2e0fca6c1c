package client

import (
	"context"
	"iter"
	"net/http"
)

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
