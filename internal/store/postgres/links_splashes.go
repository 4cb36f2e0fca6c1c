package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/links"
)

var tSplashes = ownedTable[links.Splash]{
	name: "links_splashes", what: "splash page",
	cols: `id, user_id, name, created_at`,
	scan: func(row pgx.Row) (links.Splash, error) {
		var sp links.Splash
		err := row.Scan(&sp.ID, &sp.UserID, &sp.Name, &sp.CreatedAt)
		return sp, err
	},
}

// CreateSplash stores sp for sp.UserID; links.ErrNotFound when the user does
// not exist.
func (s *Store) CreateSplash(ctx context.Context, sp links.Splash) (links.Splash, error) {
	out, err := tSplashes.scan(s.pool.QueryRow(ctx, `INSERT INTO links_splashes (user_id, name, created_at)
		VALUES ($1, $2, $3) RETURNING `+tSplashes.cols, sp.UserID, sp.Name, sp.CreatedAt))
	if err != nil {
		return links.Splash{}, linkErr("create splash page", ownerErr(err, sp.UserID))
	}
	return out, nil
}

// ListSplashes returns one page of the owner's splash pages, newest first.
func (s *Store) ListSplashes(ctx context.Context, owner int64, p links.Page) (links.List[links.Splash], error) {
	return tSplashes.list(ctx, s, owner, p)
}
