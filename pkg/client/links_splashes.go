package client

import (
	"context"
	"iter"
)

// LinkSplash is a custom splash page.
type LinkSplash struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	// Date is the creation time, "YYYY-MM-DD HH:MM:SS" UTC.
	Date string `json:"date"`
}

// List returns one page of the caller's splash pages (GET /api/splash).
func (s *LinkSplashService) List(ctx context.Context, opts *LinkListOptions) ([]*LinkSplash, *Response, error) {
	return linkList[LinkSplash](ctx, s.client, "api/splash", "splash", opts.values())
}

// All walks every page of the caller's splash pages from opts' page.
func (s *LinkSplashService) All(ctx context.Context, opts *LinkListOptions) iter.Seq2[*LinkSplash, error] {
	return linkAll(ctx, opts, s.List)
}
