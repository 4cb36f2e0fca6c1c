package localdb

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOpenLockedWindows: while one DB holds the state file (bbolt's
// LockFileEx on Windows), a second Open of it gives up after its Timeout
// with ErrLocked, which names the file; once the first is closed the file
// opens again.
func TestOpenLockedWindows(t *testing.T) {
	path := filepath.Join(dataDirWindows(t), FileName)
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{false, true} {
		second, err := Open(path, Options{Timeout: 200 * time.Millisecond, ReadOnly: ro})
		if err == nil {
			second.Close()
			db.Close()
			t.Fatalf("a second Open (read-only %v) while the file is open: no error", ro)
		}
		if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path) {
			t.Errorf("a second Open (read-only %v): %v, want ErrLocked naming %s", ro, err, path)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	again.Close()
}
