package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/links"
)

var tPixels = ownedTable[links.Pixel]{
	name: "links_pixels", what: "pixel",
	cols: `id, user_id, type, name, tag, created_at`,
	scan: func(row pgx.Row) (links.Pixel, error) {
		var px links.Pixel
		err := row.Scan(&px.ID, &px.UserID, &px.Type, &px.Name, &px.Tag, &px.CreatedAt)
		return px, err
	},
}

// CreatePixel stores px.
func (s *Store) CreatePixel(ctx context.Context, px links.Pixel) (links.Pixel, error) {
	out, err := tPixels.scan(s.pool.QueryRow(ctx, `INSERT INTO links_pixels (user_id, type, name, tag, created_at)
		VALUES ($1, $2, $3, $4, $5) RETURNING `+tPixels.cols, px.UserID, px.Type, px.Name, px.Tag, px.CreatedAt))
	if err != nil {
		return links.Pixel{}, linkErr("create pixel", ownerErr(err, px.UserID))
	}
	return out, nil
}

// GetPixel returns the owner's pixel.
func (s *Store) GetPixel(ctx context.Context, owner, id int64) (links.Pixel, error) {
	px, err := tPixels.get(ctx, s.pool, owner, id, false)
	if err != nil {
		return links.Pixel{}, linkErr("get pixel", err)
	}
	return px, nil
}

// ListPixels returns one page of the owner's pixels, newest first.
func (s *Store) ListPixels(ctx context.Context, owner int64, p links.Page) (links.List[links.Pixel], error) {
	return tPixels.list(ctx, s, owner, p)
}

// UpdatePixel applies fn to the owner's pixel, keeping its type.
func (s *Store) UpdatePixel(ctx context.Context, owner, id int64, fn func(*links.Pixel) error) (links.Pixel, error) {
	var px links.Pixel
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		old, err := tPixels.get(ctx, tx, owner, id, true)
		if err != nil {
			return err
		}
		px = old
		if err := fn(&px); err != nil {
			return err
		}
		px, err = tPixels.scan(tx.QueryRow(ctx, `UPDATE links_pixels SET name = $2, tag = $3
			WHERE id = $1 RETURNING `+tPixels.cols, id, px.Name, px.Tag))
		return err
	})
	if err != nil {
		return links.Pixel{}, linkErr("update pixel", err)
	}
	return px, nil
}

// DeletePixel removes the owner's pixel; the foreign key removes it from the
// links that had it.
func (s *Store) DeletePixel(ctx context.Context, owner, id int64) error {
	if err := tPixels.remove(ctx, s.pool, owner, id); err != nil {
		return linkErr("delete pixel", err)
	}
	return nil
}
