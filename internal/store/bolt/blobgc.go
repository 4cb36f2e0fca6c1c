package bolt

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/exam"
)

// The blob names of each package of format 3 (exam.PackageBlobStore) and the
// bookkeeping of the garbage collection of blobs (blobgc.MarkStore).

// putPackageBlobs records names as the blobs the package key names. A
// package naming none has an empty list: no record at all is a package
// saved before names were recorded (PackagesWithoutBlobNames).
func putPackageBlobs(b *bbolt.Bucket, key string, names []string) error {
	names = slices.Clone(names)
	slices.Sort(names)
	names = slices.Compact(names)
	if names == nil {
		names = []string{}
	}
	if err := putJSON(b, []byte(key), names); err != nil {
		return fmt.Errorf("record the blob names of package %s: %w", key, err)
	}
	return nil
}

// forEachPackageBlobs calls fn with each package key and the blob names it
// records.
func forEachPackageBlobs(tx *bbolt.Tx, fn func(key string, names []string)) error {
	return tx.Bucket(bucketPackageBlobs).ForEach(func(k, v []byte) error {
		var names []string
		if err := json.Unmarshal(v, &names); err != nil {
			return fmt.Errorf("decode the blob names of package %s: %w", k, err)
		}
		fn(string(k), names)
		return nil
	})
}

// PackageBlobNames returns the names that at least one current package
// names, each once, in byte-wise order.
func (s *Store) PackageBlobNames(ctx context.Context) ([]string, error) {
	set := map[string]bool{}
	err := s.view(ctx, "package blob names", func(tx *bbolt.Tx) error {
		return forEachPackageBlobs(tx, func(_ string, names []string) {
			for _, n := range names {
				set[n] = true
			}
		})
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}

// PackagesNamingBlobs returns, for each of names that a current package
// names, the keys of those packages in byte-wise order.
func (s *Store) PackagesNamingBlobs(ctx context.Context, names []string) (map[string][]string, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string][]string{}
	err := s.view(ctx, "packages naming blobs", func(tx *bbolt.Tx) error {
		// Keys come in byte-wise order, so each list is sorted.
		return forEachPackageBlobs(tx, func(key string, names []string) {
			for _, n := range names {
				if want[n] {
					out[n] = append(out[n], key)
				}
			}
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PackagesWithoutBlobNames returns the keys of the current packages of
// format 3 that have no record of their blob names.
func (s *Store) PackagesWithoutBlobNames(ctx context.Context) ([]string, error) {
	var out []string
	err := s.view(ctx, "packages without blob names", func(tx *bbolt.Tx) error {
		names := tx.Bucket(bucketPackageBlobs)
		return tx.Bucket(bucketPackages).ForEach(func(k, v []byte) error {
			var rec packageRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return err
			}
			if rec.Format >= exam.BlobsPackageFormat && names.Get(k) == nil {
				out = append(out, string(k))
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BlobGCMarks returns every mark of the garbage collection of blobs: the
// blob's key and the time since which it has been found unreferenced.
func (s *Store) BlobGCMarks(ctx context.Context) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	err := s.view(ctx, "blob gc marks", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketBlobGCMarks).ForEach(func(k, v []byte) error {
			var t time.Time
			if err := t.UnmarshalText(v); err != nil {
				return fmt.Errorf("decode the blob gc mark of %s: %w", k, err)
			}
			out[string(k)] = t.UTC()
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateBlobGCMarks sets the marks of set (blob key -> since, kept to the
// microsecond) and removes those of clear, in one transaction.
func (s *Store) UpdateBlobGCMarks(ctx context.Context, set map[string]time.Time, clear []string) error {
	if len(set) == 0 && len(clear) == 0 {
		return ctx.Err()
	}
	return s.update(ctx, "update blob gc marks", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketBlobGCMarks)
		for _, k := range clear {
			if err := b.Delete([]byte(k)); err != nil {
				return fmt.Errorf("clear the mark of %s: %w", k, err)
			}
		}
		for k, t := range set {
			if k == "" {
				return fmt.Errorf("mark a blob: the key is empty")
			}
			v, err := ts(t).MarshalText()
			if err != nil {
				return fmt.Errorf("mark %s: %w", k, err)
			}
			if err := b.Put([]byte(k), v); err != nil {
				return fmt.Errorf("mark %s: %w", k, err)
			}
		}
		return nil
	})
}

// TryLockBlobGC takes the lock of the garbage collection of blobs, unless it
// is held: then ok is false. unlock releases it. A bbolt file belongs to one
// process, so the lock is a mutex of the Store.
func (s *Store) TryLockBlobGC(ctx context.Context) (unlock func(), ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, fmt.Errorf("bolt: lock blob gc: %w", err)
	}
	if !s.gcMu.TryLock() {
		return nil, false, nil
	}
	return s.gcMu.Unlock, true, nil
}
