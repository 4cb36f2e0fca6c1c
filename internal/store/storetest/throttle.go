package storetest

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/throttle"
)

func testLoginFailures(t *testing.T, s Store) {
	ctx := t.Context()
	mustWindow := func(w throttle.Window, err error) throttle.Window {
		t.Helper()
		mustOK(t, "failure window", err)
		return w
	}
	const window = 15 * time.Minute
	t0 := at(0)
	check(t, "FailureWindow of an unknown key", mustWindow(s.FailureWindow(ctx, "a", t0, window)), throttle.Window{})
	check(t, "first failure", mustWindow(s.CountFailure(ctx, "a", t0, window)), throttle.Window{Count: 1, Start: t0})
	check(t, "second failure", mustWindow(s.CountFailure(ctx, "a", t0.Add(time.Minute), window)), throttle.Window{Count: 2, Start: t0})
	check(t, "another key", mustWindow(s.CountFailure(ctx, "b", t0, window)), throttle.Window{Count: 1, Start: t0})
	check(t, "FailureWindow within the window", mustWindow(s.FailureWindow(ctx, "a", t0.Add(window-time.Second), window)),
		throttle.Window{Count: 2, Start: t0})
	check(t, "FailureWindow at its end", mustWindow(s.FailureWindow(ctx, "a", t0.Add(window), window)), throttle.Window{})
	// A failure after the window starts a new one.
	t1 := t0.Add(window)
	check(t, "a failure after the window", mustWindow(s.CountFailure(ctx, "a", t1, window)), throttle.Window{Count: 1, Start: t1})

	mustOK(t, "ClearFailures", s.ClearFailures(ctx, "a"))
	check(t, "FailureWindow after ClearFailures", mustWindow(s.FailureWindow(ctx, "a", t1, window)), throttle.Window{})
	check(t, "b is kept", mustWindow(s.FailureWindow(ctx, "b", t0, window)), throttle.Window{Count: 1, Start: t0})
	mustOK(t, "ClearFailures of an unknown key", s.ClearFailures(ctx, "nobody"))

	mustWindow(s.CountFailure(ctx, "c", t1, window))
	n, err := s.PruneFailures(ctx, t0.Add(time.Second))
	mustOK(t, "PruneFailures", err)
	if n != 1 {
		t.Fatalf("PruneFailures removed %d windows, want 1 (b)", n)
	}
	check(t, "b after PruneFailures", mustWindow(s.FailureWindow(ctx, "b", t0, window)), throttle.Window{})
	check(t, "c after PruneFailures", mustWindow(s.FailureWindow(ctx, "c", t1, window)), throttle.Window{Count: 1, Start: t1})
}
