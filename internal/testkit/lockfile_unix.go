//go:build unix

package testkit

import (
	"os"
	"syscall"
)

// LockFile takes an exclusive lock of path (created if need be), waiting
// for it, and returns its release: one test process of a go test run at a
// time does what it guards (install a tool, build binaries), the others
// wait and find it done.
func LockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil // closing releases the lock
}
