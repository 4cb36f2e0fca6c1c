package storetest

import (
	"testing"

	"github.com/seedhq/portal/internal/links"
)

func testLinkCampaigns(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana, budi := mustLinkUser(t, s, "ana"), mustLinkUser(t, s, "budi")
	c, err := s.CreateCampaign(ctx, links.Campaign{UserID: ana.ID, Name: "Summer", Slug: "summer", Public: true, CreatedAt: at(0)})
	mustOK(t, "CreateCampaign", err)
	_, err = s.CreateCampaign(ctx, links.Campaign{UserID: budi.ID, Name: "x", Slug: "summer", CreatedAt: at(0)})
	wantErr(t, "CreateCampaign with a taken slug", err, links.ErrSlugTaken)
	c2, err := s.CreateCampaign(ctx, links.Campaign{UserID: budi.ID, Name: "no slug", CreatedAt: at(0)})
	mustOK(t, "CreateCampaign without slug", err)
	_, err = s.CreateCampaign(ctx, links.Campaign{UserID: budi.ID, Name: "no slug either", CreatedAt: at(0)})
	mustOK(t, "a second campaign without slug", err)
	bySlug, err := s.GetCampaignBySlug(ctx, "summer")
	mustOK(t, "GetCampaignBySlug", err)
	check(t, "campaign by slug", bySlug.ID, c.ID)
	byID, err := s.GetCampaignByID(ctx, c2.ID)
	mustOK(t, "GetCampaignByID of budi's campaign", err)
	check(t, "campaign by id", byID, links.Campaign{ID: c2.ID, UserID: budi.ID, Name: "no slug", CreatedAt: at(0).UTC()})
	_, err = s.GetCampaignByID(ctx, c.ID+1000)
	wantErr(t, "GetCampaignByID of a missing campaign", err, links.ErrNotFound)
	_, err = s.GetCampaignByID(ctx, 0)
	wantErr(t, "GetCampaignByID(0)", err, links.ErrNotFound)

	l := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "one"})
	bl := mustLink(t, s, links.ShortLink{UserID: budi.ID, Alias: "two"})
	wantErr(t, "assign another user's link", s.AssignCampaignLink(ctx, ana.ID, c.ID, bl.ID), links.ErrNotFound)
	wantErr(t, "assign to another user's campaign", s.AssignCampaignLink(ctx, ana.ID, c2.ID, l.ID), links.ErrNotFound)
	mustOK(t, "AssignCampaignLink", s.AssignCampaignLink(ctx, ana.ID, c.ID, l.ID))
	in, err := s.ListLinks(ctx, ana.ID, links.LinkFilter{CampaignID: c.ID}, p1)
	mustOK(t, "ListLinks by campaign", err)
	if in.Total != 1 || in.Items[0].ID != l.ID || in.Items[0].CampaignID != c.ID {
		t.Fatalf("links of the campaign = %+v", in)
	}
	_, err = s.UpdateCampaign(ctx, ana.ID, c.ID, func(c *links.Campaign) error { c.Slug = ""; c.Name = "Winter"; return nil })
	mustOK(t, "UpdateCampaign", err)
	_, err = s.GetCampaignBySlug(ctx, "summer")
	wantErr(t, "old slug after UpdateCampaign", err, links.ErrNotFound)
	wantErr(t, "DeleteCampaign of another user's", s.DeleteCampaign(ctx, budi.ID, c.ID), links.ErrNotFound)
	mustOK(t, "DeleteCampaign", s.DeleteCampaign(ctx, ana.ID, c.ID))
	_, err = s.GetCampaignByID(ctx, c.ID)
	wantErr(t, "GetCampaignByID after DeleteCampaign", err, links.ErrNotFound)
	got, err := s.GetLink(ctx, ana.ID, l.ID)
	mustOK(t, "GetLink", err)
	check(t, "campaign of the link after DeleteCampaign", got.CampaignID, int64(0))
}
