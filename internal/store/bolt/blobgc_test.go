package bolt_test

import (
	"path/filepath"
	"testing"

	"github.com/seedhq/portal/internal/blobgc"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/storetest"
)

var _ blobgc.MarkStore = (*bolt.Store)(nil)

// TestBlobGCConformance runs the conformance suite of the garbage
// collection's marks and lock.
func TestBlobGCConformance(t *testing.T) {
	storetest.RunBlobGC(t, func(t *testing.T) blobgc.MarkStore {
		s := open(t, filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s
	})
}
