package throttle_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/throttle"
)

func TestLimiter(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := t.Context()
	l := throttle.NewLimiter(st, "test", 3, time.Minute)
	other := throttle.NewLimiter(st, "other", 3, time.Minute)
	blocked := func(l *throttle.Limiter, key string, now time.Time) time.Duration {
		t.Helper()
		wait, err := l.Blocked(ctx, key, now)
		if err != nil {
			t.Fatal(err)
		}
		return wait
	}
	fail := func(l *throttle.Limiter, key string, now time.Time) {
		t.Helper()
		if err := l.Fail(ctx, key, now); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Unix(1_000_000, 0)
	// A key may be anything a client sends: a NUL byte, invalid UTF-8.
	key := "10.0.0.1\x00ana\xff"
	for i := range 3 {
		if wait := blocked(l, key, now); wait != 0 {
			t.Fatalf("blocked for %v after %d failures", wait, i)
		}
		fail(l, key, now)
	}
	if wait := blocked(l, key, now.Add(10*time.Second)); wait != 50*time.Second {
		t.Fatalf("wait after 3 failures = %v, want the 50 s left of the window", wait)
	}
	if wait := blocked(l, "10.0.0.2", now); wait != 0 {
		t.Fatalf("another key waits %v", wait)
	}
	if wait := blocked(other, key, now); wait != 0 {
		t.Fatalf("the same key in another namespace waits %v", wait)
	}
	if wait := blocked(l, key, now.Add(time.Minute)); wait != 0 {
		t.Fatalf("wait once the window is over = %v", wait)
	}
	fail(l, key, now.Add(time.Minute))
	if wait := blocked(l, key, now.Add(time.Minute)); wait != 0 {
		t.Fatalf("one failure in a new window blocks for %v", wait)
	}
	fail(other, key, now)
	if err := l.Reset(ctx, key); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		fail(l, key, now.Add(time.Minute))
	}
	if wait := blocked(l, key, now.Add(time.Minute)); wait != 0 {
		t.Fatalf("2 failures after a reset block for %v", wait)
	}
	fail(other, key, now)
	fail(other, key, now)
	if wait := blocked(other, key, now); wait != time.Minute {
		t.Fatalf("the other namespace's key, not reset, waits %v, want 1m", wait)
	}
}
