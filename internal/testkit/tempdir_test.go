package testkit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveTree removes a tree of files and directories, some with spaces
// in their names, and fails cleanly on a directory that is not there.
func TestRemoveTree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	for _, d := range []string{"a/b c/d", "e", "f g"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"x", "a/y", "a/b c/z z", "a/b c/d/w", "f g/v"} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(f)), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveTree(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the tree is still there: %v", err)
	}
	if err := RemoveTree(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("RemoveTree of a missing directory: %v, want ErrNotExist", err)
	}
}
