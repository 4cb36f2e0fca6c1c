package testkit

import (
	"testing"
	"time"
)

// Eventually calls cond every 10 ms until it holds, failing t with what
// once timeout has passed: for what other goroutines or processes do in
// their own time.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
