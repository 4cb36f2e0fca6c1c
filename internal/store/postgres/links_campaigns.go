package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// This file holds the link domain's campaigns.

var tCampaigns = ownedTable[links.Campaign]{
	name: "links_campaigns", what: "campaign",
	cols: `id, user_id, name, COALESCE(slug, ''), public, created_at`,
	scan: func(row pgx.Row) (links.Campaign, error) {
		var c links.Campaign
		err := row.Scan(&c.ID, &c.UserID, &c.Name, &c.Slug, &c.Public, &c.CreatedAt)
		return c, err
	},
}

// slugErr maps the unique violation of a campaign's slug to links.ErrSlugTaken.
func slugErr(err error) error {
	if c, ok := uniqueViolation(err); ok && c == "links_campaigns_slug_key" {
		return links.ErrSlugTaken
	}
	return err
}

// CreateCampaign stores c; links.ErrSlugTaken when c.Slug is not empty and
// any campaign has it.
func (s *Store) CreateCampaign(ctx context.Context, c links.Campaign) (links.Campaign, error) {
	out, err := tCampaigns.scan(s.pool.QueryRow(ctx, `INSERT INTO links_campaigns (user_id, name, slug, public, created_at)
		VALUES ($1, $2, $3, $4, $5) RETURNING `+tCampaigns.cols,
		c.UserID, c.Name, nullIfEmpty(c.Slug), c.Public, c.CreatedAt))
	if err != nil {
		return links.Campaign{}, linkErr("create campaign", ownerErr(slugErr(err), c.UserID))
	}
	return out, nil
}

// GetCampaign returns the owner's campaign.
func (s *Store) GetCampaign(ctx context.Context, owner, id int64) (links.Campaign, error) {
	c, err := tCampaigns.get(ctx, s.pool, owner, id, false)
	if err != nil {
		return links.Campaign{}, linkErr("get campaign", err)
	}
	return c, nil
}

// GetCampaignByID returns the campaign with the id, whoever owns it.
func (s *Store) GetCampaignByID(ctx context.Context, id int64) (links.Campaign, error) {
	c, err := tCampaigns.getAny(ctx, s.pool, id)
	if err != nil {
		return links.Campaign{}, linkErr("get campaign", err)
	}
	return c, nil
}

// GetCampaignBySlug returns the campaign with the rotator slug, whoever owns it.
func (s *Store) GetCampaignBySlug(ctx context.Context, slug string) (links.Campaign, error) {
	c, err := tCampaigns.scan(s.pool.QueryRow(ctx, `SELECT `+tCampaigns.cols+` FROM links_campaigns WHERE slug = $1`, slug))
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("campaign %q: %w", slug, links.ErrNotFound)
	}
	if err != nil {
		return links.Campaign{}, linkErr("get campaign by slug", err)
	}
	return c, nil
}

// ListCampaigns returns one page of the owner's campaigns, newest first.
func (s *Store) ListCampaigns(ctx context.Context, owner int64, p links.Page) (links.List[links.Campaign], error) {
	return tCampaigns.list(ctx, s, owner, p)
}

// UpdateCampaign applies fn to the owner's campaign; links.ErrSlugTaken when
// the new slug is another campaign's.
func (s *Store) UpdateCampaign(ctx context.Context, owner, id int64, fn func(*links.Campaign) error) (links.Campaign, error) {
	var c links.Campaign
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		old, err := tCampaigns.get(ctx, tx, owner, id, true)
		if err != nil {
			return err
		}
		c = old
		if err := fn(&c); err != nil {
			return err
		}
		c, err = tCampaigns.scan(tx.QueryRow(ctx, `UPDATE links_campaigns SET name = $2, slug = $3, public = $4
			WHERE id = $1 RETURNING `+tCampaigns.cols, id, c.Name, nullIfEmpty(c.Slug), c.Public))
		return slugErr(err)
	})
	if err != nil {
		return links.Campaign{}, linkErr("update campaign", err)
	}
	return c, nil
}

// DeleteCampaign removes the owner's campaign and its visits; its links
// stay, without a campaign (the foreign key sets their campaign_id to NULL),
// and keep their own visits.
func (s *Store) DeleteCampaign(ctx context.Context, owner, id int64) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := tCampaigns.remove(ctx, tx, owner, id); err != nil {
			return err
		}
		return deleteVisits(ctx, tx, visits.KindCampaign, id)
	})
	if err != nil {
		return linkErr("delete campaign", err)
	}
	return nil
}

// AssignCampaignLink sets the campaign of the owner's link to the owner's
// campaign; links.ErrNotFound when either is missing or another user's.
func (s *Store) AssignCampaignLink(ctx context.Context, owner, campaignID, linkID int64) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := mustOwn(ctx, tx, "links_campaigns", "campaign", owner, campaignID); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE links_links SET campaign_id = $3 WHERE id = $1 AND user_id = $2`,
			linkID, owner, campaignID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return links.NotFound("link", linkID)
		}
		return nil
	})
	if err != nil {
		return linkErr("assign link to campaign", err)
	}
	return nil
}
