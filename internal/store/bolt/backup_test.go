package bolt_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/store/bolt"
)

// TestBackup copies a store with a package through Backup: the copy opens
// as a store in a directory of its own, where the package record, whose
// blob is not there, is dropped (built again at the next pull), while the
// original keeps it. BackupFile refuses the file of an open store
// (ErrLocked) and copies it once closed.
func TestBackup(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "portal.db")
	s := open(t, path)
	blob := []byte("encrypted package bytes")
	sum := sha256.Sum256(blob)
	meta := exam.PackageMeta{NPSN: "20100001", Version: hex.EncodeToString(sum[:]), Checksum: hex.EncodeToString(sum[:]),
		Size: int64(len(blob)), Revision: 1, GeneratedAt: time.Now()}
	if err := s.SavePackage(ctx, meta, bytes.NewReader(blob)); err != nil {
		t.Fatal(err)
	}

	var copied bytes.Buffer
	err := s.Backup(ctx, func(snap bolt.Snapshot) error {
		n, err := snap.WriteTo(&copied)
		if err == nil && n != snap.Size() {
			t.Errorf("wrote %d bytes, Size says %d", n, snap.Size())
		}
		return err
	})
	if err != nil {
		t.Fatalf("Backup: %v", err)
	}
	if err := bolt.BackupFile(ctx, path, 50*time.Millisecond, func(bolt.Snapshot) error { return nil }); !errors.Is(err, bolt.ErrLocked) {
		t.Errorf("BackupFile of an open store: %v, want ErrLocked", err)
	}

	restored := filepath.Join(t.TempDir(), "portal.db")
	if err := os.WriteFile(restored, copied.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	r := open(t, restored)
	if _, err := r.GetPackage(ctx, meta.NPSN); !errors.Is(err, exam.ErrNotFound) {
		t.Errorf("package of the restored copy without its blob: %v, want ErrNotFound", err)
	}
	r.Close()
	if got, err := s.GetPackage(ctx, meta.NPSN); err != nil || got.Checksum != meta.Checksum {
		t.Errorf("package of the original: %+v, %v", got, err)
	}
	s.Close()

	var file bytes.Buffer
	if err := bolt.BackupFile(ctx, path, time.Second, func(snap bolt.Snapshot) error {
		_, err := snap.WriteTo(&file)
		return err
	}); err != nil || file.Len() == 0 {
		t.Fatalf("BackupFile of a closed store: %d bytes, %v", file.Len(), err)
	}
	if err := bolt.BackupFile(ctx, filepath.Join(t.TempDir(), "none.db"), time.Second, func(bolt.Snapshot) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("BackupFile of no file: %v, want ErrNotExist", err)
	}
}
