package bolt_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/blobstore/blobstoretest"
)

// TestBlobConformance runs the blob store conformance suite against the
// blobs kept in a fresh bbolt file, with a large blob of several write
// transactions.
func TestBlobConformance(t *testing.T) {
	blobstoretest.Run(t, func(t *testing.T) blobstore.Store {
		s := open(t, filepath.Join(t.TempDir(), "portal.db"))
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s.Blobs()
	}, blobstoretest.Options{LargeSize: 9<<20 + 12345})
}

// TestBlobsReopen checks that blobs survive a reopen and that the chunks of
// a put that never completed are removed at Open.
func TestBlobsReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "portal.db")
	s := open(t, path)
	data := blobstoretest.Data(1, 600_000)
	blobstoretest.MustPut(t, s.Blobs(), "logos/abc", data)
	// A put whose reader fails half-way leaves no chunks behind it.
	err := s.Blobs().Put(ctx, "logos/cut", bytes.NewReader(data[:1000]), int64(len(data)))
	if err == nil {
		t.Fatal("a short put succeeded")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, path)
	defer s.Close()
	got, _ := blobstoretest.MustRead(t, s.Blobs(), "logos/abc", 0, 0)
	if !bytes.Equal(got, data) {
		t.Fatal("the blob reads other bytes after a reopen")
	}
	blobstoretest.MustNotExist(t, s.Blobs(), "logos/cut")
}
