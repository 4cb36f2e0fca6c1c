package bolt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/exam"
)

// Package blobs are files <packageDir>/<checksum>.pkg. A blob is written to a
// temporary file, synced and renamed into place before the transaction that
// references it commits, and removed after the transaction that drops its
// last reference commits. A crash between the two leaves a stray file, which
// Open removes.

const (
	blobSuffix = ".pkg"
	tempSuffix = ".tmp"
)

type packageRecord struct {
	NPSN        string    `json:"npsn"`
	Version     string    `json:"version"`
	Checksum    string    `json:"checksum"`
	Size        int64     `json:"size"`
	Revision    int64     `json:"revision"`
	GeneratedAt time.Time `json:"generated_at"`
	Format      int       `json:"format,omitempty"` // absent: 1, as every package written before format 2 was
}

func (r packageRecord) meta() exam.PackageMeta {
	return exam.PackageMeta{NPSN: r.NPSN, Version: r.Version, Checksum: r.Checksum, Size: r.Size,
		Revision: r.Revision, GeneratedAt: utc(r.GeneratedAt), Format: max(r.Format, 1)}
}

// validChecksum reports whether c is a lowercase hex SHA-256, and so safe as
// a file name.
func validChecksum(c string) bool {
	if len(c) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(c); i++ {
		if !('0' <= c[i] && c[i] <= '9' || 'a' <= c[i] && c[i] <= 'f') {
			return false
		}
	}
	return true
}

func (s *Store) blobPath(checksum string) string {
	return filepath.Join(s.packageDir, checksum+blobSuffix)
}

// GetPackage returns the meta of the school's current package.
func (s *Store) GetPackage(ctx context.Context, npsn string) (exam.PackageMeta, error) {
	var out exam.PackageMeta
	err := s.view(ctx, "get package", func(tx *bbolt.Tx) error {
		var rec packageRecord
		found, err := getJSON(tx.Bucket(bucketPackages), []byte(npsn), &rec)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("package of %q: %w", npsn, exam.ErrNotFound)
		}
		out = rec.meta()
		return nil
	})
	return out, err
}

// SavePackage makes meta the school's current package. When no blob with
// meta.Checksum is stored, it copies r to a new blob, checking that r yields
// exactly meta.Size bytes whose SHA-256 is meta.Checksum; otherwise r is not
// read. The blob the school used before is removed when no school references
// it any more.
func (s *Store) SavePackage(ctx context.Context, meta exam.PackageMeta, r io.Reader) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("bolt: save package: %w", err)
	}
	if !validChecksum(meta.Checksum) {
		return fmt.Errorf("bolt: save package: checksum %q is not a lowercase hex SHA-256", meta.Checksum)
	}
	if meta.NPSN == "" {
		return errors.New("bolt: save package: npsn is empty")
	}
	s.pkgMu.Lock()
	defer s.pkgMu.Unlock()

	path := s.blobPath(meta.Checksum)
	created := false
	switch _, err := os.Stat(path); {
	case errors.Is(err, fs.ErrNotExist):
		if err := s.writeBlob(path, meta, r); err != nil {
			return fmt.Errorf("bolt: save package of %s: %w", meta.NPSN, err)
		}
		created = true
	case err != nil:
		return fmt.Errorf("bolt: save package of %s: %w", meta.NPSN, err)
	}

	orphan := ""
	err := s.update(ctx, "save package", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketPackages)
		var old packageRecord
		found, err := getJSON(b, []byte(meta.NPSN), &old)
		if err != nil {
			return err
		}
		rec := packageRecord{NPSN: meta.NPSN, Version: meta.Version, Checksum: meta.Checksum, Size: meta.Size,
			Revision: meta.Revision, GeneratedAt: ts(meta.GeneratedAt), Format: max(meta.Format, 1)}
		if err := putJSON(b, []byte(meta.NPSN), rec); err != nil {
			return err
		}
		if err := putPackageBlobs(tx.Bucket(bucketPackageBlobs), meta.NPSN, meta.Blobs); err != nil {
			return err
		}
		if !found || old.Checksum == meta.Checksum {
			return nil
		}
		used, err := referenced(b, old.Checksum)
		if err != nil {
			return err
		}
		if !used {
			orphan = old.Checksum
		}
		return nil
	})
	if err != nil {
		if created {
			os.Remove(path)
		}
		return err
	}
	if orphan != "" && validChecksum(orphan) {
		// The save succeeded; a blob that cannot be removed now is removed at the next Open.
		_ = os.Remove(s.blobPath(orphan))
	}
	return nil
}

// referenced reports whether a package record has the checksum.
func referenced(b *bbolt.Bucket, checksum string) (bool, error) {
	errFound := errors.New("found")
	err := b.ForEach(func(k, v []byte) error {
		var rec packageRecord
		if err := decodeJSON(k, v, &rec); err != nil {
			return err
		}
		if rec.Checksum == checksum {
			return errFound
		}
		return nil
	})
	if errors.Is(err, errFound) {
		return true, nil
	}
	return false, err
}

// writeBlob copies r to path through a synced temporary file, checking its
// size and SHA-256 against meta.
func (s *Store) writeBlob(path string, meta exam.PackageMeta, r io.Reader) (err error) {
	if meta.Size < 0 {
		return fmt.Errorf("size %d is negative", meta.Size)
	}
	f, err := os.CreateTemp(s.packageDir, "upload-*"+tempSuffix)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, meta.Size+1))
	if err != nil {
		return fmt.Errorf("copy package: %w", err)
	}
	if n != meta.Size {
		return fmt.Errorf("package has %s bytes, meta.Size is %d", sizeString(n, meta.Size), meta.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != meta.Checksum {
		return fmt.Errorf("package SHA-256 is %s, meta.Checksum is %s", got, meta.Checksum)
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	return syncDir(s.packageDir)
}

func sizeString(n, size int64) string {
	if n > size {
		return fmt.Sprintf("more than %d", size)
	}
	return fmt.Sprint(n)
}

// syncDir makes a rename in dir durable. Windows cannot sync directories.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// OpenPackage opens the blob of meta.Checksum as an *os.File; exam.ErrNotFound
// when no such blob is stored.
func (s *Store) OpenPackage(ctx context.Context, meta exam.PackageMeta) (exam.PackageReader, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bolt: open package: %w", err)
	}
	if !validChecksum(meta.Checksum) {
		return nil, fmt.Errorf("bolt: open package %q: %w", meta.Checksum, exam.ErrNotFound)
	}
	f, err := os.Open(s.blobPath(meta.Checksum))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("bolt: open package %s: %w", meta.Checksum, exam.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("bolt: open package %s: %w", meta.Checksum, err)
	}
	if fi, err := f.Stat(); err != nil || fi.Size() != meta.Size {
		f.Close()
		if err == nil {
			err = fmt.Errorf("blob has %d bytes, meta.Size is %d", fi.Size(), meta.Size)
		}
		return nil, fmt.Errorf("bolt: open package %s: %w", meta.Checksum, err)
	}
	return f, nil
}

// removeStrayBlobs removes temporary files and blobs no school references,
// left by a crash during SavePackage.
func (s *Store) removeStrayBlobs() error {
	entries, err := os.ReadDir(s.packageDir)
	if err != nil {
		return fmt.Errorf("read package directory: %w", err)
	}
	used := map[string]bool{}
	err = s.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketPackages).ForEach(func(k, v []byte) error {
			var rec packageRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return err
			}
			used[rec.Checksum] = true
			return nil
		})
	})
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		stray := false
		switch {
		case e.IsDir():
		case strings.HasSuffix(name, tempSuffix):
			stray = strings.HasPrefix(name, "upload-")
		case strings.HasSuffix(name, blobSuffix):
			sum := strings.TrimSuffix(name, blobSuffix)
			stray = validChecksum(sum) && !used[sum]
		}
		if stray {
			if err := os.Remove(filepath.Join(s.packageDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove stray package blob: %w", err)
			}
		}
	}
	return nil
}

// ContentRevision returns a number that grows with every change to exams,
// members or exam passwords.
func (s *Store) ContentRevision(ctx context.Context) (int64, error) {
	var rev int64
	err := s.view(ctx, "content revision", func(tx *bbolt.Tx) error {
		rev = readRevision(tx.Bucket(bucketMeta))
		return nil
	})
	return rev, err
}
