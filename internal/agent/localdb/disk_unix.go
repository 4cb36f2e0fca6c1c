//go:build !windows

package localdb

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// freeBytes is the space an unprivileged writer has left on the file
// system holding dir.
func freeBytes(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// isDiskFull reports whether err is a file system out of space (or over
// the user's quota).
func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
