package storetest

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/blobgc"
)

// testPackageBlobNames: SavePackage records the blob names of a package
// (PackageMeta.Blobs), replacing the package's earlier ones; a failed save
// keeps them; PackageBlobNames and PackagesNamingBlobs read them back.
func testPackageBlobNames(t *testing.T, s Store) {
	ctx := t.Context()
	names := func(want ...string) {
		t.Helper()
		got, err := s.PackageBlobNames(ctx)
		mustOK(t, "PackageBlobNames", err)
		if len(want) == 0 {
			want = nil
		}
		if len(got) == 0 {
			got = nil
		}
		check(t, "PackageBlobNames", got, want)
	}
	naming := func(ask []string, want map[string][]string) {
		t.Helper()
		got, err := s.PackagesNamingBlobs(ctx, ask)
		mustOK(t, "PackagesNamingBlobs", err)
		check(t, "PackagesNamingBlobs", got, want)
	}
	names()
	naming([]string{"b1"}, map[string][]string{})

	keyA, keyB := npsnA+"#3", npsnB+"#3"
	dA, dB := blob(41, 300), blob(42, 200)
	mA := packageMeta(keyA, dA, 1, at(0))
	mA.Format, mA.Blobs = 3, []string{"b2", "b1", "b1"}
	MustSavePackage(t, s, mA, dA)
	mB := packageMeta(keyB, dB, 1, at(0))
	mB.Format, mB.Blobs = 3, []string{"b3", "b2"}
	MustSavePackage(t, s, mB, dB)
	// A package of another format, naming none.
	MustSavePackage(t, s, packageMeta(npsnA, blob(43, 100), 1, at(0)), blob(43, 100))

	names("b1", "b2", "b3")
	naming([]string{"b1", "b2", "bX"}, map[string][]string{"b1": {keyA}, "b2": {keyA, keyB}})
	naming(nil, map[string][]string{})
	if got := MustGetPackage(t, s, keyA); got.Format != 3 || got.Checksum != mA.Checksum {
		t.Fatalf("GetPackage after saving with blobs: %+v", got)
	}

	// A new package of A names other blobs: b1 is named no more.
	dA2 := blob(44, 310)
	mA2 := packageMeta(keyA, dA2, 2, at(time.Minute))
	mA2.Format, mA2.Blobs = 3, []string{"b4", "b2"}
	MustSavePackage(t, s, mA2, dA2)
	names("b2", "b3", "b4")
	naming([]string{"b1", "b2", "b4"}, map[string][]string{"b2": {keyA, keyB}, "b4": {keyA}})

	// A failed save keeps the package's names.
	bad := packageMeta(keyB, blob(45, 50), 2, at(time.Minute))
	bad.Format, bad.Blobs = 3, []string{"b9"}
	if err := s.SavePackage(ctx, bad, bytes.NewReader(blob(46, 50))); err == nil {
		t.Fatal("SavePackage of bytes whose SHA-256 is not meta.Checksum succeeded")
	}
	names("b2", "b3", "b4")

	// The same bytes saved again (a rebuild whose plaintext did not
	// change) with other names replaces them; none clears them.
	mB.Revision, mB.Blobs = 3, []string{"b5"}
	mustOK(t, "SavePackage of stored bytes", s.SavePackage(ctx, mB, forbiddenReader{t}))
	names("b2", "b4", "b5")
	mB.Revision, mB.Blobs = 4, nil
	mustOK(t, "SavePackage of stored bytes", s.SavePackage(ctx, mB, forbiddenReader{t}))
	names("b2", "b4")
	naming([]string{"b5"}, map[string][]string{})

	// Every package saved here had its names recorded, also B's (none)
	// and the package of format 1.
	without, err := s.PackagesWithoutBlobNames(ctx)
	mustOK(t, "PackagesWithoutBlobNames", err)
	if len(without) != 0 {
		t.Fatalf("PackagesWithoutBlobNames: %q, want none", without)
	}
}

// RunBlobGC runs the conformance suite of blobgc.MarkStore (the marks and
// the lock of the garbage collection of blobs), each test as a subtest with
// a fresh, empty store from open.
func RunBlobGC(t *testing.T, open func(t *testing.T) blobgc.MarkStore) {
	t.Helper()
	t.Run("Marks", func(t *testing.T) { testBlobGCMarks(t, open(t)) })
	t.Run("Lock", func(t *testing.T) { testBlobGCLock(t, open(t)) })
}

func testBlobGCMarks(t *testing.T, s blobgc.MarkStore) {
	ctx := t.Context()
	marks := func(want map[string]time.Time) {
		t.Helper()
		got, err := s.BlobGCMarks(ctx)
		mustOK(t, "BlobGCMarks", err)
		check(t, "BlobGCMarks", got, want)
	}
	marks(map[string]time.Time{})
	mustOK(t, "UpdateBlobGCMarks of nothing", s.UpdateBlobGCMarks(ctx, nil, nil))

	// Times come back in UTC, to the microsecond.
	zone := time.FixedZone("WIB", 7*3600)
	t1 := time.Date(2026, 11, 20, 8, 0, 0, 123456789, zone)
	t2 := t1.Add(time.Hour)
	mustOK(t, "UpdateBlobGCMarks", s.UpdateBlobGCMarks(ctx, map[string]time.Time{
		"exam/aa": t1, "logos/bb": t1, "receipts/o1/cc": t2}, nil))
	u1 := t1.UTC().Truncate(time.Microsecond)
	u2 := t2.UTC().Truncate(time.Microsecond)
	marks(map[string]time.Time{"exam/aa": u1, "logos/bb": u1, "receipts/o1/cc": u2})
	if got, _ := s.BlobGCMarks(ctx); got["exam/aa"].Location() != time.UTC {
		t.Errorf("BlobGCMarks: time in %v, want UTC", got["exam/aa"].Location())
	}

	// Set and clear in one call; a mark set again takes the new time;
	// clearing a key without a mark is no error.
	mustOK(t, "UpdateBlobGCMarks", s.UpdateBlobGCMarks(ctx, map[string]time.Time{"logos/bb": t2, "exam/dd": t2},
		[]string{"exam/aa", "exam/none"}))
	marks(map[string]time.Time{"logos/bb": u2, "receipts/o1/cc": u2, "exam/dd": u2})
	mustOK(t, "UpdateBlobGCMarks clearing", s.UpdateBlobGCMarks(ctx, nil, []string{"logos/bb", "receipts/o1/cc", "exam/dd"}))
	marks(map[string]time.Time{})

	// Many at once.
	many := map[string]time.Time{}
	for i := range 2500 {
		many["exam/"+sum(string(rune(i)))] = u1
	}
	mustOK(t, "UpdateBlobGCMarks of many", s.UpdateBlobGCMarks(ctx, many, nil))
	marks(many)
}

func testBlobGCLock(t *testing.T, s blobgc.MarkStore) {
	ctx := t.Context()
	unlock, ok, err := s.TryLockBlobGC(ctx)
	mustOK(t, "TryLockBlobGC", err)
	if !ok {
		t.Fatal("TryLockBlobGC of a free lock: not taken")
	}
	// Held: nobody else takes it, from any goroutine.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			u, ok, err := s.TryLockBlobGC(ctx)
			if err != nil {
				t.Errorf("TryLockBlobGC while held: %v", err)
			}
			if ok {
				t.Error("TryLockBlobGC while held: taken")
				u()
			}
		})
	}
	wg.Wait()
	unlock()
	unlock2, ok, err := s.TryLockBlobGC(ctx)
	mustOK(t, "TryLockBlobGC after unlock", err)
	if !ok {
		t.Fatal("TryLockBlobGC after unlock: not taken")
	}
	unlock2()
}
