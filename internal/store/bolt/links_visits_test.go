package bolt

import (
	"bytes"
	"path/filepath"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/links/visits"
	"github.com/seedhq/portal/internal/store/storetest"
)

// TestDeletedTargetsLeaveNoVisits checks that deleting a link, a QR code and
// a campaign removes every key of their visits, seen visitors and roll-ups
// (prefix (kind byte, target id) of bucketLinkVisits, bucketLinkVisitUniques
// and bucketLinkVisitRollups), and leaves those of the kept link.
func TestDeletedTargetsLeaveNoVisits(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "portal.db"), WithNoSync())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	deleted, kept := storetest.DeleteVisitedTargets(t, s)

	count := func(bucket []byte, tg storetest.VisitTarget) int {
		t.Helper()
		n := 0
		err := s.db.View(func(tx *bbolt.Tx) error {
			return scanPrefix(tx.Bucket(bucket), visitKey(tg.Kind, tg.ID), func(_, _ []byte) (bool, error) {
				n++
				return true, nil
			})
		})
		if err != nil {
			t.Fatalf("scan %s: %v", bucket, err)
		}
		return n
	}
	for _, b := range [][]byte{bucketLinkVisits, bucketLinkVisitUniques, bucketLinkVisitRollups} {
		for _, tg := range deleted {
			if n := count(b, tg); n != 0 {
				t.Errorf("%s: %d keys of deleted %s %d, want 0", b, n, tg.Kind, tg.ID)
			}
		}
	}
	// The kept link: 7 visits (6 saved before the deletes, 1 after) and
	// 3 seen visitors (a and b on day 1, a on day 2).
	if n := count(bucketLinkVisits, kept); n != 7 {
		t.Errorf("%s: %d keys of kept %s %d, want 7", bucketLinkVisits, n, kept.Kind, kept.ID)
	}
	if n := count(bucketLinkVisitUniques, kept); n != 3 {
		t.Errorf("%s: %d keys of kept %s %d, want 3", bucketLinkVisitUniques, n, kept.Kind, kept.ID)
	}
}

// TestVisitsMigration opens a file whose visits are in the layout before
// roll-ups (bucketLinkVisitsV1, no roll-ups, no metaVisits): Open moves them
// and rolls them up, and the statistics are those of the raw visits.
func TestVisitsMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "portal.db")
	s, err := Open(path, WithNoSync())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	rv := storetest.SaveRandomVisits(t, s)
	err = s.db.Update(func(tx *bbolt.Tx) error {
		old, err := tx.CreateBucket(bucketLinkVisitsV1)
		if err != nil {
			return err
		}
		if err := tx.Bucket(bucketLinkVisits).ForEach(func(k, v []byte) error {
			return old.Put(append(bytes.Clone(k[:9]), k[17:]...), bytes.Clone(v))
		}); err != nil {
			return err
		}
		for _, b := range [][]byte{bucketLinkVisits, bucketLinkVisitRollups} {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Delete(metaVisits)
	})
	if err != nil {
		t.Fatalf("write the old layout: %v", err)
	}
	s.Close()

	s, err = Open(path, WithNoSync())
	if err != nil {
		t.Fatalf("Open after the old layout: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	rv.Check(t, s)
	err = s.db.View(func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketLinkVisitsV1) != nil {
			t.Errorf("the old bucket %s is still there", bucketLinkVisitsV1)
		}
		want := 0
		for _, vs := range rv.Visits {
			want += len(vs)
		}
		if n := tx.Bucket(bucketLinkVisits).Stats().KeyN; n != want {
			t.Errorf("%d raw visits after the migration, want %d", n, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestVisitsMigrationDaysAndDevices opens a file of visits layout 2 (roll-ups
// without days and devices): Open rolls the stored visits up by day and
// device, and the statistics are those of the raw visits.
func TestVisitsMigrationDaysAndDevices(t *testing.T) {
	path := filepath.Join(t.TempDir(), "portal.db")
	s, err := Open(path, WithNoSync())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	rv := storetest.SaveRandomVisits(t, s)
	err = s.db.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketLinkVisitRollups)
		var drop [][]byte
		err := b.ForEach(func(k, _ []byte) error {
			if dim := string(k[9:10]); dim == visits.DimDay || dim == visits.DimDevice {
				drop = append(drop, bytes.Clone(k))
			}
			return nil
		})
		if err != nil || len(drop) == 0 {
			t.Fatalf("%d day and device roll-ups (%v), want some", len(drop), err)
		}
		for _, k := range drop {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(metaVisits, []byte(visitsLayoutV2))
	})
	if err != nil {
		t.Fatalf("write layout 2: %v", err)
	}
	s.Close()

	s, err = Open(path, WithNoSync())
	if err != nil {
		t.Fatalf("Open after layout 2: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	rv.Check(t, s)
}
