package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seedhq/portal/internal/agent/localdb"
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

// Operations whose last failure the sync state keeps.
const (
	opHandshake = "handshake"
	opPull      = "pull"
	opPush      = "push"
	opHeartbeat = "heartbeat"
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

// PushResult is the outcome of PushNow.
type PushResult struct {
	// Batches and Answers count what the portal acknowledged.
	Batches int `json:"batches"`
	Answers int `json:"answers"`
	// Duplicates counts the batches the portal already had (a retry after a
	// lost receipt); their answers were not stored twice.
	Duplicates int    `json:"duplicates"`
	LastSyncID string `json:"last_sync_id,omitempty"`
	// Pending is what still waits for the portal afterwards.
	Pending int `json:"pending"`
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

// Run syncs until ctx ends, then returns nil. It hands the package held in
// localdb to OnPackage, then handshakes, pulls, heartbeats and pushes, each
// on its own schedule; network failures and refusals are logged, recorded in
// the status and retried, never returned. Call it once.
func (s *Syncer) Run(ctx context.Context) error {
	s.mu.Lock()
	s.handshakeDue = true
	s.mu.Unlock()

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

	var wg sync.WaitGroup
	wg.Go(func() { s.pullLoop(ctx) })
	wg.Go(func() { s.pushLoop(ctx) })
	wg.Go(func() { s.heartbeatLoop(ctx) })
	wg.Wait()
	return nil
}

// LoadLocalPackage decrypts and decodes the package held in localdb with
// the stored package key. It returns an error wrapping localdb.ErrNoPackage
// when none was pulled yet.
func (s *Syncer) LoadLocalPackage() (*client.Package, localdb.PackageMeta, error) {
	meta, data, err := s.db.Package()
	if err != nil {
		return nil, localdb.PackageMeta{}, fmt.Errorf("read the exam package: %w", err)
	}
	key, err := LoadPackageKey(s.db, s.cfg)
	if err != nil {
		return nil, meta, fmt.Errorf("open the exam package: %w", err)
	}
	p, err := decodePackage(data, key, meta.Version)
	if err != nil {
		return nil, meta, fmt.Errorf("open the exam package %s: %w", meta.Version, err)
	}
	return p, meta, nil
}

// decodePackage decrypts and decodes data and checks its plaintext version
// when one was announced.
func decodePackage(data, key []byte, version string) (*client.Package, error) {
	p, err := client.DecodePackage(bytes.NewReader(data), key)
	if err != nil {
		return nil, err
	}
	if version != "" && !strings.EqualFold(p.Version, version) {
		return nil, fmt.Errorf("plaintext version %s, the portal announced %s", p.Version, version)
	}
	return p, nil
}

// --- Handshake and access token --------------------------------------------

// retryError is an error with the wait before trying again.
type retryError struct {
	err   error
	after time.Duration
}

func (e *retryError) Error() string { return e.err.Error() }
func (e *retryError) Unwrap() error { return e.err }

// sessionError is a failure to obtain an access token, already logged and
// recorded by the handshake.
type sessionError struct{ err error }

func (e *sessionError) Error() string { return "no access to the portal: " + e.err.Error() }
func (e *sessionError) Unwrap() error { return e.err }

// tokenState tells whether the access token can be used as is (fresh), can
// still be used while a handshake is due or failing (usable), or not.
func (s *Syncer) tokenState() (fresh, usable bool) {
	now := s.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.AccessToken == "" || !now.Before(s.st.AccessTokenExpiresAt) {
		return false, false
	}
	return !s.handshakeDue && now.Before(s.st.AccessTokenExpiresAt.Add(-tokenRenewal)), true
}

// session returns the client with a valid access token, handshaking first
// when the token is missing, about to expire or a handshake is due. A
// failed handshake is retried after a backoff shared by every caller;
// meanwhile a token that has not expired yet is still used.
func (s *Syncer) session(ctx context.Context) (*client.Client, error) {
	if fresh, _ := s.tokenState(); fresh {
		return s.api, nil
	}
	s.hsMu.Lock()
	defer s.hsMu.Unlock()
	fresh, usable := s.tokenState()
	if fresh {
		return s.api, nil
	}
	if wait := time.Until(s.hsRetryAt); wait > 0 {
		if usable {
			return s.api, nil
		}
		return nil, &sessionError{&retryError{err: s.hsErr, after: wait}}
	}
	err := s.handshake(ctx)
	if err == nil {
		s.hsFailures, s.hsRetryAt, s.hsErr = 0, time.Time{}, nil
		return s.api, nil
	}
	if ctx.Err() != nil {
		return nil, err
	}
	s.hsFailures++
	wait := s.retryDelay(s.hsFailures, err, refusedHandshake(err))
	s.hsRetryAt, s.hsErr = time.Now().Add(wait), err
	if usable {
		return s.api, nil // keep working with the token held until it expires
	}
	return nil, &sessionError{&retryError{err: err, after: wait}}
}

// refusedHandshake reports whether the portal refused the handshake for a
// reason retrying soon cannot fix: the licence (revoked, expired, invalid,
// another school or machine) or the request.
func refusedHandshake(err error) bool {
	var ce *client.Error
	return errors.As(err, &ce) && ce.Status >= 400 && ce.Status < 500 &&
		ce.Status != http.StatusRequestTimeout && ce.Status != http.StatusTooManyRequests
}

// refused reports whether the portal refused a call (other than a
// handshake) for a reason retrying soon cannot fix: a 4xx but 401 (the
// token is renewed), 408 and 429.
func refused(err error) bool {
	var ce *client.Error
	return errors.As(err, &ce) && ce.Status != http.StatusUnauthorized && refusedHandshake(err)
}

// handshake verifies the server with its licence and keeps what the portal
// answers: access token, package key, clock skew, licence figures and
// heartbeat interval. The caller holds hsMu.
func (s *Syncer) handshake(ctx context.Context) error {
	hctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	t0 := s.o.Now()
	v, _, err := s.api.Exam.Sync.VerifyServer(hctx, &client.VerifyServerRequest{
		ServerCode: s.cfg.ServerCode, NPSN: s.cfg.NPSN, HardwareID: s.cfg.HardwareID, LicenseToken: s.cfg.LicenseToken,
	})
	t1 := s.o.Now()
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		if refusedHandshake(err) {
			err = fmt.Errorf("the portal refused the handshake (labagent keeps serving the package it holds; ask the operator about the licence): %w", err)
		} else {
			err = fmt.Errorf("handshake with the portal: %w", err)
		}
		s.fail(ctx, opHandshake, err)
		return err
	}
	// The key first: a state that names a handshake always has its key.
	if err := SavePackageKey(context.WithoutCancel(ctx), s.db, s.cfg, v.PackageKey); err != nil {
		err = fmt.Errorf("save the package key: %w", err)
		s.fail(ctx, opHandshake, err)
		return err
	}
	s.update(ctx, func(st *syncState) {
		s.measureSkew(st, v.ServerTime, t0, t1)
		s.api.SetToken(v.AccessToken)
		s.handshakeDue = false
		s.online = true
		st.AccessToken, st.AccessTokenExpiresAt = v.AccessToken, v.AccessTokenExpiresAt
		st.LastHandshakeAt = v.ServerTime
		st.ServerName = v.ServerName
		st.LicenseID, st.LicenseExpiresAt = v.License.LicenseID, v.License.ExpiresAt
		st.MaxStudents, st.OperatingMode = v.License.MaxStudents, v.License.OperatingMode
		if v.HeartbeatIntervalSeconds > 0 {
			st.HeartbeatIntervalSeconds = v.HeartbeatIntervalSeconds
		}
		delete(st.Errors, opHandshake)
	})
	s.log.InfoContext(ctx, "handshake with the portal", "license_id", v.License.LicenseID,
		"license_expires_at", v.License.ExpiresAt, "token_expires_at", v.AccessTokenExpiresAt,
		"clock_skew", time.Duration(s.skew.Load()).Round(time.Millisecond))
	if left := v.License.ExpiresAt.Sub(v.ServerTime); left < licenseWarning {
		s.log.WarnContext(ctx, "the licence expires soon: ask the operator for a new one",
			"license_id", v.License.LicenseID, "license_expires_at", v.License.ExpiresAt,
			"days_left", int(left.Hours()/24))
	}
	signal(s.pullNow)
	signal(s.hbNow)
	return nil
}

// maxSkewRTT is the longest round trip whose server time is trusted to
// correct a clock already measured: a slow answer (the HTTP client's own
// retries, a congested line) would put the skew off by half of it.
const maxSkewRTT = 5 * time.Second

// measureSkew sets st.ClockSkew (and Now's skew) to portal time minus local
// time, for a server time stamped between the local times t0 (request sent)
// and t1 (answer received): the portal stamped it about half a round trip
// before t1. A slow round trip does not replace an earlier measurement. The
// caller holds s.mu (it runs inside update).
func (s *Syncer) measureSkew(st *syncState, serverTime, t0, t1 time.Time) {
	if serverTime.IsZero() {
		return
	}
	rtt := max(t1.Sub(t0), 0)
	if rtt > maxSkewRTT && !st.LastHandshakeAt.IsZero() {
		s.log.Debug("clock skew not measured: slow round trip", "rtt", rtt)
		return
	}
	st.ClockSkew = serverTime.Sub(t1) + rtt/2
	s.skew.Store(int64(st.ClockSkew))
}

// dropToken forgets the access token tok after the portal answered 401 to
// it, so that the next call handshakes.
func (s *Syncer) dropToken(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.AccessToken == tok {
		s.st.AccessToken, s.st.AccessTokenExpiresAt = "", time.Time{}
	}
}

// call runs fn with the client once a valid access token is set, bounded by
// timeout (0: none). A 401 drops the token and fn runs once more after a
// new handshake.
func (s *Syncer) call(ctx context.Context, timeout time.Duration, fn func(ctx context.Context, c *client.Client) error) error {
	for attempt := 0; ; attempt++ {
		c, err := s.session(ctx)
		if err != nil {
			return err
		}
		tok := c.Token()
		cctx, cancel := ctx, context.CancelFunc(func() {})
		if timeout > 0 {
			cctx, cancel = context.WithTimeout(ctx, timeout)
		}
		err = fn(cctx, c)
		cancel()
		if err == nil {
			s.setOnline(true)
			return nil
		}
		if errors.Is(err, client.ErrUnauthorized) {
			s.log.InfoContext(ctx, "the portal refused the access token: handshaking again", "err", err)
			s.dropToken(tok)
			if attempt == 0 {
				continue
			}
		}
		return err
	}
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
// marks the Syncer online in call.)
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
	var ce *client.Error
	if errors.As(err, &ce) && ce.RetryAfter > 0 {
		return min(ce.RetryAfter, max(s.o.SlowRetry, s.o.RetryMax)) + rand.N(s.o.RetryMin)
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

// --- Pull ----------------------------------------------------------------------

// pullLoop pulls at start, every PullInterval and after each handshake,
// backing off after failures.
func (s *Syncer) pullLoop(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	failures := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.pullNow:
		}
		err := s.pull(ctx)
		drain(s.pullNow) // a handshake during this pull asked for the pull just done
		next := s.o.PullInterval
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.fail(ctx, opPull, err)
			failures++
			next = s.retryDelay(failures, err, refused(err))
		} else {
			failures = 0
		}
		t.Reset(next)
	}
}

// pull fetches the package if it changed (resuming a cut download), checks
// and decodes it, swaps it in and hands it to OnPackage.
func (s *Syncer) pull(ctx context.Context) error {
	s.pullMu.Lock()
	defer s.pullMu.Unlock()
	s.setBusy(1)
	defer s.setBusy(-1)
	err := s.download(ctx)
	if errors.Is(err, client.ErrPackageChanged) {
		// The partial copy belongs to an older package: start over.
		s.log.InfoContext(ctx, "the package changed on the portal during the download: starting it over")
		if err := s.db.ResetDownload(ctx); err != nil {
			return fmt.Errorf("drop the partial download: %w", err)
		}
		err = s.download(ctx)
	}
	if err == nil {
		s.succeed(ctx, opPull)
	}
	return err
}

// download runs one download: from the start with If-None-Match when there
// is no partial copy, else resuming after it with Range and If-Range.
func (s *Syncer) download(ctx context.Context) error {
	cur, err := s.db.PackageInfo()
	if err != nil && !errors.Is(err, localdb.ErrNoPackage) {
		return fmt.Errorf("read the package held: %w", err)
	}
	dl, found, err := s.db.Download()
	if err != nil {
		return fmt.Errorf("read the download in progress: %w", err)
	}
	resume := found && dl.Received > 0
	capture := new(respCapture)
	w := &downloadWriter{db: s.db, capture: capture}
	opts := &client.DownloadOptions{}
	if resume {
		opts.Offset, opts.IfRange = dl.Received, dl.ETag
		w.started, w.off = true, dl.Received
		s.log.InfoContext(ctx, "resuming the package download", "received", dl.Received, "size", dl.Size, "version", dl.Version)
	} else {
		s.mu.Lock()
		broken := s.localBroken
		s.mu.Unlock()
		if !broken {
			opts.IfNoneMatch = cur.ChecksumSHA256
		}
	}

	var d *client.PackageDownload
	err = s.call(ctx, 0, func(cctx context.Context, c *client.Client) error {
		dctx, cancel := context.WithCancelCause(context.WithValue(cctx, captureKey{}, capture))
		defer cancel(nil)
		watchdog := time.AfterFunc(downloadStall, func() { cancel(errDownloadStalled) })
		defer watchdog.Stop()
		w.ctx, w.progress = dctx, func() { watchdog.Reset(downloadStall) }
		var err error
		d, _, err = c.Exam.Sync.DownloadPackage(dctx, s.cfg.ServerCode, w, opts)
		if err != nil && errors.Is(context.Cause(dctx), errDownloadStalled) {
			err = fmt.Errorf("%w: %w", errDownloadStalled, err)
		}
		return err
	})
	// Keep what arrived, even when the transfer was cut: the next pull
	// resumes after it.
	if ferr := w.flush(context.WithoutCancel(ctx)); ferr != nil && err == nil {
		err = fmt.Errorf("store the downloaded bytes: %w", ferr)
	}
	switch {
	case errors.Is(err, client.ErrChecksumMismatch):
		return s.refusePackage(ctx, err)
	case err != nil && resume && refused(err):
		// The portal will not serve this range (416 for a copy longer than
		// the package, say): start over next time.
		if rerr := s.db.ResetDownload(context.WithoutCancel(ctx)); rerr != nil {
			s.log.ErrorContext(ctx, "drop the partial download", "err", rerr)
		}
		return fmt.Errorf("resume the package download: %w", err)
	case err != nil:
		return fmt.Errorf("download the package: %w", err)
	case d.NotModified():
		s.log.DebugContext(ctx, "the exam package is up to date", "checksum", cur.ChecksumSHA256)
		return nil
	case !d.Complete():
		return fmt.Errorf("download the package: incomplete (%d+%d of %d bytes)", d.Offset, d.Written, d.Size)
	}
	return s.install(ctx)
}

// install checks the completed download against the checksum and size the
// portal announced, decrypts and decodes it, swaps it in and hands it to
// OnPackage. A package failing a check is refused: the old one stays.
func (s *Syncer) install(ctx context.Context) error {
	dl, found, err := s.db.Download()
	if err != nil {
		return fmt.Errorf("read the download: %w", err)
	}
	if !found {
		return errors.New("the completed download is not recorded")
	}
	data, err := s.db.DownloadedBytes()
	if err != nil {
		return fmt.Errorf("read the downloaded package: %w", err)
	}
	sum := sha256.Sum256(data)
	switch {
	case dl.Size > 0 && int64(len(data)) != dl.Size:
		return s.refusePackage(ctx, fmt.Errorf("%d bytes, the portal announced %d", len(data), dl.Size))
	case !strings.EqualFold(hex.EncodeToString(sum[:]), dl.ChecksumSHA256):
		return s.refusePackage(ctx, fmt.Errorf("SHA-256 %x, the portal announced %s", sum, dl.ChecksumSHA256))
	}
	key, err := LoadPackageKey(s.db, s.cfg)
	if err != nil {
		return fmt.Errorf("open the new package: %w", err) // kept: retried after the next handshake
	}
	p, err := decodePackage(data, key, dl.Version)
	if err != nil {
		return s.refusePackage(ctx, fmt.Errorf("cannot be decrypted or decoded: %w", err))
	}
	meta := localdb.PackageMeta{ChecksumSHA256: strings.ToLower(dl.ChecksumSHA256), Version: p.Version, Size: int64(len(data)), PulledAt: s.Now()}
	if err := s.db.SwapPackage(context.WithoutCancel(ctx), meta, data); err != nil {
		return fmt.Errorf("store the new package: %w", err)
	}
	s.mu.Lock()
	s.localBroken = false
	s.mu.Unlock()
	s.log.InfoContext(ctx, "new exam package", "version", meta.Version, "checksum", meta.ChecksumSHA256,
		"size", meta.Size, "exams", len(p.Exams), "students", len(p.Students))
	if s.o.OnPackage != nil {
		s.o.OnPackage(p, meta)
	}
	return nil
}

// Errors of the pull.
var (
	// errPackageRefused marks a downloaded package that failed its checks.
	errPackageRefused = errors.New("package refused")
	// errDownloadStalled is the cause of a download cancelled for
	// receiving nothing for downloadStall.
	errDownloadStalled = errors.New("the download stalled")
)

// refusePackage drops a downloaded package that failed a check, keeping the
// package held, and returns the error to record.
func (s *Syncer) refusePackage(ctx context.Context, cause error) error {
	if err := s.db.ResetDownload(context.WithoutCancel(ctx)); err != nil {
		s.log.ErrorContext(ctx, "drop the refused download", "err", err)
	}
	return fmt.Errorf("%w: %w (the package held is kept)", errPackageRefused, cause)
}

// captureKey is the context key of a respCapture.
type captureKey struct{}

// respCapture receives the status and headers of the response to the
// request whose context holds it.
type respCapture struct {
	status        int
	header        http.Header
	contentLength int64
}

// captureTransport fills the respCapture of a request's context. RoundTrip
// runs on the goroutine of the caller, before the body is read.
type captureTransport struct{ base http.RoundTripper }

func (t *captureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if c, ok := r.Context().Value(captureKey{}).(*respCapture); ok && resp != nil {
		c.status, c.header, c.contentLength = resp.StatusCode, resp.Header.Clone(), resp.ContentLength
	}
	return resp, err
}

// downloadWriter streams a package download into localdb: the download is
// recorded (StartDownload) before its first byte, then the bytes are
// appended every downloadChunk bytes and at the end (flush).
type downloadWriter struct {
	ctx      context.Context
	db       *localdb.DB
	capture  *respCapture
	progress func()
	started  bool
	off      int64 // bytes stored
	buf      []byte
}

func (w *downloadWriter) Write(p []byte) (int, error) {
	if !w.started {
		if err := w.start(); err != nil {
			return 0, err
		}
	}
	w.progress()
	n := len(p)
	for len(p) > 0 {
		if w.buf == nil {
			w.buf = make([]byte, 0, downloadChunk)
		}
		k := min(len(p), downloadChunk-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
		if len(w.buf) == downloadChunk {
			if err := w.flush(w.ctx); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// start records a new download from the headers of the portal's 200.
func (w *downloadWriter) start() error {
	c := w.capture
	if c.status != http.StatusOK || c.header == nil {
		return fmt.Errorf("package bytes in an answer with status %d", c.status)
	}
	dl := localdb.Download{
		ETag:           c.header.Get("ETag"),
		ChecksumSHA256: strings.ToLower(c.header.Get("X-Checksum-SHA256")),
		Version:        c.header.Get("X-Package-Version"),
		Size:           max(c.contentLength, 0), // 0: unknown
	}
	if dl.ChecksumSHA256 == "" {
		dl.ChecksumSHA256 = strings.ToLower(strings.Trim(strings.TrimPrefix(dl.ETag, "W/"), `"`))
	}
	if dl.ChecksumSHA256 == "" {
		return errors.New("the portal announced no package checksum")
	}
	if dl.ETag == "" {
		dl.ETag = `"` + dl.ChecksumSHA256 + `"`
	}
	if err := w.db.StartDownload(w.ctx, dl); err != nil {
		return fmt.Errorf("record the download: %w", err)
	}
	w.started, w.off = true, 0
	return nil
}

// flush appends the buffered bytes to the download.
func (w *downloadWriter) flush(ctx context.Context) error {
	if len(w.buf) == 0 || !w.started {
		return nil
	}
	if err := w.db.AppendDownload(ctx, w.off, w.buf); err != nil {
		return err
	}
	w.off += int64(len(w.buf))
	w.buf = w.buf[:0]
	return nil
}

// --- Heartbeat -------------------------------------------------------------------

// heartbeatLoop reports after each handshake and then every interval the
// portal asks for.
func (s *Syncer) heartbeatLoop(ctx context.Context) {
	t := time.NewTimer(s.heartbeatInterval())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.hbNow:
		}
		err := s.heartbeat(ctx)
		drain(s.hbNow)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.fail(ctx, opHeartbeat, err)
		} else {
			s.succeed(ctx, opHeartbeat)
		}
		t.Reset(s.heartbeatInterval())
	}
}

func (s *Syncer) heartbeatInterval() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.HeartbeatIntervalSeconds > 0 {
		return time.Duration(s.st.HeartbeatIntervalSeconds) * time.Second
	}
	return defaultHeartbeatInterval
}

// heartbeat sends one status ping and keeps the interval and the clock skew
// the portal answers.
func (s *Syncer) heartbeat(ctx context.Context) error {
	s.mu.Lock()
	lab, status := s.lab, client.MonitorOnline
	if s.busy > 0 {
		status = client.MonitorSyncing
	}
	s.mu.Unlock()
	req := &client.HeartbeatRequest{ServerCode: s.cfg.ServerCode, ClientVersion: s.o.Version, Status: status}
	if lab != nil {
		req.ConnectedStudents, req.ActiveExamsCount = lab.ConnectedStudents(), lab.ActiveExams()
	}
	var (
		hr     *client.HeartbeatResponse
		t0, t1 time.Time
	)
	err := s.call(ctx, callTimeout, func(cctx context.Context, c *client.Client) error {
		var err error
		t0 = s.o.Now()
		hr, _, err = c.Exam.Sync.Heartbeat(cctx, req)
		t1 = s.o.Now()
		return err
	})
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	s.update(ctx, func(st *syncState) {
		s.measureSkew(st, hr.ServerTime, t0, t1)
		if hr.IntervalSeconds > 0 {
			st.HeartbeatIntervalSeconds = hr.IntervalSeconds
		}
		st.LastHeartbeatAt = s.Now()
	})
	s.log.DebugContext(ctx, "heartbeat", "status", status, "connected_students", req.ConnectedStudents,
		"active_exams", req.ActiveExamsCount)
	return nil
}

// --- Push ------------------------------------------------------------------------

// pushLoop pushes at start, every PushInterval and soon after a Kick,
// backing off after failures. Kicks wait while the portal is failing.
func (s *Syncer) pushLoop(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	failures := 0
	for {
		kick := s.kick
		if failures > 0 {
			kick = nil // a student saving must not defeat the backoff
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-kick:
			// Let the rest of the classroom's saves join this push.
			select {
			case <-ctx.Done():
				return
			case <-time.After(s.o.PushDelay):
			}
			drain(s.kick)
		}
		_, err := s.push(ctx)
		next := s.o.PushInterval
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.fail(ctx, opPush, err)
			failures++
			next = s.retryDelay(failures, err, refused(err))
		} else {
			failures = 0
		}
		t.Reset(next)
	}
}

// PushNow pushes every pending answer now and returns what the portal
// acknowledged, handshaking first if needed. It stops at the first batch
// that fails (the batch stays queued) and returns the error.
func (s *Syncer) PushNow(ctx context.Context) (PushResult, error) {
	res, err := s.push(ctx)
	if err != nil {
		s.fail(ctx, opPush, err)
	}
	return res, err
}

// push sends the sealed batches of the outbox, oldest first, until none is
// left. Each batch keeps the Idempotency-Key it was sealed with, so a batch
// pushed again after a lost receipt (a timeout, a kill) is stored once by
// the portal; a batch leaves localdb only with the portal's receipt.
//
// A batch the portal refuses (4xx such as 422 UNKNOWN_EXAM: an exam deleted
// or unassigned on the portal) is never dropped: the refusal is recorded as
// last_error with its code and the batch is retried slowly (SlowRetry),
// blocking the batches behind it, until the operator fixes the portal side
// or exports the outbox. Students' answers are never lost to a refusal.
func (s *Syncer) push(ctx context.Context) (PushResult, error) {
	s.pushMu.Lock()
	defer s.pushMu.Unlock()
	var res PushResult
	busy := false
	defer func() {
		if busy {
			s.setBusy(-1)
		}
	}()
	for {
		b, err := s.db.NextBatch(ctx, s.o.PushBatchSize, s.Now())
		if err != nil {
			return s.pushResult(res), fmt.Errorf("seal a batch of answers: %w", err)
		}
		if b == nil {
			break
		}
		if !busy {
			busy = true
			s.setBusy(1)
		}
		var rc *client.PushReceipt
		err = s.call(ctx, callTimeout, func(cctx context.Context, c *client.Client) error {
			var err error
			rc, _, err = c.Exam.Sync.PushAnswers(cctx, &client.PushAnswersRequest{
				ServerCode: s.cfg.ServerCode, NPSN: s.cfg.NPSN, Answers: b.Answers, IdempotencyKey: b.IdempotencyKey,
			})
			return err
		})
		if err != nil {
			if refused(err) {
				err = fmt.Errorf("the portal refused batch %d (%d answers, Idempotency-Key %s; kept, retried later, exportable): %w",
					b.Seq, len(b.Answers), b.IdempotencyKey, err)
			} else {
				err = fmt.Errorf("push batch %d (%d answers): %w", b.Seq, len(b.Answers), err)
			}
			return s.pushResult(res), err
		}
		records := rc.RecordCount
		if records == 0 {
			records = len(b.Answers)
		}
		receipt := localdb.Receipt{
			IdempotencyKey: b.IdempotencyKey, SyncID: rc.SyncID, Duplicate: rc.Duplicate,
			Records: records, ReceivedAt: rc.ReceivedAt, AckedAt: s.Now(),
		}
		// The receipt is in hand: record it even if ctx ends now.
		if err := s.db.AckBatch(context.WithoutCancel(ctx), b.Seq, receipt); err != nil {
			return s.pushResult(res), fmt.Errorf("acknowledge batch %d: %w", b.Seq, err)
		}
		res.Batches++
		res.Answers += len(b.Answers)
		res.LastSyncID = rc.SyncID
		if rc.Duplicate {
			res.Duplicates++
		}
		s.log.InfoContext(ctx, "answers pushed", "answers", len(b.Answers), "sync_id", rc.SyncID,
			"duplicate", rc.Duplicate, "idempotency_key", b.IdempotencyKey)
		s.update(ctx, func(st *syncState) {
			st.LastPushAt = s.Now()
			delete(st.Errors, opPush)
		})
	}
	s.succeed(ctx, opPush)
	return s.pushResult(res), nil
}

func (s *Syncer) pushResult(res PushResult) PushResult {
	if n, err := s.db.Pending(); err == nil {
		res.Pending = n
	}
	return res
}
