package localdb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/seedhq/portal/internal/testkit"
)

// dataDirWindows returns a new data directory with spaces in its path, as
// under C:\ProgramData\lab agent, removed when the test ends.
func dataDirWindows(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(testkit.TempDir(t), "lab agent", "data")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFreeBytesWindows: the free space of a directory (with spaces in its
// path) is that of its volume: more than zero, at most the volume's size,
// and the same (give or take other writers) as the volume root's; a
// directory that is not there is an error.
func TestFreeBytesWindows(t *testing.T) {
	dir := dataDirWindows(t)
	free, err := freeBytes(dir)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.VolumeName(dir) + `\`
	var rootFree, total, totalFree uint64
	p, _ := windows.UTF16PtrFromString(root)
	if err := windows.GetDiskFreeSpaceEx(p, &rootFree, &total, &totalFree); err != nil {
		t.Fatalf("free space of %s: %v", root, err)
	}
	// The two measures are moments apart, and other processes (make test's
	// other lanes) write and delete files on the volume meanwhile: they may
	// differ by what those wrote, never by a gigabyte.
	const slack = 1 << 30
	if free == 0 || free > total || free > totalFree+slack {
		t.Fatalf("freeBytes(%q) = %d; the volume %s has %d bytes, %d free", dir, free, root, total, totalFree)
	}
	if diff := max(free, rootFree) - min(free, rootFree); diff > slack {
		t.Fatalf("freeBytes(%q) = %d, but its volume %s has %d free", dir, free, root, rootFree)
	}
	if _, err := freeBytes(filepath.Join(dir, "not there")); !errors.Is(err, windows.ERROR_PATH_NOT_FOUND) && !errors.Is(err, windows.ERROR_FILE_NOT_FOUND) {
		t.Fatalf("freeBytes of a missing directory: %v, want ERROR_PATH_NOT_FOUND", err)
	}
	t.Logf("%s: %d bytes free of %d", dir, free, total)
}

// TestFreeSpaceWindows: the state file's DB reports its volume's free
// space, "low" under LowSpace.
func TestFreeSpaceWindows(t *testing.T) {
	dir := dataDirWindows(t)
	db, err := Open(filepath.Join(dir, FileName), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sp, err := db.FreeSpace()
	if err != nil {
		t.Fatal(err)
	}
	if sp.FreeBytes == 0 || sp.Low != (sp.FreeBytes < LowSpace) {
		t.Fatalf("FreeSpace() = %+v", sp)
	}
	if _, err := DirFreeSpace(filepath.Join(dir, "not there")); err == nil {
		t.Fatal("DirFreeSpace of a missing directory: no error")
	}
}

// TestIsDiskFullWindows: Windows' two out-of-space errors, bare or as the
// file functions wrap them, mark a write ErrDiskFull; other errors do not.
func TestIsDiskFullWindows(t *testing.T) {
	for _, c := range []struct {
		err  error
		full bool
	}{
		{windows.ERROR_DISK_FULL, true},
		{windows.ERROR_HANDLE_DISK_FULL, true},
		{&fs.PathError{Op: "write", Path: `C:\ProgramData\lab agent\data\labagent.db`, Err: windows.ERROR_DISK_FULL}, true},
		{fmt.Errorf("grow the state file: %w", &fs.PathError{Op: "truncate", Path: "x", Err: windows.ERROR_HANDLE_DISK_FULL}), true},
		{syscall.Errno(windows.ERROR_DISK_FULL), true},
		{windows.ERROR_ACCESS_DENIED, false},
		{windows.ERROR_LOCK_VIOLATION, false},
		{&fs.PathError{Op: "write", Path: "x", Err: windows.ERROR_WRITE_FAULT}, false},
		{errors.New("disk full"), false},
	} {
		if got := isDiskFull(c.err); got != c.full {
			t.Errorf("isDiskFull(%v) = %v, want %v", c.err, got, c.full)
		}
		if got := errors.Is(storageErr(c.err), ErrDiskFull); got != c.full {
			t.Errorf("storageErr(%v) is ErrDiskFull: %v, want %v", c.err, got, c.full)
		}
	}
	if storageErr(nil) != nil {
		t.Error("storageErr(nil) is not nil")
	}
}
