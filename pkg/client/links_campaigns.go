package client

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strings"
)

// --- Campaigns ------------------------------------------------------------------

// LinkRotator is a campaign's rotator address; the API sends false when the
// campaign has no slug, read as "".
type LinkRotator string

// UnmarshalJSON implements json.Unmarshaler: a string, or false or null
// for none.
func (r *LinkRotator) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "false", "null", "true":
		*r = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*r = LinkRotator(s)
	return nil
}

// MarshalJSON implements json.Marshaler: false for none, as the API.
func (r LinkRotator) MarshalJSON() ([]byte, error) {
	if r == "" {
		return []byte("false"), nil
	}
	return json.Marshal(string(r))
}

// LinkCampaign is a campaign.
type LinkCampaign struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	// Slug is the rotator's slug, "" for none (an addition to the spec).
	Slug   string `json:"slug"`
	Public bool   `json:"public"`
	// Rotator is <short base>/r/<slug>, "" without a slug.
	Rotator LinkRotator `json:"rotator"`
	// List is the campaign's public list, <short base>/c/<id>.
	List string `json:"list"`
}

// LinkCampaignRequest is the body of a campaign creation or update: nil
// fields are not sent. Update needs Name; an empty Slug removes the rotator.
type LinkCampaignRequest struct {
	Name   *string `json:"name,omitempty"`
	Slug   *string `json:"slug,omitempty"`
	Public *bool   `json:"public,omitempty"`
}

// linkCampaignBody is the answer of a campaign creation or update: the
// name is in "domain", as the spec says.
type linkCampaignBody struct {
	ID      int64       `json:"id"`
	Domain  string      `json:"domain"`
	Public  bool        `json:"public"`
	Rotator LinkRotator `json:"rotator"`
	List    string      `json:"list"`
}

func (b linkCampaignBody) campaign() *LinkCampaign {
	c := &LinkCampaign{ID: b.ID, Name: b.Domain, Public: b.Public, Rotator: b.Rotator, List: b.List}
	if i := strings.LastIndex(string(b.Rotator), "/r/"); i >= 0 {
		c.Slug, _ = url.PathUnescape(string(b.Rotator[i+3:]))
	}
	return c
}

// List returns one page of the caller's campaigns, newest first (GET
// /api/campaigns).
func (s *LinkCampaignsService) List(ctx context.Context, opts *LinkListOptions) ([]*LinkCampaign, *Response, error) {
	return linkList[LinkCampaign](ctx, s.client, "api/campaigns", "campaigns", opts.values())
}

// All walks every page of the caller's campaigns from opts' page.
func (s *LinkCampaignsService) All(ctx context.Context, opts *LinkListOptions) iter.Seq2[*LinkCampaign, error] {
	return linkAll(ctx, opts, s.List)
}

// Add creates a campaign (POST /api/campaign/add). The result's Slug is
// read from its rotator.
func (s *LinkCampaignsService) Add(ctx context.Context, c *LinkCampaignRequest) (*LinkCampaign, *Response, error) {
	ctx = creating(ctx)
	return s.write(ctx, http.MethodPost, "api/campaign/add", c)
}

// Update changes a campaign (PUT /api/campaign/:id/update); Name is
// required.
func (s *LinkCampaignsService) Update(ctx context.Context, id int64, c *LinkCampaignRequest) (*LinkCampaign, *Response, error) {
	return s.write(ctx, http.MethodPut, linkPath("api/campaign/%d/update", id), c)
}

func (s *LinkCampaignsService) write(ctx context.Context, method, path string, c *LinkCampaignRequest) (*LinkCampaign, *Response, error) {
	if c == nil {
		c = &LinkCampaignRequest{}
	}
	var out linkCampaignBody
	resp, err := s.client.linkCall(ctx, method, path, nil, c, &out)
	if err != nil {
		return nil, resp, err
	}
	return out.campaign(), resp, nil
}

// Delete deletes a campaign; its links stay, without campaign (DELETE
// /api/campaign/:id/delete).
func (s *LinkCampaignsService) Delete(ctx context.Context, id int64) (*Response, error) {
	return s.client.linkCall(ctx, http.MethodDelete, linkPath("api/campaign/%d/delete", id), nil, nil, nil)
}

// AssignLink puts a short link in a campaign (POST
// /api/campaign/:campaignid/assign/:linkid); either id not the caller's is
// ErrNotFound.
func (s *LinkCampaignsService) AssignLink(ctx context.Context, campaignID, linkID int64) (*Response, error) {
	return s.client.linkCall(ctx, http.MethodPost, linkPath("api/campaign/%d/assign/%d", campaignID, linkID), nil, nil, nil)
}

// --- Channels -------------------------------------------------------------------

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
