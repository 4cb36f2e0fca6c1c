package ordering_test

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/blobgc"
	"github.com/seedhq/portal/internal/blobstore/blobstoretest"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/testkit"
)

// TestReceiptsGarbageCollected: the receipt an order holds is referenced
// and never collected; a receipt no order holds (a delete that failed)
// survives the retention period and is deleted after it.
func TestReceiptsGarbageCollected(t *testing.T) {
	ctx := t.Context()
	svc, _, st, users, rice, _, _ := shopStore(t)
	cust := users[ordering.RoleCustomer]
	blobs := st.Blobs()
	o, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: rice.ID, Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UploadProof(ctx, cust, o.ID, tinyPNG, "BCA"); err != nil {
		t.Fatal(err)
	}
	held := ordering.ProofKey(o.ID, sha(tinyPNG))
	stray := ordering.ProofKey(o.ID, sha(tinyWebP))
	if err := blobs.Put(ctx, stray, bytes.NewReader(tinyWebP), int64(len(tinyWebP))); err != nil {
		t.Fatal(err)
	}
	keys, err := svc.ReferencedBlobs(ctx)
	if err != nil || !slices.Equal(keys, []string{held}) {
		t.Fatalf("ReferencedBlobs: %q, %v; want %s", keys, err, held)
	}

	clock := testkit.NewClock(time.Now())
	c, err := blobgc.New(blobgc.Config{Blobs: blobs, Marks: st, Now: clock.Now,
		Sources: []blobgc.Source{{Name: "receipts", Prefix: ordering.ReceiptKeyPrefix, Refs: svc}}})
	if err != nil {
		t.Fatal(err)
	}
	run := func() blobgc.Report {
		t.Helper()
		rep, err := c.Run(ctx, blobgc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if rep := run(); rep.Marked != 1 || rep.Referenced != 1 {
		t.Fatalf("first run: %+v", rep)
	}
	clock.Add(blobgc.DefaultRetention - time.Hour)
	if rep := run(); len(rep.Deleted) != 0 {
		t.Fatalf("run within the retention: %+v", rep)
	}
	clock.Add(time.Hour)
	if rep := run(); len(rep.Deleted) != 1 || rep.Deleted[0].Key != stray {
		t.Fatalf("run after the retention: %+v", rep)
	}
	if got := blobstoretest.MustList(t, blobs, ordering.ReceiptKeyPrefix); len(got) != 1 || got[0].Key != held {
		t.Fatalf("receipts left: %+v, want %s alone", got, held)
	}
	if got := mustReadProof(t, svc, cust, o.ID); !bytes.Equal(got, tinyPNG) {
		t.Fatal("the order's receipt reads other bytes")
	}
}
