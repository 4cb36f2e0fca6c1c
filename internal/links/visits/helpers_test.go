package visits

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

var testSecret = []byte("0123456789abcdef-test-secret")

// MustRecorder returns a Recorder over sink with the test secret, closed at
// the end of the test.
func MustRecorder(t testing.TB, sink Sink, o Options) *Recorder {
	t.Helper()
	if o.Secret == nil {
		o.Secret = testSecret
	}
	r, err := NewRecorder(sink, o)
	if err != nil {
		t.Fatalf("NewRecorder: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// manualTicker makes r's flush ticker fire only when the test sends on the
// returned channel.
func manualTicker(r *Recorder) chan time.Time {
	ch := make(chan time.Time)
	r.newTicker = func(time.Duration) (<-chan time.Time, func()) { return ch, func() {} }
	return ch
}

// startRun runs r.Run in a goroutine; the returned stop cancels it and
// returns Run's error.
func startRun(t *testing.T, r *Recorder) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- r.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			err = recv(t, errc)
		})
		return err
	}
	t.Cleanup(func() { stop() })
	return stop
}

// recv receives from ch; the timeout only keeps a broken test from hanging.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting on a channel")
		panic("unreachable")
	}
}

// waitQueueEmpty waits until the worker has taken every queued hit. The
// worker appends a hit to its batch before it selects again, so a later
// unbuffered send to it (a tick) happens after the append.
func waitQueueEmpty(t *testing.T, r *Recorder) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for r.Queued() > 0 {
		if time.Now().After(deadline) {
			t.Fatal("queue never drained")
		}
		runtime.Gosched()
	}
}

// chanSink sends a copy of each batch on ch.
type chanSink struct{ ch chan []Visit }

func newChanSink(n int) *chanSink { return &chanSink{ch: make(chan []Visit, n)} }

func (s *chanSink) SaveVisits(_ context.Context, vs []Visit) error {
	s.ch <- slices.Clone(vs)
	return nil
}

// blockingSink blocks every call until release is closed or ctx ends,
// announcing each call on entered.
type blockingSink struct {
	entered chan int
	release chan struct{}
	mu      sync.Mutex
	saved   []Visit
}

func newBlockingSink() *blockingSink {
	return &blockingSink{entered: make(chan int, 100), release: make(chan struct{})}
}

func (s *blockingSink) SaveVisits(ctx context.Context, vs []Visit) error {
	s.entered <- len(vs)
	select {
	case <-s.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.mu.Lock()
	s.saved = append(s.saved, vs...)
	s.mu.Unlock()
	return nil
}

// flakySink fails the first failures calls, then behaves as a chanSink.
type flakySink struct {
	mu       sync.Mutex
	failures int
	calls    int
	ok       *chanSink
}

var errFlaky = errors.New("store unavailable")

func (s *flakySink) SaveVisits(ctx context.Context, vs []Visit) error {
	s.mu.Lock()
	s.calls++
	fail := s.calls <= s.failures
	s.mu.Unlock()
	if fail {
		return errFlaky
	}
	return s.ok.SaveVisits(ctx, vs)
}

func (s *flakySink) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// nopSink accepts everything.
type nopSink struct{}

func (nopSink) SaveVisits(context.Context, []Visit) error { return nil }
