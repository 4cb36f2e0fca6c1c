package exam

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"
)

// Heartbeats are written in groups, as a database writes its commits: a
// heartbeat joins the group being gathered, and a writer writes whole groups
// with one UpsertMonitors (one statement on PostgreSQL, one transaction and
// fsync on bbolt) while the next group gathers. There is no timer: at low
// rates a group holds one heartbeat and is written at once; under load the
// groups grow to what arrives while the writers are busy, so each
// heartbeat's wait stays near two writes, and the answer is sent only once
// its group is stored (a failed write fails every heartbeat of the group).
const (
	// maxBeatGroup bounds a group, so that one statement stays short.
	maxBeatGroup = 1000
	// maxBeatWriters bounds the groups written at once. One: with four,
	// groups held 3.6 heartbeats on average under load and PostgreSQL
	// heartbeats ran at ~19,000/s (p99 8.9 ms); with one they hold 15 and
	// run at ~23,000-25,000/s (p99 6.6-7.3 ms), the statements' fixed cost
	// spread over more rows (docs/benchmarks.md). On bbolt, whose writes
	// are serial anyway, 13,000/s became 16,300/s.
	maxBeatWriters = 1
	// beatWriteTimeout bounds one group's write; it does not depend on the
	// request that happened to start it.
	beatWriteTimeout = 10 * time.Second
)

// beatWriter gathers heartbeats into groups and writes them.
type beatWriter struct {
	store MonitorStore

	mu      sync.Mutex
	queue   []*beatGroup // full or gathering groups not yet taken by a writer, oldest first
	writers int          // writers running
}

// beatGroup is a group of heartbeats written together.
type beatGroup struct {
	monitors map[string]Monitor // by server code; a server's newer heartbeat replaces its older
	done     chan struct{}      // closed once written
	err      error              // the write's error, set before done is closed
}

// write stores m with the group it joins, and returns once that group is
// written (or ctx ends: m is then still written with its group).
func (w *beatWriter) write(ctx context.Context, m Monitor) error {
	w.mu.Lock()
	var g *beatGroup
	if n := len(w.queue); n > 0 && len(w.queue[n-1].monitors) < maxBeatGroup {
		g = w.queue[n-1]
	} else {
		g = &beatGroup{monitors: make(map[string]Monitor, 8), done: make(chan struct{})}
		w.queue = append(w.queue, g)
	}
	g.monitors[m.ServerCode] = m
	start := w.writers < maxBeatWriters
	if start {
		w.writers++
	}
	w.mu.Unlock()
	if start {
		go w.drain()
	}
	select {
	case <-g.done:
		return g.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// drain writes the queued groups, oldest first, until none is left.
func (w *beatWriter) drain() {
	for {
		w.mu.Lock()
		if len(w.queue) == 0 {
			w.writers--
			w.mu.Unlock()
			return
		}
		g := w.queue[0]
		w.queue[0] = nil
		w.queue = w.queue[1:]
		w.mu.Unlock()

		ctx, cancel := context.WithTimeout(context.Background(), beatWriteTimeout)
		g.err = w.store.UpsertMonitors(ctx, slices.Collect(maps.Values(g.monitors)))
		cancel()
		close(g.done)
	}
}
