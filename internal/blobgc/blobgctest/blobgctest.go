// Package blobgctest checks a domain's blob references through a real
// collection: the test of each domain that refers to blobs (receipts,
// logos) runs CollectsOne on its own store.
package blobgctest

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/blobgc"
	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/blobstore/blobstoretest"
	"github.com/seedhq/portal/internal/testkit"
)

// CollectsOne runs collections of src's prefix in blobs, with marks kept in
// marks and a fake clock, and checks that the blob store held one blob src
// does not refer to (unreferenced) and ones it does (referenced in all):
// the first run marks the one, a run within the retention deletes nothing,
// a run after it deletes unreferenced alone, and the referenced blobs stay.
func CollectsOne(t *testing.T, blobs blobstore.Store, marks blobgc.MarkStore, src blobgc.Source, unreferenced string, referenced int) {
	t.Helper()
	clock := testkit.NewClock(time.Now())
	c, err := blobgc.New(blobgc.Config{Blobs: blobs, Marks: marks, Now: clock.Now, Sources: []blobgc.Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	run := func() blobgc.Report {
		t.Helper()
		rep, err := c.Run(t.Context(), blobgc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if rep := run(); rep.Marked != 1 || rep.Referenced != referenced {
		t.Fatalf("first run: %+v; want 1 marked, %d referenced", rep, referenced)
	}
	clock.Add(blobgc.DefaultRetention - time.Hour)
	if rep := run(); len(rep.Deleted) != 0 {
		t.Fatalf("run within the retention: %+v", rep)
	}
	clock.Add(time.Hour)
	if rep := run(); len(rep.Deleted) != 1 || rep.Deleted[0].Key != unreferenced {
		t.Fatalf("run after the retention: %+v; want %s deleted", rep, unreferenced)
	}
	if got := blobstoretest.MustList(t, blobs, src.Prefix); len(got) != referenced {
		t.Fatalf("%s left: %+v, want the %d referenced", src.Prefix, got, referenced)
	}
}
