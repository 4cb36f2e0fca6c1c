package client

import (
	"context"
	"iter"
	"net/http"
)

// LinkChannel is a channel.
type LinkChannel struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Color is "#RRGGBB", upper-case.
	Color   string `json:"color"`
	Starred bool   `json:"starred"`
}

// LinkChannelRequest is the body of a channel creation or update: nil
// fields are not sent (kept on update).
type LinkChannelRequest struct {
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
	Color       *string `json:"color,omitempty"`
	Starred     *bool   `json:"starred,omitempty"`
}

// LinkChannelItem is an item assigned to a channel.
type LinkChannelItem struct {
	// Type is LinkItemLinks or LinkItemQR.
	Type  string `json:"type"`
	ID    int64  `json:"id"`
	Title string `json:"title"`
	// Preview and Link are the short URL of a link, the image address of
	// a QR code.
	Preview string `json:"preview"`
	Link    string `json:"link"`
	// Date is the assignment's day, "YYYY-MM-DD".
	Date string `json:"date"`
}

// List returns one page of the caller's channels (GET /api/channels).
func (s *LinkChannelsService) List(ctx context.Context, opts *LinkListOptions) ([]*LinkChannel, *Response, error) {
	return linkList[LinkChannel](ctx, s.client, "api/channels", "channels", opts.values())
}

// All walks every page of the caller's channels from opts' page.
func (s *LinkChannelsService) All(ctx context.Context, opts *LinkListOptions) iter.Seq2[*LinkChannel, error] {
	return linkAll(ctx, opts, s.List)
}

// ListItems returns one page of a channel's items, newest assignment first
// (GET /api/channel/:id).
func (s *LinkChannelsService) ListItems(ctx context.Context, channelID int64, opts *LinkListOptions) ([]*LinkChannelItem, *Response, error) {
	return linkList[LinkChannelItem](ctx, s.client, linkPath("api/channel/%d", channelID), "items", opts.values())
}

// AllItems walks every page of a channel's items from opts' page.
func (s *LinkChannelsService) AllItems(ctx context.Context, channelID int64, opts *LinkListOptions) iter.Seq2[*LinkChannelItem, error] {
	return linkAll(ctx, opts, func(ctx context.Context, o *LinkListOptions) ([]*LinkChannelItem, *Response, error) {
		return s.ListItems(ctx, channelID, o)
	})
}

// Add creates a channel and returns it (POST /api/channel/add).
func (s *LinkChannelsService) Add(ctx context.Context, c *LinkChannelRequest) (*LinkChannel, *Response, error) {
	ctx = creating(ctx)
	if c == nil {
		c = &LinkChannelRequest{}
	}
	out := new(LinkChannel)
	resp, err := s.client.linkCall(ctx, http.MethodPost, "api/channel/add", nil, c, out)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// Update changes a channel (PUT /api/channel/:id/update).
func (s *LinkChannelsService) Update(ctx context.Context, id int64, c *LinkChannelRequest) (*Response, error) {
	if c == nil {
		c = &LinkChannelRequest{}
	}
	return s.client.linkCall(ctx, http.MethodPut, linkPath("api/channel/%d/update", id), nil, c, nil)
}

// Delete deletes a channel and unassigns its items (DELETE
// /api/channel/:id/delete).
func (s *LinkChannelsService) Delete(ctx context.Context, id int64) (*Response, error) {
	return s.client.linkCall(ctx, http.MethodDelete, linkPath("api/channel/%d/delete", id), nil, nil, nil)
}

// Assign puts an item of itemType (LinkItemLinks, LinkItemQR; LinkItemBio
// is ErrNotFound, another type ErrBadRequest) in a channel (POST
// /api/channel/:channelid/assign/:type/:itemid). Assigning twice keeps the
// first assignment.
func (s *LinkChannelsService) Assign(ctx context.Context, channelID int64, itemType string, itemID int64) (*Response, error) {
	t, err := segment("item type", itemType)
	if err != nil {
		return nil, err
	}
	return s.client.linkCall(ctx, http.MethodPost, linkPath("api/channel/%d/assign/%s/%d", channelID, t, itemID), nil, nil, nil)
}
