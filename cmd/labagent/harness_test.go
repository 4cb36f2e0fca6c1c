//go:build !windows

package main

// The harness of the end-to-end tests (e2e_test.go): it builds the real
// portal and labagent binaries, runs "portal serve" and "labagent run" as
// processes, sets a school up on the portal through pkg/client, and drives
// labagent's LAN API as students and a proctor would.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/postgres"
	"github.com/seedhq/portal/internal/testkit/proc"
	"github.com/seedhq/portal/pkg/client"
)

// Fixture values of the end-to-end scenarios.
const (
	e2eNPSN       = "20100001"
	e2eSchool     = "SMA 1"
	e2eHardwareID = "HW-TEST-0001"
	e2eServerCode = "LAB-01"
	e2eVersion    = "e2e-test"
	// e2eHeartbeat is the portal's --heartbeat-interval (its minimum), which
	// labagent adopts at the handshake.
	e2eHeartbeat = 5 * time.Second
)

// bins are the binaries under test, built once per test process, without
// -race even when the tests run with -race (the processes are black boxes
// here; the race detector would only slow them down).
var bins = &proc.Binaries{
	Packages:   []string{".", "../portal"},
	BuildFlags: []string{"-ldflags", "-X main.version=" + e2eVersion},
}

// dropEnv keeps a developer's PORTAL_* and LABAGENT_* settings away from the
// processes under test.
var dropEnv = []string{"PORTAL_", "LABAGENT_"}

func TestMain(m *testing.M) {
	atExit(bins.Remove)
	code := m.Run()
	for _, f := range exitFuncs {
		f()
	}
	os.Exit(code)
}

// exitFuncs run after the tests, in TestMain (atExit).
var exitFuncs []func()

// atExit has f run once every test of the process has finished: for what
// the tests share, such as a Wine prefix.
func atExit(f func()) { exitFuncs = append(exitFuncs, f) }

// mustBuild builds cmd/portal and cmd/labagent (once) and returns their
// paths; with -short it skips the test.
func mustBuild(t testing.TB) (portalBin, labagentBin string) {
	t.Helper()
	return bins.Path(t, "portal"), bins.Path(t, "labagent")
}

// runBin runs bin with args and env to completion (2 minutes at most).
func runBin(t testing.TB, bin string, env []string, args ...string) proc.Result {
	t.Helper()
	return proc.Run(t, bin, proc.Options{Env: env, DropEnv: dropEnv}, args...)
}

// eventually calls cond until it reports true, failing the test after
// timeout with what and cond's last message.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, msg := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s; last: %s", what, timeout, msg)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// jsonString renders v for failure messages.
func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// ---- portal --------------------------------------------------------------------

// portalConfig says how to start "portal serve"; a restart reuses it.
type portalConfig struct {
	DataDir string
	DBURL   string // PostgreSQL; empty: bbolt in DataDir
	Listen  string // empty: 127.0.0.1:0
	// Bin is the portal binary; empty: the one built for this machine.
	Bin string
	// Wrapper runs Bin (proc.Options.Wrapper), e.g. qemu-aarch64-static
	// for a linux/arm64 build.
	Wrapper []string
	// Args and Env are more flags and environment variables for
	// "portal serve".
	Args, Env []string
}

// portalProc is a running "portal serve".
type portalProc struct {
	*proc.Proc
	t        testing.TB
	cfg      portalConfig
	Addr     string
	URL      string
	Password string // the operator "admin"'s password
}

// e2ePostgresPassword is the first account's password on PostgreSQL (where
// no password file is written).
const e2ePostgresPassword = "e2e-postgres-Password"

// startPortal starts "portal serve" (JSON log, heartbeat interval 5 s),
// waits for its "listening" line and /readyz.
func startPortal(t testing.TB, cfg portalConfig) *portalProc {
	t.Helper()
	bin := cfg.Bin
	if bin == "" {
		bin, _ = mustBuild(t)
	}
	listen := cfg.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	args := []string{"serve", "--listen", listen, "--data-dir", cfg.DataDir, "--log-format", "json",
		"--heartbeat-interval", e2eHeartbeat.String()}
	args = append(args, cfg.Args...)
	env := slices.Clone(cfg.Env)
	if cfg.DBURL != "" {
		args = append(args, "--database-url", cfg.DBURL)
		env = append(env, "PORTAL_ADMIN_PASSWORD="+e2ePostgresPassword)
	}
	return readyPortal(t, proc.Start(t, bin, proc.Options{Env: env, DropEnv: dropEnv, Wrapper: cfg.Wrapper}, args...), cfg)
}

// readyPortal waits until the "portal serve" process p, started with cfg,
// listens and answers /readyz, and reads the operator's password.
func readyPortal(t testing.TB, p *proc.Proc, cfg portalConfig) *portalProc {
	t.Helper()
	pp := &portalProc{Proc: p, t: t, cfg: cfg, Addr: p.WaitListening(60 * time.Second)}
	pp.URL = "http://" + pp.Addr
	proc.WaitReady(t, pp.URL+"/readyz", 30*time.Second)
	if cfg.DBURL != "" {
		pp.Password = e2ePostgresPassword
	} else {
		b, err := os.ReadFile(filepath.Join(cfg.DataDir, "initial-admin-password"))
		if err != nil {
			t.Fatalf("initial admin password: %v", err)
		}
		pp.Password = strings.TrimSpace(string(b))
	}
	return pp
}

// restart starts the portal again, stopped or killed, with the same
// arguments (data and, when it was fixed, address).
func (p *portalProc) restart() *portalProc {
	p.t.Helper()
	return readyPortal(p.t, p.Restart(), p.cfg)
}

// operator returns a client signed in as admin.
func (p *portalProc) operator() *client.Client {
	p.t.Helper()
	c, err := client.NewClient(p.URL)
	if err != nil {
		p.t.Fatal(err)
	}
	res, _, err := c.Exam.Auth.Login(p.t.Context(), "admin", p.Password)
	if err != nil {
		p.t.Fatalf("operator login: %v", err)
	}
	c.SetToken(res.Token)
	return c
}

// admin runs "portal admin args..." against the portal.
func (p *portalProc) admin(args ...string) proc.Result {
	p.t.Helper()
	bin, _ := mustBuild(p.t)
	return runBin(p.t, bin, []string{"PORTAL_URL=" + p.URL, "PORTAL_ADMIN_PASSWORD=" + p.Password},
		append([]string{"admin"}, args...)...)
}

// storeKey identifies a stored answer: member id and question id.
type storeKey struct{ member, question string }

// storedAnswers reads the answers of an exam straight from the portal's
// store, to check exact values (the API only gives scores). On bbolt the
// portal must be stopped (it holds the file).
func storedAnswers(t testing.TB, cfg portalConfig, examID string) map[storeKey]exam.Answer {
	t.Helper()
	ctx := t.Context()
	var (
		as  []exam.Answer
		err error
	)
	if cfg.DBURL != "" {
		s, oerr := postgres.Open(ctx, cfg.DBURL)
		if oerr != nil {
			t.Fatalf("open the portal's PostgreSQL store: %v", oerr)
		}
		as, err = s.ListAnswers(ctx, exam.AnswerQuery{ExamID: examID})
		s.Close()
	} else {
		s, oerr := bolt.Open(filepath.Join(cfg.DataDir, "portal.db"))
		if oerr != nil {
			t.Fatalf("open the portal's bbolt store (is the portal stopped?): %v", oerr)
		}
		as, err = s.ListAnswers(ctx, exam.AnswerQuery{ExamID: examID})
		s.Close()
	}
	if err != nil {
		t.Fatalf("list stored answers: %v", err)
	}
	out := make(map[storeKey]exam.Answer, len(as))
	for _, a := range as {
		k := storeKey{a.MemberID, a.QuestionID}
		if _, dup := out[k]; dup {
			t.Errorf("the store holds two answers of member %s to question %s", a.MemberID, a.QuestionID)
		}
		out[k] = a
	}
	return out
}

// pushLedger sums up the push_results records of the sync log.
type pushLedger struct {
	accepted   map[string]*client.SyncLog // by idempotency key
	duplicates []*client.SyncLog
	rejected   []*client.SyncLog
	records    int // sum of the record counts of accepted pushes
}

// pushLogs reads the sync log of LAB-01's pushes and checks that no batch
// was accepted twice, that every duplicate names an accepted batch and that
// nothing was rejected.
func pushLogs(t testing.TB, op *client.Client) pushLedger {
	t.Helper()
	l := pushLedger{accepted: map[string]*client.SyncLog{}}
	for _, outcome := range []string{client.OutcomeAccepted, client.OutcomeDuplicate, client.OutcomeRejected} {
		logs, _, err := op.Exam.Admin.ListSyncLogs(t.Context(), &client.SyncLogListOptions{
			ServerCode: e2eServerCode, Status: outcome, Limit: 1000})
		if err != nil {
			t.Fatalf("sync logs: %v", err)
		}
		if len(logs) == 1000 {
			t.Fatalf("1000 %s sync log records: the ledger would be incomplete", outcome)
		}
		for _, s := range logs {
			if s.Action != client.ActionPushResults {
				continue
			}
			switch outcome {
			case client.OutcomeAccepted:
				if prev, dup := l.accepted[s.IdempotencyKey]; dup {
					t.Errorf("batch %q accepted twice: %s and %s", s.IdempotencyKey, jsonString(prev), jsonString(s))
				}
				l.accepted[s.IdempotencyKey] = s
				l.records += s.RecordCount
			case client.OutcomeDuplicate:
				l.duplicates = append(l.duplicates, s)
			case client.OutcomeRejected:
				l.rejected = append(l.rejected, s)
			}
		}
	}
	for _, d := range l.duplicates {
		if a, ok := l.accepted[d.IdempotencyKey]; !ok {
			t.Errorf("duplicate push %s names no accepted batch", jsonString(d))
		} else if a.ChecksumSHA256 != d.ChecksumSHA256 || a.RecordCount != d.RecordCount {
			t.Errorf("duplicate push %s differs from the accepted one %s", jsonString(d), jsonString(a))
		}
	}
	if len(l.rejected) > 0 {
		t.Errorf("rejected pushes: %s", jsonString(l.rejected))
	}
	for _, a := range l.accepted {
		if a.IdempotencyKey == "" {
			t.Errorf("a push without Idempotency-Key: %s", jsonString(a))
		}
	}
	return l
}

// results returns the portal's results of an exam by username.
func results(t testing.TB, op *client.Client, examID string) map[string]client.MemberResult {
	t.Helper()
	res, _, err := op.Exam.Admin.ExamResults(t.Context(), examID)
	if err != nil {
		t.Fatalf("results: %v", err)
	}
	out := map[string]client.MemberResult{}
	for _, r := range res.Results {
		out[r.Username] = r
	}
	return out
}

// ---- the school on the portal ----------------------------------------------------

// school is what setupSchool created on the portal.
type school struct {
	licence   string
	members   map[string]string // username -> member id
	passwords map[string]string // username -> exam password (login card)
	exams     []*client.Exam
}

// setupSchool creates, as an operator through pkg/client, the active
// academic year, the students, the exams (assigned to the school) and the
// lab server's licence.
func setupSchool(t testing.TB, p *portalProc, usernames []string, exams ...*client.ExamRequest) *school {
	t.Helper()
	ctx := t.Context()
	op := p.operator()
	if _, _, err := op.Exam.Admin.CreateAcademicYear(ctx, "2025/2026", true); err != nil {
		t.Fatalf("create academic year: %v", err)
	}
	var csv strings.Builder
	csv.WriteString("nama,username,nisn,kelas\n")
	for i, u := range usernames {
		fmt.Fprintf(&csv, "Siswa %s,%s,%010d,XII IPA %d\n", strings.ToUpper(u), u, 51000000+i, 1+i%3)
	}
	rep, _, err := op.Exam.Admin.ImportMembersCSV(ctx, strings.NewReader(csv.String()), &client.ImportOptions{NPSN: e2eNPSN})
	if err != nil {
		t.Fatalf("import members: %v", err)
	}
	if rep.Created != len(usernames) || rep.Rejected != 0 {
		t.Fatalf("import members: %s", jsonString(rep))
	}
	cards, _, err := op.Exam.Admin.LoginCards(ctx, e2eNPSN)
	if err != nil || len(cards) != len(usernames) {
		t.Fatalf("login cards: %s, %v", jsonString(cards), err)
	}
	s := &school{members: map[string]string{}, passwords: map[string]string{}}
	for _, c := range cards {
		s.members[c.Username], s.passwords[c.Username] = c.MemberID, c.ExamPassword
	}
	for _, req := range exams {
		req.NPSN = []string{e2eNPSN}
		e, _, err := op.Exam.Admin.CreateExam(ctx, req)
		if err != nil {
			t.Fatalf("create exam %q: %v", req.Title, err)
		}
		s.exams = append(s.exams, e)
	}
	lic, _, err := op.Exam.Licenses.Generate(ctx, &client.LicenseRequest{
		NPSN: e2eNPSN, SchoolName: e2eSchool, HardwareID: e2eHardwareID,
		MaxStudents: 100, DurationDays: 30, OperatingMode: client.ModeSemiOffline,
	})
	if err != nil {
		t.Fatalf("generate licence: %v", err)
	}
	s.licence = lic.LicenseToken
	return s
}

// openWindow is an exam window open now for a day.
func openWindow() (starts, ends time.Time) {
	now := time.Now().UTC().Truncate(time.Second)
	return now.Add(-time.Hour), now.Add(23 * time.Hour)
}

// shortAnswerExam is an exam of n short-answer questions k01..kNN, one point
// each, whose accepted answer is "final".
func shortAnswerExam(title string, n int) *client.ExamRequest {
	starts, ends := openWindow()
	req := &client.ExamRequest{Title: title, Subject: "BIN", StartsAt: starts, EndsAt: ends, DurationMinutes: 120}
	for i := 1; i <= n; i++ {
		req.Questions = append(req.Questions, client.Question{
			ID: fmt.Sprintf("k%02d", i), Type: client.ShortAnswer, Text: fmt.Sprintf("Question %d", i),
			Answer: []string{"final"}, Points: 1,
		})
	}
	return req
}

// questionIDs returns the ids of an exam's questions.
func questionIDs(e *client.Exam) []string {
	var ids []string
	for _, q := range e.Questions {
		ids = append(ids, q.ID)
	}
	return ids
}

// ---- labagent --------------------------------------------------------------------

// labAgent is one lab server: its data directory and, while it runs, its
// "labagent run" process.
type labAgent struct {
	t      testing.TB
	target *target
	bin    string
	dir    string // the data directory on this machine
	dirArg string // the data directory as labagent is given it

	mu      sync.Mutex
	started time.Time // when the current run was started
	run     *proc.Proc
	lan     string // host:port of the student pages
	control agent.Control
}

// enrollLab runs "labagent enroll" against portalURL with the school's
// licence into a new data directory, on this machine.
func enrollLab(t testing.TB, portalURL string, s *school) *labAgent {
	t.Helper()
	return enrollLabOn(t, hostTarget, portalURL, s)
}

// enrollLabOn is enrollLab with labagent on the target tg. The licence file
// sits in the data directory's parent, so that labagent reaches it under
// the same path style as its data.
func enrollLabOn(t testing.TB, tg *target, portalURL string, s *school) *labAgent {
	t.Helper()
	return enrollLabAs(t, tg, portalURL, s.licence, e2eServerCode, e2eNPSN, e2eHardwareID)
}

// enrollLabAs is enrollLabOn for the lab server serverCode of the school
// npsn, on the machine hw, with the licence token licence.
func enrollLabAs(t testing.TB, tg *target, portalURL, licence, serverCode, npsn, hw string) *labAgent {
	t.Helper()
	l := &labAgent{t: t, target: tg, bin: tg.bin(t)}
	l.dirArg, l.dir = tg.dataDir(t)
	if err := os.MkdirAll(filepath.Dir(l.dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(l.dir), "licence.txt"), []byte(licence+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	licArg := l.siblingArg("licence.txt")
	res := proc.Run(t, l.bin, tg.options(), "enroll", "--portal-url", portalURL, "--server-code", serverCode,
		"--npsn", npsn, "--license-file", licArg, "--hardware-id", hw, "--data-dir", l.dirArg)
	if res.Code != 0 || !strings.Contains(res.Stdout, "enrolled "+serverCode) {
		t.Fatalf("labagent enroll (%s): %s", tg.name, res)
	}
	return l
}

// siblingArg is the path, as labagent is given it, of the file name beside
// the data directory.
func (l *labAgent) siblingArg(name string) string {
	if i := strings.LastIndexAny(l.dirArg, `/\`); i >= 0 {
		return l.dirArg[:i+1] + name
	}
	return name
}

// sibling is the file name beside the data directory: its path as
// labagent is given it, and the same file's path on this machine.
func (l *labAgent) sibling(name string) (arg, host string) {
	return l.siblingArg(name), filepath.Join(filepath.Dir(l.dir), name)
}

// cli runs "labagent args... --data-dir <dir>".
func (l *labAgent) cli(args ...string) proc.Result {
	l.t.Helper()
	return proc.Run(l.t, l.bin, l.target.options(), append(args, "--data-dir", l.dirArg)...)
}

// start runs "labagent run" on 127.0.0.1:0 (LAN and control), and waits
// until it has written its control file and answers on the LAN.
func (l *labAgent) start() {
	l.t.Helper()
	l.waitReady(l.startNoWait())
}

// startNoWait starts "labagent run" and returns at once; a run after the
// first one (stopped or killed) restarts it with the same arguments.
func (l *labAgent) startNoWait() *proc.Proc {
	l.t.Helper()
	var p *proc.Proc
	l.started = time.Now()
	if prev := l.proc(); prev != nil {
		p = prev.Restart() // fails the test if labagent is still running
	} else {
		p = proc.Start(l.t, l.bin, l.target.options(), "run", "--data-dir", l.dirArg,
			"--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0",
			"--pull-interval", "5s", "--log-format", "json")
	}
	l.mu.Lock()
	l.run = p // from now on kill9 and proc reach this process
	l.mu.Unlock()
	return p
}

// waitReady waits until the run p has written its control file and
// answers on the LAN.
func (l *labAgent) waitReady(p *proc.Proc) {
	l.t.Helper()
	l.mu.Lock()
	prev := l.control.Token
	l.mu.Unlock()
	ctl := l.target.controlOf(l.t, l.dir, p, l.started, prev)
	proc.WaitReady(l.t, "http://"+ctl.LANAddr+"/healthz", 30*time.Second)
	l.mu.Lock()
	l.lan, l.control = ctl.LANAddr, *ctl
	l.mu.Unlock()
}

// proc returns the current "labagent run" process.
func (l *labAgent) proc() *proc.Proc {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.run
}

// lanURL is the base URL of the student pages of the current run.
func (l *labAgent) lanURL() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return "http://" + l.lan
}

// stop sends SIGTERM (Ctrl+C under Wine), checks a clean exit and that
// the control file is gone.
func (l *labAgent) stop() {
	l.t.Helper()
	l.proc().StopWith(l.target.stopSignal)
	if _, err := os.Stat(filepath.Join(l.dir, agent.ControlFile)); !errors.Is(err, os.ErrNotExist) {
		l.t.Errorf("control file left after a clean stop (stat: %v)", err)
	}
}

// kill9 ends "labagent run" at once: SIGKILL (taskkill /F under Wine).
func (l *labAgent) kill9() { l.target.kill(l) }

// status runs "labagent status --output json".
func (l *labAgent) status() agent.Status {
	l.t.Helper()
	res := l.cli("status", "--output", "json")
	if res.Code != 0 {
		l.t.Fatalf("labagent status: %s", res)
	}
	var st agent.Status
	if err := json.Unmarshal([]byte(res.Stdout), &st); err != nil {
		l.t.Fatalf("labagent status: %v\n%s", err, res.Stdout)
	}
	return st
}

// quickStatus asks the running daemon's control API directly (cheaper than
// a process for tight polls).
func (l *labAgent) quickStatus() (agent.Status, error) {
	l.mu.Lock()
	ctl := l.control
	l.mu.Unlock()
	var st agent.Status
	req, _ := http.NewRequest(http.MethodGet, "http://"+ctl.ControlAddr+"/status", nil)
	req.Header.Set("Authorization", "Bearer "+ctl.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("control /status: %s", resp.Status)
	}
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// waitStatus polls "labagent status --output json" until cond holds.
func (l *labAgent) waitStatus(timeout time.Duration, what string, cond func(agent.Status) bool) agent.Status {
	l.t.Helper()
	var st agent.Status
	eventually(l.t, timeout, "labagent status: "+what, func() (bool, string) {
		st = l.status()
		return cond(st), jsonString(st)
	})
	return st
}

// waitPackage waits until the student pages have an exam package.
func (l *labAgent) waitPackage() {
	l.t.Helper()
	eventually(l.t, 30*time.Second, "labagent holds the exam package", func() (bool, string) {
		var info struct {
			PackageReady bool `json:"package_ready"`
		}
		resp, err := http.Get(l.lanURL() + "/api/student/info")
		if err != nil {
			return false, err.Error()
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
			return false, err.Error()
		}
		return info.PackageReady, fmt.Sprint(info)
	})
}

// proctorState is the part of GET /api/proctor/state the tests read.
type proctorState struct {
	Seated int `json:"seated"`
	Token  struct {
		Value string `json:"value"`
	} `json:"token"`
	Sync     agent.SyncStatus `json:"sync"`
	Students []struct {
		Username string `json:"username"`
		SignedIn bool   `json:"signed_in"`
		Attempts []struct {
			ExamID   string `json:"exam_id"`
			Answered int    `json:"answered"`
			Total    int    `json:"total"`
			Finished bool   `json:"finished"`
		} `json:"attempts"`
	} `json:"students"`
}

// proctor signs in as the proctor (password from the data directory) and
// returns the proctor page's state.
func (l *labAgent) proctor() proctorState {
	l.t.Helper()
	b, err := os.ReadFile(filepath.Join(l.dir, agent.ProctorPasswordFile))
	if err != nil {
		l.t.Fatalf("proctor password: %v", err)
	}
	c := newLANClient(l)
	if _, err := c.call(http.MethodPost, "/api/proctor/login", map[string]string{"password": strings.TrimSpace(string(b))}, nil); err != nil {
		l.t.Fatalf("proctor login: %v", err)
	}
	var st proctorState
	if _, err := c.call(http.MethodGet, "/api/proctor/state", nil, &st); err != nil || st.Token.Value == "" {
		l.t.Fatalf("proctor state: %v %+v", err, st)
	}
	return st
}

// proctorToken returns the session token students type at sign-in, as the
// proctor reads it.
func (l *labAgent) proctorToken() string {
	l.t.Helper()
	return l.proctor().Token.Value
}

// ---- the LAN API --------------------------------------------------------------------

// lanClient is one device (browser) on the lab's LAN: its own cookie jar.
type lanClient struct {
	lab *labAgent
	hc  *http.Client
}

func newLANClient(l *labAgent) *lanClient {
	jar, _ := cookiejar.New(nil) // cookies ignore the port: they survive a restart on a new one
	return &lanClient{lab: l, hc: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
}

// apiError is the LAN API's error envelope.
type apiError struct {
	Status  int
	Code    string `json:"code"`
	Message string `json:"error"`
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// call sends a JSON request to the current labagent and decodes a 200
// answer into out. It returns the status (0 when no answer came) and the
// transport error or the *apiError of a refusal.
func (c *lanClient) call(method, path string, in, out any) (int, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.lab.lanURL()+path, body)
	if err != nil {
		return 0, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode != http.StatusOK {
		e := &apiError{Status: resp.StatusCode}
		json.Unmarshal(raw, e)
		return resp.StatusCode, e
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, fmt.Errorf("decode %s %s: %w\n%s", method, path, err, raw)
		}
	}
	return resp.StatusCode, nil
}

// student is a student on their own device.
type student struct {
	*lanClient
	t        testing.TB
	username string
	password string
	memberID string
}

func newStudent(t testing.TB, l *labAgent, s *school, username string) *student {
	return &student{lanClient: newLANClient(l), t: t, username: username,
		password: s.passwords[username], memberID: s.members[username]}
}

// login signs in with the login card's password and the proctor's token.
func (s *student) login(token string) error {
	var out struct {
		Session string `json:"session"`
		Student struct {
			ID string `json:"id"`
		} `json:"student"`
	}
	_, err := s.call(http.MethodPost, "/api/student/login",
		map[string]string{"username": s.username, "password": s.password, "token": token}, &out)
	if err == nil && out.Student.ID != s.memberID {
		return fmt.Errorf("signed in as member %q, want %q", out.Student.ID, s.memberID)
	}
	return err
}

func (s *student) mustLogin(token string) {
	s.t.Helper()
	if err := s.login(token); err != nil {
		s.t.Fatalf("%s: login: %v", s.username, err)
	}
}

// attempt is the student's view of an attempt.
type attempt struct {
	Finished  bool `json:"finished"`
	Questions []struct {
		ID     string `json:"id"`
		Type   string `json:"type"`
		Answer string `json:"answer"`
	} `json:"questions"`
}

// answers returns the attempt's answers by question id.
func (a attempt) answers() map[string]string {
	out := map[string]string{}
	for _, q := range a.Questions {
		out[q.ID] = q.Answer
	}
	return out
}

func (s *student) mustStart(examID string) attempt {
	s.t.Helper()
	var a attempt
	if _, err := s.call(http.MethodPost, "/api/student/exams/"+examID+"/start", nil, &a); err != nil {
		s.t.Fatalf("%s: start %s: %v", s.username, examID, err)
	}
	return a
}

func (s *student) attempt(examID string) (attempt, error) {
	var a attempt
	_, err := s.call(http.MethodGet, "/api/student/exams/"+examID, nil, &a)
	return a, err
}

func (s *student) mustAttempt(examID string) attempt {
	s.t.Helper()
	a, err := s.attempt(examID)
	if err != nil {
		s.t.Fatalf("%s: attempt %s: %v", s.username, examID, err)
	}
	return a
}

// save saves an answer; nil means 200 (the answer is on labagent's disk).
func (s *student) save(examID, questionID, answer string) error {
	_, err := s.call(http.MethodPut, "/api/student/exams/"+examID+"/answers/"+questionID, map[string]string{"answer": answer}, nil)
	return err
}

func (s *student) mustSave(examID, questionID, answer string) {
	s.t.Helper()
	if err := s.save(examID, questionID, answer); err != nil {
		s.t.Fatalf("%s: save %s=%q: %v", s.username, questionID, answer, err)
	}
}

// finish finishes the attempt and returns the answered count labagent reports.
func (s *student) mustFinish(examID string) int {
	s.t.Helper()
	var out struct {
		Finished bool `json:"finished"`
		Answered int  `json:"answered"`
	}
	if _, err := s.call(http.MethodPost, "/api/student/exams/"+examID+"/finish", nil, &out); err != nil || !out.Finished {
		s.t.Fatalf("%s: finish %s: %+v %v", s.username, examID, out, err)
	}
	return out.Answered
}

// errCode returns the API error code of err, or "".
func errCode(err error) string {
	var e *apiError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// ---- a proxy in front of the portal ---------------------------------------------

// portalProxy stands between labagent and the portal (labagent is enrolled
// with its URL), so that a test can kill labagent at exact moments of a
// push: when it starts, or after the portal has stored it but before its
// receipt reaches labagent.
type portalProxy struct {
	URL string

	mu sync.Mutex
	// onPushStart, when set, is called as a push request arrives;
	// returning true cuts the connection instead of forwarding it.
	onPushStart func(r *http.Request) bool
	// onPushAnswered, when set, is called with the portal's answer to a
	// push; returning true cuts the connection instead of relaying it.
	onPushAnswered func(r *http.Request, status int) bool
	// slowAnswers, when set, delays the portal's answer to a request: a
	// slow, asymmetric line. Set it before the proxy is used.
	slowAnswers func(r *http.Request) time.Duration
}

const pushPath = "/api/v1/sync/push-answers"

// errDropped is the proxy's own error for a receipt it withholds.
var errDropped = errors.New("receipt dropped by the test proxy")

func newPortalProxy(t testing.TB, portalURL string) *portalProxy {
	t.Helper()
	target, err := url.Parse(portalURL)
	if err != nil {
		t.Fatal(err)
	}
	pp := &portalProxy{}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) },
		ModifyResponse: func(resp *http.Response) error {
			if pp.slowAnswers != nil {
				time.Sleep(pp.slowAnswers(resp.Request))
			}
			if resp.Request.URL.Path != pushPath {
				return nil
			}
			pp.mu.Lock()
			hook := pp.onPushAnswered
			pp.mu.Unlock()
			if hook != nil && hook(resp.Request, resp.StatusCode) {
				return errDropped
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if errors.Is(err, errDropped) {
				panic(http.ErrAbortHandler) // cut the connection: no receipt
			}
			w.WriteHeader(http.StatusBadGateway)
		},
		ErrorLog: log.New(io.Discard, "", 0),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == pushPath {
			pp.mu.Lock()
			hook := pp.onPushStart
			pp.mu.Unlock()
			if hook != nil && hook(r) {
				panic(http.ErrAbortHandler) // the portal never sees this push
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	pp.URL = srv.URL
	return pp
}

// hooks sets (or, with nils, clears) the push hooks.
func (pp *portalProxy) hooks(start func(*http.Request) bool, answered func(*http.Request, int) bool) {
	pp.mu.Lock()
	pp.onPushStart, pp.onPushAnswered = start, answered
	pp.mu.Unlock()
}

// killBeforeReceipt starts lab (stopped) and kills it as soon as the portal
// has stored its first push, before the receipt reaches it, waiting up to
// timeout; it returns that push's Idempotency-Key, which labagent must send
// again once restarted and the portal must count as a duplicate.
func (pp *portalProxy) killBeforeReceipt(t testing.TB, lab *labAgent, timeout time.Duration) string {
	t.Helper()
	var lostKey string
	var lostMu sync.Mutex
	pp.hooks(nil, func(r *http.Request, status int) bool {
		lostMu.Lock()
		defer lostMu.Unlock()
		if status != http.StatusOK || lostKey != "" {
			return false
		}
		lostKey = r.Header.Get("Idempotency-Key")
		lab.proc().Cmd.Process.Kill()
		return true
	})
	lab.startNoWait()
	select {
	case <-lab.proc().Done():
	case <-time.After(timeout):
		t.Fatalf("no push reached the portal within %s", timeout)
	}
	pp.hooks(nil, nil)
	lostMu.Lock()
	defer lostMu.Unlock()
	if lostKey == "" {
		t.Fatal("no receipt withheld")
	}
	return lostKey
}
