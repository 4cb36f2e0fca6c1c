package postgres_test

import (
	"context"
	"testing"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/blobstore/blobstoretest"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres"
)

// TestBlobConformance runs the blob store conformance suite against the
// blobs kept in fresh, migrated PostgreSQL databases, one per case, with a
// large blob of several chunks.
func TestBlobConformance(t *testing.T) {
	blobstoretest.Run(t, func(t *testing.T) blobstore.Store {
		t.Helper()
		st, err := postgres.Open(context.Background(), pgtest.NewDatabase(t))
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		t.Cleanup(func() { st.Close() })
		if err := st.Migrate(context.Background()); err != nil {
			t.Fatalf("migrate: %v", err)
		}
		return st.Blobs()
	}, blobstoretest.Options{LargeSize: 3<<20 + 12345})
}
