package postgres

import (
	"testing"

	"github.com/seedhq/portal/internal/store/storetest"
)

// TestLedgerMigration applies 0009_ordering_ledger to a database holding
// orders but no ledger: its backfill from the orders' JSON bodies gives the
// entries Order.LedgerEntry derives from them.
func TestLedgerMigration(t *testing.T) {
	s := mustOpen(t)
	lo := storetest.SaveLedgerOrders(t, s)
	ctx := t.Context()
	var entries int
	mustOK(t, "count", s.pool.QueryRow(ctx, `SELECT count(*) FROM ordering_ledger`).Scan(&entries))
	if _, err := s.pool.Exec(ctx, `DROP TABLE ordering_ledger;
		DELETE FROM schema_migrations WHERE version = '0009_ordering_ledger'`); err != nil {
		t.Fatalf("undo 0009: %v", err)
	}
	mustOK(t, "Migrate", s.Migrate(ctx))
	lo.Check(t, s)
	var n int
	mustOK(t, "count", s.pool.QueryRow(ctx, `SELECT count(*) FROM ordering_ledger`).Scan(&n))
	if n != entries {
		t.Fatalf("%d ledger rows after the migration, want %d", n, entries)
	}
}
