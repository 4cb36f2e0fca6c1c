package localdb_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"testing"

	"github.com/seedhq/portal/internal/agent/localdb"
)

// TestContentBlobs: content blobs are kept under the SHA-256 of their
// bytes, bytes that are not their name are refused whole, they survive a
// reopen, and pruning keeps only those named.
func TestContentBlobs(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "labagent.db")
	db := open(t, path)
	named := func(data string) (string, []byte) {
		sum := sha256.Sum256([]byte(data))
		return hex.EncodeToString(sum[:]), []byte(data)
	}
	n1, d1 := named("question one, sealed")
	n2, d2 := named("question two, sealed")
	if err := db.PutContentBlobs(ctx, map[string][]byte{n1: d1, n2: []byte("altered")}); !errors.Is(err, localdb.ErrContentBlobName) {
		t.Fatalf("PutContentBlobs with an altered blob: %v, want ErrContentBlobName", err)
	}
	if db.HasContentBlob(n1) {
		t.Fatal("a refused batch stored a blob")
	}
	if err := db.PutContentBlobs(ctx, map[string][]byte{n1: d1, n2: d2}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = open(t, path)
	defer db.Close()
	for name, want := range map[string][]byte{n1: d1, n2: d2} {
		got, err := db.ContentBlob(name)
		if err != nil || !bytes.Equal(got, want) || !db.HasContentBlob(name) {
			t.Fatalf("ContentBlob(%s) = %q, %v", name[:8], got, err)
		}
	}
	if err := db.PruneContentBlobs(ctx, map[string]bool{n2: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ContentBlob(n1); !errors.Is(err, localdb.ErrNoContentBlob) {
		t.Fatalf("a pruned blob: %v, want ErrNoContentBlob", err)
	}
	if !db.HasContentBlob(n2) {
		t.Fatal("the blob kept was pruned")
	}
}
