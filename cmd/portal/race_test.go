//go:build race

package main

// raceEnabled is true when the tests run with -race; the end-to-end tests
// then build the portal binary with -race too.
const raceEnabled = true
