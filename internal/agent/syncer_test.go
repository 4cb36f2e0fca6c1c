package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/testkit"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/pkg/client"
)

// --- Fixture -------------------------------------------------------------------

const (
	pathVerify    = "/api/v1/sync/verify-server"
	pathPull      = "/api/v1/sync/pull-questions"
	pathPush      = "/api/v1/sync/push-answers"
	pathHeartbeat = "/api/v1/sync/heartbeat"
)

// fixture is a portal with a licence, two students and one exam for
// testNPSN, and the state of one lab server talking to it through a
// testTransport.
type fixture struct {
	t        *testing.T
	portal   *testPortal
	svc      *exam.Service
	lic      exam.License
	cfg      *agent.Config
	dbPath   string
	db       *localdb.DB
	tr       *testTransport
	pkgs     *packages
	logs     *testkit.Buffer
	examID   string
	students []string // member ids
}

type fixtureOptions struct {
	portal      exam.Config
	licenceDays int // default 30
}

func newFixture(t *testing.T, fo fixtureOptions) *fixture {
	t.Helper()
	if fo.licenceDays == 0 {
		fo.licenceDays = 30
	}
	p := startPortal(t, fo.portal)
	f := &fixture{t: t, portal: p, svc: p.Svc, tr: newTestTransport(t), pkgs: &packages{}, logs: &testkit.Buffer{}}
	f.lic = mustLicense(t, p.Svc, "HW-LAB-1", fo.licenceDays)
	f.students = importStudents(t, p.Svc, "Ani Lestari", "Budi Santoso")
	f.examID = createExam(t, p.Svc, "Matematika", 0)
	f.cfg = &agent.Config{
		PortalURL: p.URL, ServerCode: "LAB-01", NPSN: testNPSN, HardwareID: "HW-LAB-1",
		LicenseToken: f.lic.Token, LicenseID: f.lic.ID, LicenseEnds: f.lic.ExpiresAt, MaxStudents: f.lic.MaxStudents,
		SchoolName: f.lic.SchoolName,
	}
	f.dbPath = filepath.Join(t.TempDir(), "labagent.db")
	f.db = openDB(t, f.dbPath)
	t.Cleanup(func() { f.db.Close() })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("labagent log:\n%s", f.logs.String())
		}
	})
	return f
}

func openDB(t *testing.T, path string) *localdb.DB {
	t.Helper()
	db, err := localdb.Open(path, localdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// reopenDB closes the state file and opens it again, as a restart does.
// Every Syncer using it must have stopped.
func (f *fixture) reopenDB() {
	f.t.Helper()
	if err := f.db.Close(); err != nil {
		f.t.Fatal(err)
	}
	f.db = openDB(f.t, f.dbPath)
}

// syncer builds a Syncer with short intervals; mods change its options.
func (f *fixture) syncer(mods ...func(*agent.SyncerOptions)) *agent.Syncer {
	f.t.Helper()
	o := agent.SyncerOptions{
		HTTPClient:   &http.Client{Transport: f.tr},
		Logger:       slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Version:      "test-1.0",
		PullInterval: 100 * time.Millisecond,
		PushInterval: 200 * time.Millisecond,
		PushDelay:    10 * time.Millisecond,
		RetryMin:     10 * time.Millisecond,
		RetryMax:     200 * time.Millisecond,
		SlowRetry:    500 * time.Millisecond,
		OnPackage:    f.pkgs.add,
	}
	for _, m := range mods {
		m(&o)
	}
	s, err := agent.NewSyncer(f.cfg, f.db, o)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// run runs s until the returned stop is called (or the test ends), and
// checks that Run returns nil.
func (f *fixture) run(s *agent.Syncer) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	stop = sync.OnceFunc(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				f.t.Errorf("Run returned %v, want nil", err)
			}
		case <-time.After(30 * time.Second):
			f.t.Errorf("Run did not return after its context ended")
		}
	})
	f.t.Cleanup(stop)
	return stop
}

// waitFor polls cond until it holds, failing the test after a generous
// deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func importStudents(t *testing.T, svc *exam.Service, names ...string) []string {
	t.Helper()
	var rows []exam.MemberInput
	for i, n := range names {
		rows = append(rows, exam.MemberInput{
			NPSN: testNPSN, Nama: n, Username: strings.ToLower(strings.ReplaceAll(n, " ", ".")),
			NISN: fmt.Sprintf("%010d", i+1), Kelas: "XII IPA 1",
		})
	}
	rep, err := svc.ImportMembers(context.Background(), rows, testNPSN)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rep.Rows {
		if r.Action != exam.ImportCreated {
			t.Fatalf("import: %+v", r)
		}
		ids = append(ids, r.MemberID)
	}
	return ids
}

// createExam creates an open exam for testNPSN with three questions, the
// last an essay whose text has essayBytes bytes (at least a few).
func createExam(t *testing.T, svc *exam.Service, title string, essayBytes int) string {
	t.Helper()
	start := time.Now().UTC().Add(-time.Hour)
	essay := "Jelaskan teorema Pythagoras. " + strings.Repeat("Lorem ipsum dolor sit amet. ", essayBytes/28)
	e, err := svc.CreateExam(context.Background(), exam.ExamInput{
		Title: title, Subject: "Umum", NPSNs: []string{testNPSN},
		StartsAt: start, EndsAt: start.Add(6 * time.Hour), DurationMinutes: 90,
		Questions: []exam.Question{
			{ID: "q1", Type: exam.SingleChoice, Text: "1 + 1 = ?", Points: 2,
				Options: []exam.Option{{ID: "a", Text: "1"}, {ID: "b", Text: "2"}}, Answer: []string{"b"}},
			{ID: "q2", Type: exam.TrueFalse, Text: "0 adalah bilangan asli", Points: 1, Answer: []string{"false"}},
			{ID: "q3", Type: exam.Essay, Text: essay},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return e.ID
}

// saveAnswers starts the member's attempt and saves the answers, as the exam
// server does.
func saveAnswers(t *testing.T, db *localdb.DB, examID, memberID string, answers map[string]string) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	if _, err := db.StartAttempt(ctx, localdb.Attempt{ExamID: examID, MemberID: memberID, StartedAt: now, Deadline: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	for _, q := range slices.Sorted(maps.Keys(answers)) {
		if _, err := db.SaveAnswer(ctx, examID, memberID, q, answers[q], now); err != nil {
			t.Fatal(err)
		}
	}
}

func pending(t *testing.T, db *localdb.DB) int {
	t.Helper()
	n, err := db.Pending()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// memberResults returns the portal's results of an exam by member id.
func memberResults(t *testing.T, svc *exam.Service, examID string) map[string]exam.MemberResult {
	t.Helper()
	res, err := svc.Results(context.Background(), examID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]exam.MemberResult{}
	for _, r := range res.Results {
		out[r.MemberID] = r
	}
	return out
}

// packages records the calls of OnPackage.
type packages struct {
	mu    sync.Mutex
	pkgs  []*client.Package
	metas []localdb.PackageMeta
}

func (ps *packages) add(p *client.Package, meta localdb.PackageMeta) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.pkgs = append(ps.pkgs, p)
	ps.metas = append(ps.metas, meta)
}

func (ps *packages) count() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return len(ps.pkgs)
}

// wait waits for the n-th call and returns its arguments.
func (ps *packages) wait(t *testing.T, n int) (*client.Package, localdb.PackageMeta) {
	t.Helper()
	waitFor(t, fmt.Sprintf("OnPackage call #%d", n), func() bool { return ps.count() >= n })
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.pkgs[n-1], ps.metas[n-1]
}

// fakeLab is a LabStats.
type fakeLab struct{ students, exams atomic.Int64 }

func (l *fakeLab) ConnectedStudents() int { return int(l.students.Load()) }
func (l *fakeLab) ActiveExams() int       { return int(l.exams.Load()) }

// --- Transport with faults -----------------------------------------------------

// exchange is one request that reached the portal.
type exchange struct {
	Path, Format                  string
	Range, IfRange, IfNoneMatch   string
	IdempotencyKey, Authorization string
	Status                        int
}

// testTransport records the exchanges with the portal and injects faults.
type testTransport struct {
	base *http.Transport

	mu        sync.Mutex
	exchanges []exchange

	down         atomic.Bool  // every request fails as if the network were down
	cutAt        atomic.Int64 // the next package body is cut after this many bytes (once)
	downAfterCut atomic.Bool  // ... and the network goes down then
	corrupt      atomic.Bool  // one byte of every whole package body is flipped
	dropPushes   atomic.Int32 // the answers of this many pushes (stored by the portal) are lost
}

func newTestTransport(t *testing.T) *testTransport {
	tr := &testTransport{base: &http.Transport{}}
	t.Cleanup(tr.base.CloseIdleConnections)
	return tr
}

var errNetworkDown = errors.New("test: network down")

func (tr *testTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if tr.down.Load() {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, errNetworkDown
	}
	ex := exchange{
		Path: r.URL.Path, Format: r.URL.Query().Get("format"),
		Range: r.Header.Get("Range"), IfRange: r.Header.Get("If-Range"), IfNoneMatch: r.Header.Get("If-None-Match"),
		IdempotencyKey: r.Header.Get("Idempotency-Key"), Authorization: r.Header.Get("Authorization"),
	}
	resp, err := tr.base.RoundTrip(r)
	if resp != nil {
		ex.Status = resp.StatusCode
	}
	tr.mu.Lock()
	tr.exchanges = append(tr.exchanges, ex)
	tr.mu.Unlock()
	if err != nil {
		return nil, err
	}
	switch {
	case ex.Path == pathPull && (resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusPartialContent):
		if n := tr.cutAt.Swap(0); n > 0 {
			resp.Body = &cutBody{rc: resp.Body, left: n, onCut: func() {
				if tr.downAfterCut.Load() {
					tr.down.Store(true)
				}
			}}
		} else if tr.corrupt.Load() && resp.StatusCode == http.StatusOK {
			resp.Body = &flipBody{rc: resp.Body, at: 100}
		}
	case ex.Path == pathPush && resp.StatusCode == http.StatusOK && tr.dropPushes.Add(-1) >= 0:
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, errors.New("test: connection reset before the answer arrived")
	}
	return resp, nil
}

// matching returns the exchanges with path.
func (tr *testTransport) matching(path string) []exchange {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []exchange
	for _, ex := range tr.exchanges {
		if ex.Path == path {
			out = append(out, ex)
		}
	}
	return out
}

// cutBody ends with an error after left bytes, like a dropped connection.
type cutBody struct {
	rc    io.ReadCloser
	left  int64
	onCut func()
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		if b.onCut != nil {
			b.onCut()
			b.onCut = nil
		}
		return 0, errors.New("test: connection cut")
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cutBody) Close() error { return b.rc.Close() }

// flipBody flips the byte at offset at.
type flipBody struct {
	rc  io.ReadCloser
	at  int64
	pos int64
}

func (b *flipBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if b.at >= b.pos && b.at < b.pos+int64(n) {
		p[b.at-b.pos] ^= 0xff
	}
	b.pos += int64(n)
	return n, err
}

func (b *flipBody) Close() error { return b.rc.Close() }

// --- Tests -----------------------------------------------------------------------

func TestSyncerPullsPackage(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.syncer()
	stop := f.run(s)

	p, meta := f.pkgs.wait(t, 1)
	if len(p.Students) != 2 || len(p.Exams) != 1 || p.Exams[0].ID != f.examID || len(p.Exams[0].Questions) != 3 {
		t.Fatalf("package: %d students, exams %+v", len(p.Students), p.Exams)
	}
	if p.NPSN != testNPSN || p.Version != meta.Version || meta.ChecksumSHA256 == "" || meta.Size == 0 || meta.PulledAt.IsZero() {
		t.Fatalf("package %s/%s, meta %+v", p.NPSN, p.Version, meta)
	}
	lp, lmeta, err := s.LoadLocalPackage()
	if err != nil || lmeta.ChecksumSHA256 != meta.ChecksumSHA256 || lp.Version != p.Version {
		t.Fatalf("LoadLocalPackage = %v, %+v, %v", lp, lmeta, err)
	}

	st := s.Status()
	switch {
	case st.State != agent.SyncOnline && st.State != agent.SyncSyncing:
		t.Errorf("state = %q", st.State)
	case st.LicenseID != f.lic.ID || st.MaxStudents != 40 || st.LicenseExpiresSoon || st.SchoolName != "SMA Negeri 1 Contoh":
		t.Errorf("licence in status: %+v", st)
	case st.PackageChecksum != meta.ChecksumSHA256 || st.PackageVersion != meta.Version:
		t.Errorf("package in status: %+v", st)
	case st.LastHandshakeAt.IsZero() || !st.AccessTokenExpiresAt.After(time.Now()) || st.LastError != "":
		t.Errorf("handshake in status: %+v", st)
	case st.ClockSkewMS < -5000 || st.ClockSkewMS > 5000:
		t.Errorf("clock skew %d ms against a portal on the same clock", st.ClockSkewMS)
	}
	raw, _ := json.Marshal(st)
	for _, k := range []string{`"state"`, `"last_handshake_at"`, `"access_token_expires_at"`, `"clock_skew_ms"`, `"license_id"`,
		`"license_expires_at"`, `"license_expires_soon"`, `"max_students"`, `"package_version"`, `"package_checksum"`,
		`"package_pulled_at"`, `"pending_answers"`, `"last_sync_id"`, `"last_error"`, `"heartbeat_interval_seconds"`} {
		if !bytes.Contains(raw, []byte(k)) {
			t.Errorf("status JSON lacks %s: %s", k, raw)
		}
	}

	// The next pull asks with the checksum held and gets a 304.
	etag := `"` + meta.ChecksumSHA256 + `"`
	waitFor(t, "a pull answered 304", func() bool {
		for _, ex := range f.tr.matching(pathPull) {
			if ex.Status == http.StatusNotModified && ex.IfNoneMatch == etag && ex.Format == "binary" {
				return true
			}
		}
		return false
	})
	if n := f.pkgs.count(); n != 1 {
		t.Fatalf("OnPackage called %d times for an unchanged package", n)
	}

	// A new exam makes a new package, which is pulled.
	second := createExam(t, f.svc, "Fisika", 0)
	p2, meta2 := f.pkgs.wait(t, 2)
	if len(p2.Exams) != 2 || meta2.ChecksumSHA256 == meta.ChecksumSHA256 || !slices.ContainsFunc(p2.Exams, func(e client.PackageExam) bool { return e.ID == second }) {
		t.Fatalf("second package: %d exams, meta %+v", len(p2.Exams), meta2)
	}
	if st := s.Status(); st.PackageChecksum != meta2.ChecksumSHA256 {
		t.Fatalf("status names package %s, want %s", st.PackageChecksum, meta2.ChecksumSHA256)
	}

	// Restarted without the portal, labagent serves the package it holds.
	stop()
	f.reopenDB()
	f.tr.down.Store(true)
	f.pkgs = &packages{}
	s2 := f.syncer()
	f.run(s2)
	p3, meta3 := f.pkgs.wait(t, 1)
	if meta3.ChecksumSHA256 != meta2.ChecksumSHA256 || len(p3.Exams) != 2 {
		t.Fatalf("package at start: meta %+v, %d exams", meta3, len(p3.Exams))
	}
	waitFor(t, "the status to say offline", func() bool {
		st := s2.Status()
		return st.State == agent.SyncOffline && strings.Contains(st.LastError, errNetworkDown.Error())
	})
	if st := s2.Status(); st.LicenseID != f.lic.ID || st.PackageChecksum != meta2.ChecksumSHA256 || st.LastHandshakeAt.IsZero() {
		t.Fatalf("status after restart lost the persisted state: %+v", st)
	}
}

func TestSyncerResumesCutDownload(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	big := createExam(t, f.svc, "Bahasa Indonesia", 700<<10) // several 256 KiB chunks
	const cut = 300_000
	f.tr.cutAt.Store(cut)
	s := f.syncer()
	f.run(s)

	p, meta := f.pkgs.wait(t, 1)
	if meta.Size < 700<<10 || len(p.Exams) != 2 || !slices.ContainsFunc(p.Exams, func(e client.PackageExam) bool {
		return e.ID == big && len(e.Questions[2].Text) > 700<<10-100
	}) {
		t.Fatalf("package of %d bytes with %d exams", meta.Size, len(p.Exams))
	}
	checkResumed(t, f.tr.matching(pathPull), cut, meta.ChecksumSHA256)
}

func TestSyncerResumesDownloadAfterRestart(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	createExam(t, f.svc, "Bahasa Indonesia", 700<<10)
	const cut = 300_000
	f.tr.cutAt.Store(cut)
	f.tr.downAfterCut.Store(true)
	s := f.syncer()
	stop := f.run(s)
	waitFor(t, "the cut download to be recorded", func() bool {
		dl, found, err := f.db.Download()
		return err == nil && found && dl.Received == cut
	})
	if st := s.Status(); st.DownloadReceived != cut || st.DownloadSize < 700<<10 {
		t.Fatalf("status of the cut download: %+v", st)
	}
	stop()
	if f.pkgs.count() != 0 {
		t.Fatal("a cut download was handed to OnPackage")
	}

	f.reopenDB()
	f.tr.down.Store(false)
	s2 := f.syncer()
	f.run(s2)
	_, meta := f.pkgs.wait(t, 1)
	checkResumed(t, f.tr.matching(pathPull), cut, meta.ChecksumSHA256)
	if _, found, _ := f.db.Download(); found {
		t.Fatal("the download record outlived the swap")
	}
}

// checkResumed checks that the first package download was cut and the
// second resumed after the bytes received.
func checkResumed(t *testing.T, pulls []exchange, cut int, checksum string) {
	t.Helper()
	if len(pulls) < 2 {
		t.Fatalf("pulls: %+v", pulls)
	}
	first, second := pulls[0], pulls[1]
	if first.Status != http.StatusOK || first.Range != "" {
		t.Fatalf("first pull: %+v", first)
	}
	want := fmt.Sprintf("bytes=%d-", cut)
	if second.Range != want || second.IfRange != `"`+checksum+`"` || second.Status != http.StatusPartialContent {
		t.Fatalf("second pull = %+v, want Range %q with If-Range of the package, answered 206", second, want)
	}
}

func TestSyncerRefusesCorruptPackage(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.syncer()
	f.run(s)
	_, meta := f.pkgs.wait(t, 1)

	f.tr.corrupt.Store(true)
	createExam(t, f.svc, "Kimia", 0)
	waitFor(t, "the corrupt package to be refused", func() bool {
		return strings.Contains(s.Status().LastError, "package refused")
	})
	if info, err := f.db.PackageInfo(); err != nil || info.ChecksumSHA256 != meta.ChecksumSHA256 {
		t.Fatalf("package held = %+v, %v; want the old one", info, err)
	}
	if p, _, err := s.LoadLocalPackage(); err != nil || len(p.Exams) != 1 {
		t.Fatalf("local package after a refusal: %v, %v", p, err)
	}
	if n := f.pkgs.count(); n != 1 {
		t.Fatalf("OnPackage called %d times", n)
	}

	f.tr.corrupt.Store(false)
	p2, _ := f.pkgs.wait(t, 2)
	if len(p2.Exams) != 2 {
		t.Fatalf("package after the corruption ended: %d exams", len(p2.Exams))
	}
	waitFor(t, "the refusal to be cleared", func() bool { return s.Status().LastError == "" })
}

func TestSyncerPushNow(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.syncer(func(o *agent.SyncerOptions) { o.PushBatchSize = 2 })
	saveAnswers(t, f.db, f.examID, f.students[0], map[string]string{"q1": "b", "q2": "false"})
	saveAnswers(t, f.db, f.examID, f.students[1], map[string]string{"q1": "a"})
	if n := pending(t, f.db); n != 3 {
		t.Fatalf("pending = %d", n)
	}

	res, err := s.PushNow(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res.Batches != 2 || res.Answers != 3 || res.Duplicates != 0 || res.Pending != 0 || res.LastSyncID == "" {
		t.Fatalf("PushNow = %+v", res)
	}
	if n := pending(t, f.db); n != 0 {
		t.Fatalf("pending after push = %d", n)
	}
	results := memberResults(t, f.svc, f.examID)
	if r := results[f.students[0]]; r.Answered != 2 || r.Correct != 2 {
		t.Errorf("portal results of student 0: %+v", r)
	}
	if r := results[f.students[1]]; r.Answered != 1 || r.Correct != 0 {
		t.Errorf("portal results of student 1: %+v", r)
	}
	st := s.Status()
	if st.PendingAnswers != 0 || st.LastSyncID != res.LastSyncID || st.LastReceipt == nil || st.LastReceipt.Records != 1 || st.LastPushAt.IsZero() {
		t.Fatalf("status after push: %+v (receipt %+v)", st, st.LastReceipt)
	}

	// Nothing pending: nothing sent.
	before := len(f.tr.matching(pathPush))
	if res, err := s.PushNow(t.Context()); err != nil || res.Batches != 0 {
		t.Fatalf("empty PushNow = %+v, %v", res, err)
	}
	if n := len(f.tr.matching(pathPush)); n != before {
		t.Fatalf("an empty push sent %d requests", n-before)
	}
}

func TestSyncerPushIsExactlyOnce(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.tr.dropPushes.Store(1)
	s := f.syncer()
	f.run(s)
	f.pkgs.wait(t, 1)

	saveAnswers(t, f.db, f.examID, f.students[0], map[string]string{"q1": "b", "q2": "true", "q3": "a² + b² = c²"})
	s.Kick()
	waitFor(t, "the answers to be acknowledged", func() bool { return pending(t, f.db) == 0 })

	pushes := f.tr.matching(pathPush)
	if len(pushes) != 2 || pushes[0].IdempotencyKey == "" || pushes[1].IdempotencyKey != pushes[0].IdempotencyKey ||
		pushes[0].Status != http.StatusOK || pushes[1].Status != http.StatusOK {
		t.Fatalf("pushes: %+v", pushes)
	}
	logs, err := f.svc.ListSyncLogs(t.Context(), exam.SyncLogFilter{ServerCode: "LAB-01"})
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[exam.SyncOutcome]int{}
	for _, l := range logs {
		if l.Action == exam.ActionPushResults {
			if l.IdempotencyKey != pushes[0].IdempotencyKey {
				t.Errorf("sync log of another key: %+v", l)
			}
			outcomes[l.Outcome]++
		}
	}
	if outcomes[exam.OutcomeAccepted] != 1 || outcomes[exam.OutcomeDuplicate] != 1 || len(outcomes) != 2 {
		t.Fatalf("push outcomes in the sync log: %v", outcomes)
	}
	if r := memberResults(t, f.svc, f.examID)[f.students[0]]; r.Answered != 3 || r.Correct != 1 {
		t.Fatalf("portal results: %+v", r)
	}
	if st := s.Status(); st.LastReceipt == nil || !st.LastReceipt.Duplicate || st.LastReceipt.IdempotencyKey != pushes[0].IdempotencyKey {
		t.Fatalf("last receipt: %+v", st.LastReceipt)
	}
}

func TestSyncerPortalDownThenBack(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.syncer()
	f.run(s)
	f.pkgs.wait(t, 1)

	f.portal.Stop()
	saveAnswers(t, f.db, f.examID, f.students[1], map[string]string{"q1": "b"})
	s.Kick()
	waitFor(t, "the status to say offline", func() bool {
		st := s.Status()
		return st.State == agent.SyncOffline && st.LastError != ""
	})
	if n := pending(t, f.db); n != 1 {
		t.Fatalf("pending while the portal is down = %d", n)
	}

	f.portal.Start()
	waitFor(t, "the answers to arrive", func() bool { return pending(t, f.db) == 0 })
	if r := memberResults(t, f.svc, f.examID)[f.students[1]]; r.Answered != 1 || r.Correct != 1 {
		t.Fatalf("portal results: %+v", r)
	}
	waitFor(t, "the status to say online", func() bool { return s.Status().State != agent.SyncOffline })
}

func TestSyncerHeartbeat(t *testing.T) {
	f := newFixture(t, fixtureOptions{portal: exam.Config{HeartbeatInterval: time.Second}})
	lab := &fakeLab{}
	lab.students.Store(3)
	lab.exams.Store(1)
	s := f.syncer(func(o *agent.SyncerOptions) { o.PullInterval = time.Minute })
	s.SetLab(lab)
	f.run(s)

	monitor := func() exam.Monitor {
		ms, err := f.svc.ListMonitors(context.Background(), testNPSN, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 1 {
			return exam.Monitor{}
		}
		return ms[0]
	}
	waitFor(t, "a heartbeat", func() bool {
		m := monitor()
		return m.ServerCode == "LAB-01" && m.ConnectedStudents == 3 && m.ActiveExamsCount == 1 && m.ClientVersion == "test-1.0"
	})
	// The interval the portal asks for (1 s) is kept.
	lab.students.Store(5)
	waitFor(t, "a heartbeat with the new figures", func() bool {
		m := monitor()
		return m.ConnectedStudents == 5 && m.Status == exam.StatusOnline
	})
	if st := s.Status(); st.HeartbeatIntervalSeconds != 1 || st.LastHeartbeatAt.IsZero() {
		t.Fatalf("heartbeat in status: %+v", st)
	}
}

func TestSyncerLicenceRefused(t *testing.T) {
	t.Run("no token", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{})
		if _, err := f.svc.RevokeLicense(t.Context(), f.lic.ID); err != nil {
			t.Fatal(err)
		}
		s := f.syncer()
		f.run(s)
		waitFor(t, "the refusal to be recorded", func() bool {
			st := s.Status()
			return st.State == agent.SyncOffline && strings.Contains(st.LastError, client.CodeLicenseRevoked)
		})
		// The status is set just before the log line is written.
		waitFor(t, "the refusal to be logged as an error", func() bool {
			return strings.Contains(f.logs.String(), "level=ERROR") && strings.Contains(f.logs.String(), client.CodeLicenseRevoked)
		})
		if f.pkgs.count() != 0 || len(f.tr.matching(pathPull)) != 0 {
			t.Fatal("pulled without a handshake")
		}
	})

	t.Run("held package and token", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{})
		stop := f.run(f.syncer())
		_, meta := f.pkgs.wait(t, 1)
		stop()
		if _, err := f.svc.RevokeLicense(t.Context(), f.lic.ID); err != nil {
			t.Fatal(err)
		}

		f.pkgs = &packages{}
		s := f.syncer(func(o *agent.SyncerOptions) { o.SlowRetry = time.Hour })
		f.run(s)
		if _, m := f.pkgs.wait(t, 1); m.ChecksumSHA256 != meta.ChecksumSHA256 {
			t.Fatalf("package at start %+v", m)
		}
		waitFor(t, "the refusal to be recorded", func() bool {
			return strings.Contains(s.Status().LastError, client.CodeLicenseRevoked)
		})
		// The access token still valid keeps the sync going, and the
		// handshake is not retried at each call.
		pulls := len(f.tr.matching(pathPull))
		waitFor(t, "more pulls", func() bool { return len(f.tr.matching(pathPull)) >= pulls+5 })
		if n := len(f.tr.matching(pathVerify)); n != 2 {
			t.Fatalf("%d handshakes, want 2 (one per run)", n)
		}
	})
}

func TestSyncerClockSkewAndLicenceExpiry(t *testing.T) {
	f := newFixture(t, fixtureOptions{licenceDays: 3})
	const behind = 90 * time.Minute
	local := func() time.Time { return time.Now().Add(-behind) }
	s := f.syncer(func(o *agent.SyncerOptions) { o.Now = local })
	if _, err := s.PushNow(t.Context()); err != nil { // nothing to push: no handshake
		t.Fatal(err)
	}
	saveAnswers(t, f.db, f.examID, f.students[0], map[string]string{"q1": "b"})
	if _, err := s.PushNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	st := s.Status()
	if d := time.Duration(st.ClockSkewMS)*time.Millisecond - behind; d < -10*time.Second || d > 10*time.Second {
		t.Fatalf("clock skew %d ms, want about %v", st.ClockSkewMS, behind)
	}
	if d := time.Until(s.Now()); d < -10*time.Second || d > 10*time.Second {
		t.Fatalf("Now() is %v off the portal's clock", d)
	}
	if !st.LicenseExpiresSoon {
		t.Fatalf("a licence expiring in 3 days is not reported: %+v", st)
	}
	if !strings.Contains(f.logs.String(), "licence expires soon") {
		t.Fatal("no warning logged for a licence expiring in 3 days")
	}
	// The skew survives a restart.
	s2 := f.syncer(func(o *agent.SyncerOptions) { o.Now = local })
	if d := time.Until(s2.Now()); d < -10*time.Second || d > 10*time.Second {
		t.Fatalf("after a restart Now() is %v off the portal's clock", d)
	}
}

func TestSyncerRenewsRefusedToken(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.syncer()
	saveAnswers(t, f.db, f.examID, f.students[0], map[string]string{"q1": "b"})
	if _, err := s.PushNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Spoil the stored token: the next run starts with a token the portal
	// refuses.
	var state map[string]any
	if found, err := f.db.GetMeta(agent.MetaSyncState, &state); err != nil || !found || state["access_token"] == "" {
		t.Fatalf("sync state = %v, %v", state, err)
	}
	state["access_token"] = "not-a-token"
	if err := f.db.PutMeta(t.Context(), agent.MetaSyncState, state); err != nil {
		t.Fatal(err)
	}
	s2 := f.syncer()
	saveAnswers(t, f.db, f.examID, f.students[1], map[string]string{"q1": "b"})
	res, err := s2.PushNow(t.Context())
	if err != nil || res.Answers != 1 {
		t.Fatalf("PushNow = %+v, %v", res, err)
	}
	pushes := f.tr.matching(pathPush)
	if len(pushes) != 3 || pushes[1].Status != http.StatusUnauthorized || pushes[1].Authorization != "Bearer not-a-token" || pushes[2].Status != http.StatusOK {
		t.Fatalf("pushes: %+v", pushes)
	}
	if n := len(f.tr.matching(pathVerify)); n != 2 {
		t.Fatalf("%d handshakes, want 2", n)
	}
}

func TestSyncerKeepsRefusedBatch(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.syncer()
	saveAnswers(t, f.db, "no-such-exam", f.students[0], map[string]string{"q1": "b"})
	for range 2 {
		_, err := s.PushNow(t.Context())
		if !errors.Is(err, &client.Error{Code: client.CodeUnknownExam}) {
			t.Fatalf("PushNow error = %v, want %s", err, client.CodeUnknownExam)
		}
	}
	if n := pending(t, f.db); n != 1 {
		t.Fatalf("pending after a refusal = %d, want the batch kept", n)
	}
	if bs, err := f.db.Batches(); err != nil || len(bs) != 1 {
		t.Fatalf("batches = %+v, %v", bs, err)
	}
	pushes := f.tr.matching(pathPush)
	if len(pushes) != 2 || pushes[0].IdempotencyKey != pushes[1].IdempotencyKey || pushes[0].Status != http.StatusUnprocessableEntity {
		t.Fatalf("pushes: %+v", pushes)
	}
	if st := s.Status(); !strings.Contains(st.LastError, client.CodeUnknownExam) || st.LastErrorAt.IsZero() {
		t.Fatalf("status after a refused batch: %+v", st)
	}
}
