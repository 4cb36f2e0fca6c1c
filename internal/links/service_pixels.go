package links

import (
	"context"
	"fmt"
	"strings"
)

// PixelInput is the input of CreatePixel.
type PixelInput struct {
	Type PixelType
	Name string
	Tag  string
}

// CreatePixel creates a pixel for the owner; the tag must match its type's format.
func (s *Service) CreatePixel(ctx context.Context, owner int64, in PixelInput) (Pixel, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return Pixel{}, invalid("name is required")
	}
	if err := validateText("name", name, MaxNameLength); err != nil {
		return Pixel{}, err
	}
	tag, err := ValidatePixel(in.Type, in.Tag)
	if err != nil {
		return Pixel{}, err
	}
	px, err := s.store.CreatePixel(ctx, Pixel{UserID: owner, Type: in.Type, Name: name, Tag: tag, CreatedAt: s.clock()})
	if err != nil {
		return Pixel{}, fmt.Errorf("links: create pixel: %w", err)
	}
	return px, nil
}

// PixelPatch is the input of UpdatePixel: Tag is required, a nil Name stays.
type PixelPatch struct {
	Name *string
	Tag  string
}

// UpdatePixel changes the owner's pixel; the tag is checked against the pixel's type.
func (s *Service) UpdatePixel(ctx context.Context, owner, id int64, in PixelPatch) (Pixel, error) {
	var name string
	if in.Name != nil {
		name = strings.TrimSpace(*in.Name)
		if name == "" {
			return Pixel{}, invalid("name must not be empty")
		}
		if err := validateText("name", name, MaxNameLength); err != nil {
			return Pixel{}, err
		}
	}
	px, err := s.store.UpdatePixel(ctx, owner, id, func(px *Pixel) error {
		tag, err := ValidatePixel(px.Type, in.Tag)
		if err != nil {
			return err
		}
		px.Tag = tag
		if in.Name != nil {
			px.Name = name
		}
		return nil
	})
	if err != nil {
		return Pixel{}, fmt.Errorf("links: update pixel %d: %w", id, err)
	}
	return px, nil
}

// DeletePixel removes the owner's pixel from the account and from its links.
func (s *Service) DeletePixel(ctx context.Context, owner, id int64) error {
	if err := s.store.DeletePixel(ctx, owner, id); err != nil {
		return fmt.Errorf("links: delete pixel %d: %w", id, err)
	}
	return nil
}

// ListPixels returns one page of the owner's pixels.
func (s *Service) ListPixels(ctx context.Context, owner int64, p Page) (List[Pixel], error) {
	return list(ctx, "pixels", owner, p, s.store.ListPixels)
}
