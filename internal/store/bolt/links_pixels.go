package bolt

import (
	"context"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/links"
)

// CreatePixel stores px.
func (s *Store) CreatePixel(ctx context.Context, px links.Pixel) (links.Pixel, error) {
	px.CreatedAt = ts(px.CreatedAt)
	err := s.update(ctx, "create pixel", func(tx *bbolt.Tx) error {
		_, err := insert(tx, tPixels, px.UserID, func(id int64) { px.ID = id }, &px)
		return err
	})
	return px, err
}

// GetPixel returns the owner's pixel.
func (s *Store) GetPixel(ctx context.Context, owner, id int64) (links.Pixel, error) {
	return getOne[links.Pixel](s, ctx, tPixels, owner, id)
}

// ListPixels returns one page of the owner's pixels.
func (s *Store) ListPixels(ctx context.Context, owner int64, p links.Page) (links.List[links.Pixel], error) {
	return listOwned[links.Pixel](s, ctx, tPixels, owner, p)
}

// UpdatePixel applies fn to the owner's pixel, keeping its type.
func (s *Store) UpdatePixel(ctx context.Context, owner, id int64, fn func(*links.Pixel) error) (links.Pixel, error) {
	var px links.Pixel
	err := s.update(ctx, "update pixel", func(tx *bbolt.Tx) error {
		old, err := getOwned[links.Pixel](tx, tPixels, owner, id)
		if err != nil {
			return err
		}
		px = old
		if err := fn(&px); err != nil {
			return err
		}
		px.ID, px.UserID, px.CreatedAt, px.Type = old.ID, old.UserID, old.CreatedAt, old.Type
		return putOwned(tx, tPixels, id, px)
	})
	return px, err
}

// DeletePixel removes the owner's pixel and its id from the owner's links.
func (s *Store) DeletePixel(ctx context.Context, owner, id int64) error {
	return s.update(ctx, "delete pixel", func(tx *bbolt.Tx) error {
		if err := tPixels.mustOwn(tx, owner, id); err != nil {
			return err
		}
		for _, linkID := range tLinks.ownedIDs(tx, owner) {
			l, err := getOwned[links.ShortLink](tx, tLinks, owner, linkID)
			if err != nil {
				return err
			}
			if !slices.Contains(l.PixelIDs, id) {
				continue
			}
			l.PixelIDs = slices.DeleteFunc(l.PixelIDs, func(p int64) bool { return p == id })
			if err := putOwned(tx, tLinks, linkID, l); err != nil {
				return err
			}
		}
		return tPixels.remove(tx, owner, id)
	})
}
