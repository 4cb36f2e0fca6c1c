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
