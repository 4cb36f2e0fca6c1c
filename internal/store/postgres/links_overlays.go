package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/links"
)

var tOverlays = ownedTable[links.Overlay]{
	name: "links_overlays", what: "overlay",
	cols: `id, user_id, type, name, created_at`,
	scan: func(row pgx.Row) (links.Overlay, error) {
		var o links.Overlay
		err := row.Scan(&o.ID, &o.UserID, &o.Type, &o.Name, &o.CreatedAt)
		return o, err
	},
}

// CreateOverlay stores o for o.UserID; links.ErrNotFound when the user does
// not exist.
func (s *Store) CreateOverlay(ctx context.Context, o links.Overlay) (links.Overlay, error) {
	out, err := tOverlays.scan(s.pool.QueryRow(ctx, `INSERT INTO links_overlays (user_id, type, name, created_at)
		VALUES ($1, $2, $3, $4) RETURNING `+tOverlays.cols, o.UserID, o.Type, o.Name, o.CreatedAt))
	if err != nil {
		return links.Overlay{}, linkErr("create overlay", ownerErr(err, o.UserID))
	}
	return out, nil
}

// ListOverlays returns one page of the owner's overlays, newest first.
func (s *Store) ListOverlays(ctx context.Context, owner int64, p links.Page) (links.List[links.Overlay], error) {
	return tOverlays.list(ctx, s, owner, p)
}
