package examsrv

import (
	"testing"
	"time"
)

func TestLoginLimiter(t *testing.T) {
	l := newLoginLimiter(3, time.Minute)
	now := time.Unix(1000, 0)
	for i := 0; i < 3; i++ {
		if l.Blocked("a", now) != 0 {
			t.Fatalf("blocked after %d failures", i)
		}
		l.Fail("a", now)
	}
	if wait := l.Blocked("a", now.Add(10*time.Second)); wait != 50*time.Second {
		t.Fatalf("wait = %v, want 50s", wait)
	}
	if l.Blocked("b", now) != 0 {
		t.Fatal("another address is blocked")
	}
	l.Fail("b", now)
	if got := l.Blocking(now.Add(10 * time.Second)); len(got) != 1 || !got["a"].Equal(now.Add(time.Minute)) {
		t.Fatalf("Blocking = %v, want only a until the window's end", got)
	}
	if got := l.Blocking(now.Add(time.Minute)); len(got) != 0 {
		t.Fatalf("Blocking after the window = %v", got)
	}
	if l.Blocked("a", now.Add(time.Minute)) != 0 {
		t.Fatal("still blocked after the window")
	}
	l.Fail("c", now)
	l.Reset("c")
	l.Reset("b")
	if len(l.fails) != 0 {
		t.Fatalf("entries left: %d", len(l.fails))
	}
}
