//go:build loadtest

package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/pkg/client"
)

// Sizes of the labagent runs (docs/benchmarks.md).
const (
	labStudents   = 400              // students of the school; the 40 run uses the first 40
	labQuestions  = 50               // questions of the exam
	labSaveRun    = 5 * time.Second  // timed saves of each closed-loop (throughput) run
	labClassRun   = 60 * time.Second // the open-loop (latency) run: long enough for the steady state
	labClassPace  = time.Second      // one save per student and second in the open-loop run
	catchUpSaves  = 1_000_000        // answers queued for the catch-up run
	catchUpTarget = 60 * time.Second // target of the catch-up run
	npsnLab       = "20100003"
	labHardwareID = "HW-LOADTEST-LAB"
)

// TestLabagentLoad measures the real labagent binary over HTTP (every save
// fsync'd before it is acknowledged): save latency for a class, an open
// loop of 400 students each saving once a second with latency taken from
// the scheduled send time (a classroom: students do not wait for each
// other); saves per second with 40 and 400 students saving back to back (a
// closed loop: throughput; its latency on two CPUs shared with the load
// generator is mostly queueing, about students / throughput); then the time
// to push 1,000,000 queued answers to a local portal, and labagent's peak
// memory (VmHWM) in each phase. While the portal is stopped every
// acknowledged save must be in labagent's outbox: the runs count what was
// stored, not only what was answered.
func TestLabagentLoad(t *testing.T) {
	if os.Getenv("PORTAL_LOADTEST") == "0" {
		t.Skip("PORTAL_LOADTEST=0")
	}
	defer printSummary()
	ctx := t.Context()
	portalBin := buildPortal(t)
	agentBin := buildBinary(t, "labagent")
	portal, portalURL := startPortal(t, portalBin, "", t.TempDir())

	c, cards := schoolOfStudents(t, portalURL, npsnLab, "lab")
	opts := []client.QuestionOption{{ID: "a", Text: "A"}, {ID: "b", Text: "B"}, {ID: "c", Text: "C"}, {ID: "d", Text: "D"}}
	req := &client.ExamRequest{Title: "Beban", Subject: "LOAD", NPSN: []string{npsnLab},
		StartsAt: time.Now().Add(-time.Hour), EndsAt: time.Now().Add(24 * time.Hour), DurationMinutes: 600}
	for i := range labQuestions {
		req.Questions = append(req.Questions, client.Question{ID: fmt.Sprintf("q%02d", i), Type: "single_choice", Text: "?", Options: opts, Answer: []string{"a"}, Points: 1})
	}
	ex, _, err := c.Exam.Admin.CreateExam(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	lic, _, err := c.Exam.Licenses.Generate(ctx, &client.LicenseRequest{NPSN: npsnLab, SchoolName: "SMA Beban", HardwareID: labHardwareID,
		MaxStudents: labStudents, DurationDays: 30, OperatingMode: "SEMI_OFFLINE"})
	if err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	if out, err := exec.Command(agentBin, "enroll", "--portal-url", portalURL, "--server-code", "LAB-LOAD", "--npsn", npsnLab,
		"--license-token", lic.LicenseToken, "--hardware-id", labHardwareID, "--data-dir", dataDir).CombinedOutput(); err != nil {
		t.Fatalf("labagent enroll: %v\n%s", err, out)
	}

	lab := startLabagent(t, agentBin, dataDir)
	lab.waitStatus(t, "the exam package", func(s agent.Status) bool { return len(s.Exams) == 1 })
	token := lab.proctorToken(t)
	students := make([]*student, labStudents)
	for i, card := range cards {
		students[i] = lab.signIn(t, card.Username, card.ExamPassword, token, ex.ID)
	}
	// First with the portal unreachable (stopped): the exam offline, the
	// case labagent is built for, and labagent alone on the CPUs as on a
	// lab server (in a school the portal is a remote server). The class at
	// a human pace (the latency target), then 40 students back to back
	// (throughput). Then again with the portal taking labagent's pushes on
	// the same two CPUs, for comparison, and 400 students back to back.
	portal.Process.Signal(syscall.SIGSTOP)
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			portal.Process.Signal(syscall.SIGCONT)
		}
	}
	defer resume()
	// stored runs the saves and checks that each acknowledged one is in
	// the outbox (nothing leaves it while the portal is stopped).
	stored := func(name string, students []*student, pace, dur time.Duration) loadResult {
		before := lab.status(t).AnswersPending
		res := runSaves(t, students, ex.ID, pace, dur)
		added := lab.status(t).AnswersPending - before
		report(name+": stored", "bbolt", fmt.Sprintf("%d of %d acknowledged saves", added, res.N), "all", ptr(added == res.N))
		return res
	}
	open := stored("labagent saves, 400 students, one save / s each (open loop)", students, labClassPace, labClassRun)
	report("labagent saves, 400 students, one save / s each (open loop)", "bbolt", open.String(), "p99 < 5 ms", ptr(open.P99 < 5))
	closed := stored("labagent saves, 40 students back to back, portal unreachable", students[:40], 0, labSaveRun)
	report("labagent saves, 40 students back to back, portal unreachable", "bbolt", closed.String(), "- (throughput)", nil)
	report("labagent saves, 40 students: labagent memory", "bbolt", lab.memory(), "-", nil)
	resume()
	lab.pushNow(t)
	closed = runSaves(t, students[:40], ex.ID, 0, labSaveRun)
	report("labagent saves, 40 students back to back, pushing to a portal on the same CPUs", "bbolt", closed.String(), "- (info)", nil)
	closed = runSaves(t, students, ex.ID, 0, labSaveRun)
	report("labagent saves, 400 students back to back", "bbolt", closed.String(), ">= 10,000 saves/s", ptr(closed.PerSec >= 10_000))
	report("labagent saves, 400 students: labagent memory", "bbolt", lab.memory(), "-", nil)
	lab.waitStatus(t, "the saves pushed", func(s agent.Status) bool { return s.AnswersPending == 0 })
	lab.stop(t)

	// Queue 1,000,000 answers as if the lab had been offline for days, then
	// start labagent with the portal up and time the catch-up.
	fillOutbox(t, dataDir, catchUpSaves)
	lab = startLabagent(t, agentBin, dataDir)
	start := time.Now()
	lab.waitStatus(t, "the catch-up", func(s agent.Status) bool { return s.AnswersPending == 0 })
	took := time.Since(start)
	report("labagent catch-up of 1,000,000 answers", "bbolt", fmt.Sprintf("%.1f s (%.0f answers/s)", took.Seconds(), catchUpSaves/took.Seconds()),
		"< 60 s", ptr(took < catchUpTarget))
	report("labagent catch-up: labagent memory", "bbolt", lab.memory(), "-", nil)
	lab.stop(t)
}

// schoolOfStudents signs in to the portal at portalURL as the operator,
// activates an academic year and imports labStudents students of the school
// npsn named <prefix>000, <prefix>001, ...; it returns the operator's
// client and the students' login cards, by username.
func schoolOfStudents(t *testing.T, portalURL, npsn, prefix string) (*client.Client, []*client.LoginCard) {
	t.Helper()
	ctx := t.Context()
	c, err := client.NewClient(portalURL)
	if err != nil {
		t.Fatal(err)
	}
	login, _, err := c.Exam.Auth.Login(ctx, "admin", adminPassword)
	if err != nil {
		t.Fatal(err)
	}
	c.SetToken(login.Token)
	if _, _, err := c.Exam.Admin.CreateAcademicYear(ctx, "2025/2026", true); err != nil {
		t.Fatal(err)
	}
	members := make([]client.MemberInput, labStudents)
	for i := range members {
		members[i] = client.MemberInput{Nama: fmt.Sprintf("Siswa %03d", i), Username: fmt.Sprintf("%s%03d", prefix, i), Role: "siswa", Kelas: "XII"}
	}
	if _, _, err := c.Exam.Admin.ImportMembers(ctx, members, &client.ImportOptions{NPSN: npsn}); err != nil {
		t.Fatal(err)
	}
	cards, _, err := c.Exam.Admin.LoginCards(ctx, npsn)
	if err != nil || len(cards) != labStudents {
		t.Fatalf("login cards: %d, %v", len(cards), err)
	}
	slices.SortFunc(cards, func(a, b *client.LoginCard) int { return cmpString(a.Username, b.Username) })
	return c, cards
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// buildBinary builds cmd/<name> into a temporary directory.
func buildBinary(t *testing.T, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "github.com/seedhq/portal/cmd/"+name)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/%s: %v\n%s", name, err, out)
	}
	return bin
}

// labProc is a running "labagent run".
type labProc struct {
	cmd      *exec.Cmd
	dir      string
	ctl      *agent.Control
	done     chan struct{}
	peakAnon atomic.Int64 // kB: the highest RssAnon seen (heap and stacks, not the mapped bbolt file)
}

// sample records the process's anonymous memory every 20 ms until it exits.
func (p *labProc) sample() {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			if v := procStatus(p.cmd.Process.Pid, "RssAnon"); v > p.peakAnon.Load() {
				p.peakAnon.Store(v)
			}
		}
	}
}

// memory formats the peak RSS (VmHWM, including the bbolt file's pages
// mapped in) and the peak anonymous memory seen.
func (p *labProc) memory() string {
	return fmt.Sprintf("peak RSS %.0f MB (anonymous %.0f MB, the rest the mapped state file)",
		float64(procStatus(p.cmd.Process.Pid, "VmHWM"))/1024, float64(p.peakAnon.Load())/1024)
}

func startLabagent(t *testing.T, bin, dataDir string) *labProc {
	t.Helper()
	os.Remove(filepath.Join(dataDir, agent.ControlFile))
	cmd := exec.Command(bin, "run", "--data-dir", dataDir, "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0",
		"--proctor-password", "loadtest-proctor", "--log-level", "warn")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &labProc{cmd: cmd, dir: dataDir, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	go p.sample()
	t.Cleanup(func() { p.stop(t) })
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if ctl, err := agent.ReadControl(dataDir); err == nil {
			p.ctl = ctl
			return p
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("labagent did not write its control file within 30 s")
	return nil
}

func (p *labProc) stop(t *testing.T) {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

func (p *labProc) status(t *testing.T) agent.Status {
	t.Helper()
	st, err := agent.QueryStatus(context.Background(), p.dir)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// pushNow pushes every waiting answer (labagent push --now) and fails the
// test unless none is left.
func (p *labProc) pushNow(t *testing.T) {
	t.Helper()
	if _, err := agent.PushNow(t.Context(), p.dir, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("push --now: %v", err)
	}
	p.waitStatus(t, "the saves pushed", func(s agent.Status) bool { return s.AnswersPending == 0 })
}

func (p *labProc) waitStatus(t *testing.T, what string, ok func(agent.Status) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		if ok(p.status(t)) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("labagent: timed out waiting for %s: %+v", what, p.status(t))
}

func (p *labProc) url() string { return "http://" + p.ctl.LANAddr }

// student is one device: a keep-alive connection with its session cookie.
type student struct {
	hc      *http.Client
	base    string
	exam    string
	session string
}

func call(hc *http.Client, method, url string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, body)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

func (p *labProc) proctorToken(t *testing.T) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	if err := call(hc, "POST", p.url()+"/api/proctor/login", map[string]string{"password": "loadtest-proctor"}, nil); err != nil {
		t.Fatal(err)
	}
	var st struct{ Token struct{ Value string } }
	if err := call(hc, "GET", p.url()+"/api/proctor/state", nil, &st); err != nil {
		t.Fatal(err)
	}
	return st.Token.Value
}

func (p *labProc) signIn(t *testing.T, username, password, token, examID string) *student {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	s := &student{hc: &http.Client{Jar: jar, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}, base: p.url(), exam: examID}
	var in struct{ Session string }
	if err := call(s.hc, "POST", s.base+"/api/student/login", map[string]string{"username": username, "password": password, "token": token}, &in); err != nil {
		t.Fatal(err)
	}
	s.session = in.Session
	if err := call(s.hc, "POST", s.base+"/api/student/exams/"+examID+"/start", nil, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// runSaves has every student save answers for dur, back to back (pace 0)
// or one every pace (starting at spread offsets). Each student is one
// keep-alive connection of driveHTTP.
func runSaves(t *testing.T, students []*student, examID string, pace, dur time.Duration) loadResult {
	conns := make([]loadConn, len(students))
	for i, s := range students {
		reqs := make([][]byte, labQuestions*4)
		for j := range reqs {
			body := fmt.Sprintf(`{"answer":"%c"}`, 'a'+j%4)
			reqs[j] = fmt.Appendf(nil, "PUT /api/student/exams/%s/answers/q%02d HTTP/1.1\r\nHost: lab\r\nAuthorization: Bearer %s\r\n"+
				"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", examID, (j/4)%labQuestions, s.session, len(body), body)
		}
		conns[i] = loadConn{addr: strings.TrimPrefix(s.base, "http://"), reqs: reqs}
	}
	return driveHTTP(t, conns, http.StatusOK, pace, dur)
}

// fillOutbox queues n saves in the stopped labagent's outbox, as students
// answering for days with the portal unreachable would have.
func fillOutbox(t *testing.T, dataDir string, n int) {
	t.Helper()
	db, err := localdb.Open(filepath.Join(dataDir, localdb.FileName), localdb.Options{NoSync: true, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	attempts, err := db.Attempts()
	if err != nil || len(attempts) == 0 {
		t.Fatalf("attempts: %d, %v", len(attempts), err)
	}
	at := attempts[0].StartedAt
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range 256 {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				a := attempts[int(i)%len(attempts)]
				if _, err := db.SaveAnswer(context.Background(), a.ExamID, a.MemberID, fmt.Sprintf("q%02d", int(i/int64(len(attempts)))%labQuestions),
					[]string{"a", "b", "c", "d"}[(int(i)+w)%4], at.Add(time.Duration(i)*time.Microsecond)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got, err := db.Pending(); err != nil || got != n {
		t.Fatalf("outbox holds %d, want %d (%v)", got, n, err)
	}
}
