package redirect

import (
	"sync"
	"time"
)

// limiter counts failures per key in fixed windows that start at a key's
// first failure: max failures within window block the key until the window
// ends. It lives in memory: each portal instance counts on its own.
type limiter struct {
	max    int
	window time.Duration

	mu sync.Mutex
	m  map[string]*failures
}

type failures struct {
	n     int
	start time.Time
}

// limiterSweep is the number of keys above which a failure sweeps out the
// ended windows.
const limiterSweep = 10000

func newLimiter(max int, window time.Duration) *limiter {
	return &limiter{max: max, window: window, m: make(map[string]*failures)}
}

// blocked reports whether key has used up its failures, and how long until
// its window ends.
func (l *limiter) blocked(key string, now time.Time) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ok := l.m[key]
	if !ok {
		return 0, false
	}
	end := f.start.Add(l.window)
	if !now.Before(end) {
		delete(l.m, key)
		return 0, false
	}
	if f.n < l.max {
		return 0, false
	}
	return end.Sub(now), true
}

// fail counts one failure of key.
func (l *limiter) fail(key string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ok := l.m[key]
	if !ok || !now.Before(f.start.Add(l.window)) {
		if len(l.m) >= limiterSweep {
			for k, f := range l.m {
				if !now.Before(f.start.Add(l.window)) {
					delete(l.m, k)
				}
			}
		}
		l.m[key] = &failures{n: 1, start: now}
		return
	}
	f.n++
}

// reset forgets key's failures.
func (l *limiter) reset(key string) {
	l.mu.Lock()
	delete(l.m, key)
	l.mu.Unlock()
}
