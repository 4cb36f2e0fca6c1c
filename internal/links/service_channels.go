package links

import (
	"context"
	"fmt"
	"strings"
)

// ChannelInput is the input of CreateChannel.
type ChannelInput struct {
	Name        string
	Description string
	Color       string // #RRGGBB, may be empty
	Starred     bool
}

// CreateChannel creates a channel for the owner.
func (s *Service) CreateChannel(ctx context.Context, owner int64, in ChannelInput) (Channel, error) {
	c := Channel{UserID: owner, Starred: in.Starred, CreatedAt: s.clock()}
	if err := applyChannel(&c, &in.Name, &in.Description, &in.Color); err != nil {
		return Channel{}, err
	}
	c, err := s.store.CreateChannel(ctx, c)
	if err != nil {
		return Channel{}, fmt.Errorf("links: create channel: %w", err)
	}
	return c, nil
}

// applyChannel validates and sets the non-nil fields of a channel.
func applyChannel(c *Channel, name, description, color *string) error {
	if name != nil {
		n := strings.TrimSpace(*name)
		if n == "" {
			return invalid("name is required")
		}
		if err := validateText("name", n, MaxNameLength); err != nil {
			return err
		}
		c.Name = n
	}
	if description != nil {
		if err := validateText("description", *description, MaxDescriptionLength); err != nil {
			return err
		}
		c.Description = *description
	}
	if color != nil {
		col, err := NormalizeColor(*color)
		if err != nil {
			return err
		}
		c.Color = col
	}
	return nil
}

// ChannelPatch is the input of UpdateChannel; nil fields stay.
type ChannelPatch struct {
	Name        *string
	Description *string
	Color       *string
	Starred     *bool
}

// UpdateChannel changes the owner's channel.
func (s *Service) UpdateChannel(ctx context.Context, owner, id int64, in ChannelPatch) (Channel, error) {
	if err := applyChannel(&Channel{}, in.Name, in.Description, in.Color); err != nil {
		return Channel{}, err
	}
	c, err := s.store.UpdateChannel(ctx, owner, id, func(c *Channel) error {
		setIf(&c.Starred, in.Starred)
		return applyChannel(c, in.Name, in.Description, in.Color)
	})
	if err != nil {
		return Channel{}, fmt.Errorf("links: update channel %d: %w", id, err)
	}
	return c, nil
}

// DeleteChannel removes the owner's channel, unassigning its items.
func (s *Service) DeleteChannel(ctx context.Context, owner, id int64) error {
	if err := s.store.DeleteChannel(ctx, owner, id); err != nil {
		return fmt.Errorf("links: delete channel %d: %w", id, err)
	}
	return nil
}

// GetChannel returns the owner's channel.
func (s *Service) GetChannel(ctx context.Context, owner, id int64) (Channel, error) {
	c, err := s.store.GetChannel(ctx, owner, id)
	if err != nil {
		return Channel{}, fmt.Errorf("links: channel %d: %w", id, err)
	}
	return c, nil
}

// ListChannels returns one page of the owner's channels.
func (s *Service) ListChannels(ctx context.Context, owner int64, p Page) (List[Channel], error) {
	return list(ctx, "channels", owner, p, s.store.ListChannels)
}

// ListChannelItems returns one page of the items of the owner's channel.
func (s *Service) ListChannelItems(ctx context.Context, owner, channelID int64, p Page) (List[ChannelItem], error) {
	return list(ctx, "channel items", owner, p, func(ctx context.Context, owner int64, p Page) (List[ChannelItem], error) {
		return s.store.ListChannelItems(ctx, owner, channelID, p)
	})
}

// ParseItemType checks the :type of an assign route.
func ParseItemType(t string) (ItemType, error) {
	switch it := ItemType(t); it {
	case ItemLink, ItemBio, ItemQR:
		return it, nil
	}
	return "", invalid("type must be links, bio or qr")
}

// AssignChannelItem adds the owner's item to the owner's channel. Bio pages
// do not exist yet, so a bio item is always NOT_FOUND.
func (s *Service) AssignChannelItem(ctx context.Context, owner, channelID int64, t ItemType, itemID int64) error {
	if _, err := ParseItemType(string(t)); err != nil {
		return err
	}
	if t == ItemBio {
		if _, err := s.store.GetChannel(ctx, owner, channelID); err != nil {
			return fmt.Errorf("links: assign to channel %d: %w", channelID, err)
		}
		return NotFound("bio page", itemID)
	}
	if err := s.store.AssignChannelItem(ctx, owner, channelID, t, itemID, s.clock()); err != nil {
		return fmt.Errorf("links: assign %s %d to channel %d: %w", t, itemID, channelID, err)
	}
	return nil
}
