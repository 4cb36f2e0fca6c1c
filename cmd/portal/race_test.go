//go:build race

package main

// raceEnabled is true when the tests run with -race; raceBins then builds
// the portal binary with -race too.
const raceEnabled = true
