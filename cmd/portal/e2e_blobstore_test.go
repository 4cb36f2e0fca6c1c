package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/testkit/s3server"
	"github.com/seedhq/portal/pkg/client"
)

// TestTwoPortalsObjectStorage: two "portal serve" processes on one
// PostgreSQL database with object storage (versitygw) as their blob store,
// each with a data directory of its own, share no directory: a receipt
// uploaded through either portal is served by both, and is an object of
// the bucket. Then the object storage goes down: an upload is answered 503
// BLOB_STORE_UNAVAILABLE with Retry-After and changes nothing (the order
// still waits for payment, no object), a read is answered the same, and
// /readyz says so (still 200); once it is back, both work again.
func TestTwoPortalsObjectStorage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	ctx := t.Context()
	srv := s3server.Start(t)
	const bucket = "portal-blobs"
	srv.CreateBucket(t, bucket)
	dbURL := pgtest.NewDatabase(t)
	var ps []*portalProc
	for i := range 2 {
		ps = append(ps, mustStartPortal(t, filepath.Join(t.TempDir(), fmt.Sprint("data", i)), srv.Env(),
			"--database-url", dbURL, "--blob-store", srv.URL(bucket, "shop"), "--ordering-owner-number", "0811-0000-001"))
	}
	owner, ownerToken := messengerLoginToken(t, ps[0], "08110000001")
	cat, _, err := owner.Ordering.Menu.CreateCategory(ctx, "Kopi", 1)
	if err != nil {
		t.Fatal(err)
	}
	latte, _, err := owner.Ordering.Menu.CreateItem(ctx, &client.MenuItem{CategoryID: cat.ID, Name: "Es kopi susu", Price: 18000})
	if err != nil {
		t.Fatal(err)
	}
	_, custToken := messengerLoginToken(t, ps[1], "081234567890")
	// as returns a client of p with the ordering token.
	as := func(p *portalProc, token string) *client.Client {
		c, err := client.NewClient(p.apiURL(t), client.WithOrderingToken(token))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	order := func() *client.Order {
		t.Helper()
		o, _, err := as(ps[0], custToken).Ordering.Orders.Create(ctx, &client.OrderRequest{ShippingType: "PICKUP",
			Items: []client.OrderItemRequest{{MenuID: latte.ID, Quantity: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	readProof := func(c *client.Client, id string) ([]byte, error) {
		var b bytes.Buffer
		_, err := c.Ordering.Payments.Proof(ctx, id, &b)
		return b.Bytes(), err
	}
	object := func(id string) string { return "shop/" + ordering.ProofKey(id, sha256Hex(onePixelPNG)) }

	// A receipt uploaded through each portal, read through both, by the
	// customer and by the owner who verifies it.
	for i, up := range ps {
		o := order()
		if _, err := as(up, custToken).Ordering.Payments.UploadProof(ctx, o.ID, "BCA 123", onePixelPNG); err != nil {
			t.Fatalf("upload through portal %d: %v", i, err)
		}
		for j, p := range ps {
			for _, token := range []string{custToken, ownerToken} {
				if got, err := readProof(as(p, token), o.ID); err != nil || !bytes.Equal(got, onePixelPNG) {
					t.Fatalf("receipt uploaded through portal %d read through portal %d: %d bytes, %v", i, j, len(got), err)
				}
			}
		}
		if files := srv.Files(t, bucket); !slices.Contains(files, object(o.ID)) {
			t.Fatalf("objects %q lack the receipt %s", files, object(o.ID))
		}
	}
	for i, p := range ps {
		if _, err := os.Stat(filepath.Join(p.DataDir, "payment-proofs")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("portal %d has a proof directory: %v", i, err)
		}
	}

	// The object storage goes down.
	read := order()
	if _, err := as(ps[0], custToken).Ordering.Payments.UploadProof(ctx, read.ID, "BCA", onePixelPNG); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	o := order()
	_, err = as(ps[1], custToken).Ordering.Payments.UploadProof(ctx, o.ID, "BCA", onePixelPNG)
	mustBlobUnavailable(t, "upload", err)
	if got, _, err := as(ps[0], custToken).Ordering.Orders.Get(ctx, o.ID); err != nil || got.Status != "PENDING_PAYMENT" {
		t.Fatalf("the order after a refused upload: %+v %v", got, err)
	}
	_, err = readProof(as(ps[0], ownerToken), read.ID)
	mustBlobUnavailable(t, "read", err)
	for i, p := range ps {
		if code, body := get(t, p.URL+"/readyz"); code != http.StatusOK || body != "ok; blob store unavailable" {
			t.Fatalf("portal %d /readyz with the blob store down: %d %q", i, code, body)
		}
	}

	srv.Restart()
	if slices.Contains(srv.Files(t, bucket), object(o.ID)) {
		t.Fatal("the refused upload left its object")
	}
	for i, p := range ps {
		if code, body := get(t, p.URL+"/readyz"); code != http.StatusOK || body != "ok" {
			t.Fatalf("portal %d /readyz with the blob store back: %d %q", i, code, body)
		}
	}
	if _, err := as(ps[1], custToken).Ordering.Payments.UploadProof(ctx, o.ID, "BCA", onePixelPNG); err != nil {
		t.Fatalf("upload once the blob store is back: %v", err)
	}
	for _, id := range []string{o.ID, read.ID} {
		if got, err := readProof(as(ps[0], ownerToken), id); err != nil || !bytes.Equal(got, onePixelPNG) {
			t.Fatalf("receipt %s once the blob store is back: %d bytes, %v", id, len(got), err)
		}
	}
}

// mustBlobUnavailable checks that err is the API's 503
// BLOB_STORE_UNAVAILABLE with a Retry-After.
func mustBlobUnavailable(t *testing.T, what string, err error) {
	t.Helper()
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != http.StatusServiceUnavailable || ce.Code != "BLOB_STORE_UNAVAILABLE" ||
		ce.RetryAfter != 10*time.Second {
		t.Fatalf("%s with the blob store down: %#v; want 503 BLOB_STORE_UNAVAILABLE with Retry-After 10", what, err)
	}
}

// get returns the status and body of GET url.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, strings.TrimSpace(string(b))
}

// TestBlobStoreStartup: a blob store that cannot be used stops the portal
// at start-up with an error that names it: a URL that is not one (a usage
// error naming the key), a bucket that does not exist, a server that does
// not answer.
func TestBlobStoreStartup(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	srv := s3server.Start(t)
	for _, tc := range []struct {
		name, url, want string
	}{
		{"bad URL", "s3://x?nope=1", "blob-store"},
		{"file URL", "file:///tmp/blobs", "blob-store"},
		{"missing bucket", srv.URL("missing", ""), "bucket does not exist"},
		{"no server", "s3://blobs?endpoint=127.0.0.1:1&insecure=1&region=us-east-1&max_retries=1", "store unavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runPortal(t, srv.Env(), "", "serve", "--listen", "127.0.0.1:0", "--data-dir", t.TempDir(),
				"--blob-store", tc.url)
			if res.Code == 0 || !strings.Contains(res.Stderr, tc.want) {
				t.Fatalf("exit %d, want an error naming %q:\n%s", res.Code, tc.want, res.Stderr)
			}
		})
	}
}

// sha256Hex is the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// TestLegacyProofDirMigration: a portal upgraded from a release that kept
// receipts as files in <data-dir>/payment-proofs copies them into its blob
// store at start-up (logged), serves them from there, and finds them there
// at the next start even with the directory emptied.
func TestLegacyProofDirMigration(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	ctx := t.Context()
	dataDir := filepath.Join(t.TempDir(), "data")
	p := mustStartPortal(t, dataDir, nil, "--ordering-owner-number", "0811-0000-001")
	owner := messengerLogin(t, p, "08110000001")
	cat, _, err := owner.Ordering.Menu.CreateCategory(ctx, "Kopi", 1)
	if err != nil {
		t.Fatal(err)
	}
	latte, _, err := owner.Ordering.Menu.CreateItem(ctx, &client.MenuItem{CategoryID: cat.ID, Name: "Es kopi susu", Price: 18000})
	if err != nil {
		t.Fatal(err)
	}
	_, custToken := messengerLoginToken(t, p, "081234567890")
	cust, err := client.NewClient(p.URL, client.WithOrderingToken(custToken))
	if err != nil {
		t.Fatal(err)
	}
	o, _, err := cust.Ordering.Orders.Create(ctx, &client.OrderRequest{ShippingType: "PICKUP",
		Items: []client.OrderItemRequest{{MenuID: latte.ID, Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	p.Stop()

	// What the earlier release left: the file, and the order naming it.
	name := o.ID + "-legacyname.png"
	proofDir := filepath.Join(dataDir, "payment-proofs")
	if err := os.MkdirAll(proofDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proofDir, name), onePixelPNG, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := bolt.Open(filepath.Join(dataDir, boltFileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateOrder(ctx, o.ID, func(o *ordering.Order) error {
		o.Status = ordering.StatusWaitingVerification
		o.Proof = &ordering.Proof{File: name, ContentType: "image/png", Size: int64(len(onePixelPNG)),
			SHA256: sha256Hex(onePixelPNG), UploadedAt: time.Now().UTC()}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	const migrated = "ordering: payment receipts of the proof directory are in the blob store"
	p = mustStartPortal(t, dataDir, nil, "--ordering-owner-number", "0811-0000-001")
	if m := p.FindLog(migrated); m == nil || m["copied"] != float64(1) {
		t.Fatalf("start-up log %v; want %q with copied=1", m, migrated)
	}
	readProof := func() []byte {
		t.Helper()
		c, err := client.NewClient(p.URL, client.WithOrderingToken(custToken))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := c.Ordering.Payments.Proof(ctx, o.ID, &b); err != nil {
			t.Fatalf("read the migrated receipt: %v", err)
		}
		return b.Bytes()
	}
	if got := readProof(); !bytes.Equal(got, onePixelPNG) {
		t.Fatalf("the migrated receipt reads %d other bytes", len(got))
	}
	p.Stop()

	// The directory emptied: the receipt is in the blob store.
	if err := os.Remove(filepath.Join(proofDir, name)); err != nil {
		t.Fatal(err)
	}
	p = mustStartPortal(t, dataDir, nil, "--ordering-owner-number", "0811-0000-001")
	if m := p.FindLog(migrated); m == nil || m["copied"] != float64(0) {
		t.Fatalf("second start-up log %v; want %q with copied=0", m, migrated)
	}
	if got := readProof(); !bytes.Equal(got, onePixelPNG) {
		t.Fatalf("the receipt reads %d other bytes without the directory", len(got))
	}
}
