package bolt

import (
	"context"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// CreateCampaign stores c; links.ErrSlugTaken when its slug is used.
func (s *Store) CreateCampaign(ctx context.Context, c links.Campaign) (links.Campaign, error) {
	c.CreatedAt = ts(c.CreatedAt)
	err := s.update(ctx, "create campaign", func(tx *bbolt.Tx) error {
		if c.Slug != "" && tx.Bucket(bucketLinkCampaignsBySlg).Get([]byte(c.Slug)) != nil {
			return links.ErrSlugTaken
		}
		id, err := insert(tx, tCampaigns, c.UserID, func(id int64) { c.ID = id }, &c)
		if err != nil || c.Slug == "" {
			return err
		}
		return tx.Bucket(bucketLinkCampaignsBySlg).Put([]byte(c.Slug), id8(id))
	})
	return c, err
}

// GetCampaign returns the owner's campaign.
func (s *Store) GetCampaign(ctx context.Context, owner, id int64) (links.Campaign, error) {
	return getOne[links.Campaign](s, ctx, tCampaigns, owner, id)
}

// GetCampaignByID returns the campaign with the id, whoever owns it.
func (s *Store) GetCampaignByID(ctx context.Context, id int64) (links.Campaign, error) {
	return getAnyOne[links.Campaign](s, ctx, tCampaigns, id)
}

// GetCampaignBySlug returns the campaign with the slug.
func (s *Store) GetCampaignBySlug(ctx context.Context, slug string) (links.Campaign, error) {
	var c links.Campaign
	err := s.view(ctx, "get campaign by slug", func(tx *bbolt.Tx) error {
		id := tx.Bucket(bucketLinkCampaignsBySlg).Get([]byte(slug))
		if id == nil {
			return fmt.Errorf("campaign %q: %w", slug, links.ErrNotFound)
		}
		ok, err := getJSON(tx.Bucket(bucketLinkCampaigns), id, &c)
		if err == nil && !ok {
			err = fmt.Errorf("campaign %q is indexed but missing", slug)
		}
		return err
	})
	return c, err
}

// ListCampaigns returns one page of the owner's campaigns.
func (s *Store) ListCampaigns(ctx context.Context, owner int64, p links.Page) (links.List[links.Campaign], error) {
	return listOwned[links.Campaign](s, ctx, tCampaigns, owner, p)
}

// UpdateCampaign applies fn to the owner's campaign.
func (s *Store) UpdateCampaign(ctx context.Context, owner, id int64, fn func(*links.Campaign) error) (links.Campaign, error) {
	var c links.Campaign
	err := s.update(ctx, "update campaign", func(tx *bbolt.Tx) error {
		old, err := getOwned[links.Campaign](tx, tCampaigns, owner, id)
		if err != nil {
			return err
		}
		c = old
		if err := fn(&c); err != nil {
			return err
		}
		c.ID, c.UserID, c.CreatedAt = old.ID, old.UserID, old.CreatedAt
		if err := reindex(tx.Bucket(bucketLinkCampaignsBySlg), old.Slug, c.Slug, id8(id), links.ErrSlugTaken); err != nil {
			return err
		}
		return putOwned(tx, tCampaigns, id, c)
	})
	return c, err
}

// DeleteCampaign removes the owner's campaign and its visits, leaving its
// links without one (they keep their own visits).
func (s *Store) DeleteCampaign(ctx context.Context, owner, id int64) error {
	return s.update(ctx, "delete campaign", func(tx *bbolt.Tx) error {
		c, err := getOwned[links.Campaign](tx, tCampaigns, owner, id)
		if err != nil {
			return err
		}
		idx := tx.Bucket(bucketLinkLinksByCamp)
		var keys [][]byte
		if err := scanPrefix(idx, id8(id), func(k, _ []byte) (bool, error) {
			keys = append(keys, append([]byte(nil), k...))
			return true, nil
		}); err != nil {
			return err
		}
		for _, k := range keys {
			linkID := readID(k[8:])
			l, err := getOwned[links.ShortLink](tx, tLinks, owner, linkID)
			if err != nil {
				return err
			}
			l.CampaignID = 0
			if err := putOwned(tx, tLinks, linkID, l); err != nil {
				return err
			}
			if err := idx.Delete(k); err != nil {
				return err
			}
		}
		if c.Slug != "" {
			if err := tx.Bucket(bucketLinkCampaignsBySlg).Delete([]byte(c.Slug)); err != nil {
				return err
			}
		}
		if err := deleteVisits(tx, visits.KindCampaign, id); err != nil {
			return err
		}
		return tCampaigns.remove(tx, owner, id)
	})
}

// AssignCampaignLink puts the owner's link in the owner's campaign.
func (s *Store) AssignCampaignLink(ctx context.Context, owner, campaignID, linkID int64) error {
	return s.update(ctx, "assign link to campaign", func(tx *bbolt.Tx) error {
		if err := tCampaigns.mustOwn(tx, owner, campaignID); err != nil {
			return err
		}
		l, err := getOwned[links.ShortLink](tx, tLinks, owner, linkID)
		if err != nil {
			return err
		}
		if err := setLinkCampaign(tx, &l, campaignID); err != nil {
			return err
		}
		return putOwned(tx, tLinks, linkID, l)
	})
}

// setLinkCampaign moves l to the campaign (0: none), updating the index.
func setLinkCampaign(tx *bbolt.Tx, l *links.ShortLink, campaignID int64) error {
	idx := tx.Bucket(bucketLinkLinksByCamp)
	if l.CampaignID != 0 {
		if err := idx.Delete(id8(l.CampaignID, l.ID)); err != nil {
			return err
		}
	}
	l.CampaignID = campaignID
	if campaignID == 0 {
		return nil
	}
	return idx.Put(id8(campaignID, l.ID), nil)
}
