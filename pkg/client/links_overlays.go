package client

import (
	"context"
	"iter"
)

// LinkOverlay is a CTA overlay.
type LinkOverlay struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
	// Date is the creation time, "YYYY-MM-DD HH:MM:SS" UTC.
	Date string `json:"date"`
}

// List returns one page of the caller's CTA overlays (GET /api/overlay).
func (s *LinkOverlaysService) List(ctx context.Context, opts *LinkListOptions) ([]*LinkOverlay, *Response, error) {
	return linkList[LinkOverlay](ctx, s.client, "api/overlay", "cta", opts.values())
}

// All walks every page of the caller's CTA overlays from opts' page.
func (s *LinkOverlaysService) All(ctx context.Context, opts *LinkListOptions) iter.Seq2[*LinkOverlay, error] {
	return linkAll(ctx, opts, s.List)
}
