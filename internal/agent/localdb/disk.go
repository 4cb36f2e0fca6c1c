package localdb

import (
	"errors"
	"fmt"
	"path/filepath"
)

// ErrDiskFull means a write failed because the disk holding the state file
// is full. Nothing of that write was kept; it can be retried once space is
// freed.
var ErrDiskFull = errors.New("the lab server's disk is full")

// LowSpace is the free space under which the disk holding the state file
// counts as nearly full: labagent warns the proctor and the operator well
// before saves start failing.
const LowSpace = 256 << 20

// Space is the free space of the disk holding the state file.
type Space struct {
	FreeBytes uint64 `json:"free_bytes"`
	Low       bool   `json:"low"` // under LowSpace
}

// FreeSpace returns the free space left to labagent on the disk (file
// system) holding the state file.
func (d *DB) FreeSpace() (Space, error) {
	return DirFreeSpace(filepath.Dir(d.Path()))
}

// DirFreeSpace returns the free space left to this process on the disk
// (file system) holding the directory dir.
func DirFreeSpace(dir string) (Space, error) {
	free, err := freeBytes(dir)
	if err != nil {
		return Space{}, fmt.Errorf("localdb: free space of %s: %w", dir, err)
	}
	return Space{FreeBytes: free, Low: free < LowSpace}, nil
}

// storageErr marks err as ErrDiskFull when the file system ran out of
// space.
func storageErr(err error) error {
	if err != nil && isDiskFull(err) && !errors.Is(err, ErrDiskFull) {
		return fmt.Errorf("%w: %w", ErrDiskFull, err)
	}
	return err
}
