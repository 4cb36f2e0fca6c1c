//go:build !race

package httpapi_test

// raceEnabled reports whether the race detector is on.
const raceEnabled = false
