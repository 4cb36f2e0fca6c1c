//go:build !race

package visits

const raceEnabled = false
