package exam

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/testkit"
)

// slowMonitors is a MonitorStore whose writes wait for release, counting
// the writes begun and the groups written.
type slowMonitors struct {
	MonitorStore
	release chan struct{}
	fail    error

	mu      sync.Mutex
	started int
	groups  [][]Monitor
}

func (s *slowMonitors) UpsertMonitors(ctx context.Context, ms []Monitor) error {
	s.mu.Lock()
	s.started++
	s.mu.Unlock()
	<-s.release
	s.mu.Lock()
	defer s.mu.Unlock()
	s.groups = append(s.groups, ms)
	return s.fail
}

func (s *slowMonitors) writesStarted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// TestBeatWriterGroups: heartbeats arriving while every writer is busy are
// written together, in one group; a server's newer heartbeat replaces its
// older one there; every heartbeat returns once its group is written.
func TestBeatWriterGroups(t *testing.T) {
	st := &slowMonitors{release: make(chan struct{})}
	w := &beatWriter{store: st}
	ctx := t.Context()
	var wg sync.WaitGroup
	write := func(m Monitor) {
		wg.Go(func() {
			if err := w.write(ctx, m); err != nil {
				t.Error(err)
			}
		})
	}
	// One at a time, heartbeats occupy every writer...
	for i := range maxBeatWriters {
		write(Monitor{ServerCode: fmt.Sprint("busy-", i)})
		testkit.Eventually(t, time.Minute, "the writers", func() bool { return st.writesStarted() == i+1 })
	}
	// ...so that the next ones gather in one group.
	const n = 50
	for i := range n {
		write(Monitor{ServerCode: fmt.Sprint("LAB-", i)})
	}
	gathered := func(cond func(g *beatGroup) bool) func() bool {
		return func() bool {
			w.mu.Lock()
			defer w.mu.Unlock()
			return len(w.queue) == 1 && cond(w.queue[0])
		}
	}
	testkit.Eventually(t, time.Minute, "the writers", gathered(func(g *beatGroup) bool { return len(g.monitors) == n }))
	write(Monitor{ServerCode: "LAB-0", ConnectedStudents: 99})
	testkit.Eventually(t, time.Minute, "the writers", gathered(func(g *beatGroup) bool { return g.monitors["LAB-0"].ConnectedStudents == 99 }))
	if started := st.writesStarted(); started != maxBeatWriters {
		t.Fatalf("%d writes begun, want %d (the writers' bound)", started, maxBeatWriters)
	}

	close(st.release)
	wg.Wait()
	if len(st.groups) != maxBeatWriters+1 {
		t.Fatalf("%d groups written, want %d", len(st.groups), maxBeatWriters+1)
	}
	var last []Monitor
	for _, g := range st.groups {
		if len(g) > len(last) {
			last = g
		}
	}
	if len(last) != n {
		t.Fatalf("the gathered group holds %d records, want %d", len(last), n)
	}
	for _, m := range last {
		if m.ServerCode == "LAB-0" && m.ConnectedStudents != 99 {
			t.Fatalf("LAB-0 written as %+v, want its newer heartbeat", m)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.writers != 0 || len(w.queue) != 0 {
		t.Fatalf("after the writes: %d writers, %d groups queued", w.writers, len(w.queue))
	}
}

// TestBeatWriterError: a failed write fails every heartbeat of its group,
// and a heartbeat whose request ends returns at once.
func TestBeatWriterError(t *testing.T) {
	st := &slowMonitors{release: make(chan struct{}), fail: errors.New("store down")}
	w := &beatWriter{store: st}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := w.write(ctx, Monitor{ServerCode: "LAB-1"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("write with an ended request: %v", err)
	}
	close(st.release)
	if err := w.write(t.Context(), Monitor{ServerCode: "LAB-2"}); !errors.Is(err, st.fail) {
		t.Fatalf("write to a failing store: %v", err)
	}
}
