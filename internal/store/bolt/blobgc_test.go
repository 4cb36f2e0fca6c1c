package bolt_test

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/blobgc"
	"github.com/seedhq/portal/internal/exam"
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

// TestPackagesWithoutBlobNames: a package of format 3 saved by a release
// before blob names were recorded (no record in package_blob_names) is
// listed until it is saved again.
func TestPackagesWithoutBlobNames(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "portal.db")
	s := open(t, path, bolt.WithNoSync())
	data := []byte("encrypted package bytes")
	meta := exam.PackageMeta{NPSN: "20100001#3", Version: checksum([]byte("plain")), Checksum: checksum(data),
		Size: int64(len(data)), Revision: 1, GeneratedAt: time.Now().UTC().Truncate(time.Microsecond), Format: 3}
	if err := s.SavePackage(ctx, meta, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The earlier release's file: the package without its names.
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte("package_blob_names")).Delete([]byte(meta.NPSN))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s = open(t, path, bolt.WithNoSync())
	defer s.Close()
	if keys, err := s.PackagesWithoutBlobNames(ctx); err != nil || len(keys) != 1 || keys[0] != meta.NPSN {
		t.Fatalf("PackagesWithoutBlobNames: %q, %v; want %s", keys, err, meta.NPSN)
	}
	meta.Revision, meta.Blobs = 2, []string{"b1"}
	if err := s.SavePackage(ctx, meta, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if keys, err := s.PackagesWithoutBlobNames(ctx); err != nil || len(keys) != 0 {
		t.Fatalf("PackagesWithoutBlobNames after a save: %q, %v", keys, err)
	}
}
