// Package postgrestest opens the PostgreSQL store for tests: a database of
// the test's own (pgtest), migrated, closed and dropped when the test ends.
package postgrestest

import (
	"context"
	"testing"

	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres"
)

// Open opens the store on a new database of the test's own (skipped
// loudly, or failed when CI=true, without a PostgreSQL server; see
// pgtest.NewDatabase), migrated, and closed at the test's cleanup.
func Open(t testing.TB) *postgres.Store {
	t.Helper()
	return OpenURL(t, pgtest.NewDatabase(t))
}

// OpenURL opens the store on the database of url, migrates it, and closes
// it at the test's cleanup: several stores on one database are several
// portal instances.
func OpenURL(t testing.TB, url string) *postgres.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatalf("postgres: open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(context.Background()); err != nil {
		t.Fatalf("postgres: migrate: %v", err)
	}
	return st
}
