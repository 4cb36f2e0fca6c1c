package storetest

import (
	"sync"
	"testing"

	"github.com/seedhq/portal/internal/ordering"
)

func testGate(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := s.UpdateGate(ctx, "shop", func(g *ordering.GateState) error {
				g.SentToday++
				g.Recent = append(g.Recent, ordering.TextSend{Hash: "h", To: "62812", At: ordT0})
				return nil
			}); err != nil {
				t.Errorf("UpdateGate: %v", err)
			}
		})
	}
	wg.Wait()
	g, err := s.UpdateGate(ctx, "shop", func(*ordering.GateState) error { return nil })
	mustOK(t, "UpdateGate", err)
	if g.Channel != "shop" || g.SentToday != 20 || len(g.Recent) != 20 {
		t.Fatalf("gate after 20 concurrent updates: %d sent, %d recent", g.SentToday, len(g.Recent))
	}
}
