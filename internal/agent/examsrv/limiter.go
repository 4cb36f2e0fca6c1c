package examsrv

import (
	"sync"
	"time"
)

// loginLimiter counts failed sign-ins per key (a client address, an address
// and a username) in a fixed window, in the process's memory: labagent is
// the only process serving its students' sign-ins. (The portal counts its
// own in its store, shared by every instance.)
type loginLimiter struct {
	max    int
	window time.Duration
	mu     sync.Mutex
	fails  map[string]*failWindow
}

type failWindow struct {
	count int
	start time.Time
}

// newLoginLimiter allows max failures per key in each window.
func newLoginLimiter(max int, window time.Duration) *loginLimiter {
	return &loginLimiter{max: max, window: window, fails: map[string]*failWindow{}}
}

// Blocked returns how long key must wait, or 0 when it may try.
func (l *loginLimiter) Blocked(addr string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ok := l.fails[addr]
	if !ok {
		return 0
	}
	if now.Sub(f.start) >= l.window {
		delete(l.fails, addr)
		return 0
	}
	if f.count < l.max {
		return 0
	}
	return f.start.Add(l.window).Sub(now)
}

// Fail counts one failure of addr.
func (l *loginLimiter) Fail(addr string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ok := l.fails[addr]
	if !ok || now.Sub(f.start) >= l.window {
		if len(l.fails) > 100_000 { // bound memory under a spray of addresses
			for k, v := range l.fails {
				if now.Sub(v.start) >= l.window {
					delete(l.fails, k)
				}
			}
		}
		l.fails[addr] = &failWindow{count: 1, start: now}
		return
	}
	f.count++
}

// Blocking returns every key blocked at now, with the time its block ends.
func (l *loginLimiter) Blocking(now time.Time) map[string]time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]time.Time{}
	for k, f := range l.fails {
		if f.count >= l.max && now.Sub(f.start) < l.window {
			out[k] = f.start.Add(l.window)
		}
	}
	return out
}

// Reset forgets the failures of addr, after a success.
func (l *loginLimiter) Reset(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.fails, addr)
}
