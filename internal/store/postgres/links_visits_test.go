package postgres

import (
	"testing"

	"github.com/seedhq/portal/internal/store/storetest"
)

// TestDeletedTargetsLeaveNoVisits checks that deleting a link, a QR code and
// a campaign removes every row of their visits (links_visits) and seen
// visitors (links_visit_uniques) and their roll-ups (links_visit_rollups),
// and leaves those of the kept link.
func TestDeletedTargetsLeaveNoVisits(t *testing.T) {
	st := mustOpen(t)
	deleted, kept := storetest.DeleteVisitedTargets(t, st)

	count := func(table string, tg storetest.VisitTarget) int {
		t.Helper()
		var n int
		mustOK(t, "count "+table, st.pool.QueryRow(t.Context(),
			`SELECT count(*) FROM `+table+` WHERE kind = $1 AND target_id = $2`, tg.Kind, tg.ID).Scan(&n))
		return n
	}
	for _, table := range []string{"links_visits", "links_visit_uniques", "links_visit_rollups"} {
		for _, tg := range deleted {
			if n := count(table, tg); n != 0 {
				t.Errorf("%s: %d rows of deleted %s %d, want 0", table, n, tg.Kind, tg.ID)
			}
		}
	}
	// The kept link: 7 visits (6 saved before the deletes, 1 after) and
	// 3 seen visitors (a and b on day 1, a on day 2).
	if n := count("links_visits", kept); n != 7 {
		t.Errorf("links_visits: %d rows of kept %s %d, want 7", n, kept.Kind, kept.ID)
	}
	if n := count("links_visit_uniques", kept); n != 3 {
		t.Errorf("links_visit_uniques: %d rows of kept %s %d, want 3", n, kept.Kind, kept.ID)
	}
}

// TestVisitRollupsMigration applies 0004_link_visit_rollups and
// 0010_link_visit_days_devices to a database holding visits but no
// roll-ups: their backfill gives the statistics of the raw visits.
func TestVisitRollupsMigration(t *testing.T) {
	s := mustOpen(t)
	rv := storetest.SaveRandomVisits(t, s)
	ctx := t.Context()
	if _, err := s.pool.Exec(ctx, `DROP TABLE links_visit_rollups;
		DROP INDEX links_visits_at_idx; DROP INDEX links_visit_uniques_day_idx;
		DELETE FROM schema_migrations WHERE version IN ('0004_link_visit_rollups', '0010_link_visit_days_devices')`); err != nil {
		t.Fatalf("undo 0004 and 0010: %v", err)
	}
	mustOK(t, "Migrate", s.Migrate(ctx))
	rv.Check(t, s)
}
