// Package throttle counts failed sign-ins per key (a client address, an
// address and a login) in the store, so that every portal instance sharing
// the store counts the same failures: guessing through several instances
// behind a load balancer gets no more tries than through one.
package throttle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// Window is a key's failures: how many since Start.
type Window struct {
	Count int
	Start time.Time
}

// Store keeps the failure windows. Both stores implement it (the storage
// conformance suite checks them).
type Store interface {
	// CountFailure counts one failure of key at now and returns the key's
	// window: a new one starting at now when the key has none, or when its
	// window began window or more before now.
	CountFailure(ctx context.Context, key string, now time.Time, window time.Duration) (Window, error)
	// FailureWindow returns the key's window, the zero Window when it has
	// none or when it began window or more before now.
	FailureWindow(ctx context.Context, key string, now time.Time, window time.Duration) (Window, error)
	// ClearFailures forgets the failures of key.
	ClearFailures(ctx context.Context, key string) error
	// PruneFailures removes the windows that began before before, and
	// returns how many.
	PruneFailures(ctx context.Context, before time.Time) (int, error)
}

// Limiter allows Max failures per key within Window, the keys named in a
// namespace of their own in the store.
type Limiter struct {
	store     Store
	namespace string
	max       int
	window    time.Duration
}

// NewLimiter returns a limiter of max failures per key in each window,
// keeping its keys in st under namespace (e.g. "operator-login").
func NewLimiter(st Store, namespace string, max int, window time.Duration) *Limiter {
	return &Limiter{store: st, namespace: namespace, max: max, window: window}
}

// Window returns the limiter's window.
func (l *Limiter) Window() time.Duration { return l.window }

// Blocked returns how long key must wait before it may try again, or 0.
func (l *Limiter) Blocked(ctx context.Context, key string, now time.Time) (time.Duration, error) {
	w, err := l.store.FailureWindow(ctx, l.key(key), now, l.window)
	if err != nil {
		return 0, fmt.Errorf("throttle: %w", err)
	}
	if w.Count < l.max {
		return 0, nil
	}
	return w.Start.Add(l.window).Sub(now), nil
}

// Fail counts one failure of key.
func (l *Limiter) Fail(ctx context.Context, key string, now time.Time) error {
	if _, err := l.store.CountFailure(ctx, l.key(key), now, l.window); err != nil {
		return fmt.Errorf("throttle: %w", err)
	}
	return nil
}

// Reset forgets the failures of key, after a success.
func (l *Limiter) Reset(ctx context.Context, key string) error {
	if err := l.store.ClearFailures(ctx, l.key(key)); err != nil {
		return fmt.Errorf("throttle: %w", err)
	}
	return nil
}

// key is key in the limiter's namespace, as it is stored: the namespace
// and a SHA-256 of key, so that whatever a client sends (any length, any
// byte) makes a short, printable key, and the store keeps no address or
// login in the clear.
func (l *Limiter) key(key string) string {
	sum := sha256.Sum256([]byte(key))
	return l.namespace + ":" + hex.EncodeToString(sum[:])
}

// PruneEvery is how often RunPrune removes old windows.
const PruneEvery = time.Hour

// RunPrune removes, every PruneEvery until ctx ends, the windows that began
// more than a day ago: no limiter's window is that long, and a spray of
// addresses must not grow the store for ever. Failures are logged by
// report.
func RunPrune(ctx context.Context, st Store, report func(error)) {
	t := time.NewTicker(PruneEvery)
	defer t.Stop()
	for {
		if _, err := st.PruneFailures(ctx, time.Now().Add(-24*time.Hour)); err != nil && ctx.Err() == nil {
			report(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
