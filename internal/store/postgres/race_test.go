//go:build race

package postgres

// raceEnabled reports whether the race detector is on; it slows down and
// inflates the memory of the large-package test, which then skips.
const raceEnabled = true
