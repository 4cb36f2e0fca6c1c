package bolt

import (
	"context"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/links"
)

// CreateOverlay stores o.
func (s *Store) CreateOverlay(ctx context.Context, o links.Overlay) (links.Overlay, error) {
	o.CreatedAt = ts(o.CreatedAt)
	err := s.update(ctx, "create overlay", func(tx *bbolt.Tx) error {
		_, err := insert(tx, tOverlays, o.UserID, func(id int64) { o.ID = id }, &o)
		return err
	})
	return o, err
}

// ListOverlays returns one page of the owner's overlays.
func (s *Store) ListOverlays(ctx context.Context, owner int64, p links.Page) (links.List[links.Overlay], error) {
	return listOwned[links.Overlay](s, ctx, tOverlays, owner, p)
}
