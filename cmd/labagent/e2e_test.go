//go:build !windows

package main

// End-to-end tests: the real "portal serve" and "labagent run" binaries as
// processes, students and a proctor on labagent's LAN API, the operator on
// the portal's API (pkg/client) and CLI. The harness is in harness_test.go.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/proc"
	"github.com/seedhq/portal/pkg/client"
)

// TestEndToEnd: enrolment, handshake, pull, students answering every
// question type on their own devices (changing their minds, clearing an
// answer), finish, push; then the portal's results, sync log, monitor and
// stored answers, and labagent status. On bbolt and on PostgreSQL.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	t.Run("bolt", func(t *testing.T) {
		t.Parallel()
		runEndToEnd(t, hostTarget, portalConfig{DataDir: filepath.Join(t.TempDir(), "pdata")})
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		mustBuild(t)
		dbURL := pgtest.NewDatabase(t)
		runEndToEnd(t, hostTarget, portalConfig{DataDir: filepath.Join(t.TempDir(), "pdata"), DBURL: dbURL})
	})
}

// mixedExam has one question of each type; max score 13 (the essay's 5
// points are never auto-scored).
func mixedExam() *client.ExamRequest {
	starts, ends := openWindow()
	opts := func(texts ...string) []client.QuestionOption {
		var out []client.QuestionOption
		for i, s := range texts {
			out = append(out, client.QuestionOption{ID: string(rune('a' + i)), Text: s})
		}
		return out
	}
	return &client.ExamRequest{
		Title: "Matematika Semester 1", Subject: "MTK", StartsAt: starts, EndsAt: ends, DurationMinutes: 90,
		Questions: []client.Question{
			{ID: "q1", Type: client.SingleChoice, Text: "2 + 2 = ?", Points: 2, Answer: []string{"b"}, Options: opts("3", "4", "5", "22")},
			{ID: "q2", Type: client.MultipleChoice, Text: "Which are prime?", Points: 3, Answer: []string{"a", "c"}, Options: opts("2", "4", "5", "9")},
			{ID: "q3", Type: client.TrueFalse, Text: "The earth is round.", Points: 1, Answer: []string{"true"}},
			{ID: "q4", Type: client.ShortAnswer, Text: "The capital of Indonesia?", Points: 2, Answer: []string{"Jakarta"}},
			{ID: "q5", Type: client.Essay, Text: "Explain why.", Points: 5},
		},
	}
}

// runEndToEnd is TestEndToEnd's scenario with labagent on tg and the
// portal started with cfg.
func runEndToEnd(t *testing.T, tg *target, cfg portalConfig) {
	p := startPortal(t, cfg)
	sch := setupSchool(t, p, []string{"ani", "budi", "citra"}, mixedExam())
	examID := sch.exams[0].ID
	op := p.operator()

	lab := enrollLabOn(t, tg, p.URL, sch)
	lab.start()
	lab.waitPackage()
	st := lab.status()
	if !st.Running || st.ServerCode != e2eServerCode || st.Sync.LastHandshakeAt.IsZero() || st.Sync.PackageChecksum == "" ||
		len(st.Exams) != 1 || st.Exams[0].ID != examID || st.Exams[0].Questions != 5 || st.Sync.LicenseID == "" {
		t.Errorf("status after the first pull: %s", jsonString(st))
	}
	checkDisk(t, st, lab.dir)
	token := lab.proctorToken()

	// Each student on a device of their own.
	ani, budi, citra := newStudent(t, lab, sch, "ani"), newStudent(t, lab, sch, "budi"), newStudent(t, lab, sch, "citra")
	wrong := *budi
	wrong.lanClient, wrong.password = newLANClient(lab), "WRONGPW2"
	if err := wrong.login(token); errCode(err) != "INVALID_CREDENTIALS" {
		t.Errorf("login with a wrong password: %v, want INVALID_CREDENTIALS", err)
	}
	for _, s := range []*student{ani, budi, citra} {
		s.mustLogin(token)
		if a := s.mustStart(examID); len(a.Questions) != 5 || a.Finished {
			t.Fatalf("%s: attempt %s", s.username, jsonString(a))
		}
	}
	other := newStudent(t, lab, sch, "ani") // ani on a second device
	if err := other.login(token); errCode(err) != "ALREADY_SIGNED_IN" {
		t.Errorf("ani on a second device: %v, want ALREADY_SIGNED_IN", err)
	}
	if err := ani.save(examID, "q1", "z"); errCode(err) != "INVALID_ANSWER" {
		t.Errorf("an answer that is no option: %v, want INVALID_ANSWER", err)
	}

	type save struct {
		s    *student
		q, a string
	}
	saves := []save{
		{ani, "q1", "a"}, {ani, "q1", "b"}, // a change of mind
		{ani, "q2", "c,a"}, {ani, "q3", "true"}, {ani, "q4", "  jakarta "}, {ani, "q5", "Karena gravitasi menarik ke pusat."},
		{budi, "q1", "c"}, {budi, "q2", "a"}, {budi, "q3", "false"}, {budi, "q3", "true"}, {budi, "q4", "Bandung"},
		{citra, "q1", "b"}, {citra, "q2", "a,b,c"}, {citra, "q3", "false"}, {citra, "q4", "Jakarta"}, {citra, "q4", ""}, // cleared
	}
	for _, sv := range saves {
		sv.s.mustSave(examID, sv.q, sv.a)
	}
	// What each student holds (multiple choice normalised to the options' order).
	want := map[string]map[string]string{
		"ani":   {"q1": "b", "q2": "a,c", "q3": "true", "q4": "  jakarta ", "q5": "Karena gravitasi menarik ke pusat."},
		"budi":  {"q1": "c", "q2": "a", "q3": "true", "q4": "Bandung", "q5": ""},
		"citra": {"q1": "b", "q2": "a,b,c", "q3": "false", "q4": "", "q5": ""},
	}
	for _, s := range []*student{ani, budi, citra} {
		if got := s.mustAttempt(examID).answers(); jsonString(got) != jsonString(want[s.username]) {
			t.Errorf("%s: labagent holds %v, want %v", s.username, got, want[s.username])
		}
	}
	for s, n := range map[*student]int{ani: 5, budi: 4, citra: 3} {
		if got := s.mustFinish(examID); got != n {
			t.Errorf("%s: finish says %d answered, want %d", s.username, got, n)
		}
	}
	if err := budi.save(examID, "q4", "Jakarta"); errCode(err) != "EXAM_FINISHED" {
		t.Errorf("save after finish: %v, want EXAM_FINISHED", err)
	}

	// The outbox drains by itself (a save kicks a push).
	st = lab.waitStatus(30*time.Second, "every answer pushed", func(st agent.Status) bool {
		return st.AnswersPending == 0 && st.Sync.LastReceipt != nil
	})
	if st.AnswersSaved != 13 || st.Sync.LastReceipt.SyncID == "" || st.Sync.LastSyncID != st.Sync.LastReceipt.SyncID {
		t.Errorf("status after the push: %s", jsonString(st))
	}

	ps := lab.proctor()
	if ps.Seated != 3 || len(ps.Students) != 3 || ps.Sync.PendingAnswers != 0 || ps.Sync.State == agent.SyncOffline {
		t.Errorf("proctor state: %s", jsonString(ps))
	}
	for _, s := range ps.Students {
		if !s.SignedIn || len(s.Attempts) != 1 || !s.Attempts[0].Finished || s.Attempts[0].Total != 5 {
			t.Errorf("proctor state of %s: %s", s.Username, jsonString(s))
		}
	}

	secondRunRefused(t, lab)

	// Results: scored on the portal with the answer key (never on labagent).
	res := results(t, op, examID)
	for u, w := range map[string]struct {
		score             float64
		answered, correct int
	}{"ani": {8, 5, 4}, "budi": {1, 4, 1}, "citra": {2, 3, 1}} { // citra cleared q4: no answer
		r, ok := res[u]
		if !ok {
			t.Errorf("no result for %s: %s", u, jsonString(res))
			continue
		}
		if r.Score != w.score || r.Correct != w.correct {
			t.Errorf("%s: score %v (%d correct), want %v (%d correct)", u, r.Score, r.Correct, w.score, w.correct)
		}
		if r.Answered != w.answered {
			t.Errorf("%s: %d answered on the portal, want %d", u, r.Answered, w.answered)
		}
	}
	if len(res) != 3 {
		t.Errorf("results for %d students, want 3: %s", len(res), jsonString(res))
	}
	// Every stored answer, as an operator reads them with portal admin:
	// one row per student and question, each with the push that stored it.
	answers := p.admin("exam", "answers", examID, "--output", "csv")
	rows := strings.Split(strings.TrimSpace(answers.Stdout), "\n")
	answered := 0
	for _, r := range res {
		answered += r.Answered
	}
	if answers.Code != 0 || len(rows) < answered+1 || !strings.Contains(answers.Stdout, ","+e2eServerCode+",") {
		t.Errorf("portal admin exam answers --output csv: %d rows for %d answered questions: %s", len(rows)-1, answered, answers)
	}

	// Sync log: the handshake, the pull, and every save exactly once.
	ledger := pushLogs(t, op)
	if ledger.records != len(saves) {
		t.Errorf("accepted pushes carry %d records, want the %d saves", ledger.records, len(saves))
	}
	if _, ok := ledger.accepted[st.Sync.LastReceipt.IdempotencyKey]; !ok {
		t.Errorf("the last receipt %s is not an accepted push", jsonString(st.Sync.LastReceipt))
	}
	logs, _, err := op.Exam.Admin.ListSyncLogs(t.Context(), &client.SyncLogListOptions{ServerCode: e2eServerCode, Status: client.OutcomeAccepted, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, l := range logs {
		seen[l.Action] = true
	}
	for _, a := range []string{client.ActionVerifyServer, client.ActionPullData, client.ActionPushResults} {
		if !seen[a] {
			t.Errorf("no accepted %s in the sync log", a)
		}
	}

	// Monitor: the heartbeat reports LAB-01 online with its three students.
	eventually(t, 4*e2eHeartbeat, "monitor online with 3 students", func() (bool, string) {
		mons, _, err := op.Exam.Admin.ListMonitors(t.Context(), &client.MonitorListOptions{NPSN: e2eNPSN})
		if err != nil {
			return false, err.Error()
		}
		for _, m := range mons {
			if m.ServerCode == e2eServerCode && m.Status == client.MonitorOnline && m.ConnectedStudents == 3 &&
				m.ActiveExamsCount == 1 && m.ClientVersion == e2eVersion {
				return true, ""
			}
		}
		return false, jsonString(mons)
	})

	// A clean stop; status then reads the state file.
	lab.stop()
	st = lab.status()
	if st.Running || st.AnswersPending != 0 || st.AnswersSaved != 13 || st.Sync.LastReceipt == nil {
		t.Errorf("status of the stopped labagent: %s", jsonString(st))
	}
	checkDisk(t, st, lab.dir)
	if res := lab.cli("status"); res.Code != 0 || !strings.Contains(res.Stdout, "0 waiting to be pushed") ||
		!strings.Contains(res.Stdout, e2eServerCode) || !strings.Contains(res.Stdout, "GB free") {
		t.Errorf("labagent status (table): %s", res)
	}

	// The exact values stored, the cleared answer included.
	p.Stop()
	stored := map[string]map[string]string{}
	for u, qs := range want {
		stored[u] = map[string]string{}
		for q, a := range qs {
			if a != "" || u == "citra" && q == "q4" {
				stored[u][q] = a
			}
		}
	}
	checkStored(t, cfg, examID, sch, stored)
	if !t.Failed() {
		t.Logf("proved (%s, data in %q): 3 students signed in, %d saves acknowledged, 3 finished, %d records pushed once, %d answers stored, status reported %.1f GB free, a second run refused",
			tg.name, lab.dirArg, len(saves), ledger.records, len(stored["ani"])+len(stored["budi"])+len(stored["citra"]), float64(st.Disk.FreeBytes)/1e9)
	}
}

// checkDisk checks the disk part of a labagent status against the free
// space this machine sees on the file system holding hostDir (the data
// directory): more than zero, "low" as LowSpace says, and within 10% and
// 1 GiB of this machine's own figure (other processes write meanwhile).
// Under Wine labagent.exe measures with Windows' GetDiskFreeSpaceEx, this
// machine with its own call.
func checkDisk(t *testing.T, st agent.Status, hostDir string) {
	t.Helper()
	if st.Disk == nil || st.Disk.FreeBytes == 0 || st.Disk.Low != (st.Disk.FreeBytes < localdb.LowSpace) {
		t.Errorf("disk in labagent status: %s", jsonString(st.Disk))
		return
	}
	space, err := localdb.DirFreeSpace(hostDir)
	if err != nil {
		t.Fatal(err)
	}
	got, host := st.Disk.FreeBytes, space.FreeBytes
	if diff := max(got, host) - min(got, host); diff > host/10+1<<30 {
		t.Errorf("labagent status reports %d bytes free, this machine sees %d on the same file system", got, host)
	}
}

// secondRunRefused checks that a second "labagent run" on the data
// directory of the running lab is refused: a non-zero exit, within the
// time the state file's lock wait allows (plus the process's start), with
// a message that says why.
func secondRunRefused(t *testing.T, lab *labAgent) {
	t.Helper()
	t0 := time.Now()
	p := proc.Start(t, lab.bin, lab.target.options(), "run", "--data-dir", lab.dirArg,
		"--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0")
	code := p.Wait(time.Minute)
	if want := "another labagent is already running with the data directory " + lab.dirArg; code == 0 || !strings.Contains(p.Output(), want) {
		t.Errorf("a second labagent run (%s): exit %d, want non-zero and %q\n%s", lab.target.name, code, want, p.Output())
	}
	t.Logf("a second labagent run (%s) refused after %s: exit %d", lab.target.name, time.Since(t0).Round(time.Millisecond), code)
}

// TestPortalDown: labagent keeps serving while the portal is stopped
// (sign-ins and saves are acknowledged; a restart of labagent serves the
// package it holds), "labagent push --now" fails cleanly and loses nothing,
// and once the portal is back on the same address every answer arrives
// exactly once.
func TestPortalDown(t *testing.T) {
	t.Parallel()
	// Online: one answer each for sw1 and sw2, pushed.
	o := startOnline(t, "Bahasa Indonesia", []string{"sw1", "sw2", "sw3", "sw4"}, "online")
	cfg, p, sch, examID, lab, token, st, online := o.cfg, o.p, o.sch, o.examID, o.lab, o.token, o.st, o.online

	// The portal goes away.
	p.Stop()
	down := time.Now()
	offline := 0
	for _, sv := range []struct{ u, q, a string }{
		{"sw1", "k02", "final"}, {"sw1", "k03", "final"}, {"sw2", "k02", "final"}, {"sw2", "k03", "nope"},
	} {
		st[sv.u].mustSave(examID, sv.q, sv.a)
		offline++
	}
	st["sw3"].mustLogin(token) // a sign-in needs no portal
	st["sw3"].mustStart(examID)
	st["sw3"].mustSave(examID, "k01", "final")
	offline++
	if s := lab.status(); s.AnswersPending != offline {
		t.Errorf("pending %d while the portal is down, want %d: %s", s.AnswersPending, offline, jsonString(s))
	}

	// push --now fails, clearly, and keeps everything.
	var pushRes proc.Result
	var pushTook time.Duration
	var wg sync.WaitGroup
	wg.Go(func() {
		t0 := time.Now()
		pushRes = lab.cli("push", "--now")
		pushTook = time.Since(t0)
	})
	s := lab.waitStatus(90*time.Second, "offline", func(s agent.Status) bool {
		return s.Sync.State == agent.SyncOffline && s.Sync.LastError != ""
	})
	t.Logf("status offline %s after the portal stopped: last_error %q", time.Since(down).Round(time.Second), s.Sync.LastError)
	wg.Wait()
	t.Logf("labagent push --now with the portal down: exit %d after %s", pushRes.Code, pushTook.Round(time.Millisecond))
	if pushRes.Code == 0 || !strings.Contains(pushRes.Stderr, "error: push:") ||
		!strings.Contains(pushRes.Stdout, fmt.Sprintf("%d still waiting", offline)) {
		t.Errorf("push --now with the portal down: %s", pushRes)
	}
	if s := lab.status(); s.AnswersPending != offline {
		t.Errorf("pending %d after a failed push --now, want %d", s.AnswersPending, offline)
	}

	// labagent restarts while the portal is still down: it serves the
	// package it holds; a student who never signed in can take the exam.
	lab.stop()
	lab.start()
	lab.waitPackage()
	token = lab.proctorToken()
	st["sw4"].mustLogin(token)
	if a := st["sw4"].mustStart(examID); len(a.Questions) != 5 {
		t.Errorf("sw4 offline after a restart: %s", jsonString(a))
	}
	st["sw4"].mustSave(examID, "k01", "final")
	st["sw4"].mustSave(examID, "k02", "final")
	offline += 2
	if a, err := st["sw1"].attempt(examID); err != nil {
		t.Errorf("sw1 after labagent's restart: %v", err)
	} else if got := a.answers(); got["k01"] != "online" || got["k02"] != "final" || got["k03"] != "final" {
		t.Errorf("sw1 after labagent's restart: %v", got)
	}
	if s := lab.status(); s.AnswersPending != offline || s.Sync.State != agent.SyncOffline {
		t.Errorf("status after the restart, portal down: %s", jsonString(s))
	}

	// The portal is back on the same address and data.
	p = p.restart()
	op := p.operator()
	if res := lab.cli("push", "--now"); res.Code != 0 {
		t.Errorf("push --now with the portal back: %s", res)
	}
	lab.waitStatus(60*time.Second, "everything pushed", func(s agent.Status) bool {
		return s.AnswersPending == 0 && s.Sync.State != agent.SyncOffline
	})
	ledger := pushLogs(t, op)
	if ledger.records != online+offline {
		t.Errorf("accepted pushes carry %d records, want %d (each save once)", ledger.records, online+offline)
	}
	res := results(t, op, examID)
	for u, w := range map[string][2]int{"sw1": {2, 3}, "sw2": {1, 3}, "sw3": {1, 1}, "sw4": {2, 2}} {
		if r := res[u]; int(r.Score) != w[0] || r.Answered != w[1] {
			t.Errorf("%s: score %v, %d answered; want %d, %d", u, r.Score, r.Answered, w[0], w[1])
		}
	}
	eventually(t, 4*e2eHeartbeat, "monitor online again", func() (bool, string) {
		mons, _, err := op.Exam.Admin.ListMonitors(t.Context(), &client.MonitorListOptions{NPSN: e2eNPSN})
		if err != nil {
			return false, err.Error()
		}
		return len(mons) == 1 && mons[0].Status == client.MonitorOnline && mons[0].ConnectedStudents >= 1, jsonString(mons)
	})
	lab.stop()
	p.Stop()
	checkStored(t, cfg, examID, sch, map[string]map[string]string{
		"sw1": {"k01": "online", "k02": "final", "k03": "final"},
		"sw2": {"k01": "online", "k02": "final", "k03": "nope"},
		"sw3": {"k01": "final"},
		"sw4": {"k01": "final", "k02": "final"},
	})
}

// onlineLab is the start of the scenarios in which the portal goes away
// (startOnline): a portal, a school, an enrolled labagent, students on their
// devices and the first answers pushed.
type onlineLab struct {
	cfg    portalConfig
	p      *portalProc
	sch    *school
	examID string
	lab    *labAgent
	token  string              // the proctor's session token
	st     map[string]*student // by username, each on a device of their own
	online int                 // answers saved and pushed
}

// startOnline starts a portal on a fixed free address (so that it can
// come back on it) and sets up a school with users and a 5-question
// short-answer exam titled title; it enrols and starts labagent, has
// users[0] and users[1] sign in, start the exam and save answer to k01, and
// returns once labagent has pushed those two answers.
func startOnline(t *testing.T, title string, users []string, answer string) *onlineLab {
	t.Helper()
	return startOnlineOn(t, hostTarget, title, users, answer)
}

// startOnlineOn is startOnline with labagent on the target tg.
func startOnlineOn(t *testing.T, tg *target, title string, users []string, answer string) *onlineLab {
	t.Helper()
	mustBuild(t)
	o := &onlineLab{cfg: portalConfig{DataDir: filepath.Join(t.TempDir(), "pdata"), Listen: testkit.FreeAddr(t)}}
	o.p = startPortal(t, o.cfg)
	o.sch = setupSchool(t, o.p, users, shortAnswerExam(title, 5))
	o.examID = o.sch.exams[0].ID

	o.lab = enrollLabOn(t, tg, o.p.URL, o.sch)
	o.lab.start()
	o.lab.waitPackage()
	o.token = o.lab.proctorToken()
	o.st = map[string]*student{}
	for _, u := range users {
		o.st[u] = newStudent(t, o.lab, o.sch, u)
	}
	for _, u := range users[:2] {
		o.st[u].mustLogin(o.token)
		o.st[u].mustStart(o.examID)
		o.st[u].mustSave(o.examID, "k01", answer)
		o.online++
	}
	o.lab.waitStatus(30*time.Second, "online answers pushed", func(s agent.Status) bool { return s.AnswersPending == 0 && s.Sync.LastReceipt != nil })
	return o
}

// checkStored checks that the portal's store holds exactly want (username ->
// question -> answer) for the exam.
func checkStored(t *testing.T, cfg portalConfig, examID string, sch *school, want map[string]map[string]string) {
	t.Helper()
	stored := storedAnswers(t, cfg, examID)
	n := 0
	for u, qs := range want {
		for q, a := range qs {
			n++
			got, ok := stored[storeKey{sch.members[u], q}]
			if !ok || got.Answer != a || got.ServerCode != e2eServerCode {
				t.Errorf("%s %s: stored %q from %q (found %v), want %q from %s", u, q, got.Answer, got.ServerCode, ok, a, e2eServerCode)
			}
		}
	}
	if len(stored) != n {
		t.Errorf("%d answers stored, want %d", len(stored), n)
	}
}

// killRounds is the number of kill -9 rounds of TestKillNine: 8, or
// LABAGENT_KILL_ROUNDS for a long soak.
func killRounds(t *testing.T) int {
	n := 8
	if v := os.Getenv("LABAGENT_KILL_ROUNDS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("LABAGENT_KILL_ROUNDS=%q: want a positive number", v)
		}
	}
	return n
}

// history is what a student sent for one question, for the checks after a
// kill: the values sent in order since the last check, and the index of the
// last acknowledged one (-1: none).
type history struct {
	sent  []string
	acked int
}

// stormStudent is a student saving as fast as they can.
type stormStudent struct {
	*student
	hist    map[string]*history
	acked   int // saves acknowledged (200)
	lastErr error
}

// killStorm is where the storm of TestKillNine leaves the lab (runKillStorm).
type killStorm struct {
	cfg         portalConfig
	p           *portalProc
	op          *client.Client
	users       []string // the storm's students, then the others
	sch         *school
	examID      string
	qs          []string // the exam's questions
	proxy       *portalProxy
	lab         *labAgent
	token       string // the proctor's session token
	rng         *rand.Rand
	want        map[storeKey]string // the answers the portal must end with
	wantCorrect map[string]int      // correct answers by username
	saves       int                 // every save that reached labagent's disk, each to be pushed once
	acked       int                 // saves acknowledged during the storm
	landed      int                 // saves stored while in flight at a kill
}

// TestKillNine: labagent is killed with SIGKILL at random moments while
// students save as fast as they can and while it pushes; every acknowledged
// answer survives (labagent's student API after the restart), and the portal
// ends up with each student's final answers, every save stored exactly once
// (sync log) and nothing twice.
func TestKillNine(t *testing.T) {
	t.Parallel()
	const nStorm, nBulk, perBulk = 6, 20, 1000 // nBulk*perBulk answers queued while the portal is down
	var bulkUsers []string
	for i := range nBulk {
		bulkUsers = append(bulkUsers, fmt.Sprintf("bulk%02d", i))
	}
	ks := runKillStorm(t, hostTarget, killRounds(t), nStorm, bulkUsers)
	cfg, p, op, users, sch, examID, qs, proxy, lab, token, rng := ks.cfg, ks.p, ks.op, ks.users, ks.sch, ks.examID, ks.qs, ks.proxy, ks.lab, ks.token, ks.rng
	want, wantCorrect, stormSaves := ks.want, ks.wantCorrect, ks.saves

	// Bulk: 20,000 answers queued while the portal is down, then pushed
	// with kills in the middle.
	p.Stop()
	bulk := make([]*student, nBulk)
	for i := range bulk {
		bulk[i] = newStudent(t, lab, sch, users[nStorm+i])
		bulk[i].mustLogin(token)
		bulk[i].mustStart(examID)
	}
	t0 := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, s := range bulk {
		wg.Go(func() {
			for n := range perBulk {
				q := qs[n%len(qs)]
				v := fmt.Sprintf("b%d", n)
				if n >= perBulk-len(qs) {
					v = "wrong"
					if (i+n)%2 == 0 {
						v = "final"
					}
				}
				if err := s.save(examID, q, v); err != nil {
					t.Errorf("%s: save %d: %v", s.username, n, err)
					return
				}
				if n >= perBulk-len(qs) {
					mu.Lock()
					want[storeKey{s.memberID, q}] = v
					if v == "final" {
						wantCorrect[s.username]++
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("bulk: %d saves in %s", nBulk*perBulk, time.Since(t0).Round(time.Millisecond))
	if st, err := lab.quickStatus(); err != nil || st.AnswersPending != nBulk*perBulk {
		t.Fatalf("pending %d, want %d (%v)", st.AnswersPending, nBulk*perBulk, err)
	}
	lab.kill9()
	p = p.restart()

	// A kill after the portal stored a batch but before labagent got the
	// receipt: the batch is pushed again under its key, a duplicate.
	lostKey := proxy.killBeforeReceipt(t, lab, 60*time.Second)

	// Kills at random moments of the pushes (a batch of 5,000 takes about
	// 100 ms here). Each phase needs answers still pending when it starts,
	// and so does the next one: left alone, labagent may push everything
	// before the kill (the random sleep can outlast the pushes), and the
	// next phase would wait for a push that has nothing to send. So each
	// phase lets one push through and holds any later one at the proxy
	// until the kill: at most one batch leaves per phase, and 20,000
	// answers in batches of 5,000 leave some for every phase.
	for k := range 2 {
		pending := mustPending(t, lab, fmt.Sprintf("kill %d during the pushes", k))
		started := make(chan struct{})
		killed := make(chan struct{})
		var once sync.Once
		proxy.hooks(func(*http.Request) bool {
			first := false
			once.Do(func() { first = true; close(started) })
			if first {
				return false
			}
			<-killed // held until labagent is dead: it never reaches the portal
			return true
		}, nil)
		lab.startNoWait()
		select {
		case <-started:
		case <-time.After(60 * time.Second):
			t.Fatalf("kill %d: no push within 60s although %d answers are pending", k, pending)
		}
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		lab.kill9()
		close(killed)
		proxy.hooks(nil, nil)
		t.Logf("kill %d during the pushes: %d answers still pending", k, lab.status().AnswersPending)
	}
	// A kill as a push leaves labagent, before the portal sees it.
	pending := mustPending(t, lab, "a kill as a push leaves")
	proxy.hooks(func(*http.Request) bool {
		lab.proc().Cmd.Process.Kill()
		return true
	}, nil)
	lab.startNoWait()
	select {
	case <-lab.proc().Done():
	case <-time.After(60 * time.Second):
		t.Fatalf("no push within 60s although %d answers are pending", pending)
	}
	proxy.hooks(nil, nil)
	if after := lab.status().AnswersPending; after != pending {
		t.Fatalf("a push that never reached the portal changed what is pending: %d, then %d", pending, after)
	}
	// The rest goes with push --now while labagent run is down (its
	// control file, left by the kill, names a dead process): it pushes
	// from the state file itself.
	res := lab.cli("push", "--now")
	if res.Code != 0 || !strings.Contains(res.Stdout, fmt.Sprintf("pushed %d answers", pending)) || !strings.Contains(res.Stdout, "0 still waiting") {
		t.Fatalf("push --now with labagent run killed: %s", res)
	}
	t.Logf("push --now without the daemon: %s", strings.TrimSpace(res.Stdout))
	st := lab.status()
	if st.Running || st.AnswersPending != 0 || st.Sync.LastReceipt == nil {
		t.Errorf("status after push --now: %s", jsonString(st))
	}
	lab.start()
	t.Logf("last receipt %s", jsonString(st.Sync.LastReceipt))

	l := pushLogs(t, op)
	if l.records != stormSaves+nBulk*perBulk {
		t.Errorf("accepted pushes carry %d records, want %d (each save once)", l.records, stormSaves+nBulk*perBulk)
	}
	dupOfLost := false
	for _, d := range l.duplicates {
		dupOfLost = dupOfLost || d.IdempotencyKey == lostKey
	}
	if _, ok := l.accepted[lostKey]; !ok || !dupOfLost {
		t.Errorf("the batch whose receipt was lost (%s): accepted %v, pushed again as a duplicate %v", lostKey, ok, dupOfLost)
	}
	t.Logf("sync log: %d accepted pushes, %d duplicates", len(l.accepted), len(l.duplicates))

	results := results(t, op, examID)
	for _, u := range users {
		if r := results[u]; r.Answered != len(qs) || r.Correct != wantCorrect[u] {
			t.Errorf("%s: %d answered, %d correct; want %d, %d", u, r.Answered, r.Correct, len(qs), wantCorrect[u])
		}
	}
	lab.stop()
	p.Stop()
	checkStoredKeys(t, cfg, examID, want)
}

// checkStoredKeys checks that the portal's store holds exactly want for
// the exam.
func checkStoredKeys(t *testing.T, cfg portalConfig, examID string, want map[storeKey]string) {
	t.Helper()
	stored := storedAnswers(t, cfg, examID)
	if len(stored) != len(want) {
		t.Errorf("%d answers stored, want %d", len(stored), len(want))
	}
	for k, v := range want {
		if got := stored[k].Answer; got != v {
			t.Errorf("member %s %s: stored %q, want %q", k.member, k.question, got, v)
		}
	}
}

// runKillStorm is the first part of TestKillNine, with labagent on tg: a
// portal, a school with nStorm storm students and the other users, labagent
// enrolled through a proxy in front of the portal; then rounds rounds of
// the storm students saving as fast as they can while labagent is killed
// at a random moment (kill -9, taskkill /F under Wine) and restarted, each
// round checking that every acknowledged save survived. Last, each storm
// student saves final answers and finishes, everything is pushed, and the
// sync log must hold every save exactly once.
func runKillStorm(t *testing.T, tg *target, rounds, nStorm int, others []string) *killStorm {
	t.Helper()
	mustBuild(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))

	cfg := portalConfig{DataDir: filepath.Join(t.TempDir(), "pdata"), Listen: testkit.FreeAddr(t)}
	p := startPortal(t, cfg)
	var users []string
	for i := range nStorm {
		users = append(users, fmt.Sprintf("storm%02d", i))
	}
	users = append(users, others...)
	sch := setupSchool(t, p, users, shortAnswerExam("Fisika", 10))
	examID := sch.exams[0].ID
	qs := questionIDs(sch.exams[0])
	proxy := newPortalProxy(t, p.URL)
	lab := enrollLabOn(t, tg, proxy.URL, sch)

	lab.start()
	lab.waitPackage()
	token := lab.proctorToken()
	storm := make([]*stormStudent, nStorm)
	for i := range storm {
		s := &stormStudent{student: newStudent(t, lab, sch, users[i]), hist: map[string]*history{}}
		for _, q := range qs {
			s.hist[q] = &history{acked: -1}
		}
		s.mustLogin(token)
		s.mustStart(examID)
		storm[i] = s
	}

	// Rounds: a storm of saves, a kill -9 at a random moment, a restart,
	// then the check that every acknowledged save is there.
	totalAcked, totalLanded := 0, 0
	for round := range rounds {
		var wg sync.WaitGroup
		for i, s := range storm {
			srng := rand.New(rand.NewPCG(seed, uint64(round*100+i+2)))
			wg.Go(func() {
				for n := 0; ; n++ {
					q := qs[srng.IntN(len(qs))]
					v := fmt.Sprintf("%s-r%d-n%d", s.username, round, n)
					h := s.hist[q]
					h.sent = append(h.sent, v)
					if err := s.save(examID, q, v); err != nil {
						s.lastErr = err
						return
					}
					h.acked = len(h.sent) - 1
					s.acked++
				}
			})
		}
		time.Sleep(time.Duration(50+rng.IntN(451)) * time.Millisecond)
		lab.kill9()
		wg.Wait()
		lab.start()
		token = lab.proctorToken()
		roundAcked := 0
		for _, s := range storm {
			var ae *apiError
			if errors.As(s.lastErr, &ae) {
				t.Fatalf("round %d: %s: a save refused by labagent: %v", round, s.username, s.lastErr)
			}
			a, err := s.attempt(examID)
			if errCode(err) == "UNAUTHORIZED" { // the session did not survive: sign in again, same device
				t.Logf("round %d: %s signs in again after the restart", round, s.username)
				s.mustLogin(token)
				a, err = s.attempt(examID)
			}
			if err != nil {
				t.Fatalf("round %d: %s: attempt after the restart: %v", round, s.username, err)
			}
			got := a.answers()
			landed := 0
			for _, q := range qs {
				h := s.hist[q]
				idx := slices.Index(h.sent, got[q])
				switch {
				case h.acked >= 0 && idx < h.acked:
					t.Errorf("round %d: %s %s: labagent holds %q, but %q was acknowledged after it (sent %v)",
						round, s.username, q, got[q], h.sent[h.acked], h.sent)
				case h.acked < 0 && idx < 0 && got[q] != "":
					t.Errorf("round %d: %s %s: labagent holds %q, which was never sent", round, s.username, q, got[q])
				case idx > h.acked:
					landed += idx - h.acked // the save in flight at the kill was stored
				}
				// What labagent holds now is the reference of the next round.
				if got[q] == "" {
					h.sent, h.acked = nil, -1
				} else {
					h.sent, h.acked = []string{got[q]}, 0
				}
			}
			if landed > 1 {
				t.Errorf("round %d: %s: %d unacknowledged saves stored, but a student has one in flight at most", round, s.username, landed)
			}
			roundAcked += s.acked
			totalLanded += landed
		}
		t.Logf("round %d: %d saves acknowledged so far", round, roundAcked)
		if t.Failed() {
			t.FailNow()
		}
	}
	for _, s := range storm {
		totalAcked += s.acked
	}

	// Last answers, then finish: the values the portal must end with.
	want := map[storeKey]string{}
	wantCorrect := map[string]int{}
	finalSaves := 0
	for i, s := range storm {
		for j, q := range qs {
			v := "wrong"
			if (i+j)%3 != 0 {
				v = "final"
				wantCorrect[s.username]++
			}
			s.mustSave(examID, q, v)
			finalSaves++
			want[storeKey{s.memberID, q}] = v
		}
		s.mustFinish(examID)
	}
	if res := lab.cli("push", "--now"); res.Code != 0 {
		t.Fatalf("push --now: %s", res)
	}
	lab.waitStatus(60*time.Second, "the storm pushed", func(s agent.Status) bool { return s.AnswersPending == 0 })
	stormSaves := totalAcked + totalLanded + finalSaves
	t.Logf("storm: %d rounds, %d saves acknowledged, %d stored while in flight at a kill, %d final", rounds, totalAcked, totalLanded, finalSaves)
	op := p.operator()
	if l := pushLogs(t, op); l.records != stormSaves {
		t.Errorf("after the storm: accepted pushes carry %d records, want %d (each save once)", l.records, stormSaves)
	}
	return &killStorm{cfg: cfg, p: p, op: op, users: users, sch: sch, examID: examID, qs: qs, proxy: proxy, lab: lab,
		token: token, rng: rng, want: want, wantCorrect: wantCorrect, saves: stormSaves, acked: totalAcked, landed: totalLanded}
}

// mustPending returns the answers labagent has not pushed yet, and fails
// the test with a clear message when there are none: phase is a step of a
// test that needs a push to happen, which labagent only makes with
// something to send.
func mustPending(t *testing.T, lab *labAgent, phase string) int {
	t.Helper()
	n := lab.status().AnswersPending
	if n == 0 {
		t.Fatalf("%s: precondition not met: no answers pending, so labagent has nothing to push", phase)
	}
	return n
}

// TestExportImport: answers saved while the portal is down leave on a USB
// stick: "labagent export" (daemon stopped), "portal admin import-answers"
// stores them, a second import and labagent's later push of the same
// batches are duplicates, and nothing is stored twice.
func TestExportImport(t *testing.T) {
	t.Parallel()
	runExportImport(t, hostTarget)
}

// runExportImport is TestExportImport's scenario with labagent on tg. The
// USB stick is the directory beside the data directory.
func runExportImport(t *testing.T, tg *target) {
	o := startOnlineOn(t, tg, "Kimia", []string{"ex1", "ex2", "ex3"}, "final")
	cfg, p, sch, examID, lab, token, st, online := o.cfg, o.p, o.sch, o.examID, o.lab, o.token, o.st, o.online

	// The portal is unreachable until after the exam.
	p.Stop()
	st["ex3"].mustLogin(token)
	st["ex3"].mustStart(examID)
	offline := 0
	for _, sv := range []struct{ u, q, a string }{
		{"ex1", "k02", "x"}, {"ex1", "k02", "final"}, {"ex1", "k03", "final"},
		{"ex2", "k02", "final"}, {"ex3", "k01", "final"}, {"ex3", "k02", "nope"},
	} {
		st[sv.u].mustSave(examID, sv.q, sv.a)
		offline++
	}
	st["ex1"].mustFinish(examID)
	st["ex3"].mustFinish(examID)
	lab.stop()
	if s := lab.status(); s.Running || s.AnswersPending != offline {
		t.Fatalf("status of the stopped labagent: %s", jsonString(s))
	}

	// To the USB stick.
	fileArg, file := lab.sibling("answers-LAB-01.enc")
	res := lab.cli("export", "--out", fileArg)
	if res.Code != 0 || !strings.Contains(res.Stdout, fmt.Sprintf("exported %d answers in", offline)) {
		t.Fatalf("labagent export: %s", res)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	headerLine, _, _ := strings.Cut(string(raw), "\n")
	var header struct {
		Format     string `json:"format"`
		ServerCode string `json:"server_code"`
		NPSN       string `json:"npsn"`
		Batches    int    `json:"batches"`
		Records    int    `json:"records"`
	}
	if err := json.Unmarshal([]byte(headerLine), &header); err != nil || header.Format != "labagent-answers/1" ||
		header.ServerCode != e2eServerCode || header.NPSN != e2eNPSN || header.Records != offline || header.Batches < 1 {
		t.Fatalf("export header %q: %+v, %v", headerLine, header, err)
	}
	if strings.Contains(string(raw), `"final"`) || strings.Contains(string(raw), "nope") {
		t.Error("the export file holds answers in the clear")
	}

	// At the portal: a damaged copy is refused whole, then the good one.
	p = p.restart()
	op := p.operator()
	damaged := filepath.Join(filepath.Dir(file), "damaged.enc")
	bad := []byte(string(raw))
	bad[len(bad)-10] ^= 0xff
	if err := os.WriteFile(damaged, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if res := p.admin("import-answers", damaged, "--output", "json"); res.Code == 0 || !strings.Contains(res.Stdout+res.Stderr, "CHECKSUM_MISMATCH") {
		t.Errorf("import of a damaged copy: %s", res)
	}
	if l := pushLogs(t, op); l.records != online {
		t.Errorf("after the damaged import: %d records accepted, want %d", l.records, online)
	}
	imp := importAnswers(t, p, file)
	if imp.Records != offline || imp.Accepted != header.Batches || imp.Duplicates != 0 || imp.Rejected != 0 || len(imp.Batches) != header.Batches {
		t.Fatalf("first import: %s", jsonString(imp))
	}
	wantResults := map[string][2]int{"ex1": {3, 3}, "ex2": {2, 2}, "ex3": {1, 2}} // correct, answered
	checkResults := func(when string) {
		t.Helper()
		res := results(t, op, examID)
		for u, w := range wantResults {
			if r := res[u]; r.Correct != w[0] || r.Answered != w[1] {
				t.Errorf("%s: %s: %d correct, %d answered; want %d, %d", when, u, r.Correct, r.Answered, w[0], w[1])
			}
		}
	}
	checkResults("after the import")
	again := importAnswers(t, p, file)
	if again.Accepted != 0 || again.Duplicates != header.Batches || again.Rejected != 0 {
		t.Errorf("second import: %s", jsonString(again))
	}
	for i, b := range again.Batches {
		if b.SyncID != imp.Batches[i].SyncID || !b.Duplicate {
			t.Errorf("second import, batch %d: %s; want a duplicate of %s", i, jsonString(b), jsonString(imp.Batches[i]))
		}
	}
	checkResults("after the second import")
	if l := pushLogs(t, op); l.records != online+offline {
		t.Errorf("after the imports: %d records accepted, want %d", l.records, online+offline)
	}

	// labagent back online pushes the same batches: duplicates.
	lab.start()
	s := lab.waitStatus(60*time.Second, "the exported batches pushed", func(s agent.Status) bool {
		return s.AnswersPending == 0 && s.Sync.LastReceipt != nil && s.Sync.LastReceipt.Duplicate
	})
	t.Logf("last receipt after the import: %s", jsonString(s.Sync.LastReceipt))
	l := pushLogs(t, op)
	if l.records != online+offline {
		t.Errorf("after labagent's push: %d records accepted, want %d", l.records, online+offline)
	}
	dups := map[string]bool{}
	for _, d := range l.duplicates {
		dups[d.IdempotencyKey] = true
	}
	for _, b := range imp.Batches {
		if !dups[b.IdempotencyKey] {
			t.Errorf("batch %s: no duplicate push or import in the sync log", b.IdempotencyKey)
		}
	}
	checkResults("after labagent's push")

	// Export needs the daemon stopped, and something to export.
	if res := lab.cli("export", "--out", lab.siblingArg("busy.enc")); res.Code == 0 || !strings.Contains(res.Stderr, "in use by a running labagent") {
		t.Errorf("export while labagent runs: %s", res)
	}
	lab.stop()
	emptyArg, empty := lab.sibling("empty.enc")
	if res := lab.cli("export", "--out", emptyArg); res.Code == 0 || !strings.Contains(res.Stderr, "nothing to export") {
		t.Errorf("export with nothing waiting: %s", res)
	}
	if _, err := os.Stat(empty); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("export with nothing waiting wrote a file (stat: %v)", err)
	}

	p.Stop()
	wantStored := map[string]map[string]string{
		"ex1": {"k01": "final", "k02": "final", "k03": "final"},
		"ex2": {"k01": "final", "k02": "final"},
		"ex3": {"k01": "final", "k02": "nope"},
	}
	checkStored(t, cfg, examID, sch, wantStored)
	if !t.Failed() {
		t.Logf("proved (%s, data in %q): %d answers pushed online, %d saved offline, exported in %d batches, imported once (a second import: %d duplicates), pushed again as duplicates, %d answers stored once",
			tg.name, lab.dirArg, online, offline, header.Batches, again.Duplicates, len(wantStored["ex1"])+len(wantStored["ex2"])+len(wantStored["ex3"]))
	}
}

// importAnswers runs "portal admin import-answers FILE --output json".
func importAnswers(t *testing.T, p *portalProc, file string) client.AnswerImportResult {
	t.Helper()
	res := p.admin("import-answers", file, "--output", "json")
	var out client.AnswerImportResult
	if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &out) != nil {
		t.Fatalf("portal admin import-answers: %s", res)
	}
	return out
}

// TestAnswerOrderAcrossSkewChange: labagent stamps answered_at with its
// clock corrected by the skew it measures at each handshake and heartbeat;
// when a new measurement lowers the skew, a student's next save must still
// be stamped after the previous one, or the portal, which keeps the newest
// answered_at per question, would keep the previous answer. Here the portal's answers to every
// other heartbeat come back 300 ms late (a slow, asymmetric line), so the
// skew alternates between about 0 and -150 ms.
func TestAnswerOrderAcrossSkewChange(t *testing.T) {
	t.Parallel()
	mustBuild(t)
	cfg := portalConfig{DataDir: filepath.Join(t.TempDir(), "pdata")}
	p := startPortal(t, cfg)
	sch := setupSchool(t, p, []string{"ani"}, shortAnswerExam("Sejarah", 1))
	examID := sch.exams[0].ID
	proxy := newPortalProxy(t, p.URL)
	var beats atomic.Int64
	proxy.slowAnswers = func(r *http.Request) time.Duration {
		if r.URL.Path == "/api/v1/sync/heartbeat" && beats.Add(1)%2 == 0 {
			return 300 * time.Millisecond
		}
		return 0
	}
	lab := enrollLab(t, proxy.URL, sch)
	lab.start()
	lab.waitPackage()
	s := newStudent(t, lab, sch, "ani")
	s.mustLogin(lab.proctorToken())
	s.mustStart(examID)

	// The student changes their mind again and again for at least four
	// heartbeats, while the measured skew drops and rises: every save must
	// be stamped after the one before it. The saves go on until the skew
	// was seen to move (on a loaded machine heartbeats can come late, and
	// four heartbeats' time may hold fewer than two slow ones), up to a
	// deadline that fails the test clearly.
	var prev time.Time
	last := ""
	lowSkew, highSkew := int64(math.MaxInt64), int64(math.MinInt64)
	t0 := time.Now()
	enough := func() bool { return time.Since(t0) >= 4*e2eHeartbeat && highSkew-lowSkew >= 100 }
	saves := 0
	for n := 0; !enough() && time.Since(t0) < 20*e2eHeartbeat; n++ {
		saves++
		v := []string{"a", "b", "c"}[n%3]
		var out struct {
			AnsweredAt time.Time `json:"answered_at"`
		}
		if _, err := s.call(http.MethodPut, "/api/student/exams/"+examID+"/answers/k01", map[string]string{"answer": v}, &out); err != nil {
			t.Fatal(err)
		}
		last = v
		if !out.AnsweredAt.After(prev) {
			t.Fatalf("save %d (%q) stamped %s, not after the previous save (%s)", n, v, out.AnsweredAt, prev)
		}
		prev = out.AnsweredAt
		if n%25 == 0 {
			skew := lab.status().Sync.ClockSkewMS
			lowSkew, highSkew = min(lowSkew, skew), max(highSkew, skew)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The slow line must have moved the skew, or the test proved nothing.
	if highSkew-lowSkew < 100 {
		t.Fatalf("precondition not met: after %s and %d heartbeats the measured skew stayed within %d..%d ms: the slow heartbeat answers did not move it",
			time.Since(t0).Round(time.Second), beats.Load(), lowSkew, highSkew)
	}
	t.Logf("skew seen from %d to %d ms; %d saves, each stamped after the one before", lowSkew, highSkew, saves)
	if got := s.mustAttempt(examID).answers()["k01"]; got != last {
		t.Fatalf("labagent holds %q, the last save was %q", got, last)
	}
	s.mustFinish(examID)
	lab.waitStatus(30*time.Second, "pushed", func(st agent.Status) bool { return st.AnswersPending == 0 })
	lab.stop()
	p.Stop()
	if got := storedAnswers(t, cfg, examID)[storeKey{sch.members["ani"], "k01"}].Answer; got != last {
		t.Errorf("the portal stored %q, but the student's last answer (shown by labagent) is %q", got, last)
	}
}
