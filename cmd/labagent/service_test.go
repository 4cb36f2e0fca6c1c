package main

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// states records what serveService reports.
type states struct {
	mu  sync.Mutex
	got []svcState
}

func (s *states) report(st svcState) { s.mu.Lock(); s.got = append(s.got, st); s.mu.Unlock() }
func (s *states) all() []svcState    { s.mu.Lock(); defer s.mu.Unlock(); return slices.Clone(s.got) }

func TestServeServiceStop(t *testing.T) {
	requests := make(chan svcRequest)
	var st states
	stopped := make(chan struct{})
	result := make(chan int, 1)
	go func() {
		result <- serveService(func(ctx context.Context) int {
			<-ctx.Done()
			close(stopped)
			return 0
		}, requests, st.report)
	}()
	requests <- svcInterrogate
	select {
	case <-stopped:
		t.Fatal("the daemon stopped before a stop request")
	default:
	}
	requests <- svcStop
	select {
	case code := <-result:
		if code != 0 {
			t.Errorf("exit code %d after a requested stop, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serveService did not return after a stop request")
	}
	if want := []svcState{svcStarting, svcRunning, svcRunning, svcStopping}; !slices.Equal(st.all(), want) {
		t.Errorf("reported %v, want %v", st.all(), want)
	}
}

func TestServeServiceDaemonFails(t *testing.T) {
	var st states
	// The daemon fails on its own (no enrolment, say): its exit code is the
	// service's, so that the service manager's recovery actions apply.
	code := serveService(func(context.Context) int { return 1 }, make(chan svcRequest), st.report)
	if code != 1 {
		t.Errorf("exit code %d, want the daemon's 1", code)
	}
	if want := []svcState{svcStarting, svcRunning}; !slices.Equal(st.all(), want) {
		t.Errorf("reported %v, want %v", st.all(), want)
	}
}

func TestServeServiceStopTwice(t *testing.T) {
	requests := make(chan svcRequest, 2)
	var st states
	release := make(chan struct{})
	result := make(chan int, 1)
	go func() {
		result <- serveService(func(ctx context.Context) int {
			<-ctx.Done()
			<-release // a slow shutdown: a second stop arrives meanwhile
			return 0
		}, requests, st.report)
	}()
	requests <- svcStop
	requests <- svcStop
	// Both requests are taken before the daemon may finish.
	for deadline := time.Now().Add(10 * time.Second); len(requests) > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("stop requests not taken")
		}
	}
	close(release)
	if code := <-result; code != 0 {
		t.Errorf("exit code %d", code)
	}
	if want := []svcState{svcStarting, svcRunning, svcStopping}; !slices.Equal(st.all(), want) {
		t.Errorf("reported %v, want one stopping: %v", st.all(), want)
	}
}
