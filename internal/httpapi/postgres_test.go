package httpapi_test

import (
	"context"
	"testing"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres"
)

func init() {
	extraStoreOpeners = append(extraStoreOpeners, storeOpener{"postgres", openPostgres})
}

// openPostgres opens a store over a fresh database created for the test
// (skipped, or failed under CI=true, when the test server is unreachable).
func openPostgres(t testing.TB) exam.Store {
	t.Helper()
	ctx := context.Background()
	st, err := postgres.Open(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatalf("open postgres store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return st
}
