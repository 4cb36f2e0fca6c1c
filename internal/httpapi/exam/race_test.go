//go:build race

package exam_test

// raceEnabled reports whether the race detector is on.
const raceEnabled = true
