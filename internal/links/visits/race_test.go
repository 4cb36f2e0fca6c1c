//go:build race

package visits

const raceEnabled = true
