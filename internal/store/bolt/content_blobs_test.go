package bolt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/blobstore/blobstoretest"
	"github.com/seedhq/portal/internal/exam"
)

// TestContentBlobsMoved opens a file of an earlier release, whose content
// blobs are in a bucket of their own: Open moves them into the blob store
// under their exam keys and drops the bucket.
func TestContentBlobsMoved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "portal.db")
	s, err := Open(path, WithNoSync())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	blobs := map[string][]byte{}
	for i, n := range []int64{1, 700, 300 << 10} { // one over a chunk
		data := blobstoretest.Data(uint64(i+40), n)
		sum := sha256.Sum256(data)
		blobs[hex.EncodeToString(sum[:])] = data
	}
	err = s.db.Update(func(tx *bbolt.Tx) error {
		bk, err := tx.CreateBucket(bucketContentBlobsLegacy)
		if err != nil {
			return err
		}
		for name, data := range blobs {
			if err := bk.Put([]byte(name), data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("write the legacy bucket: %v", err)
	}
	s.Close()

	s, err = Open(path, WithNoSync())
	if err != nil {
		t.Fatalf("Open with legacy content blobs: %v", err)
	}
	defer s.Close()
	for name, data := range blobs {
		rc, info, err := s.Blobs().Open(t.Context(), exam.ExamBlobKey(name))
		if err != nil {
			t.Fatalf("blob %s after the move: %v", name[:8], err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, data) || info.ETag != name {
			t.Errorf("blob %s: %d bytes, ETag %s, %v; want its %d bytes", name[:8], len(got), info.ETag, err, len(data))
		}
	}
	err = s.db.View(func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketContentBlobsLegacy) != nil {
			t.Error("the legacy bucket is still there")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
