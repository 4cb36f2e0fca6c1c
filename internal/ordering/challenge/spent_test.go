package challenge

import (
	"context"
	"strconv"
	"testing"
	"time"
)

func TestMemorySpent(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := NewMemorySpent()
	m.now = func() time.Time { return now }

	mark := func(id string, until time.Time, want bool) {
		t.Helper()
		fresh, err := m.MarkSpent(ctx, id, until)
		if err != nil {
			t.Fatalf("MarkSpent(%q): %v", id, err)
		}
		if fresh != want {
			t.Fatalf("MarkSpent(%q) fresh = %v, want %v", id, fresh, want)
		}
	}

	mark("a", now.Add(5*time.Minute), true)
	mark("a", now.Add(5*time.Minute), false)
	mark("b", now.Add(10*time.Minute), true)
	mark("past", now.Add(-time.Second), true)
	mark("past", now.Add(-time.Second), true)
	if n := len(m.until); n != 2 {
		t.Fatalf("%d records, want 2 (a record already past its until is not kept)", n)
	}

	// Past a's until it is fresh again, and the next sweep drops it.
	now = now.Add(5 * time.Minute)
	mark("a", now.Add(5*time.Minute), true)
	mark("b", now.Add(5*time.Minute), false)

	now = now.Add(10 * time.Minute)
	mark("c", now.Add(time.Minute), true)
	if n := len(m.until); n != 1 {
		t.Fatalf("%d records after the sweep, want 1 (only c)", n)
	}
}

func TestMemorySpentSweepsAtMostEveryMinute(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := NewMemorySpent()
	m.now = func() time.Time { return now }
	for i := range 100 {
		if _, err := m.MarkSpent(ctx, "id"+strconv.Itoa(i), now.Add(time.Second)); err != nil {
			t.Fatalf("MarkSpent: %v", err)
		}
	}
	now = now.Add(30 * time.Second)
	if _, err := m.MarkSpent(ctx, "x", now.Add(time.Second)); err != nil {
		t.Fatalf("MarkSpent: %v", err)
	}
	if n := len(m.until); n != 101 {
		t.Fatalf("%d records half a minute on, want 101 (no sweep yet)", n)
	}
	now = now.Add(31 * time.Second)
	if _, err := m.MarkSpent(ctx, "y", now.Add(time.Second)); err != nil {
		t.Fatalf("MarkSpent: %v", err)
	}
	if n := len(m.until); n != 1 {
		t.Fatalf("%d records after a minute, want 1 (only y)", n)
	}
}
