package postgres

import (
	"context"
	"time"
)

// pruneChunk is the most raw visits PruneVisits deletes in one statement,
// so that no transaction holds many row locks or much WAL at once.
const pruneChunk = 10_000

// PruneVisits removes the raw visits before visitsBefore (none when it is
// zero), pruneChunk rows per statement through the index on at, and the seen
// visitors of the days before that of visitorsBefore (none when it is zero).
// Roll-ups are kept.
func (s *Store) PruneVisits(ctx context.Context, visitsBefore, visitorsBefore time.Time) (int64, error) {
	var removed int64
	if !visitsBefore.IsZero() {
		for {
			tag, err := s.pool.Exec(ctx, `DELETE FROM links_visits WHERE ctid = ANY (ARRAY(
				SELECT ctid FROM links_visits WHERE at < $1 LIMIT $2))`, visitsBefore.UTC(), pruneChunk)
			if err != nil {
				return removed, linkErr("prune visits", err)
			}
			removed += tag.RowsAffected()
			if tag.RowsAffected() < pruneChunk {
				break
			}
		}
	}
	if !visitorsBefore.IsZero() {
		if _, err := s.pool.Exec(ctx, `DELETE FROM links_visit_uniques WHERE day < $1`,
			visitDay(visitorsBefore.UTC())); err != nil {
			return removed, linkErr("prune seen visitors", err)
		}
	}
	return removed, nil
}
