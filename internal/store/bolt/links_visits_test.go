package bolt

import (
	"path/filepath"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/store/storetest"
)

// TestDeletedTargetsLeaveNoVisits checks that deleting a link, a QR code and
// a campaign removes every key of their visits and seen visitors (prefix
// (kind byte, target id) of bucketLinkVisits and bucketLinkVisitUniques),
// and leaves those of the kept link.
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
	for _, b := range [][]byte{bucketLinkVisits, bucketLinkVisitUniques} {
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
