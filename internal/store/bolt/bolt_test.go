package bolt_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/redirect"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/storetest"
)

// The store is what the link redirector reads.
var _ redirect.Store = (*bolt.Store)(nil)

func open(t *testing.T, path string, opts ...bolt.Option) *bolt.Store {
	t.Helper()
	s, err := bolt.Open(path, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		s := open(t, filepath.Join(t.TempDir(), "portal.db"))
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s
	})
}

func checksum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func TestReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "portal.db")
	s := open(t, path)
	data := bytes.Repeat([]byte("encrypted"), 1000)
	meta := exam.PackageMeta{NPSN: "20100001", Version: checksum([]byte("plain")), Checksum: checksum(data),
		Size: int64(len(data)), Revision: 1, GeneratedAt: time.Now()}
	if err := s.SavePackage(ctx, meta, bytes.NewReader(data)); err != nil {
		t.Fatalf("SavePackage: %v", err)
	}
	if err := s.CreateExam(ctx, exam.Exam{ID: "exam-1", Title: "Ujian", NPSNs: []string{"20100001"},
		Questions: []exam.Question{{ID: "q1", Type: exam.Essay, Text: "Jelaskan."}}}); err != nil {
		t.Fatalf("CreateExam: %v", err)
	}
	rev, err := s.ContentRevision(ctx)
	if err != nil {
		t.Fatalf("ContentRevision: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	// Files an interrupted SavePackage may leave behind.
	pkgDir := filepath.Join(dir, "packages")
	stray := []string{"upload-123" + ".tmp", checksum([]byte("orphan")) + ".pkg"}
	for _, name := range stray {
		if err := os.WriteFile(filepath.Join(pkgDir, name), []byte("orphan"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	s = open(t, path)
	defer s.Close()
	if got, err := s.ContentRevision(ctx); err != nil || got != rev {
		t.Fatalf("ContentRevision after reopening = %d, %v; want %d", got, err, rev)
	}
	if _, err := s.GetExam(ctx, "exam-1"); err != nil {
		t.Fatalf("GetExam after reopening: %v", err)
	}
	r, err := s.OpenPackage(ctx, meta)
	if err != nil {
		t.Fatalf("OpenPackage after reopening: %v", err)
	}
	r.Close()
	for _, name := range stray {
		if _, err := os.Stat(filepath.Join(pkgDir, name)); !os.IsNotExist(err) {
			t.Errorf("stray file %s survived Open (stat: %v)", name, err)
		}
	}
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "portal.db")
	s := open(t, path)
	defer s.Close()
	start := time.Now()
	if s2, err := bolt.Open(path, bolt.WithTimeout(100*time.Millisecond)); err == nil {
		s2.Close()
		t.Fatal("a second Open of a locked file succeeded")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("a second Open took %s to fail", d)
	}
}

func TestClosed(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "portal.db"))
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Ping(context.Background()); err == nil {
		t.Fatal("Ping of a closed store succeeded")
	}
}

func TestUnreferencedBlobRemoved(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, filepath.Join(dir, "portal.db"))
	defer s.Close()
	blobs := func() int {
		t.Helper()
		entries, err := os.ReadDir(filepath.Join(dir, "packages"))
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
	save := func(npsn string, data []byte) {
		t.Helper()
		meta := exam.PackageMeta{NPSN: npsn, Version: checksum(data), Checksum: checksum(data), Size: int64(len(data))}
		if err := s.SavePackage(ctx, meta, bytes.NewReader(data)); err != nil {
			t.Fatalf("SavePackage: %v", err)
		}
	}
	save("20100001", []byte("one"))
	save("20100002", []byte("one"))
	if n := blobs(); n != 1 {
		t.Fatalf("%d blobs for two schools sharing one, want 1", n)
	}
	save("20100001", []byte("two"))
	if n := blobs(); n != 2 {
		t.Fatalf("%d blobs after one school moved on, want 2", n)
	}
	save("20100002", []byte("two"))
	if n := blobs(); n != 1 {
		t.Fatalf("%d blobs after both schools moved on, want 1", n)
	}
}

func TestLinksConformance(t *testing.T) {
	storetest.RunLinks(t, func(t *testing.T) links.Store {
		s := open(t, filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s
	})
}

func TestOrderingConformance(t *testing.T) {
	storetest.RunOrdering(t, func(t *testing.T) ordering.Store {
		s := open(t, filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s
	})
}
