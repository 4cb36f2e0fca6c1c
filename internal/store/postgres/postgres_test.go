package postgres_test

import (
	"context"
	"testing"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/redirect"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres"
	"github.com/seedhq/portal/internal/store/storetest"
)

// The store is what the link redirector reads.
var _ redirect.Store = (*postgres.Store)(nil)

// TestConformance runs the storage conformance suite against fresh,
// migrated PostgreSQL databases, one per case.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		return openMigrated(t, pgtest.NewDatabase(t))
	})
}

// TestLinksConformance runs the links.Store conformance suite against fresh,
// migrated PostgreSQL databases, one per case.
func TestLinksConformance(t *testing.T) {
	storetest.RunLinks(t, func(t *testing.T) links.Store {
		return openMigrated(t, pgtest.NewDatabase(t))
	})
}

// TestOrderingConformance runs the ordering.Store conformance suite against
// fresh, migrated PostgreSQL databases, one per case.
func TestOrderingConformance(t *testing.T) {
	storetest.RunOrdering(t, func(t *testing.T) ordering.Store {
		t.Helper()
		st, err := postgres.Open(context.Background(), pgtest.NewDatabase(t))
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		t.Cleanup(func() { st.Close() })
		if err := st.Migrate(context.Background()); err != nil {
			t.Fatalf("migrate: %v", err)
		}
		return st
	})
}
