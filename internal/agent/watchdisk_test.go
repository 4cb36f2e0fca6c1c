package agent

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/testkit"
)

// TestWatchDisk: a warning when the disk gets low, not repeated while it
// stays low (within the hour), again after it recovered and got low again,
// and one when the free space cannot be read.
func TestWatchDisk(t *testing.T) {
	var mu sync.Mutex
	space, readErr := localdb.Space{FreeBytes: 10 << 30}, error(nil)
	checks := 0
	set := func(s localdb.Space, err error) { mu.Lock(); space, readErr = s, err; mu.Unlock() }
	free := func() (localdb.Space, error) {
		mu.Lock()
		defer mu.Unlock()
		checks++
		return space, readErr
	}
	// seen waits until the watcher has checked a few more times.
	seen := func() {
		t.Helper()
		mu.Lock()
		want := checks + 5
		mu.Unlock()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			mu.Lock()
			n := checks
			mu.Unlock()
			if n >= want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the watcher stopped checking")
			}
		}
	}
	var out testkit.Buffer
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { watchDisk(ctx, free, slog.New(slog.NewTextHandler(&out, nil)), time.Millisecond); close(done) }()
	defer func() { cancel(); <-done }()

	count := func(s string) int { return strings.Count(out.String(), s) }
	waitFor := func(s string, n int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); count(s) < n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %d × %q; log:\n%s", n, s, out.String())
			}
		}
		seen() // more checks: no more warnings
		if got := count(s); got != n {
			t.Fatalf("%d × %q, want %d; log:\n%s", got, s, n, out.String())
		}
	}
	const low, unread = "nearly full", "cannot read the free disk space"

	seen()
	if out.String() != "" {
		t.Fatalf("warned with plenty of space:\n%s", out.String())
	}
	set(localdb.Space{FreeBytes: 100 << 20, Low: true}, nil)
	waitFor(low, 1) // once, not at every check
	set(localdb.Space{FreeBytes: 10 << 30}, nil)
	seen()
	set(localdb.Space{FreeBytes: 50 << 20, Low: true}, nil)
	waitFor(low, 2) // low again after it recovered
	set(localdb.Space{FreeBytes: 10 << 30}, nil)
	seen()
	set(localdb.Space{}, errors.New("statfs: input/output error"))
	waitFor(unread, 1)
}
