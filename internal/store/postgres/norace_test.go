//go:build !race

package postgres

// raceEnabled reports whether the race detector is on.
const raceEnabled = false
