package storetest

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/ordering"
)

func testOrderingSpent(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	until := time.Now().Add(time.Hour)
	var fresh atomic.Int32
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			ok, err := s.MarkSpent(ctx, "webhook:msg_1", until)
			if err != nil {
				t.Errorf("MarkSpent: %v", err)
			}
			if ok {
				fresh.Add(1)
			}
		})
	}
	wg.Wait()
	if fresh.Load() != 1 {
		t.Fatalf("%d of 10 concurrent MarkSpent got true, want 1", fresh.Load())
	}
	if ok, err := s.MarkSpent(ctx, "webhook:msg_2", until); err != nil || !ok {
		t.Fatalf("MarkSpent other key: %v %v", ok, err)
	}
	// An unmarked key may be used again.
	mustOK(t, "UnmarkSpent", s.UnmarkSpent(ctx, "webhook:msg_2"))
	if ok, err := s.MarkSpent(ctx, "webhook:msg_2", until); err != nil || !ok {
		t.Fatalf("MarkSpent after UnmarkSpent: %v %v, want true", ok, err)
	}
}
