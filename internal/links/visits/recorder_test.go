package visits

import (
	"context"
	"errors"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
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
	r := MustRecorder(t, sink, Options{QueueSize: 4, BatchSize: 1})
	stop := startRun(t, r)

	r.Record(hit(1))
	if n := recv(t, sink.entered); n != 1 { // the worker is now stuck in the sink
		t.Fatalf("first batch has %d visits", n)
	}
	for i := range 4 {
		r.Record(hit(int64(i + 2))) // fills the queue
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
	if got := r.Saved(); got != 5 {
		t.Errorf("Saved = %d, want the 5 accepted hits", got)
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
	r := MustRecorder(t, sink, Options{BatchSize: 3})
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
	r := MustRecorder(t, sink, Options{BatchSize: 4})
	manualTicker(r)
	for i := range 10 { // queued before Run starts
		r.Record(hit(int64(i)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Run(ctx); err != nil {
		t.Fatalf("Run: %v", err)
	}
	var n int
	for _, want := range []int{4, 4, 2} {
		b := recv(t, sink.ch)
		if len(b) != want {
			t.Fatalf("batch of %d, want %d", len(b), want)
		}
		n += len(b)
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
	r := MustRecorder(t, sink, Options{BatchSize: 2, ShutdownTimeout: 20 * time.Millisecond})
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
	r := MustRecorder(t, sink, Options{BatchSize: 2, RetryBackoff: time.Microsecond})
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
	if sink.Calls() != 3 || r.Failed() != 0 || r.Saved() != 2 {
		t.Errorf("calls %d Failed %d Saved %d, want 3, 0, 2", sink.Calls(), r.Failed(), r.Saved())
	}
}

func TestSinkFailureDropsBatch(t *testing.T) {
	ok := newChanSink(10)
	sink := &flakySink{failures: 3, ok: ok} // Retries 2: three attempts, all fail
	r := MustRecorder(t, sink, Options{BatchSize: 2, Retries: 2, RetryBackoff: time.Microsecond})
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
	if sink.Calls() != 4 || r.Failed() != 2 || r.Saved() != 2 {
		t.Errorf("calls %d Failed %d Saved %d, want 4, 2, 2", sink.Calls(), r.Failed(), r.Saved())
	}
}

func TestNoRetry(t *testing.T) {
	sink := &flakySink{failures: 1, ok: newChanSink(10)}
	r := MustRecorder(t, sink, Options{BatchSize: 1, Retries: -1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.Record(hit(1))
	if err := r.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if sink.Calls() != 1 || r.Failed() != 1 {
		t.Errorf("calls %d Failed %d, want 1 and 1", sink.Calls(), r.Failed())
	}
}

func TestRecordRunEndToEnd(t *testing.T) {
	sink := newChanSink(10)
	now := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)
	r := MustRecorder(t, sink, Options{CountryHeader: "CF-IPCountry", Now: func() time.Time { return now }})
	req := httptest.NewRequest("GET", "https://sho.rt/abc", nil)
	req.RemoteAddr = "198.51.100.7:54321"
	req.Header.Set("User-Agent", uaSafariIOS)
	req.Header.Set("Referer", "https://WWW.Instagram.com/p/xyz")
	req.Header.Set("Cf-Ipcountry", "ca")
	r.Record(r.Capture(req, KindQR, 5, 3))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Run(ctx); err != nil {
		t.Fatal(err)
	}
	b := recv(t, sink.ch)
	if len(b) != 1 {
		t.Fatalf("batch %+v", b)
	}
	got := b[0]
	if got.Visitor == "" {
		t.Error("no Visitor")
	}
	got.Visitor = ""
	want := Visit{Kind: KindQR, ID: 5, OwnerID: 3, At: now, Referrer: "instagram.com",
		Browser: "Safari", OS: "iOS", Country: "CA", Social: SocialInstagram}
	if got != want {
		t.Errorf("visit\n got %+v\nwant %+v", got, want)
	}
}

func TestCapture(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	withHeader := MustRecorder(t, nopSink{}, Options{CountryHeader: "cf-ipcountry", Now: func() time.Time { return at }})
	without := MustRecorder(t, nopSink{}, Options{Now: func() time.Time { return at }})
	req := httptest.NewRequest("GET", "/x", nil)
	req.RemoteAddr = "[2001:db8::5]:443"
	req.Header.Set("User-Agent", "UA")
	req.Header.Set("Referer", "https://ref.example/")
	req.Header.Set("CF-IPCountry", "DE")

	want := Hit{Kind: KindLink, ID: 1, OwnerID: 2, At: at, IP: netip.MustParseAddr("2001:db8::5"),
		UserAgent: "UA", Referer: "https://ref.example/", Country: "DE"}
	if got := withHeader.Capture(req, KindLink, 1, 2); got != want {
		t.Errorf("Capture with header\n got %+v\nwant %+v", got, want)
	}
	want.Country = ""
	if got := without.Capture(req, KindLink, 1, 2); got != want {
		t.Errorf("Capture without header\n got %+v\nwant %+v", got, want)
	}
	req.RemoteAddr = "192.0.2.3" // no port (some test servers and proxies)
	if got := without.Capture(req, KindLink, 1, 2); got.IP != netip.MustParseAddr("192.0.2.3") {
		t.Errorf("IP without port = %v", got.IP)
	}
	req.RemoteAddr = "@" // a unix socket: no address
	if got := without.Capture(req, KindLink, 1, 2); got.IP.IsValid() {
		t.Errorf("IP from %q = %v", req.RemoteAddr, got.IP)
	}
	if !raceEnabled {
		req.RemoteAddr = "192.0.2.3:1234"
		if n := testing.AllocsPerRun(200, func() { withHeader.Capture(req, KindLink, 1, 2) }); n != 0 {
			t.Errorf("Capture allocates %v times", n)
		}
	}
}

func TestShutdownDuringBackoff(t *testing.T) {
	sink := &flakySink{failures: 1 << 30, ok: newChanSink(1)}
	r := MustRecorder(t, sink, Options{BatchSize: 1, RetryBackoff: time.Hour, ShutdownTimeout: 10 * time.Millisecond})
	stop := startRun(t, r)
	r.Record(hit(1))
	for sink.Calls() == 0 { // the worker is now waiting an hour to retry
		time.Sleep(time.Millisecond)
	}
	if err := stop(); !errors.Is(err, ErrFlushIncomplete) {
		t.Fatalf("Run: %v, want ErrFlushIncomplete", err)
	}
	if r.Failed() != 1 || sink.Calls() != 1 {
		t.Errorf("Failed %d calls %d, want 1 and 1", r.Failed(), sink.Calls())
	}
}
