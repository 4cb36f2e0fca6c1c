package ordering

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestGateSpacing: sends of a channel are 1.5 to 2.5 s apart; a send asked
// for sooner waits until the time given.
func TestGateSpacing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	g := &GateState{Channel: "shop", PairedAt: t0.Add(-60 * 24 * time.Hour)}
	now := t0
	var gaps []time.Duration
	last := now
	for i := range 200 {
		d, at := g.admit(fmt.Sprint("62812000", i), fmt.Sprint("order ", i), now, rng)
		if d == GateWait {
			if !at.After(now) {
				t.Fatalf("WAIT until %v, not after now %v", at, now)
			}
			now = at
			d, _ = g.admit(fmt.Sprint("62812000", i), fmt.Sprint("order ", i), now, rng)
		}
		if d != GateSend {
			t.Fatalf("send %d: %s", i, d)
		}
		if i > 0 {
			gaps = append(gaps, now.Sub(last))
		}
		last = now
		now = now.Add(10 * time.Millisecond) // asks again almost at once
	}
	lo, hi := time.Hour, time.Duration(0)
	for _, gap := range gaps {
		lo, hi = min(lo, gap), max(hi, gap)
	}
	if lo < SendSpacing-SendJitter || hi > SendSpacing+SendJitter || hi-lo < 500*time.Millisecond {
		t.Fatalf("gaps from %v to %v, want within 1.5..2.5 s and spread", lo, hi)
	}
}

// TestGateWarmup: a new channel sends 20 messages its first day, then is
// held until the next; the quota grows with the channel's age.
func TestGateWarmup(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := &GateState{Channel: "shop"}
	now := t0
	sent := 0
	for i := range 30 {
		d, at := g.admit(fmt.Sprint("6281200", i), fmt.Sprint("hello ", i), now, rng)
		if d == GateHold {
			if want := now.Truncate(24 * time.Hour).Add(24 * time.Hour); !at.Equal(want) {
				t.Fatalf("HOLD until %v, want the next UTC day %v", at, want)
			}
			break
		}
		if d != GateSend {
			t.Fatalf("send %d: %s", i, d)
		}
		sent++
		now = g.NextSendAt
	}
	if sent != 20 {
		t.Fatalf("a new channel sent %d messages on its first day, want 20", sent)
	}
	for age, want := range map[int]int{0: 20, 1: 20, 2: 50, 5: 100, 10: 250, 20: 500, 45: 1000} {
		if got := WarmupQuota(age); got != want {
			t.Errorf("WarmupQuota(%d) = %d, want %d", age, got, want)
		}
	}
	next := now.Truncate(24 * time.Hour).Add(24*time.Hour + time.Minute)
	if d, _ := g.admit("6281299", "a new day", next, rng); d != GateSend {
		t.Fatalf("the next day: %s", d)
	}
}

// TestGateBroadcast: the same text (whatever its case and spacing) to a
// sixth different number within a day is blocked; to a number it went to,
// or after a day, it may go.
func TestGateBroadcast(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	g := &GateState{Channel: "shop", PairedAt: t0.Add(-60 * 24 * time.Hour)}
	now := t0
	for i := range BroadcastLimit {
		if d, _ := g.admit(fmt.Sprint("628120000", i), "PROMO: diskon 50%!", now, rng); d != GateSend {
			t.Fatalf("send %d: %s", i, d)
		}
		now = g.NextSendAt
	}
	if d, _ := g.admit("6281299999", "promo:   DISKON 50%!", now, rng); d != GateBroadcast {
		t.Fatalf("sixth number: %s, want BROADCAST", d)
	}
	if d, _ := g.admit("6281200000", "PROMO: diskon 50%!", now, rng); d != GateSend {
		t.Fatalf("a number it went to: %s", d)
	}
	now = g.NextSendAt.Add(BroadcastWindow)
	if d, _ := g.admit("6281299999", "PROMO: diskon 50%!", now, rng); d != GateSend {
		t.Fatalf("a day later: %s", d)
	}
}
