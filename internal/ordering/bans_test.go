package ordering

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)

// TestBanLadder walks the spec's ladder with a fake clock: three unverified
// logins go ahead, the fourth is refused with a level 1 ban for an hour; an
// attempt during it gives level 2 for a day; an attempt during that gives
// level 3, permanent.
func TestBanLadder(t *testing.T) {
	b := &Ban{LastAttemptAt: t0, CreatedAt: t0}
	now := t0
	step := func(d time.Duration, wantOK bool, wantLevel int, wantRetry time.Duration) {
		t.Helper()
		now = now.Add(d)
		if ok := b.attempt(now); ok != wantOK || b.Level != wantLevel || b.RetryAfter(now) != wantRetry {
			t.Fatalf("at +%s: attempt = %v level %d retry %s; want %v level %d retry %s",
				now.Sub(t0), ok, b.Level, b.RetryAfter(now), wantOK, wantLevel, wantRetry)
		}
	}
	step(0, true, 0, 0)
	step(time.Minute, true, 0, 0)
	step(time.Minute, true, 0, 0)
	step(time.Minute, false, 1, time.Hour)       // the fourth: level 1
	step(30*time.Minute, false, 2, 24*time.Hour) // during level 1: level 2
	step(time.Hour, false, 3, -1)                // during level 2: level 3
	step(LevelMemory+time.Hour, false, 3, -1)    // level 3 never ends by itself
	b.lift()
	step(time.Minute, true, 0, 0)
}

// TestBanLadderAfterExpiry: once a level 1 ban has ended, three more
// unverified logins lead to level 2; a quiet month forgets the level; a
// login more than AttemptWindow after the last restarts the count.
func TestBanLadderAfterExpiry(t *testing.T) {
	b := &Ban{LastAttemptAt: t0}
	now := t0
	for range MaxUnverified {
		now = now.Add(time.Minute)
		if !b.attempt(now) {
			t.Fatal("refused before the limit")
		}
	}
	now = now.Add(time.Minute)
	if b.attempt(now) || b.Level != 1 {
		t.Fatalf("level %d after %d unverified logins, want 1", b.Level, MaxUnverified)
	}
	now = now.Add(Level1Ban + time.Minute)
	for range MaxUnverified {
		now = now.Add(time.Minute)
		if !b.attempt(now) {
			t.Fatalf("refused after the level 1 ban ended (level %d)", b.Level)
		}
	}
	now = now.Add(time.Minute)
	if b.attempt(now) || b.Level != 2 || b.RetryAfter(now) != Level2Ban {
		t.Fatalf("level %d retry %s, want level 2 for a day", b.Level, b.RetryAfter(now))
	}
	now = now.Add(LevelMemory + Level2Ban)
	if !b.attempt(now) || b.Level != 0 || b.Attempts != 1 {
		t.Fatalf("after a quiet month: level %d attempts %d, want 0 and 1", b.Level, b.Attempts)
	}
	b.attempt(now.Add(time.Minute))
	now = now.Add(time.Minute + AttemptWindow + time.Second)
	if !b.attempt(now) || b.Attempts != 1 {
		t.Fatalf("attempts %d after a quiet hour, want 1", b.Attempts)
	}
}

// TestBanProven: a message from the number ends its level 1 and 2 bans,
// not a level 3 one; a verified login restarts the count.
func TestBanProven(t *testing.T) {
	until := t0.Add(time.Hour)
	b := &Ban{Level: 2, BanUntil: &until, Attempts: 2}
	b.proven()
	if b.Active(t0) || b.Level != 0 || b.Attempts != 0 {
		t.Fatalf("after proof: %+v", b)
	}
	b = &Ban{Level: 3}
	b.proven()
	if !b.Active(t0) {
		t.Fatal("a level 3 ban ended by a message")
	}
	b = &Ban{Attempts: 3}
	b.verified()
	if b.Attempts != 0 {
		t.Fatal("verified login kept the count")
	}
}

// TestBanAddress: an address, shared by many customers, is banned after
// MaxUnverifiedAddress unverified logins, and never permanently.
func TestBanAddress(t *testing.T) {
	b := &Ban{BanKey: BanKey{Kind: BanAddress, Value: "198.51.100.7"}, LastAttemptAt: t0}
	now := t0
	for i := range MaxUnverifiedAddress {
		now = now.Add(time.Second)
		if !b.attempt(now) {
			t.Fatalf("attempt %d refused", i+1)
		}
	}
	if b.attempt(now.Add(time.Second)) || b.Level != 1 {
		t.Fatalf("level %d after %d unverified logins, want 1", b.Level, MaxUnverifiedAddress)
	}
	for range 5 { // attempts during the ban: level 2, no further
		now = now.Add(time.Minute)
		b.attempt(now)
	}
	if b.Level != 2 || b.RetryAfter(now) <= 0 {
		t.Fatalf("address level %d, want 2 (never permanent)", b.Level)
	}
}
