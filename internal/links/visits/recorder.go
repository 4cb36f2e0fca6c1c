package visits

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/textproto"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oschwald/maxminddb-golang/v2"
)

// Defaults for the zero values of Options.
const (
	DefaultBatchSize       = 512
	DefaultMaxBatchSize    = 8192
	DefaultWriters         = 2
	DefaultFlushInterval   = time.Second
	DefaultQueueSize       = 65536
	DefaultRetries         = 3
	DefaultRetryBackoff    = 100 * time.Millisecond
	DefaultShutdownTimeout = 5 * time.Second
)

// pollInterval is the worker's pause between rounds while hits keep coming.
const pollInterval = 5 * time.Millisecond

// dropWarnInterval is the shortest time between two warnings that hits are
// being dropped: the log says so while it lasts, without a line per hit.
const dropWarnInterval = 10 * time.Second

// MinSecretLen is the shortest Options.Secret accepted.
const MinSecretLen = 16

// Errors returned by Recorder.Run.
var (
	// ErrClosed is returned by Run after Close.
	ErrClosed = errors.New("visits: recorder closed")
	// ErrRunning is returned by a second call of Run.
	ErrRunning = errors.New("visits: recorder already running")
	// ErrFlushIncomplete is returned (wrapped) by Run when the shutdown
	// budget (Options.ShutdownTimeout) ran out and visits were given up.
	ErrFlushIncomplete = errors.New("visits: shutdown flush incomplete")
)

// Options configure a Recorder. Zero values take the defaults.
type Options struct {
	// Secret keys the visitor hash (at least MinSecretLen bytes; required).
	// Every portal instance sharing a store must use the same secret.
	Secret []byte
	// BatchSize is the number of visits that makes a batch ready to save
	// (DefaultBatchSize). While the previous batch is still being saved,
	// the next one keeps growing, up to MaxBatchSize: under a burst the
	// store gets fewer, larger writes instead of falling behind.
	BatchSize int
	// MaxBatchSize is the most visits per SaveVisits call
	// (DefaultMaxBatchSize; at least BatchSize).
	MaxBatchSize int
	// Writers is the number of batches saved at once (DefaultWriters): a
	// store with several connections (PostgreSQL) writes them in parallel,
	// so that its latency under load does not cap the recording rate.
	Writers int
	// FlushInterval is the longest a visit waits in a partial batch
	// (DefaultFlushInterval).
	FlushInterval time.Duration
	// QueueSize is the number of hits the queue holds before Record drops
	// (DefaultQueueSize).
	QueueSize int
	// CountryHeader names a request header set by a trusted proxy with the
	// client's ISO country code (e.g. "CF-IPCountry"). Empty means no header
	// is trusted and Hit.Country is ignored.
	CountryHeader string
	// GeoIPPath is an optional GeoLite2/GeoIP2 Country or City .mmdb file,
	// used when the country header is not configured or has no valid value.
	GeoIPPath string
	// Logger receives sink errors and shutdown reports (nil: discarded).
	Logger *slog.Logger
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Retries is how many times a failed batch is retried before it is
	// dropped: 0 means DefaultRetries, a negative value means no retry.
	Retries int
	// RetryBackoff is the wait before the first retry, doubled for each
	// further retry (DefaultRetryBackoff).
	RetryBackoff time.Duration
	// ShutdownTimeout bounds the final flush once Run's context ends or
	// Close is called (DefaultShutdownTimeout).
	ShutdownTimeout time.Duration
}

// Recorder queues hits from the request path and saves them as visits in the
// background. Record is safe for concurrent use; Run is called once.
type Recorder struct {
	sink          Sink
	opts          Options
	log           *slog.Logger
	now           func() time.Time
	countryHeader string // canonical form of Options.CountryHeader
	geo           *maxminddb.Reader

	q             chan Hit
	stopped       atomic.Bool // set when Run drains or Close is called: Record drops
	dropped       atomic.Uint64
	failed        atomic.Uint64
	saved         atomic.Uint64
	batchFailures atomic.Uint64 // failed SaveVisits calls, retried or not

	mu        sync.Mutex
	started   bool
	closed    bool
	stop      chan struct{} // closed by Close
	runDone   chan struct{} // closed when Run returns
	closeOnce sync.Once

	droppedSeen  atomic.Uint64 // Dropped at the last warning
	lastDropWarn atomic.Int64  // when it was, Unix nanoseconds

	// Used by the Run goroutine only.
	spare        []Visit       // a batch buffer no writer holds, for the final drain
	shutdownLost atomic.Uint64 // visits given up because the shutdown budget ran out (writers add to it)
	uas          uaCache
	hasher       visitorHasher
	newTicker    func(time.Duration) (<-chan time.Time, func()) // replaced in tests
}

// NewRecorder returns a Recorder that saves visits to sink. It fails when an
// option is invalid or when the GeoIP database cannot be opened or has no
// country data.
func NewRecorder(sink Sink, o Options) (*Recorder, error) {
	if sink == nil {
		return nil, errors.New("visits: nil Sink")
	}
	if len(o.Secret) < MinSecretLen {
		return nil, fmt.Errorf("visits: Secret must be at least %d bytes, got %d", MinSecretLen, len(o.Secret))
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"BatchSize", int64(o.BatchSize)}, {"MaxBatchSize", int64(o.MaxBatchSize)}, {"QueueSize", int64(o.QueueSize)},
		{"FlushInterval", int64(o.FlushInterval)}, {"RetryBackoff", int64(o.RetryBackoff)},
		{"ShutdownTimeout", int64(o.ShutdownTimeout)},
	} {
		if f.v < 0 {
			return nil, fmt.Errorf("visits: %s must not be negative", f.name)
		}
	}
	o.Secret = append([]byte(nil), o.Secret...)
	if o.BatchSize == 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.MaxBatchSize == 0 {
		o.MaxBatchSize = max(DefaultMaxBatchSize, o.BatchSize)
	}
	if o.MaxBatchSize < o.BatchSize {
		return nil, fmt.Errorf("visits: MaxBatchSize %d is below BatchSize %d", o.MaxBatchSize, o.BatchSize)
	}
	if o.FlushInterval == 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.Writers <= 0 {
		o.Writers = DefaultWriters
	}
	if o.QueueSize == 0 {
		o.QueueSize = DefaultQueueSize
	}
	switch {
	case o.Retries == 0:
		o.Retries = DefaultRetries
	case o.Retries < 0:
		o.Retries = 0
	}
	if o.RetryBackoff == 0 {
		o.RetryBackoff = DefaultRetryBackoff
	}
	if o.ShutdownTimeout == 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	r := &Recorder{
		sink:    sink,
		opts:    o,
		log:     o.Logger,
		now:     o.Now,
		q:       make(chan Hit, o.QueueSize),
		stop:    make(chan struct{}),
		runDone: make(chan struct{}),
		spare:   make([]Visit, 0, o.BatchSize),
		hasher:  visitorHasher{secret: o.Secret},
		newTicker: func(d time.Duration) (<-chan time.Time, func()) {
			t := time.NewTicker(d)
			return t.C, t.Stop
		},
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.now == nil {
		r.now = time.Now
	}
	if o.CountryHeader != "" {
		r.countryHeader = textproto.CanonicalMIMEHeaderKey(o.CountryHeader)
	}
	if o.GeoIPPath != "" {
		db, err := openGeoIP(o.GeoIPPath)
		if err != nil {
			return nil, err
		}
		r.geo = db
	}
	return r, nil
}

// Capture reads a Hit for the given target from a redirect request: the
// client address from req.RemoteAddr (a trusted-proxy middleware must have
// rewritten it), the User-Agent and Referer headers, and the configured
// country header. It does no parsing beyond the address and allocates nothing.
func (r *Recorder) Capture(req *http.Request, kind string, id, ownerID int64) Hit {
	h := Hit{
		Kind:    kind,
		ID:      id,
		OwnerID: ownerID,
		At:      r.now(),
	}
	// Direct map reads: the keys are canonical already.
	if v := req.Header["User-Agent"]; len(v) > 0 {
		h.UserAgent = v[0]
	}
	if v := req.Header["Referer"]; len(v) > 0 {
		h.Referer = v[0]
	}
	if ap, err := netip.ParseAddrPort(req.RemoteAddr); err == nil {
		h.IP = ap.Addr()
	} else if a, err := netip.ParseAddr(req.RemoteAddr); err == nil {
		h.IP = a
	}
	if r.countryHeader != "" {
		if v := req.Header[r.countryHeader]; len(v) > 0 {
			h.Country = v[0]
		}
	}
	return h
}

// Record queues h for saving and returns at once. It never blocks: when the
// queue is full (the store is slower than the traffic, or down) or the
// recorder is shutting down, the hit is dropped and counted in Dropped,
// because a redirect must never wait for statistics. A zero h.At is set to now.
func (r *Recorder) Record(h Hit) {
	if r.stopped.Load() {
		r.drop()
		return
	}
	if h.At.IsZero() {
		h.At = r.now()
	}
	select {
	case r.q <- h:
	default:
		r.drop()
	}
}

// Dropped returns the number of hits Record refused because the queue was
// full or the recorder was shutting down.
func (r *Recorder) Dropped() uint64 { return r.dropped.Load() }

// Failed returns the number of visits lost after they left the queue: their
// batch failed every retry, or the shutdown budget ran out before they were saved.
func (r *Recorder) Failed() uint64 { return r.failed.Load() }

// Saved returns the number of visits the sink accepted.
func (r *Recorder) Saved() uint64 { return r.saved.Load() }

// BatchFailures returns the number of failed saves of a batch (each retry
// counts), whether the batch was saved on a later attempt or lost.
func (r *Recorder) BatchFailures() uint64 { return r.batchFailures.Load() }

// drop counts a dropped hit and logs a warning, at most every
// dropWarnInterval, while hits are being dropped: with the count since the
// last warning.
func (r *Recorder) drop() {
	d := r.dropped.Add(1)
	now := r.now().UnixNano()
	last := r.lastDropWarn.Load()
	if now-last < int64(dropWarnInterval) || !r.lastDropWarn.CompareAndSwap(last, now) {
		return
	}
	seen := r.droppedSeen.Swap(d)
	r.log.Warn("visits: clicks dropped: the queue is full (the store is slower than the traffic, or down) or the portal is stopping",
		"dropped", d-seen, "dropped_total", d, "queue", r.opts.QueueSize)
}

// Queued returns the number of hits waiting in the queue.
func (r *Recorder) Queued() int { return len(r.q) }

// Run enriches queued hits into visits and saves them in batches of
// BatchSize, or every FlushInterval when fewer are waiting. When ctx ends or
// Close is called, it stops accepting hits, saves what is queued within
// ShutdownTimeout and returns nil, or an error wrapping ErrFlushIncomplete
// when that budget ran out and visits were given up (they are counted in
// Failed). It may be called once.
func (r *Recorder) Run(ctx context.Context) error {
	r.mu.Lock()
	switch {
	case r.closed:
		r.mu.Unlock()
		return ErrClosed
	case r.started:
		r.mu.Unlock()
		return ErrRunning
	}
	r.started = true
	r.mu.Unlock()
	defer close(r.runDone)

	done := make(chan struct{})
	defer close(done)
	// Sink calls outlive ctx: they are cancelled only ShutdownTimeout after
	// ctx ends (or Close is called), which bounds the final flush.
	sinkCtx, cancelSink := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelSink()
	go func() {
		select {
		case <-ctx.Done():
		case <-r.stop:
		case <-done:
			return
		}
		t := time.NewTimer(r.opts.ShutdownTimeout)
		defer t.Stop()
		select {
		case <-t.C:
			cancelSink()
		case <-done:
		}
	}()

	// Writers save batches while this goroutine fills the next: the
	// store's latency overlaps the enrichment of the following hits, and
	// several batches are saved at once. Writers+1 buffers go round: one
	// filling here, the others being saved or free.
	toFlush := make(chan []Visit) // unbuffered: a send succeeds when a writer is idle
	free := make(chan []Visit, r.opts.Writers+1)
	for range r.opts.Writers - 1 {
		free <- make([]Visit, 0, r.opts.BatchSize)
	}
	free <- r.spare[:0]
	var writers sync.WaitGroup
	for range r.opts.Writers {
		writers.Go(func() {
			for b := range toFlush {
				r.flush(sinkCtx, b)
				free <- b[:0]
			}
		})
	}
	batch := make([]Visit, 0, r.opts.BatchSize)
	// due is set when a tick found every writer busy: the batch goes as
	// soon as one is idle, whatever its size.
	due := false
	// handOver gives the batch to a writer, waiting for one when wait is
	// set, and reports whether it did. A writer was idle, so its buffer is
	// free.
	handOver := func(wait bool) bool {
		if !wait {
			select {
			case toFlush <- batch:
			default:
				return false
			}
		} else {
			toFlush <- batch
		}
		batch, due = <-free, false
		return true
	}
	// stopFlusher hands over what is left and waits for the writers.
	stopFlusher := func() {
		if len(batch) > 0 {
			handOver(true)
		}
		close(toFlush)
		writers.Wait()
		r.spare = batch[:0]
	}

	tick, stopTick := r.newTicker(r.opts.FlushInterval)
	defer stopTick()
	poll := time.NewTimer(pollInterval)
	defer poll.Stop()
	add := func(h Hit) {
		batch = append(batch, r.enrich(h))
		if len(batch) >= r.opts.BatchSize {
			// Ready: hand it over if a writer is idle; else it grows
			// while the others are saved, up to MaxBatchSize.
			handOver(len(batch) >= r.opts.MaxBatchSize)
		}
	}
	for {
		// Take what is queued now (bounded, so that ticks and shutdown are
		// seen under constant load).
		n := len(r.q)
		for range n {
			add(<-r.q)
		}
		// Under load, sleep between rounds rather than wait on the queue: a
		// send to a waiting receiver wakes it, which would cost every Record
		// a goroutine wake-up. When idle, wait on the queue for low latency.
		var recvQ <-chan Hit
		var wake <-chan time.Time
		if n == 0 {
			recvQ = r.q
		} else {
			poll.Reset(pollInterval)
			wake = poll.C
		}
		// A ready or due batch goes as soon as a writer is idle.
		var ready chan<- []Visit
		if len(batch) >= r.opts.BatchSize || due && len(batch) > 0 {
			ready = toFlush
		}
		select {
		case h := <-recvQ:
			add(h)
		case <-wake:
		case ready <- batch:
			batch, due = <-free, false
		case <-tick:
			if len(batch) > 0 && !handOver(false) {
				due = true
			}
		case <-ctx.Done():
			stopFlusher()
			return r.drain(sinkCtx, r.spare)
		case <-r.stop:
			stopFlusher()
			return r.drain(sinkCtx, r.spare)
		}
	}
}

// drain saves the current batch and everything queued, until the queue is
// empty or ctx (the shutdown budget) ends.
func (r *Recorder) drain(ctx context.Context, batch []Visit) error {
	r.stopped.Store(true)
	for {
		for len(batch) < r.opts.BatchSize {
			h, ok := r.tryReceive()
			if !ok {
				break
			}
			batch = append(batch, r.enrich(h))
		}
		if len(batch) == 0 {
			break
		}
		if ctx.Err() != nil {
			lost := uint64(len(batch))
			for {
				if _, ok := r.tryReceive(); !ok {
					break
				}
				lost++
			}
			r.failed.Add(lost)
			r.shutdownLost.Add(lost)
			r.log.Error("visits: shutdown budget exhausted, queued visits dropped",
				"visits", lost, "timeout", r.opts.ShutdownTimeout)
			break
		}
		r.flush(ctx, batch)
		batch = batch[:0]
	}
	if lost := r.shutdownLost.Load(); lost > 0 {
		return fmt.Errorf("%w: %d visits dropped after %v", ErrFlushIncomplete, lost, r.opts.ShutdownTimeout)
	}
	return nil
}

func (r *Recorder) tryReceive() (Hit, bool) {
	select {
	case h := <-r.q:
		return h, true
	default:
		return Hit{}, false
	}
}

// flush saves batch, retrying with exponential backoff; after the last retry,
// or when ctx ends, the batch is dropped and counted in Failed.
func (r *Recorder) flush(ctx context.Context, batch []Visit) {
	backoff := r.opts.RetryBackoff
	for attempt := 1; ; attempt++ {
		err := r.sink.SaveVisits(ctx, batch)
		if err == nil {
			r.saved.Add(uint64(len(batch)))
			return
		}
		r.batchFailures.Add(1)
		if attempt > r.opts.Retries || ctx.Err() != nil {
			r.lose(ctx, len(batch))
			r.log.Error("visits: batch dropped after sink errors",
				"visits", len(batch), "attempts", attempt, "err", err)
			return
		}
		r.log.Warn("visits: saving batch failed, retrying",
			"visits", len(batch), "attempt", attempt, "backoff", backoff, "err", err)
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			r.lose(ctx, len(batch))
			r.log.Error("visits: batch dropped, shutdown budget exhausted while retrying",
				"visits", len(batch), "attempts", attempt, "err", err)
			return
		}
		backoff *= 2
	}
}

// lose counts n visits given up by flush; ctx is cancelled only when the
// shutdown budget has run out.
func (r *Recorder) lose(ctx context.Context, n int) {
	r.failed.Add(uint64(n))
	if ctx.Err() != nil {
		r.shutdownLost.Add(uint64(n))
	}
}

// enrich turns a hit into a visit. It runs on the Run goroutine only.
func (r *Recorder) enrich(h Hit) Visit {
	at := h.At
	if at.IsZero() {
		at = r.now()
	}
	at = at.UTC()
	ua := truncateUA(h.UserAgent)
	info := r.uas.get(ua)
	v := Visit{
		Kind:     h.Kind,
		ID:       h.ID,
		OwnerID:  h.OwnerID,
		At:       at,
		Referrer: normalizeReferrer(h.Referer),
		Browser:  info.browser,
		OS:       info.os,
		Device:   info.device,
		Bot:      info.bot,
		Visitor:  r.hasher.visitor(at, h.IP, ua),
	}
	if r.countryHeader != "" {
		v.Country = normalizeCountry(h.Country)
	}
	if v.Country == "" && r.geo != nil {
		v.Country = lookupCountry(r.geo, h.IP)
	}
	if !v.Bot {
		v.Social = socialFromHost(v.Referrer)
		if v.Social == "" {
			v.Social = info.social
		}
	}
	return v
}

// Close stops the recorder: Record drops from now on, a running Run saves
// what is queued (within ShutdownTimeout) and returns, and Close waits for it
// before releasing the GeoIP database. Hits queued while Run was never
// started are counted in Dropped. Close is idempotent.
func (r *Recorder) Close() error {
	var err error
	r.closeOnce.Do(func() {
		r.stopped.Store(true)
		r.mu.Lock()
		r.closed = true
		started := r.started
		r.mu.Unlock()
		close(r.stop)
		if started {
			<-r.runDone
		} else {
			for {
				if _, ok := r.tryReceive(); !ok {
					break
				}
				r.dropped.Add(1)
			}
		}
		if r.geo != nil {
			err = r.geo.Close()
		}
	})
	return err
}
