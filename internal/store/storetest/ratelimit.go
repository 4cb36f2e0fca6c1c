package storetest

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/links"
)

func testLinkRateLimit(t *testing.T, s links.Store) {
	ctx := t.Context()
	w := at(0).Truncate(time.Minute)
	for i := 1; i <= 4; i++ {
		n, err := s.HitRateLimit(ctx, "user:1", w, 3)
		mustOK(t, "HitRateLimit", err)
		check(t, "count", n, min(i, 4))
	}
	n, err := s.HitRateLimit(ctx, "user:1", w, 3)
	mustOK(t, "HitRateLimit", err)
	check(t, "count over the limit stays capped", n, 4)
	n, err = s.HitRateLimit(ctx, "user:2", w, 3)
	mustOK(t, "HitRateLimit", err)
	check(t, "another key's count", n, 1)
	n, err = s.HitRateLimit(ctx, "user:1", w.Add(time.Minute), 3)
	mustOK(t, "HitRateLimit", err)
	check(t, "next window's count", n, 1)
}
