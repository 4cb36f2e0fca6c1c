package redirect

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/links"
)

// TestCacheInvalidate: an invalidation drops kept results, found and not
// found, and a look-up that was in flight when it came is not kept (it
// may have read what the write replaced).
func TestCacheInvalidate(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	c := newCache[string, int](time.Hour, 10, func() time.Time { return now })
	loads := 0
	load := func(v int, err error) func() (int, error) {
		return func() (int, error) { loads++; return v, err }
	}
	c.get("a", load(1, nil))
	c.get("b", load(0, links.ErrNotFound))
	if v, _ := c.get("a", load(9, nil)); v != 1 || loads != 2 {
		t.Fatalf("a kept value: %d after %d loads", v, loads)
	}
	c.invalidate()
	if v, err := c.get("b", load(2, nil)); v != 2 || err != nil || loads != 3 {
		t.Fatalf("b after invalidate: %d, %v after %d loads, want the new value", v, err, loads)
	}
	// A load during which an invalidation happens is answered but not kept.
	c.get("c", func() (int, error) { c.invalidate(); return 3, nil })
	if v, _ := c.get("c", load(4, nil)); v != 4 {
		t.Fatalf("c = %d: a look-up overtaken by an invalidation was kept", v)
	}
	var none *cache[string, int]
	none.invalidate() // a disabled cache has nothing to drop
}
