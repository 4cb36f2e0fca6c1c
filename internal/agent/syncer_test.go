//go:build !windows

package agent_test

import (
	"context"
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
	pathVerify = "/api/v1/sync/verify-server"
	pathPull   = "/api/v1/sync/pull-questions"
	pathPush   = "/api/v1/sync/push-answers"
	pathMedia  = "/api/v1/sync/media/"
	pathBlobs  = "/api/v1/blobs/"
	// mediaBlobSize is the size from which the fault transport takes a
	// blob for a media file's (the tests' images are larger, their
	// questions' blobs smaller).
	mediaBlobSize = 64 << 10
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

// createWideExams creates n exams of the same questions questions each,
// so that a package of format 3, which lists a blob per question, is
// large, while its questions are few distinct blobs.
func createWideExams(t *testing.T, svc *exam.Service, n, questions int) []string {
	t.Helper()
	start := time.Now().UTC().Add(-time.Hour)
	var qs []exam.Question
	for i := range questions {
		qs = append(qs, exam.Question{ID: fmt.Sprintf("k%04d", i), Type: exam.ShortAnswer,
			Text: fmt.Sprintf("Pertanyaan %d", i), Answer: []string{"final"}, Points: 1})
	}
	var ids []string
	for i := range n {
		e, err := svc.CreateExam(context.Background(), exam.ExamInput{
			Title: fmt.Sprintf("Ujian %d", i), Subject: "Umum", NPSNs: []string{testNPSN},
			StartsAt: start, EndsAt: start.Add(6 * time.Hour), DurationMinutes: 90, Questions: qs,
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	return ids
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
	// A hang, not a speed target: a package of thousands of questions
	// (TestSyncerResumesCutDownload) takes tens of seconds to build and
	// fetch with -race on a loaded 2-core machine.
	testkit.Eventually(t, 2*time.Minute, fmt.Sprintf("OnPackage call #%d", n), func() bool { return ps.count() >= n })
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
	cutMediaAt   atomic.Int64 // the next media or media blob body is cut after this many bytes (once)
	corruptBlobs atomic.Int32 // one byte of each of this many next whole media blob bodies is flipped
	downAfterCut atomic.Bool  // ... and the network goes down then
	corrupt      atomic.Bool  // one byte of every whole package body is flipped
	dropPushes   atomic.Int32 // the answers of this many pushes (stored by the portal) are lost
	failPushes   atomic.Bool  // every push fails as if the network were down (other calls go through)
}

func newTestTransport(t *testing.T) *testTransport {
	tr := &testTransport{base: &http.Transport{}}
	t.Cleanup(tr.base.CloseIdleConnections)
	return tr
}

var errNetworkDown = errors.New("test: network down")

func (tr *testTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if tr.down.Load() || (tr.failPushes.Load() && r.URL.Path == pathPush) {
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
	case strings.HasPrefix(ex.Path, pathMedia) && resp.StatusCode == http.StatusOK:
		if n := tr.cutMediaAt.Swap(0); n > 0 {
			resp.Body = &cutBody{rc: resp.Body, left: n}
		}
	case strings.HasPrefix(ex.Path, pathBlobs) && resp.StatusCode == http.StatusOK && resp.ContentLength >= mediaBlobSize:
		// Media blobs only: the questions' blobs are smaller.
		if n := tr.cutMediaAt.Swap(0); n > 0 {
			resp.Body = &cutBody{rc: resp.Body, left: n}
		} else if tr.corruptBlobs.Add(-1) >= 0 {
			resp.Body = &flipBody{rc: resp.Body, at: resp.ContentLength / 2}
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

// prefixed returns the number of exchanges whose path starts with prefix.
func (tr *testTransport) prefixed(prefix string) int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	n := 0
	for _, ex := range tr.exchanges {
		if strings.HasPrefix(ex.Path, prefix) {
			n++
		}
	}
	return n
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
