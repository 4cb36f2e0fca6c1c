package bolt

import (
	"context"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/links"
)

// CreateSplash stores sp.
func (s *Store) CreateSplash(ctx context.Context, sp links.Splash) (links.Splash, error) {
	sp.CreatedAt = ts(sp.CreatedAt)
	err := s.update(ctx, "create splash page", func(tx *bbolt.Tx) error {
		_, err := insert(tx, tSplashes, sp.UserID, func(id int64) { sp.ID = id }, &sp)
		return err
	})
	return sp, err
}

// ListSplashes returns one page of the owner's splash pages.
func (s *Store) ListSplashes(ctx context.Context, owner int64, p links.Page) (links.List[links.Splash], error) {
	return listOwned[links.Splash](s, ctx, tSplashes, owner, p)
}
