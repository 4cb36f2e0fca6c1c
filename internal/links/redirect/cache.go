package redirect

import (
	"errors"
	"sync"
	"time"

	"github.com/seedhq/portal/internal/links"
)

// cache keeps look-up results (values and not-found answers) for a short
// time, until invalidate drops them. A nil *cache, or one with a zero ttl,
// calls through.
type cache[K comparable, V any] struct {
	ttl  time.Duration
	size int
	now  func() time.Time

	mu sync.RWMutex
	m  map[K]entry[V]
	// gen counts the invalidations: a look-up that began before one is not
	// kept, since it may have read what the write replaced.
	gen uint64
}

type entry[V any] struct {
	v        V
	notFound bool
	exp      time.Time
}

func newCache[K comparable, V any](ttl time.Duration, size int, now func() time.Time) *cache[K, V] {
	if ttl <= 0 {
		return nil
	}
	return &cache[K, V]{ttl: ttl, size: size, now: now, m: make(map[K]entry[V])}
}

// get returns the cached result of k or calls load and keeps its result
// (other errors than not-found are not kept).
func (c *cache[K, V]) get(k K, load func() (V, error)) (V, error) {
	if c == nil {
		return load()
	}
	now := c.now()
	c.mu.RLock()
	e, ok := c.m[k]
	gen := c.gen
	c.mu.RUnlock()
	if ok && now.Before(e.exp) {
		if e.notFound {
			var zero V
			return zero, links.ErrNotFound
		}
		return e.v, nil
	}
	v, err := load()
	if err != nil && !errors.Is(err, links.ErrNotFound) {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return v, err
	}
	if len(c.m) >= c.size {
		// Drop the expired entries, and everything when none is.
		for k, e := range c.m {
			if !now.Before(e.exp) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= c.size {
			clear(c.m)
		}
	}
	c.m[k] = entry[V]{v: v, notFound: err != nil, exp: now.Add(c.ttl)}
	return v, err
}

// invalidate drops every kept result, and keeps none of the look-ups in
// flight.
func (c *cache[K, V]) invalidate() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.gen++
	clear(c.m)
	c.mu.Unlock()
}
