package bolt

import (
	"path/filepath"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/store/storetest"
)

// TestLedgerMigration opens a file written before the ledger's read model
// (orders, no bucketOrdLedger): Open builds the bucket from the orders,
// and the ledger is the one Order.LedgerEntry derives from them. A file
// that has the bucket is left as it is.
func TestLedgerMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "portal.db")
	s, err := Open(path, WithNoSync())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	lo := storetest.SaveLedgerOrders(t, s)
	var entries int
	err = s.db.Update(func(tx *bbolt.Tx) error {
		entries = tx.Bucket(bucketOrdLedger).Stats().KeyN
		return tx.DeleteBucket(bucketOrdLedger)
	})
	if err != nil {
		t.Fatalf("remove the ledger bucket: %v", err)
	}
	s.Close()

	s, err = Open(path, WithNoSync())
	if err != nil {
		t.Fatalf("Open without the ledger bucket: %v", err)
	}
	lo.Check(t, s)
	err = s.db.View(func(tx *bbolt.Tx) error {
		if n := tx.Bucket(bucketOrdLedger).Stats().KeyN; n != entries {
			t.Errorf("%d ledger entries after the migration, want %d", n, entries)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// Open again: the bucket is there, so it is not rebuilt (an entry
	// removed by hand stays removed).
	err = s.db.Update(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketOrdLedger).Cursor()
		k, _ := c.First()
		return c.Bucket().Delete(k)
	})
	if err != nil {
		t.Fatalf("remove an entry: %v", err)
	}
	s.Close()
	s, err = Open(path, WithNoSync())
	if err != nil {
		t.Fatalf("Open again: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	err = s.db.View(func(tx *bbolt.Tx) error {
		if n := tx.Bucket(bucketOrdLedger).Stats().KeyN; n != entries-1 {
			t.Errorf("%d ledger entries after opening again, want %d", n, entries-1)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
