package client

import (
	"context"
	"iter"
	"net/http"
)

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
