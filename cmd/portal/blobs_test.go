package main

import (
	"bytes"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/blobstore/blobstoretest"
	"github.com/seedhq/portal/internal/blobstore/s3"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/testkit/s3server"
)

// TestMoveBlobs: the blobs a portal kept in its own store before it was
// given object storage (receipts, logos, exam blobs) move there: each is in
// the bucket, whole, and gone from the portal's store; one the bucket held
// already stays as it is. With the object storage down the move fails and
// every blob stays where it was.
func TestMoveBlobs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a real S3 server; skipped with -short")
	}
	ctx := t.Context()
	srv := s3server.Start(t)
	srv.CreateBucket(t, "moved")
	cfg, err := s3.ParseURL(srv.URL("moved", "p"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.AccessKey, cfg.SecretKey = srv.AccessKey, srv.SecretKey
	dst, err := s3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	own := st.Blobs()
	blobs := map[string][]byte{
		"receipts/o1/aa": blobstoretest.Data(1, 1000),
		"logos/bb":       blobstoretest.Data(2, 300<<10),
		"exam/cc":        blobstoretest.Data(3, 7<<20),
	}
	for k, b := range blobs {
		blobstoretest.MustPut(t, own, k, b)
	}
	blobstoretest.MustPut(t, dst, "receipts/o1/aa", blobs["receipts/o1/aa"])
	log := slog.New(slog.DiscardHandler)

	srv.Kill()
	if err := moveBlobs(ctx, own, dst, log); !errors.Is(err, blobstore.ErrUnavailable) {
		t.Fatalf("move with the object storage down: %v, want ErrUnavailable", err)
	}
	if n := len(blobstoretest.MustList(t, own, "")); n != len(blobs) {
		t.Fatalf("%d blobs left in the portal's store after a failed move, want %d", n, len(blobs))
	}
	srv.Restart()
	if err := moveBlobs(ctx, own, dst, log); err != nil {
		t.Fatalf("move: %v", err)
	}
	for k, want := range blobs {
		if got, _ := blobstoretest.MustRead(t, dst, k, 0, 0); !bytes.Equal(got, want) {
			t.Errorf("%s in object storage: %d bytes, want its %d", k, len(got), len(want))
		}
		blobstoretest.MustNotExist(t, own, k)
	}
	if err := moveBlobs(ctx, own, dst, log); err != nil {
		t.Fatalf("a second move (nothing left): %v", err)
	}
}
