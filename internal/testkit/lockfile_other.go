//go:build !unix

package testkit

// LockFile does not lock where flock is missing: two test processes may
// then both install a tool, each renaming a whole one into place.
func LockFile(string) (unlock func(), err error) { return func() {}, nil }
