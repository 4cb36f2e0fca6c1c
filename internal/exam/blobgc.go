package exam

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// The exam domain's side of the garbage collection of blobs
// (internal/blobgc): the blobs a school's current package of format 3 names
// are referenced; every other blob under ExamBlobKeyPrefix is not.

// ExamBlobKeyPrefix starts the blob store key of every exam blob: a blob
// named name (labwire.PackageBlob.Name) is kept under ExamBlobKey(name).
const ExamBlobKeyPrefix = "exam/"

// ReferencedBlobs returns the blob store keys of the blobs that at least one
// school's current package of format 3 names.
func (s *Service) ReferencedBlobs(ctx context.Context) ([]string, error) {
	if err := s.recordBlobNames(ctx); err != nil {
		return nil, fmt.Errorf("exam: referenced blobs: %w", err)
	}
	names, err := s.store.PackageBlobNames(ctx)
	if err != nil {
		return nil, fmt.Errorf("exam: referenced blobs: %w", err)
	}
	keys := make([]string, len(names))
	for i, n := range names {
		keys[i] = ExamBlobKey(n)
	}
	return keys, nil
}

// recordBlobNames rebuilds the packages of format 3 saved before their blob
// names were recorded, so that their names are: until then nobody can tell
// which blobs they name.
func (s *Service) recordBlobNames(ctx context.Context) error {
	keys, err := s.store.PackagesWithoutBlobNames(ctx)
	if err != nil {
		return err
	}
	for _, key := range keys {
		npsn, blobs := strings.CutSuffix(key, blobsPackageKey(""))
		if err := s.rebuildPackage(ctx, npsn, key, blobs); err != nil {
			return fmt.Errorf("rebuild the package of %s to record the blobs it names: %w", npsn, err)
		}
		s.log.InfoContext(ctx, "package rebuilt to record the blobs it names", "npsn", npsn)
	}
	return nil
}

// BlobOwners returns, for each of keys that a current package names, the
// numbers (NPSN) of the schools whose packages name it.
func (s *Service) BlobOwners(ctx context.Context, keys []string) (map[string][]string, error) {
	byPackage, err := s.packagesNaming(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for key, pkgs := range byPackage {
		for _, p := range pkgs {
			out[key] = append(out[key], strings.TrimSuffix(p, blobsPackageKey("")))
		}
	}
	return out, nil
}

// packagesNaming returns, for each of keys, the package keys naming it.
func (s *Service) packagesNaming(ctx context.Context, keys []string) (map[string][]string, error) {
	names := make([]string, 0, len(keys))
	for _, k := range keys {
		if n, ok := strings.CutPrefix(k, ExamBlobKeyPrefix); ok {
			names = append(names, n)
		}
	}
	byName, err := s.store.PackagesNamingBlobs(ctx, names)
	if err != nil {
		return nil, fmt.Errorf("exam: packages naming blobs: %w", err)
	}
	out := make(map[string][]string, len(byName))
	for n, pkgs := range byName {
		out[ExamBlobKey(n)] = pkgs
	}
	return out, nil
}

// RepairBlobs stores again the blobs of keys, missing from the blob store
// although current packages name them: it forgets that this instance found
// them in the blob store (ensureBlob trusts that for blobCheckAge) and
// builds every package naming them again now, whose build puts each blob
// it names that the store lacks. Packages that stopped naming them
// meanwhile need nothing. Other instances ask the store again within
// blobCheckAge.
func (s *Service) RepairBlobs(ctx context.Context, keys []string) error {
	byKey, err := s.packagesNaming(ctx, keys)
	if err != nil {
		return err
	}
	gone := map[string]bool{}
	var pkgs []string
	for key, ps := range byKey {
		gone[strings.TrimPrefix(key, ExamBlobKeyPrefix)] = true
		pkgs = append(pkgs, ps...)
	}
	s.forgetBlobs(gone)
	slices.Sort(pkgs)
	var errs []error
	for _, key := range slices.Compact(pkgs) {
		npsn, blobs := strings.CutSuffix(key, blobsPackageKey(""))
		if err := s.rebuildPackage(ctx, npsn, key, blobs); err != nil {
			errs = append(errs, fmt.Errorf("rebuild the package of %s: %w", npsn, err))
			continue
		}
		s.log.InfoContext(ctx, "package rebuilt: blobs it names were missing", "npsn", npsn)
	}
	return errors.Join(errs...)
}

// forgetBlobs forgets that the blobs named in gone were found in the blob
// store, so that the next build that names them asks again and puts them.
func (s *Service) forgetBlobs(gone map[string]bool) {
	for name := range gone {
		s.blobsSeen.Delete(name)
	}
}

// rebuildPackage builds the package stored under key again, whether or not
// it is stale.
func (s *Service) rebuildPackage(ctx context.Context, npsn, key string, blobs bool) error {
	rev, err := s.store.ContentRevision(ctx)
	if err != nil {
		return err
	}
	mu, _ := s.builds.LoadOrStore(key, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	old, err := s.store.GetPackage(ctx, key)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	_, err = s.buildPackage(ctx, npsn, key, blobs, max(rev, old.Revision), old)
	return err
}
