package links

import (
	"context"
	"fmt"
	"strings"
)

// CampaignInput is the input of CreateCampaign.
type CampaignInput struct {
	Name   string
	Slug   string // rotator slug; empty for none
	Public bool
}

// validateCampaign checks and trims a campaign's name and slug.
func validateCampaign(name, slug string) (string, string, error) {
	name, slug = strings.TrimSpace(name), strings.TrimSpace(slug)
	if err := validateText("name", name, MaxNameLength); err != nil {
		return "", "", err
	}
	if slug != "" {
		if err := ValidateAlias("slug", slug); err != nil {
			return "", "", err
		}
	}
	return name, slug, nil
}

// CreateCampaign creates a campaign for the owner.
func (s *Service) CreateCampaign(ctx context.Context, owner int64, in CampaignInput) (Campaign, error) {
	name, slug, err := validateCampaign(in.Name, in.Slug)
	if err != nil {
		return Campaign{}, err
	}
	c, err := s.store.CreateCampaign(ctx, Campaign{UserID: owner, Name: name, Slug: slug, Public: in.Public, CreatedAt: s.clock()})
	if err != nil {
		return Campaign{}, fmt.Errorf("links: create campaign: %w", err)
	}
	s.changed(ChangeCampaign)
	return c, nil
}

// CampaignPatch is the input of UpdateCampaign: Name is required, nil
// fields stay, an empty Slug removes the rotator.
type CampaignPatch struct {
	Name   string
	Slug   *string
	Public *bool
}

// UpdateCampaign changes the owner's campaign.
func (s *Service) UpdateCampaign(ctx context.Context, owner, id int64, in CampaignPatch) (Campaign, error) {
	if strings.TrimSpace(in.Name) == "" {
		return Campaign{}, invalid("name is required")
	}
	slug := ""
	if in.Slug != nil {
		slug = *in.Slug
	}
	name, slug, err := validateCampaign(in.Name, slug)
	if err != nil {
		return Campaign{}, err
	}
	c, err := s.store.UpdateCampaign(ctx, owner, id, func(c *Campaign) error {
		c.Name = name
		if in.Slug != nil {
			c.Slug = slug
		}
		setIf(&c.Public, in.Public)
		return nil
	})
	if err != nil {
		return Campaign{}, fmt.Errorf("links: update campaign %d: %w", id, err)
	}
	s.changed(ChangeCampaign)
	return c, nil
}

// DeleteCampaign removes the owner's campaign; its links stay, without campaign.
func (s *Service) DeleteCampaign(ctx context.Context, owner, id int64) error {
	if err := s.store.DeleteCampaign(ctx, owner, id); err != nil {
		return fmt.Errorf("links: delete campaign %d: %w", id, err)
	}
	s.changed(ChangeCampaign, ChangeLink)
	return nil
}

// GetCampaign returns the owner's campaign.
func (s *Service) GetCampaign(ctx context.Context, owner, id int64) (Campaign, error) {
	c, err := s.store.GetCampaign(ctx, owner, id)
	if err != nil {
		return Campaign{}, fmt.Errorf("links: campaign %d: %w", id, err)
	}
	return c, nil
}

// ListCampaigns returns one page of the owner's campaigns.
func (s *Service) ListCampaigns(ctx context.Context, owner int64, p Page) (List[Campaign], error) {
	return list(ctx, "campaigns", owner, p, s.store.ListCampaigns)
}

// AssignCampaignLink puts the owner's link in the owner's campaign.
func (s *Service) AssignCampaignLink(ctx context.Context, owner, campaignID, linkID int64) error {
	if err := s.store.AssignCampaignLink(ctx, owner, campaignID, linkID); err != nil {
		return fmt.Errorf("links: assign link %d to campaign %d: %w", linkID, campaignID, err)
	}
	s.changed(ChangeLink, ChangeCampaign)
	return nil
}
