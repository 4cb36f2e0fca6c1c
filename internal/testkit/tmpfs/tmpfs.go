// Package tmpfs gives a test a small file system of its own, to see what
// the code under test does when the disk fills up.
package tmpfs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// Mount mounts a tmpfs of size bytes on a new directory for the test and
// returns the directory; it is unmounted when the test ends. It needs Linux
// and root, as CI has: elsewhere the test is skipped, loudly, and under
// CI=true it fails.
func Mount(t testing.TB, size int) string {
	t.Helper()
	dir := t.TempDir()
	var out []byte
	err := errors.ErrUnsupported
	if runtime.GOOS == "linux" {
		out, err = exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount a %d-byte tmpfs: %v %s", size, err, out)
		}
		t.Skipf("SKIPPED: cannot mount a small file system here (Linux and root only): %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// Fill takes n bytes of the file system holding dir (a file of zeros) and
// returns the function that gives them back.
func Fill(t testing.TB, dir string, n int) (free func()) {
	t.Helper()
	f, err := os.CreateTemp(dir, "filler-")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write(make([]byte, n))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("fill %s with %d bytes: %v", dir, n, err)
	}
	return func() {
		t.Helper()
		if err := os.Remove(f.Name()); err != nil {
			t.Fatal(err)
		}
	}
}
