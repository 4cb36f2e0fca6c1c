package visits

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/testkit"
)

func hit(id int64) Hit {
	return Hit{
		Kind: KindLink, ID: id, OwnerID: 1,
		At:        time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC),
		IP:        netip.MustParseAddr("192.0.2.10"),
		UserAgent: uaChromeWindows,
		Referer:   "https://www.example.com/page",
	}
}

func TestRecordNeverBlocks(t *testing.T) {
	sink := newBlockingSink()
	r := MustRecorder(t, sink, Options{QueueSize: 4, BatchSize: 1, MaxBatchSize: 1, Writers: 1})
	stop := startRun(t, r)

	r.Record(hit(1))
	if n := recv(t, sink.entered); n != 1 { // the flusher is now stuck in the sink
		t.Fatalf("first batch has %d visits", n)
	}
	r.Record(hit(2)) // taken by the worker, which waits for the flusher
	waitQueueEmpty(t, r)
	for i := range 4 {
		r.Record(hit(int64(i + 3))) // fills the queue
	}
	if got := r.Dropped(); got != 0 {
		t.Fatalf("Dropped = %d before the queue was full", got)
	}
	returned := make(chan struct{})
	go func() {
		for i := range 10 {
			r.Record(hit(int64(i + 10)))
		}
		close(returned)
	}()
	recv(t, returned) // Record returned although the queue is full and the sink blocks
	if got := r.Dropped(); got != 10 {
		t.Errorf("Dropped = %d, want 10", got)
	}

	close(sink.release)
	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := r.Saved(); got != 6 {
		t.Errorf("Saved = %d, want the 6 accepted hits", got)
	}
}

// TestBatchGrowsWhileSaving: while a batch is being saved, the next one
// keeps growing past BatchSize, up to MaxBatchSize; then the worker waits.
// Nothing is lost or saved twice.
func TestBatchGrowsWhileSaving(t *testing.T) {
	sink := newBlockingSink()
	r := MustRecorder(t, sink, Options{BatchSize: 2, MaxBatchSize: 5, Writers: 1})
	manualTicker(r)
	stop := startRun(t, r)
	r.Record(hit(0))
	r.Record(hit(1))
	if n := recv(t, sink.entered); n != 2 { // the first batch is stuck in the sink
		t.Fatalf("first batch of %d, want 2", n)
	}
	for i := range 8 {
		r.Record(hit(int64(i + 2)))
	}
	// The worker takes 5 and waits for the flusher: 3 stay queued.
	for deadline := time.Now().Add(10 * time.Second); r.Queued() != 3; runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatalf("%d queued, want 3 once the next batch is full", r.Queued())
		}
	}
	close(sink.release)
	if n := recv(t, sink.entered); n != 5 {
		t.Fatalf("second batch of %d, want MaxBatchSize (5)", n)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if r.Saved() != 10 || r.Dropped() != 0 || r.Failed() != 0 {
		t.Errorf("Saved %d Dropped %d Failed %d, want 10, 0, 0", r.Saved(), r.Dropped(), r.Failed())
	}
	seen := map[int64]bool{}
	for _, v := range sink.saved {
		if seen[v.ID] {
			t.Errorf("visit %d saved twice", v.ID)
		}
		seen[v.ID] = true
	}
}

// TestWritersSaveInParallel: with two writers, a second batch is saved
// while the first is still in the store, and a third waits for one of them.
func TestWritersSaveInParallel(t *testing.T) {
	sink := newBlockingSink()
	r := MustRecorder(t, sink, Options{BatchSize: 2, MaxBatchSize: 2, Writers: 2})
	manualTicker(r)
	stop := startRun(t, r)
	for i := range 6 {
		r.Record(hit(int64(i)))
	}
	for range 2 {
		if n := recv(t, sink.entered); n != 2 {
			t.Fatalf("batch of %d, want 2", n)
		}
	}
	select {
	case n := <-sink.entered:
		t.Fatalf("a third batch (%d) entered while both writers were busy", n)
	case <-time.After(50 * time.Millisecond):
	}
	close(sink.release)
	if n := recv(t, sink.entered); n != 2 {
		t.Fatalf("third batch of %d, want 2", n)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if r.Saved() != 6 {
		t.Errorf("Saved %d, want 6", r.Saved())
	}
}

// TestTickWhileSaving: a tick that finds the previous batch still being
// saved does not lose its turn: the batch goes as soon as the save ends,
// with no further tick (TestFlushInterval failed under load when it did).
func TestTickWhileSaving(t *testing.T) {
	sink := newBlockingSink()
	r := MustRecorder(t, sink, Options{BatchSize: 100, Writers: 1})
	tick := manualTicker(r)
	stop := startRun(t, r)
	r.Record(hit(0))
	waitQueueEmpty(t, r)
	tick <- time.Time{}
	if n := recv(t, sink.entered); n != 1 { // stuck in the sink
		t.Fatalf("first batch of %d, want 1", n)
	}
	r.Record(hit(1))
	waitQueueEmpty(t, r)
	tick <- time.Time{} // the flusher is busy
	close(sink.release)
	if n := recv(t, sink.entered); n != 1 {
		t.Fatalf("second batch of %d, want 1", n)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if r.Saved() != 2 {
		t.Errorf("Saved %d, want 2", r.Saved())
	}
}

func TestRecordDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	r := MustRecorder(t, nopSink{}, Options{QueueSize: 1 << 10})
	h := hit(1)
	if n := testing.AllocsPerRun(500, func() { r.Record(h) }); n != 0 {
		t.Errorf("Record allocates %v times per call", n)
	}
	h.At = time.Time{} // stamped by Record
	if n := testing.AllocsPerRun(500, func() { r.Record(h) }); n != 0 {
		t.Errorf("Record with a zero At allocates %v times per call", n)
	}
}

func TestBatchSize(t *testing.T) {
	sink := newChanSink(10)
	r := MustRecorder(t, sink, Options{BatchSize: 3, MaxBatchSize: 3})
	manualTicker(r) // never fires: only size and shutdown flush
	stop := startRun(t, r)
	for i := range 7 {
		r.Record(hit(int64(i)))
	}
	for _, want := range []int{3, 3} {
		if b := recv(t, sink.ch); len(b) != want {
			t.Fatalf("batch of %d, want %d", len(b), want)
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if b := recv(t, sink.ch); len(b) != 1 || b[0].ID != 6 {
		t.Fatalf("shutdown batch %+v, want the 7th visit", b)
	}
	if r.Saved() != 7 || r.Dropped() != 0 || r.Failed() != 0 {
		t.Errorf("Saved %d Dropped %d Failed %d", r.Saved(), r.Dropped(), r.Failed())
	}
}

func TestFlushInterval(t *testing.T) {
	sink := newChanSink(10)
	r := MustRecorder(t, sink, Options{BatchSize: 100})
	tick := manualTicker(r)
	startRun(t, r)

	tick <- time.Time{} // an empty batch is not written
	for i := range 2 {
		r.Record(hit(int64(i)))
	}
	waitQueueEmpty(t, r)
	tick <- time.Time{}
	if b := recv(t, sink.ch); len(b) != 2 {
		t.Fatalf("tick flushed %d visits, want 2", len(b))
	}
	r.Record(hit(9))
	waitQueueEmpty(t, r)
	tick <- time.Time{}
	if b := recv(t, sink.ch); len(b) != 1 || b[0].ID != 9 {
		t.Fatalf("second tick flushed %+v", b)
	}
	select {
	case b := <-sink.ch:
		t.Fatalf("unexpected batch %+v", b)
	default:
	}
}

func TestFlushIntervalRealTicker(t *testing.T) {
	sink := newChanSink(10)
	r := MustRecorder(t, sink, Options{BatchSize: 100, FlushInterval: time.Millisecond})
	startRun(t, r)
	r.Record(hit(1))
	if b := recv(t, sink.ch); len(b) != 1 {
		t.Fatalf("batch of %d", len(b))
	}
}

func TestFlushOnShutdown(t *testing.T) {
	sink := newChanSink(10)
	r := MustRecorder(t, sink, Options{BatchSize: 4, MaxBatchSize: 4})
	manualTicker(r)
	for i := range 10 { // queued before Run starts
		r.Record(hit(int64(i)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Run(ctx); err != nil {
		t.Fatalf("Run: %v", err)
	}
	// Writers save in parallel: the batches may arrive in any order.
	var n int
	var sizes []int
	for range 3 {
		b := recv(t, sink.ch)
		sizes = append(sizes, len(b))
		n += len(b)
	}
	if slices.Sort(sizes); !slices.Equal(sizes, []int{2, 4, 4}) {
		t.Fatalf("batches of %v, want 4, 4 and 2", sizes)
	}
	if n != 10 || r.Saved() != 10 {
		t.Errorf("saved %d (Saved %d), want 10", n, r.Saved())
	}
	r.Record(hit(99)) // after Run returned: dropped, never queued
	if r.Dropped() != 1 || r.Queued() != 0 {
		t.Errorf("after shutdown: Dropped %d Queued %d", r.Dropped(), r.Queued())
	}
}

func TestCloseStopsRun(t *testing.T) {
	sink := newChanSink(10)
	r := MustRecorder(t, sink, Options{})
	manualTicker(r)
	errc := make(chan error, 1)
	go func() { errc <- r.Run(context.Background()) }()
	r.Record(hit(1))
	r.Record(hit(2))
	waitQueueEmpty(t, r)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, errc); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if b := recv(t, sink.ch); len(b) != 2 {
		t.Fatalf("Close flushed %d visits, want 2", len(b))
	}
	if err := r.Run(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCloseWithoutRun(t *testing.T) {
	r := MustRecorder(t, nopSink{}, Options{})
	r.Record(hit(1))
	r.Close()
	r.Record(hit(2))
	if r.Dropped() != 2 {
		t.Errorf("Dropped = %d, want 2", r.Dropped())
	}
}

func TestRunTwice(t *testing.T) {
	r := MustRecorder(t, nopSink{}, Options{})
	startRun(t, r)
	// The first Run may not have started yet; wait until it has.
	for {
		r.mu.Lock()
		started := r.started
		r.mu.Unlock()
		if started {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err := r.Run(context.Background()); !errors.Is(err, ErrRunning) {
		t.Errorf("second Run: %v", err)
	}
}

func TestShutdownBudget(t *testing.T) {
	sink := newBlockingSink() // never released: only the shutdown budget ends it
	r := MustRecorder(t, sink, Options{BatchSize: 2, MaxBatchSize: 2, ShutdownTimeout: 20 * time.Millisecond})
	manualTicker(r)
	stop := startRun(t, r)
	for i := range 5 {
		r.Record(hit(int64(i)))
	}
	recv(t, sink.entered) // the first batch of 2 is stuck in the sink
	err := stop()
	if !errors.Is(err, ErrFlushIncomplete) {
		t.Fatalf("Run: %v, want ErrFlushIncomplete", err)
	}
	if r.Failed() != 5 || r.Saved() != 0 {
		t.Errorf("Failed %d Saved %d, want 5 and 0", r.Failed(), r.Saved())
	}
}

func TestSinkRetry(t *testing.T) {
	ok := newChanSink(10)
	sink := &flakySink{failures: 2, ok: ok}
	r := MustRecorder(t, sink, Options{BatchSize: 2, MaxBatchSize: 2, RetryBackoff: time.Microsecond})
	manualTicker(r)
	stop := startRun(t, r)
	r.Record(hit(1))
	r.Record(hit(2))
	if b := recv(t, ok.ch); len(b) != 2 {
		t.Fatalf("batch of %d", len(b))
	}
	if err := stop(); err != nil { // counters are final once Run returns
		t.Fatal(err)
	}
	if sink.Calls() != 3 || r.Failed() != 0 || r.Saved() != 2 || r.BatchFailures() != 2 {
		t.Errorf("calls %d Failed %d Saved %d BatchFailures %d, want 3, 0, 2, 2", sink.Calls(), r.Failed(), r.Saved(), r.BatchFailures())
	}
}

func TestSinkFailureDropsBatch(t *testing.T) {
	ok := newChanSink(10)
	sink := &flakySink{failures: 3, ok: ok} // Retries 2: three attempts, all fail
	r := MustRecorder(t, sink, Options{BatchSize: 2, MaxBatchSize: 2, Retries: 2, RetryBackoff: time.Microsecond, Writers: 1})
	manualTicker(r)
	stop := startRun(t, r)
	for i := range 4 {
		r.Record(hit(int64(i)))
	}
	b := recv(t, ok.ch) // the worker went on with the next batch
	if len(b) != 2 || b[0].ID != 2 {
		t.Fatalf("next batch %+v", b)
	}
	if err := stop(); err != nil { // counters are final once Run returns
		t.Fatal(err)
	}
	if sink.Calls() != 4 || r.Failed() != 2 || r.Saved() != 2 || r.BatchFailures() != 3 {
		t.Errorf("calls %d Failed %d Saved %d BatchFailures %d, want 4, 2, 2, 3", sink.Calls(), r.Failed(), r.Saved(), r.BatchFailures())
	}
}

// TestDropWarning: while hits are dropped, a warning is logged at once and
// then at most every 10 seconds, with the number dropped since the last one.
func TestDropWarning(t *testing.T) {
	var logs testkit.Buffer
	var mu sync.Mutex
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	r := MustRecorder(t, newChanSink(1), Options{QueueSize: 1, Now: clock,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	warnings := func() []string {
		var out []string
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, "clicks dropped") {
				out = append(out, l)
			}
		}
		return out
	}
	r.Record(hit(1)) // queued (Run is not running: nothing leaves the queue)
	for i := range 5 {
		r.Record(hit(int64(i + 2)))
	}
	if w := warnings(); r.Dropped() != 5 || len(w) != 1 || !strings.Contains(w[0], "dropped=1 ") {
		t.Fatalf("Dropped %d, warnings %q; want 5 and one warning of the first", r.Dropped(), w)
	}
	mu.Lock()
	now = now.Add(10 * time.Second)
	mu.Unlock()
	r.Record(hit(9))
	if w := warnings(); len(w) != 2 || !strings.Contains(w[1], "dropped=5 ") || !strings.Contains(w[1], "dropped_total=6") {
		t.Fatalf("warnings %q; want a second one 10 s later counting the 5 since", w)
	}
}
