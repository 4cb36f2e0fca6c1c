package ordering_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/ordering"
)

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// mustReadProof reads the receipt of order id through svc.
func mustReadProof(t *testing.T, svc *ordering.Service, u ordering.User, id string) []byte {
	t.Helper()
	_, rc, err := svc.ProofFile(t.Context(), u, id)
	if err != nil {
		t.Fatalf("ProofFile(%s): %v", id, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReceiptBlobs: a receipt is the blob receipts/<order id>/<sha256>; a
// receipt replaced after a rejection is deleted, an upload refused by the
// order's state leaves no blob.
func TestReceiptBlobs(t *testing.T) {
	ctx := t.Context()
	svc, _, st, users, rice, _, _ := shopStore(t)
	cust, admin := users[ordering.RoleCustomer], users[ordering.RoleAdmin]
	blobs := st.Blobs()
	o, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: rice.ID, Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UploadProof(ctx, cust, o.ID, tinyPNG, "BCA"); err != nil {
		t.Fatal(err)
	}
	first := ordering.ProofKey(o.ID, sha(tinyPNG))
	if _, err := blobs.Stat(ctx, first); err != nil {
		t.Fatalf("the receipt's blob %s: %v", first, err)
	}
	// Waiting for verification: a second upload is refused and stores nothing.
	if _, err := svc.UploadProof(ctx, cust, o.ID, tinyWebP, "BCA"); err == nil {
		t.Fatal("an upload while waiting for verification succeeded")
	}
	if _, err := blobs.Stat(ctx, ordering.ProofKey(o.ID, sha(tinyWebP))); !errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("a refused upload left its blob: %v", err)
	}
	if _, err := svc.VerifyPayment(ctx, admin, o.ID, false, "blurred"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UploadProof(ctx, cust, o.ID, tinyWebP, "BCA"); err != nil {
		t.Fatal(err)
	}
	if _, err := blobs.Stat(ctx, first); !errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("the replaced receipt's blob stays: %v", err)
	}
	if got := mustReadProof(t, svc, cust, o.ID); !bytes.Equal(got, tinyWebP) {
		t.Fatal("the receipt reads other bytes")
	}
}

// TestMigrateProofDir: receipts of the legacy proof directory are read from
// it until copied into the blob store, copied once (a second run finds them
// there), and then read from the blob store without the directory.
func TestMigrateProofDir(t *testing.T) {
	ctx := t.Context()
	svc, c, st, users, rice, _, _ := shopStore(t)
	cust := users[ordering.RoleCustomer]
	o, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: rice.ID, Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	// An order whose receipt an earlier release wrote to the directory.
	dir := t.TempDir()
	name := o.ID + "-abcdefgh.png"
	if err := os.WriteFile(filepath.Join(dir, name), tinyPNG, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("not a receipt"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateOrder(ctx, o.ID, func(o *ordering.Order) error {
		o.Status = ordering.StatusWaitingVerification
		o.Proof = &ordering.Proof{File: name, ContentType: "image/png", Size: int64(len(tinyPNG)), SHA256: sha(tinyPNG), UploadedAt: c.Now()}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	legacy, err := ordering.NewService(st, ordering.Config{JWTKey: key, MessengerLinkBase: "https://wa.me/6281100000000",
		Challenge: okChallenge{}, Payments: ordering.SandboxPayments{BaseURL: "http://portal.test"},
		Blobs: st.Blobs(), ProofDir: dir, MerchantID: "M-1", Now: c.Now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustReadProof(t, legacy, cust, o.ID); !bytes.Equal(got, tinyPNG) {
		t.Fatal("before the migration the receipt reads other bytes from the directory")
	}
	if _, _, err := svc.ProofFile(ctx, cust, o.ID); err == nil {
		t.Fatal("without the directory, a receipt not yet copied was read")
	}
	m, err := legacy.MigrateProofDir(ctx)
	if err != nil || m != (ordering.ProofDirMigration{Copied: 1, Skipped: 1}) {
		t.Fatalf("MigrateProofDir: %+v %v", m, err)
	}
	m, err = legacy.MigrateProofDir(context.Background())
	if err != nil || m != (ordering.ProofDirMigration{Present: 1, Skipped: 1}) {
		t.Fatalf("MigrateProofDir again: %+v %v", m, err)
	}
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		t.Fatalf("the migration removed the file: %v", err)
	}
	// Another instance, without the directory, reads the copy.
	if got := mustReadProof(t, svc, cust, o.ID); !bytes.Equal(got, tinyPNG) {
		t.Fatal("after the migration the receipt reads other bytes")
	}
}

// TestReceiptDoubleSubmit: the same image uploaded twice at once for one
// order (a double submit): one upload wins, the other is refused, and the
// receipt's blob stays.
func TestReceiptDoubleSubmit(t *testing.T) {
	ctx := t.Context()
	svc, _, st, users, rice, _, _ := shopStore(t)
	cust := users[ordering.RoleCustomer]
	o, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: rice.ID, Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := svc.UploadProof(ctx, cust, o.ID, tinyPNG, "BCA")
			errs <- err
		}()
	}
	ok := 0
	for range 2 {
		if err := <-errs; err == nil {
			ok++
		}
	}
	if ok < 1 {
		t.Fatal("neither upload succeeded")
	}
	if _, err := st.Blobs().Stat(ctx, ordering.ProofKey(o.ID, sha(tinyPNG))); err != nil {
		t.Fatalf("the receipt's blob after a double submit: %v", err)
	}
	if got := mustReadProof(t, svc, cust, o.ID); !bytes.Equal(got, tinyPNG) {
		t.Fatal("the receipt reads other bytes")
	}
}
