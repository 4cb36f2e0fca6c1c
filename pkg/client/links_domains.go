package client

import (
	"context"
	"iter"
	"net/http"
)

// LinkDomain is a branded domain.
type LinkDomain struct {
	ID int64 `json:"id"`
	// Domain is the domain's URL, scheme and host, such as
	// "https://go.example.com".
	Domain string `json:"domain"`
	// RedirectRoot and Redirect404 are where the domain's root and unknown
	// aliases redirect, "" for the portal's defaults.
	RedirectRoot string `json:"redirectroot"`
	Redirect404  string `json:"redirect404"`
}

// LinkDomainRequest is the body of a domain creation.
type LinkDomainRequest struct {
	// Domain is an http or https URL of a host only (required).
	Domain       string `json:"domain"`
	RedirectRoot string `json:"redirectroot,omitempty"`
	Redirect404  string `json:"redirect404,omitempty"`
}

// LinkDomainUpdate is the body of a domain update: nil fields are kept, ""
// clears a redirect.
type LinkDomainUpdate struct {
	RedirectRoot *string `json:"redirectroot,omitempty"`
	Redirect404  *string `json:"redirect404,omitempty"`
}

// List returns one page of the caller's domains, newest first (GET
// /api/domains).
func (s *LinkDomainsService) List(ctx context.Context, opts *LinkListOptions) ([]*LinkDomain, *Response, error) {
	return linkList[LinkDomain](ctx, s.client, "api/domains", "domains", opts.values())
}

// All walks every page of the caller's domains from opts' page.
func (s *LinkDomainsService) All(ctx context.Context, opts *LinkListOptions) iter.Seq2[*LinkDomain, error] {
	return linkAll(ctx, opts, s.List)
}

// Add registers a branded domain and returns its id (POST /api/domain/add).
// A host registered by any user is ErrConflict (CodeDomainTaken).
func (s *LinkDomainsService) Add(ctx context.Context, d *LinkDomainRequest) (int64, *Response, error) {
	ctx = creating(ctx)
	var out struct {
		ID int64 `json:"id"`
	}
	resp, err := s.client.linkCall(ctx, http.MethodPost, "api/domain/add", nil, d, &out)
	return out.ID, resp, err
}

// Update changes a domain's redirects (PUT /api/domain/:id/update).
func (s *LinkDomainsService) Update(ctx context.Context, id int64, u *LinkDomainUpdate) (*Response, error) {
	if u == nil {
		u = &LinkDomainUpdate{}
	}
	return s.client.linkCall(ctx, http.MethodPut, linkPath("api/domain/%d/update", id), nil, u, nil)
}

// Delete deletes a domain (DELETE /api/domain/:id/delete); one that short
// links use is ErrConflict (CodeDomainInUse).
func (s *LinkDomainsService) Delete(ctx context.Context, id int64) (*Response, error) {
	return s.client.linkCall(ctx, http.MethodDelete, linkPath("api/domain/%d/delete", id), nil, nil, nil)
}
