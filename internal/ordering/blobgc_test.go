package ordering_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/seedhq/portal/internal/blobgc"
	"github.com/seedhq/portal/internal/blobgc/blobgctest"
	"github.com/seedhq/portal/internal/blobstore/blobstoretest"
	"github.com/seedhq/portal/internal/ordering"
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

	blobgctest.CollectsOne(t, blobs, st, blobgc.Source{Name: "receipts", Prefix: ordering.ReceiptKeyPrefix, Refs: svc}, stray, 1)
	if got := blobstoretest.MustList(t, blobs, ordering.ReceiptKeyPrefix); len(got) != 1 || got[0].Key != held {
		t.Fatalf("receipts left: %+v, want %s alone", got, held)
	}
	if got := mustReadProof(t, svc, cust, o.ID); !bytes.Equal(got, tinyPNG) {
		t.Fatal("the order's receipt reads other bytes")
	}
}
