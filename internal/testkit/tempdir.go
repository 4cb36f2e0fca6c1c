package testkit

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TempDir returns a new directory for the test, removed with everything in
// it when the test ends, as t.TempDir does, for the tests that also run on
// Windows under Wine (make test-windows). There Go 1.26's os.RemoveAll
// fails ("unlinkat ...: Invalid function": Wine 8 answers
// STATUS_NOT_IMPLEMENTED to FileDispositionInformationEx and Go's fallback
// does not expect it), so t.TempDir's cleanup fails the test; os.Remove
// works. TempDir removes the tree one file or directory at a time, deepest
// first.
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "testkit-")
	if err != nil {
		t.Fatalf("create a temporary directory: %v", err)
	}
	t.Cleanup(func() {
		if err := RemoveTree(dir); err != nil {
			t.Errorf("remove the temporary directory: %v", err)
		}
	})
	return dir
}

// RemoveTree removes dir and everything in it with os.Remove, deepest
// first (os.RemoveAll without the calls Wine does not implement).
func RemoveTree(dir string) error {
	var paths []string
	err := filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		paths = append(paths, path)
		return nil
	})
	if err != nil {
		return err
	}
	// WalkDir lists a directory before what it holds: backwards, every
	// directory comes after its contents.
	for _, p := range slices.Backward(paths) {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return nil
}
