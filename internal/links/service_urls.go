package links

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/password"
)

// LinkInput is the input of CreateLink (POST /api/url/add).
type LinkInput struct {
	URL         string
	Custom      string // alias; generated when empty
	DomainID    int64  // 0: the short host
	ExpiresAt   *time.Time
	Password    string // empty: no password
	PixelIDs    []int64
	CampaignID  int64
	ChannelIDs  []int64
	Title       string
	Description string
}

// generateAliasTries bounds the retries of CreateLink on a taken generated alias.
const generateAliasTries = 5

// CreateLink creates a short link for the owner. Referenced domain,
// campaign, pixels and channels must be the owner's (NOT_FOUND otherwise).
func (s *Service) CreateLink(ctx context.Context, owner int64, in LinkInput) (ShortLink, error) {
	now := s.clock()
	l := ShortLink{UserID: owner, DomainID: in.DomainID, LongURL: strings.TrimSpace(in.URL), ExpiresAt: in.ExpiresAt,
		PixelIDs: in.PixelIDs, CampaignID: in.CampaignID, ChannelIDs: in.ChannelIDs, CreatedAt: now, UpdatedAt: now}
	if err := ValidateURL("url", l.LongURL); err != nil {
		return ShortLink{}, err
	}
	if err := applyLinkText(&l, &in.Title, &in.Description); err != nil {
		return ShortLink{}, err
	}
	if err := checkLinkRefs(in.DomainID, in.CampaignID, in.PixelIDs, in.ChannelIDs, in.ExpiresAt, now); err != nil {
		return ShortLink{}, err
	}
	if in.Password != "" {
		h, err := password.Hash(in.Password)
		if err != nil {
			return ShortLink{}, err
		}
		l.PasswordHash = h
	}
	if in.Custom != "" {
		if err := ValidateAlias("custom", in.Custom); err != nil {
			return ShortLink{}, err
		}
		l.Alias = in.Custom
		out, err := s.store.CreateLink(ctx, l)
		if err != nil {
			return ShortLink{}, fmt.Errorf("links: create link %q: %w", in.Custom, err)
		}
		s.changed(ChangeLink)
		return out, nil
	}
	for range generateAliasTries {
		alias, err := GenerateAlias()
		if err != nil {
			return ShortLink{}, err
		}
		if ValidateAlias("custom", alias) != nil {
			continue // a reserved word
		}
		l.Alias = alias
		out, err := s.store.CreateLink(ctx, l)
		if errors.Is(err, ErrAliasTaken) {
			continue
		}
		if err != nil {
			return ShortLink{}, fmt.Errorf("links: create link: %w", err)
		}
		s.changed(ChangeLink)
		return out, nil
	}
	return ShortLink{}, fmt.Errorf("links: create link: no free alias after %d tries", generateAliasTries)
}

// checkLinkRefs checks the shape of a link's references (the store checks
// that they are the owner's) and its expiry.
func checkLinkRefs(domainID, campaignID int64, pixels, channels []int64, expires *time.Time, now time.Time) error {
	if domainID < 0 || campaignID < 0 || slices.ContainsFunc(pixels, nonPositive) || slices.ContainsFunc(channels, nonPositive) {
		return invalid("ids must be positive")
	}
	if len(pixels) > 100 || len(channels) > 100 {
		return invalid("a link takes at most 100 pixels and 100 channels")
	}
	if expires != nil && !expires.After(now) {
		return invalid("expiry must be in the future")
	}
	return nil
}

func nonPositive(id int64) bool { return id <= 0 }

// applyLinkText validates and sets the non-nil title and description.
func applyLinkText(l *ShortLink, title, description *string) error {
	if title != nil {
		if err := validateText("title", *title, MaxNameLength); err != nil {
			return err
		}
		l.Title = *title
	}
	if description != nil {
		if err := validateText("description", *description, MaxDescriptionLength); err != nil {
			return err
		}
		l.Description = *description
	}
	return nil
}

// LinkPatch is the input of UpdateLink (PUT /api/url/:id/update); nil fields
// stay. An empty Password removes the password; ClearExpiry removes the expiry.
type LinkPatch struct {
	URL         *string
	Custom      *string
	DomainID    *int64
	ExpiresAt   *time.Time
	ClearExpiry bool
	Password    *string
	PixelIDs    *[]int64
	CampaignID  *int64
	ChannelIDs  *[]int64
	Title       *string
	Description *string
}

// UpdateLink changes the owner's short link.
func (s *Service) UpdateLink(ctx context.Context, owner, id int64, in LinkPatch) (ShortLink, error) {
	now := s.clock()
	if in.URL != nil {
		if err := ValidateURL("url", strings.TrimSpace(*in.URL)); err != nil {
			return ShortLink{}, err
		}
	}
	if in.Custom != nil {
		if err := ValidateAlias("custom", *in.Custom); err != nil {
			return ShortLink{}, err
		}
	}
	var pixels, channels []int64
	if in.PixelIDs != nil {
		pixels = *in.PixelIDs
	}
	if in.ChannelIDs != nil {
		channels = *in.ChannelIDs
	}
	var domainID, campaignID int64
	setIf(&domainID, in.DomainID)
	setIf(&campaignID, in.CampaignID)
	if err := checkLinkRefs(domainID, campaignID, pixels, channels, in.ExpiresAt, now); err != nil {
		return ShortLink{}, err
	}
	if err := applyLinkText(&ShortLink{}, in.Title, in.Description); err != nil {
		return ShortLink{}, err
	}
	var hash string
	if in.Password != nil && *in.Password != "" {
		h, err := password.Hash(*in.Password)
		if err != nil {
			return ShortLink{}, err
		}
		hash = h
	}
	l, err := s.store.UpdateLink(ctx, owner, id, func(l *ShortLink) error {
		if in.URL != nil {
			l.LongURL = strings.TrimSpace(*in.URL)
		}
		setIf(&l.Alias, in.Custom)
		setIf(&l.DomainID, in.DomainID)
		setIf(&l.CampaignID, in.CampaignID)
		if in.ExpiresAt != nil {
			l.ExpiresAt = in.ExpiresAt
		}
		if in.ClearExpiry {
			l.ExpiresAt = nil
		}
		if in.Password != nil {
			l.PasswordHash = hash
		}
		if in.PixelIDs != nil {
			l.PixelIDs = pixels
		}
		if in.ChannelIDs != nil {
			l.ChannelIDs = channels
		}
		l.UpdatedAt = now
		return applyLinkText(l, in.Title, in.Description)
	})
	if err != nil {
		return ShortLink{}, fmt.Errorf("links: update link %d: %w", id, err)
	}
	s.changed(ChangeLink)
	return l, nil
}

// DeleteLink removes the owner's short link.
func (s *Service) DeleteLink(ctx context.Context, owner, id int64) error {
	if err := s.store.DeleteLink(ctx, owner, id); err != nil {
		return fmt.Errorf("links: delete link %d: %w", id, err)
	}
	s.changed(ChangeLink)
	return nil
}

// GetLink returns the owner's short link.
func (s *Service) GetLink(ctx context.Context, owner, id int64) (ShortLink, error) {
	l, err := s.store.GetLink(ctx, owner, id)
	if err != nil {
		return ShortLink{}, fmt.Errorf("links: link %d: %w", id, err)
	}
	return l, nil
}

// ParseLinkOrder checks the order query parameter of GET /api/urls.
func ParseLinkOrder(o string) (LinkOrder, error) {
	switch LinkOrder(o) {
	case "", OrderDate:
		return OrderDate, nil
	case OrderClicks:
		return OrderClicks, nil
	}
	return "", invalid("order must be date or clicks")
}

// ListLinks returns one page of the owner's short links.
func (s *Service) ListLinks(ctx context.Context, owner int64, f LinkFilter, p Page) (List[ShortLink], error) {
	o, err := ParseLinkOrder(string(f.Order))
	if err != nil {
		return List[ShortLink]{}, err
	}
	f.Order = o
	f.Search = strings.ToLower(strings.TrimSpace(f.Search))
	if err := validateText("search", f.Search, MaxNameLength); err != nil {
		return List[ShortLink]{}, err
	}
	return list(ctx, "links", owner, p, func(ctx context.Context, owner int64, p Page) (List[ShortLink], error) {
		return s.store.ListLinks(ctx, owner, f, p)
	})
}
