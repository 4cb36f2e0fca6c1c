package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/agent/mediastore"
	"github.com/seedhq/portal/pkg/client"
)

// MetaSyncState is the localdb meta key of the sync state that survives a
// restart (see Syncer).
const MetaSyncState = "sync"

// Sync states of SyncStatus.State.
const (
	SyncOnline  = "online"  // the last exchange with the portal succeeded
	SyncSyncing = "syncing" // online, and a pull or a push is running
	SyncOffline = "offline" // the portal is unreachable or refuses the licence: labagent works on what it holds
)

// Defaults of SyncerOptions and fixed tunings.
const (
	defaultPullInterval      = 2 * time.Minute
	defaultPushBatchSize     = 5000
	defaultPushInterval      = 30 * time.Second
	defaultPushDelay         = 500 * time.Millisecond
	defaultRetryMin          = time.Second
	defaultRetryMax          = time.Minute
	defaultSlowRetry         = 10 * time.Minute
	defaultHeartbeatInterval = 60 * time.Second

	// callTimeout bounds one handshake, push or heartbeat (with the HTTP
	// client's own retries); a download is bounded by downloadStall instead.
	callTimeout = 5 * time.Minute
	// downloadStall cancels a download that received nothing for this long;
	// what arrived is kept and the next pull resumes after it.
	downloadStall = 2 * time.Minute
	// downloadChunk is how much of a download is buffered before it is
	// written to localdb.
	downloadChunk = 256 << 10
	// tokenRenewal is how long before its expiry the access token is renewed.
	tokenRenewal = time.Minute
	// licenseWarning is how long before its expiry the licence is reported
	// as expiring soon.
	licenseWarning = 7 * 24 * time.Hour
)

// Operations whose last failure the sync state keeps, and the kinds of
// exchange with the portal SyncStatus.LastContactKind names (with opMedia
// and opContent).
const (
	opHandshake = "handshake"
	opPull      = "pull"
	opPush      = "push"
	opHeartbeat = "heartbeat"
	// opMedia is the fetch of an exam's image or audio (a file or its blob).
	opMedia = "media"
	// opContent is the fetch of a blob of the exams' questions (package
	// format 3).
	opContent = "content"
)

// LabStats gives the figures a heartbeat reports; the exam server implements
// it.
type LabStats interface {
	// ConnectedStudents is the number of students seen recently.
	ConnectedStudents() int
	// ActiveExams is the number of exams open now.
	ActiveExams() int
}

// SyncerOptions configure a Syncer. Zero values take the documented
// defaults.
type SyncerOptions struct {
	// HTTPClient sends the requests to the portal; nil: NewHTTPClient(Logger).
	HTTPClient *http.Client
	// Logger receives the sync log; nil: discarded.
	Logger *slog.Logger
	// Version is the client_version reported in heartbeats.
	Version string
	// Now is the local clock; nil: time.Now. Syncer.Now corrects it with the
	// skew measured against the portal.
	Now func() time.Time
	// PullInterval is how often the portal is asked for a new package;
	// default 2 minutes. A pull also follows every successful handshake.
	PullInterval time.Duration
	// PushBatchSize is the number of answers per push; default 5000.
	PushBatchSize int
	// OnPackage, when set, is called with the decoded package at the start
	// of Run (the one held in localdb) and after each new package is
	// swapped in. It runs on the puller's goroutine: it must not block long.
	OnPackage func(p *client.Package, meta localdb.PackageMeta)
	// Lab gives the heartbeat's figures; nil reports zeros until SetLab.
	Lab LabStats
	// Media holds the exams' images and audio; nil: a package that shows
	// any is refused.
	Media *mediastore.Store

	// PushInterval is how often pending answers are pushed without a Kick;
	// default 30 seconds.
	PushInterval time.Duration
	// PushDelay is how long a Kick waits for more answers before pushing,
	// so that a classroom saving at once makes one push; default 500 ms.
	PushDelay time.Duration
	// RetryMin and RetryMax bound the exponential backoff (with jitter)
	// after a failure; defaults 1 second and 1 minute. A Retry-After of the
	// portal is honoured instead.
	RetryMin, RetryMax time.Duration
	// SlowRetry is the wait after a refusal that retrying soon cannot fix:
	// the licence refused at handshake, a batch of answers refused; default
	// 10 minutes.
	SlowRetry time.Duration
}

// Syncer is the sync half of "labagent run": it handshakes with the portal,
// keeps the school's exam package current, reports heartbeats and pushes the
// students' answers from the durable outbox.
//
// Everything that matters is in localdb: the package and a download in
// progress, the outbox and the sealed batches, the package key, and the sync
// state (MetaSyncState: handshake time, clock skew, access token, licence
// figures, heartbeat interval, last errors). The process may be killed at
// any moment: a cut download resumes, a batch whose receipt was lost is
// pushed again under the same Idempotency-Key and stored once.
//
// While the portal is unreachable or refuses the licence, labagent keeps
// serving the last package it holds; Run never gives up.
type Syncer struct {
	cfg *Config
	db  *localdb.DB
	o   SyncerOptions
	log *slog.Logger
	api *client.Client

	skew atomic.Int64 // portal time - local time, in nanoseconds

	kick    chan struct{}
	pullNow chan struct{}
	hbNow   chan struct{}

	// hsMu serialises handshakes and guards the handshake backoff.
	hsMu       sync.Mutex
	hsFailures int
	hsRetryAt  time.Time // real time before which no handshake is tried
	hsErr      error

	pushMu    sync.Mutex // one push loop at a time (Run's and PushNow)
	pullMu    sync.Mutex // one pull at a time
	persistMu sync.Mutex // orders the writes of the sync state

	restoreOnce sync.Once // Restore's work, done once

	mu           sync.Mutex
	st           syncState
	handshakeDue bool // Run started: handshake even though the token is valid
	online       bool
	busy         int  // pulls and pushes running
	localBroken  bool // the package held cannot be decoded: download it again
	lab          LabStats
}

// syncState is the part of the Syncer that survives a restart, stored as
// one JSON value under MetaSyncState.
type syncState struct {
	LastHandshakeAt          time.Time            `json:"last_handshake_at,omitzero"`
	AccessToken              string               `json:"access_token,omitempty"`
	AccessTokenExpiresAt     time.Time            `json:"access_token_expires_at,omitzero"`
	ClockSkew                time.Duration        `json:"clock_skew_ns"`
	ServerName               string               `json:"server_name,omitempty"`
	LicenseID                string               `json:"license_id,omitempty"`
	LicenseExpiresAt         time.Time            `json:"license_expires_at,omitzero"`
	MaxStudents              int                  `json:"max_students,omitempty"`
	OperatingMode            string               `json:"operating_mode,omitempty"`
	HeartbeatIntervalSeconds int                  `json:"heartbeat_interval_seconds,omitempty"`
	LastHeartbeatAt          time.Time            `json:"last_heartbeat_at,omitzero"`
	LastPushAt               time.Time            `json:"last_push_at,omitzero"`
	Errors                   map[string]syncError `json:"errors,omitempty"` // by operation, while unresolved
	// LastContactAt and LastContactKind are the last exchange with the
	// portal that succeeded, of any kind (see contact). They are kept in
	// memory and stored with the next write of the state (a handshake,
	// heartbeat or push writes it), not with a write of their own.
	LastContactAt   time.Time `json:"last_contact_at,omitzero"`
	LastContactKind string    `json:"last_contact_kind,omitempty"`
}

// contact records an exchange of kind with the portal that succeeded at
// (portal time); an exchange that finished earlier than the one recorded
// (they run at once) is not recorded. The caller holds s.mu.
func (st *syncState) contact(kind string, at time.Time) {
	if at.Before(st.LastContactAt) {
		return
	}
	st.LastContactAt, st.LastContactKind = at, kind
}

// syncError is the last failure of one operation.
type syncError struct {
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// SyncStatus is a snapshot of the sync state, for "labagent status" and the
// proctor page. Times are portal time.
type SyncStatus struct {
	// State is SyncOnline, SyncSyncing or SyncOffline.
	State                string    `json:"state"`
	ServerCode           string    `json:"server_code"`
	SchoolName           string    `json:"school_name,omitempty"`
	LastHandshakeAt      time.Time `json:"last_handshake_at,omitzero"`
	AccessTokenExpiresAt time.Time `json:"access_token_expires_at,omitzero"`
	// LastContactAt is the last exchange with the portal that succeeded,
	// of any kind; LastContactKind names it: handshake, pull (the package
	// checked or downloaded), heartbeat, push (answers sent), media (an
	// image's or audio's file fetched) or content (a blob of the questions
	// fetched).
	LastContactAt   time.Time `json:"last_contact_at,omitzero"`
	LastContactKind string    `json:"last_contact_kind,omitempty"`
	// ClockSkewMS is portal time minus the lab server's clock.
	ClockSkewMS        int64     `json:"clock_skew_ms"`
	LicenseID          string    `json:"license_id"`
	LicenseExpiresAt   time.Time `json:"license_expires_at,omitzero"`
	LicenseExpiresSoon bool      `json:"license_expires_soon"` // within 7 days
	MaxStudents        int       `json:"max_students"`
	PackageVersion     string    `json:"package_version"`
	PackageChecksum    string    `json:"package_checksum"`
	PackageSize        int64     `json:"package_size"`
	PackagePulledAt    time.Time `json:"package_pulled_at,omitzero"`
	// DownloadReceived and DownloadSize describe a package download in
	// progress (cut downloads resume), zero when there is none.
	DownloadReceived int64 `json:"download_received,omitempty"`
	DownloadSize     int64 `json:"download_size,omitempty"`
	// PendingAnswers counts the answer saves not yet acknowledged by the
	// portal.
	PendingAnswers int              `json:"pending_answers"`
	LastPushAt     time.Time        `json:"last_push_at,omitzero"`
	LastSyncID     string           `json:"last_sync_id"`
	LastReceipt    *localdb.Receipt `json:"last_receipt"` // null before the first push
	// LastError is the most recent failure not resolved since (a later
	// success of the same operation clears it).
	LastError                string    `json:"last_error"`
	LastErrorAt              time.Time `json:"last_error_at,omitzero"`
	HeartbeatIntervalSeconds int       `json:"heartbeat_interval_seconds"`
	LastHeartbeatAt          time.Time `json:"last_heartbeat_at,omitzero"`
}

// NewSyncer returns the Syncer of the enrolled lab server cfg over db,
// restoring the sync state saved by an earlier run.
func NewSyncer(cfg *Config, db *localdb.DB, opts SyncerOptions) (*Syncer, error) {
	switch {
	case cfg == nil:
		return nil, errors.New("sync: no configuration (run labagent enroll first)")
	case db == nil:
		return nil, errors.New("sync: no state database")
	case cfg.PortalURL == "" || cfg.ServerCode == "" || cfg.NPSN == "" || cfg.HardwareID == "" || cfg.LicenseToken == "":
		return nil, errors.New("sync: the configuration lacks portal_url, server_code, npsn, hardware_id or license_token (run labagent enroll again)")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PullInterval <= 0 {
		opts.PullInterval = defaultPullInterval
	}
	if opts.PushBatchSize <= 0 {
		opts.PushBatchSize = defaultPushBatchSize
	}
	if opts.PushInterval <= 0 {
		opts.PushInterval = defaultPushInterval
	}
	if opts.PushDelay <= 0 {
		opts.PushDelay = defaultPushDelay
	}
	if opts.RetryMin <= 0 {
		opts.RetryMin = defaultRetryMin
	}
	if opts.RetryMax <= 0 {
		opts.RetryMax = defaultRetryMax
	}
	if opts.RetryMax < opts.RetryMin {
		opts.RetryMax = opts.RetryMin
	}
	if opts.SlowRetry <= 0 {
		opts.SlowRetry = defaultSlowRetry
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = NewHTTPClient(opts.Logger)
	}
	// A copy whose transport shows the download writer the response
	// headers (checksum, size, ETag) before the first byte arrives.
	wrapped := *hc
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	wrapped.Transport = &captureTransport{base: base}
	api, err := client.NewClient(cfg.PortalURL, client.WithHTTPClient(&wrapped), client.WithUserAgent(userAgent(opts.Version)))
	if err != nil {
		return nil, fmt.Errorf("sync: portal URL: %w", err)
	}
	s := &Syncer{
		cfg: cfg, db: db, o: opts, api: api,
		log:     opts.Logger.With("server_code", cfg.ServerCode),
		kick:    make(chan struct{}, 1),
		pullNow: make(chan struct{}, 1),
		hbNow:   make(chan struct{}, 1),
		lab:     opts.Lab,
	}
	if _, err := db.GetMeta(MetaSyncState, &s.st); err != nil {
		return nil, fmt.Errorf("sync: read the sync state: %w", err)
	}
	s.skew.Store(int64(s.st.ClockSkew))
	if s.st.AccessToken != "" {
		api.SetToken(s.st.AccessToken)
	}
	return s, nil
}

func userAgent(version string) string {
	if version == "" {
		return "labagent"
	}
	return "labagent/" + version
}

// SetLab sets the source of the heartbeat's figures (the exam server, which
// may be built after the Syncer).
func (s *Syncer) SetLab(l LabStats) {
	s.mu.Lock()
	s.lab = l
	s.mu.Unlock()
}

// Now returns portal time: the local clock corrected by the skew measured at
// the last handshake or heartbeat (kept across restarts).
func (s *Syncer) Now() time.Time {
	return s.o.Now().Add(time.Duration(s.skew.Load()))
}

// Kick tells the Syncer that an answer was saved: pending answers are
// pushed within about PushDelay, kicks in the meantime sharing the push. It
// never blocks. While the portal is failing, kicks wait for the backoff.
func (s *Syncer) Kick() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// signal wakes a loop without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// drain forgets a pending wake-up.
func drain(ch chan struct{}) {
	select {
	case <-ch:
	default:
	}
}

// Restore hands the package held in localdb to OnPackage, once: call it
// before serving students, so that a restart (a power cut, a kill) never
// shows them "no exam package" while the one on disk is being read. A
// package that cannot be opened is downloaded again at the first pull.
// Run calls it when it was not called before.
func (s *Syncer) Restore(ctx context.Context) {
	s.restoreOnce.Do(func() {
		p, meta, err := s.LoadLocalPackage()
		switch {
		case err == nil:
			s.log.InfoContext(ctx, "exam package loaded", "version", meta.Version, "pulled_at", meta.PulledAt,
				"exams", len(p.Exams), "students", len(p.Students))
			if s.o.OnPackage != nil {
				s.o.OnPackage(p, meta)
			}
		case errors.Is(err, localdb.ErrNoPackage):
			s.log.InfoContext(ctx, "no exam package yet: it will be pulled from the portal")
		default:
			// Download it again rather than ask the portal whether it changed.
			s.mu.Lock()
			s.localBroken = true
			s.mu.Unlock()
			s.log.ErrorContext(ctx, "the exam package held cannot be opened; pulling it again", "err", err)
		}
	})
}

// Run syncs until ctx ends, then returns nil. It restores the package held
// in localdb (Restore), then handshakes, pulls, heartbeats and pushes, each
// on its own schedule; network failures and refusals are logged, recorded in
// the status and retried, never returned. Call it once.
func (s *Syncer) Run(ctx context.Context) error {
	s.mu.Lock()
	s.handshakeDue = true
	s.mu.Unlock()
	s.Restore(ctx)

	var wg sync.WaitGroup
	wg.Go(func() { s.pullLoop(ctx) })
	wg.Go(func() { s.pushLoop(ctx) })
	wg.Go(func() { s.heartbeatLoop(ctx) })
	wg.Wait()
	return nil
}

// --- Sync state ---------------------------------------------------------------

// update applies fn to the sync state under the lock, then stores it.
func (s *Syncer) update(ctx context.Context, fn func(st *syncState)) {
	s.persistMu.Lock()
	defer s.persistMu.Unlock()
	s.mu.Lock()
	fn(&s.st)
	st := s.st
	st.Errors = make(map[string]syncError, len(s.st.Errors))
	for k, v := range s.st.Errors {
		st.Errors[k] = v
	}
	s.mu.Unlock()
	if err := s.db.PutMeta(context.WithoutCancel(ctx), MetaSyncState, st); err != nil {
		s.log.ErrorContext(ctx, "save the sync state", "err", err)
	}
}

func (s *Syncer) setOnline(v bool) {
	s.mu.Lock()
	s.online = v
	s.mu.Unlock()
}

// setBusy counts the pulls and pushes running.
func (s *Syncer) setBusy(d int) {
	s.mu.Lock()
	s.busy += d
	s.mu.Unlock()
}

// fail records and logs the failure of op. Failures to obtain a token were
// recorded by the handshake and are only logged at debug level here.
func (s *Syncer) fail(ctx context.Context, op string, err error) {
	if ctx.Err() != nil {
		return
	}
	var se *sessionError
	if errors.As(err, &se) {
		s.setOnline(false)
		s.log.DebugContext(ctx, op+" waits for a handshake", "err", err)
		return
	}
	var ce *client.Error
	portalAnswered := (errors.As(err, &ce) && ce.Status < 500) || errors.Is(err, errPackageRefused)
	s.update(ctx, func(st *syncState) {
		if !portalAnswered || op == opHandshake {
			s.online = false
		}
		if st.Errors == nil {
			st.Errors = make(map[string]syncError)
		}
		st.Errors[op] = syncError{Message: err.Error(), At: s.Now()}
	})
	if (op == opHandshake && refusedHandshake(err)) || (op != opHandshake && refused(err)) ||
		errors.Is(err, errPackageRefused) {
		s.log.ErrorContext(ctx, op+" failed", "err", err)
	} else {
		s.log.WarnContext(ctx, op+" failed; retrying", "err", err)
	}
}

// succeed clears the recorded failure of op, if any. (Reaching the portal
// marks the Syncer online, and records the contact, in call.)
func (s *Syncer) succeed(ctx context.Context, op string) {
	s.mu.Lock()
	_, had := s.st.Errors[op]
	s.mu.Unlock()
	if had {
		s.update(ctx, func(st *syncState) { delete(st.Errors, op) })
	}
}

// retryDelay is the wait before attempt n+1 after err: the portal's
// Retry-After when it gave one, SlowRetry after a refusal, else an
// exponential backoff from RetryMin capped at RetryMax, with jitter.
func (s *Syncer) retryDelay(n int, err error, refusal bool) time.Duration {
	var re *retryError
	if errors.As(err, &re) && re.after > 0 {
		return re.after
	}
	if d := s.retryAfter(err); d > 0 {
		return d
	}
	if refusal {
		return s.o.SlowRetry
	}
	d := s.o.RetryMin
	for i := 1; i < n && d < s.o.RetryMax; i++ {
		d *= 2
	}
	d = min(d, s.o.RetryMax)
	return d/2 + rand.N(d/2+1)
}

// retryAfter is the wait the portal asked for with err (its Retry-After),
// capped at the longer of SlowRetry and RetryMax, with jitter; 0 when it
// asked for none.
func (s *Syncer) retryAfter(err error) time.Duration {
	var ce *client.Error
	if errors.As(err, &ce) && ce.RetryAfter > 0 {
		return min(ce.RetryAfter, max(s.o.SlowRetry, s.o.RetryMax)) + rand.N(s.o.RetryMin)
	}
	return 0
}

// Status returns a snapshot of the sync state.
func (s *Syncer) Status() SyncStatus {
	now := s.Now()
	s.mu.Lock()
	st := s.st
	var lastErr syncError
	for _, e := range s.st.Errors {
		if e.At.After(lastErr.At) || lastErr.Message == "" {
			lastErr = e
		}
	}
	online, busy := s.online, s.busy
	s.mu.Unlock()

	out := SyncStatus{
		State:                    SyncOffline,
		ServerCode:               s.cfg.ServerCode,
		SchoolName:               st.ServerName,
		LastHandshakeAt:          st.LastHandshakeAt,
		LastContactAt:            st.LastContactAt,
		LastContactKind:          st.LastContactKind,
		AccessTokenExpiresAt:     st.AccessTokenExpiresAt,
		ClockSkewMS:              st.ClockSkew.Milliseconds(),
		LicenseID:                st.LicenseID,
		LicenseExpiresAt:         st.LicenseExpiresAt,
		MaxStudents:              st.MaxStudents,
		LastPushAt:               st.LastPushAt,
		LastError:                lastErr.Message,
		LastErrorAt:              lastErr.At,
		HeartbeatIntervalSeconds: st.HeartbeatIntervalSeconds,
		LastHeartbeatAt:          st.LastHeartbeatAt,
	}
	if out.HeartbeatIntervalSeconds <= 0 {
		out.HeartbeatIntervalSeconds = int(defaultHeartbeatInterval / time.Second)
	}
	switch {
	case online && busy > 0:
		out.State = SyncSyncing
	case online:
		out.State = SyncOnline
	}
	if out.LicenseID == "" { // no handshake yet: the enrolment's figures
		out.LicenseID, out.LicenseExpiresAt, out.MaxStudents = s.cfg.LicenseID, s.cfg.LicenseEnds, s.cfg.MaxStudents
	}
	if out.SchoolName == "" {
		out.SchoolName = s.cfg.SchoolName
	}
	out.LicenseExpiresSoon = !out.LicenseExpiresAt.IsZero() && out.LicenseExpiresAt.Sub(now) < licenseWarning
	if meta, err := s.db.PackageInfo(); err == nil {
		out.PackageVersion, out.PackageChecksum, out.PackageSize, out.PackagePulledAt = meta.Version, meta.ChecksumSHA256, meta.Size, meta.PulledAt
	}
	if dl, found, err := s.db.Download(); err == nil && found {
		out.DownloadReceived, out.DownloadSize = dl.Received, dl.Size
	}
	if n, err := s.db.Pending(); err == nil {
		out.PendingAnswers = n
	}
	var r localdb.Receipt
	if found, err := s.db.GetMeta(localdb.MetaLastReceipt, &r); err == nil && found {
		out.LastReceipt, out.LastSyncID = &r, r.SyncID
	}
	return out
}
