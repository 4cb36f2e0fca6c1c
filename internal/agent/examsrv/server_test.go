package examsrv_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent/examsrv"
	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/client"
	"github.com/seedhq/portal/pkg/labwire"
)

var t0 = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)

// testPackage has students s1..sN (exam password "PASS-<n>") and one exam
// open from t0 for two hours, 60 minutes long, with every question type.
func testPackage(t testing.TB, students int) *client.Package {
	t.Helper()
	p := &client.Package{Format: 1, NPSN: "20100001", SchoolName: "SMA 1"}
	for i := 1; i <= students; i++ {
		h, err := labwire.HashExamPassword(fmt.Sprintf("PASS-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		p.Students = append(p.Students, client.PackageStudent{ID: fmt.Sprintf("m%d", i), Username: fmt.Sprintf("s%d", i),
			Nama: fmt.Sprintf("Siswa %d", i), Kelas: "XII", PasswordHash: h})
	}
	opts := []client.QuestionOption{{ID: "a", Text: "A"}, {ID: "b", Text: "B"}, {ID: "c", Text: "C"}, {ID: "d", Text: "D"}}
	e := client.PackageExam{ID: "e1", Title: "Matematika", Subject: "MTK", StartsAt: t0, EndsAt: t0.Add(2 * time.Hour), DurationMinutes: 60}
	for i := 1; i <= 10; i++ {
		e.Questions = append(e.Questions, client.PackageQuestion{ID: fmt.Sprintf("q%d", i), Type: "single_choice", Text: "?", Options: opts, Points: 1})
	}
	e.Questions = append(e.Questions,
		client.PackageQuestion{ID: "mc", Type: "multiple_choice", Text: "?", Options: opts, Points: 1},
		client.PackageQuestion{ID: "tf", Type: "true_false", Text: "?", Options: []client.QuestionOption{{ID: "true", Text: "Benar"}, {ID: "false", Text: "Salah"}}, Points: 1},
		client.PackageQuestion{ID: "sa", Type: "short_answer", Text: "?", Points: 1},
		client.PackageQuestion{ID: "es", Type: "essay", Text: "?", Points: 1})
	p.Exams = []client.PackageExam{e, {ID: "later", Title: "Fisika", StartsAt: t0.Add(24 * time.Hour), EndsAt: t0.Add(26 * time.Hour), DurationMinutes: 90,
		Questions: []client.PackageQuestion{{ID: "f1", Type: "essay", Text: "?"}}}}
	return p
}

type lab struct {
	t     testing.TB
	url   string
	srv   *examsrv.Server
	db    *localdb.DB
	clock *testkit.Clock
	saves int
	mu    sync.Mutex
}

func newLab(t testing.TB, dbPath string, maxStudents int, clk *testkit.Clock) *lab {
	return newLabWith(t, dbPath, maxStudents, clk, 5, localdb.Options{NoSync: true})
}

// newLabWith is newLab with the number of students, the database options
// and, in set, changes to the server's options (Static to serve the real
// pages, Now for a clock that moves, ...).
func newLabWith(t testing.TB, dbPath string, maxStudents int, clk *testkit.Clock, students int, o localdb.Options, set ...func(*examsrv.Options)) *lab {
	t.Helper()
	db, err := localdb.Open(dbPath, o)
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{t: t, db: db, clock: clk}
	so := examsrv.Options{
		DB: db, Now: clk.Now, MaxStudents: maxStudents, SchoolName: "SMA 1", ServerCode: "LAB-01",
		ProctorPassword: "proctor-secret", SyncStatus: func() any { return map[string]string{"state": "offline"} },
		OnSave: func() { l.mu.Lock(); l.saves++; l.mu.Unlock() },
	}
	for _, f := range set {
		f(&so)
	}
	srv, err := examsrv.New(t.Context(), so)
	if err != nil {
		t.Fatal(err)
	}
	srv.SetPackage(testPackage(t, students))
	hs := httptest.NewServer(srv.Handler())
	l.url, l.srv = hs.URL, srv
	t.Cleanup(func() { hs.Close(); db.Close() })
	return l
}

// browser is one device: its own cookie jar.
type browser struct {
	t   testing.TB
	url string
	hc  *http.Client
}

func (l *lab) browser() *browser { return l.browserAt("127.0.0.1") }

// browserAt is a device on the computer with the loopback address ip
// (127.0.0.0/8 all reaches the test server on Linux).
func (l *lab) browserAt(ip string) *browser {
	jar, _ := cookiejar.New(nil)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &browser{t: l.t, url: l.url, hc: &http.Client{Jar: jar, Transport: &http.Transport{MaxIdleConnsPerHost: 4, DialContext: d.DialContext}}}
}

// do sends a JSON request and decodes the JSON answer; it returns the
// status and, for errors, the code.
func (b *browser) do(method, path string, in, out any) (int, string) {
	b.t.Helper()
	var body io.Reader
	if in != nil {
		raw, _ := json.Marshal(in)
		body = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, b.url+path, body)
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.hc.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		var e struct{ Code string }
		json.Unmarshal(raw, &e)
		return resp.StatusCode, e.Code
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			b.t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
	return resp.StatusCode, ""
}

func (b *browser) mustOK(method, path string, in, out any) {
	b.t.Helper()
	if st, code := b.do(method, path, in, out); st != http.StatusOK {
		b.t.Fatalf("%s %s = %d %s", method, path, st, code)
	}
}

func (l *lab) proctor() *browser {
	p := l.browser()
	p.mustOK("POST", "/api/proctor/login", map[string]string{"password": "proctor-secret"}, nil)
	return p
}

func (l *lab) token() string {
	var st struct {
		Token struct{ Value string }
	}
	l.proctor().mustOK("GET", "/api/proctor/state", nil, &st)
	return st.Token.Value
}

func (l *lab) signIn(n int) *browser {
	b := l.browser()
	b.mustOK("POST", "/api/student/login", map[string]string{"username": fmt.Sprintf("S%d", n), "password": fmt.Sprintf(" pass-%d ", n), "token": strings.ToLower(l.token())}, nil)
	return b
}

type attempt struct {
	Deadline         time.Time
	RemainingSeconds int `json:"remaining_seconds"`
	Finished         bool
	ExtendedMinutes  int `json:"extended_minutes"`
	Questions        []struct {
		Number  int
		ID      string
		Type    string
		Options []client.QuestionOption
		Answer  string
		Flagged bool
	}
}

func (a attempt) ids() []string {
	var out []string
	for _, q := range a.Questions {
		out = append(out, q.ID)
	}
	return out
}

func TestSignIn(t *testing.T) {
	clk := testkit.NewClock(t0.Add(time.Minute))
	l := newLab(t, filepath.Join(t.TempDir(), "labagent.db"), 2, clk)
	token := l.token()

	b := l.browser()
	cases := []struct {
		user, pass, token string
		status            int
		code              string
	}{
		{"s1", "PASS-1", "WRONG1", 401, "INVALID_SESSION_TOKEN"},
		{"s1", "PASS-2", token, 401, "INVALID_CREDENTIALS"},
		{"nobody", "PASS-1", token, 401, "INVALID_CREDENTIALS"},
	}
	for _, c := range cases {
		if st, code := b.do("POST", "/api/student/login", map[string]string{"username": c.user, "password": c.pass, "token": c.token}, nil); st != c.status || code != c.code {
			t.Errorf("login %s/%s/%s = %d %s, want %d %s", c.user, c.pass, c.token, st, code, c.status, c.code)
		}
	}
	if st, code := b.do("POST", "/api/student/login", map[string]any{"username": "s1", "extra": 1}, nil); st != 400 || code != "INVALID_JSON" {
		t.Errorf("unknown field = %d %s", st, code)
	}
	if st, _ := b.do("GET", "/api/student/me", nil, nil); st != 401 {
		t.Errorf("me before sign-in = %d", st)
	}

	s1 := l.signIn(1)
	var me struct {
		Student struct{ ID, Nama string }
		Exams   []struct {
			ID    string
			State string
		}
	}
	s1.mustOK("GET", "/api/student/me", nil, &me)
	if me.Student.ID != "m1" || len(me.Exams) != 2 || me.Exams[0].State != "open" || me.Exams[1].State != "upcoming" {
		t.Fatalf("me = %+v", me)
	}
	// The same device may sign in again (a reload, a crash); another may not.
	s1.mustOK("POST", "/api/student/login", map[string]string{"username": "s1", "password": "PASS-1", "token": token}, nil)
	other := l.browser()
	if st, code := other.do("POST", "/api/student/login", map[string]string{"username": "s1", "password": "PASS-1", "token": token}, nil); st != 409 || code != "ALREADY_SIGNED_IN" {
		t.Fatalf("second device = %d %s", st, code)
	}
	// The licence seats two students.
	l.signIn(2)
	if st, code := l.browser().do("POST", "/api/student/login", map[string]string{"username": "s3", "password": "PASS-3", "token": token}, nil); st != 409 || code != "LAB_FULL" {
		t.Fatalf("third student = %d %s", st, code)
	}
	// The proctor resets s1: the other device may sign in, the old session is gone.
	l.proctor().mustOK("POST", "/api/proctor/students/m1/reset", nil, nil)
	if st, _ := s1.do("GET", "/api/student/me", nil, nil); st != 401 {
		t.Fatalf("old session after reset = %d", st)
	}
	other.mustOK("POST", "/api/student/login", map[string]string{"username": "s1", "password": "PASS-1", "token": token}, nil)
	// Logging out frees a seat.
	other.mustOK("POST", "/api/student/logout", nil, nil)
	l.signIn(3)
}

// TestSignInThrottled: wrong passwords lock a username on one computer
// (5) or a whole computer (20), never a username everywhere: a classmate
// typing Budi's username with wrong passwords cannot keep Budi out. The
// proctor sees every lock and lifts it.
func TestSignInThrottled(t *testing.T) {
	clk := testkit.NewClock(t0.Add(time.Minute))
	l := newLab(t, filepath.Join(t.TempDir(), "labagent.db"), 0, clk)
	token := l.token()
	login := func(b *browser, user, pass string) (int, string) {
		return b.do("POST", "/api/student/login", map[string]string{"username": user, "password": pass, "token": token}, nil)
	}
	classmate := l.browserAt("127.0.0.2")
	for range 5 {
		if st, code := login(classmate, "s1", "nope"); st != 401 || code != "INVALID_CREDENTIALS" {
			t.Fatalf("wrong password = %d %s", st, code)
		}
	}
	if st, code := login(classmate, "s1", "PASS-1"); st != 429 || code != "TOO_MANY_ATTEMPTS" {
		t.Fatalf("s1 on the classmate's computer after 5 failures = %d %s", st, code)
	}
	// The classmate's computer may still sign in other students (s2 is
	// the classmate's own account); s1's own computer signs s1 in.
	if st, code := login(classmate, "s2", "PASS-2"); st != 200 {
		t.Fatalf("s2 on the classmate's computer = %d %s", st, code)
	}
	if st, code := login(l.browserAt("127.0.0.3"), "s1", "PASS-1"); st != 200 {
		t.Fatalf("s1 on another computer after a classmate's 5 failures = %d %s, want 200", st, code)
	}

	// The proctor sees the lock on s1's row and in the list of locks.
	p := l.proctor()
	var state struct {
		Locks []struct {
			Address, Username string
			Until             time.Time
		}
		Students []struct {
			ID          string
			LockedUntil *time.Time `json:"locked_until"`
		}
	}
	p.mustOK("GET", "/api/proctor/state", nil, &state)
	if len(state.Locks) != 1 || state.Locks[0].Address != "127.0.0.2" || state.Locks[0].Username != "s1" ||
		!state.Locks[0].Until.Equal(clk.Now().Add(5*time.Minute)) {
		t.Fatalf("locks = %+v", state.Locks)
	}
	lockedRow := false
	for _, st := range state.Students {
		lockedRow = lockedRow || (st.ID == "m1" && st.LockedUntil != nil)
	}
	if !lockedRow {
		t.Fatalf("students = %+v: m1 not shown as locked", state.Students)
	}

	// s1 signs out; the proctor's reset lifts the lock of a student who is
	// not signed in, and nothing else is left to reset.
	l.proctor().mustOK("POST", "/api/proctor/students/m1/reset", nil, nil)
	if st, code := login(classmate, "s1", "PASS-1"); st != 200 {
		t.Fatalf("s1 on the classmate's computer after the proctor lifted the lock = %d %s", st, code)
	}
	p.mustOK("POST", "/api/proctor/students/m1/reset", nil, nil) // ends the new session
	if st, code := p.do("POST", "/api/proctor/students/m1/reset", nil, nil); st != 404 || code != "NOT_FOUND" {
		t.Fatalf("reset with no session and no lock = %d %s", st, code)
	}

	// 20 wrong passwords from one computer, whatever the usernames, lock
	// that computer; the proctor lifts it by address.
	spray := l.browserAt("127.0.0.4")
	for i := range 20 {
		login(spray, fmt.Sprintf("s%d", i%4+1), "nope")
	}
	if st, code := login(spray, "s3", "PASS-3"); st != 429 || code != "TOO_MANY_ATTEMPTS" {
		t.Fatalf("a computer after 20 failures = %d %s", st, code)
	}
	if st, code := login(l.browserAt("127.0.0.5"), "s3", "PASS-3"); st != 200 {
		t.Fatalf("s3 elsewhere = %d %s", st, code)
	}
	if st, code := p.do("POST", "/api/proctor/locks/lift", map[string]string{"address": "127.0.0.9"}, nil); st != 404 || code != "NOT_FOUND" {
		t.Fatalf("lift an address without a lock = %d %s", st, code)
	}
	p.mustOK("POST", "/api/proctor/locks/lift", map[string]string{"address": "127.0.0.4"}, nil)
	if st, code := login(spray, "s4", "PASS-4"); st != 200 {
		t.Fatalf("the computer after the proctor lifted its lock = %d %s", st, code)
	}

	// Locks end by themselves after 5 minutes.
	for range 5 {
		login(classmate, "s1", "nope")
	}
	clk.Add(6 * time.Minute)
	if st, code := login(classmate, "s1", "PASS-1"); st != 200 {
		t.Fatalf("after the lock's 5 minutes = %d %s", st, code)
	}
}

// TestProctorSignInThrottledPerComputer: a student typing wrong proctor
// passwords locks only their own computer, not the proctor's.
func TestProctorSignInThrottledPerComputer(t *testing.T) {
	l := newLab(t, filepath.Join(t.TempDir(), "labagent.db"), 0, testkit.NewClock(t0.Add(time.Minute)))
	student := l.browserAt("127.0.0.2")
	for range 5 {
		student.do("POST", "/api/proctor/login", map[string]string{"password": "guess"}, nil)
	}
	if st, code := student.do("POST", "/api/proctor/login", map[string]string{"password": "proctor-secret"}, nil); st != 429 || code != "TOO_MANY_ATTEMPTS" {
		t.Fatalf("the student's computer after 5 failures = %d %s", st, code)
	}
	l.proctor() // from 127.0.0.1: signs in
}

func TestSessionTokenRotation(t *testing.T) {
	clk := testkit.NewClock(t0.Add(time.Minute))
	l := newLab(t, filepath.Join(t.TempDir(), "labagent.db"), 0, clk)
	first := l.token()
	clk.Add(15 * time.Minute)
	second := l.token()
	if second == first {
		t.Fatalf("token did not rotate after its period: %s", first)
	}
	// The previous period's token still works; two periods back does not.
	l.browser().mustOK("POST", "/api/student/login", map[string]string{"username": "s1", "password": "PASS-1", "token": first}, nil)
	clk.Add(15 * time.Minute)
	if st, code := l.browser().do("POST", "/api/student/login", map[string]string{"username": "s2", "password": "PASS-2", "token": first}, nil); st != 401 || code != "INVALID_SESSION_TOKEN" {
		t.Fatalf("stale token = %d %s", st, code)
	}
	// Rotating by hand kills the current token at once.
	cur := l.token()
	var rot struct{ Value string }
	l.proctor().mustOK("POST", "/api/proctor/token/rotate", nil, &rot)
	if rot.Value == cur || rot.Value != l.token() {
		t.Fatalf("rotate: %s, then state says %s (was %s)", rot.Value, l.token(), cur)
	}
	if st, _ := l.browser().do("POST", "/api/student/login", map[string]string{"username": "s2", "password": "PASS-2", "token": cur}, nil); st != 401 {
		t.Fatalf("token from before the rotation = %d", st)
	}
}

func TestExamFlow(t *testing.T) {
	clk := testkit.NewClock(t0.Add(time.Minute))
	path := filepath.Join(t.TempDir(), "labagent.db")
	l := newLab(t, path, 0, clk)
	s1 := l.signIn(1)

	if st, code := s1.do("POST", "/api/student/exams/later/start", nil, nil); st != 403 || code != "EXAM_NOT_OPEN" {
		t.Fatalf("start of an upcoming exam = %d %s", st, code)
	}
	if st, code := s1.do("PUT", "/api/student/exams/e1/answers/q1", map[string]string{"answer": "a"}, nil); st != 409 || code != "NOT_STARTED" {
		t.Fatalf("answer before start = %d %s", st, code)
	}
	var a attempt
	s1.mustOK("POST", "/api/student/exams/e1/start", nil, &a)
	if a.RemainingSeconds != 3600 || len(a.Questions) != 14 || a.Finished {
		t.Fatalf("attempt = %+v", a)
	}
	// Starting again does not restart the timer.
	clk.Add(10 * time.Minute)
	var again attempt
	s1.mustOK("POST", "/api/student/exams/e1/start", nil, &again)
	if again.RemainingSeconds != 3000 || !slices.Equal(again.ids(), a.ids()) {
		t.Fatalf("second start: %d s left, order %v vs %v", again.RemainingSeconds, again.ids(), a.ids())
	}
	// Another student gets another order (14! orders: equal would be a bug).
	s2 := l.signIn(2)
	var a2 attempt
	s2.mustOK("POST", "/api/student/exams/e1/start", nil, &a2)
	if slices.Equal(a2.ids(), a.ids()) {
		t.Errorf("two students got the same question order %v", a.ids())
	}

	bad := []struct {
		q, answer, code string
		status          int
	}{
		{"q1", "z", "INVALID_ANSWER", 400},
		{"mc", "a,z", "INVALID_ANSWER", 400},
		{"tf", "yes", "INVALID_ANSWER", 400},
		{"sa", strings.Repeat("x", 10_001), "INVALID_ANSWER", 400},
		{"nope", "a", "NOT_FOUND", 404},
	}
	for _, c := range bad {
		if st, code := s1.do("PUT", "/api/student/exams/e1/answers/"+c.q, map[string]string{"answer": c.answer}, nil); st != c.status || code != c.code {
			t.Errorf("answer %s=%.10q = %d %s, want %d %s", c.q, c.answer, st, code, c.status, c.code)
		}
	}
	good := map[string]string{"q1": "b", "mc": "c,a", "tf": "true", "sa": "empat", "es": "Karena ..."}
	for q, ans := range good {
		var r struct {
			Saved            bool
			RemainingSeconds int `json:"remaining_seconds"`
		}
		sent := ans
		if q == "es" {
			sent = "Karena\x00 ..." // a NUL is dropped: the portal could not store the text
		}
		s1.mustOK("PUT", "/api/student/exams/e1/answers/"+q, map[string]string{"answer": sent}, &r)
		if !r.Saved || r.RemainingSeconds != 3000 {
			t.Fatalf("save %s: %+v", q, r)
		}
	}
	s1.mustOK("PUT", "/api/student/exams/e1/answers/q1", map[string]string{"answer": "c"}, nil) // change of mind
	s1.mustOK("PUT", "/api/student/exams/e1/flags/q2", map[string]bool{"flagged": true}, nil)

	// Everything is on disk: a new server on the same file (a restart) shows
	// the same session, answers, flags and timer.
	l.srv = nil
	if err := l.db.Close(); err != nil {
		t.Fatal(err)
	}
	l2 := newLab(t, path, 0, clk)
	s1.url = l2.url
	var after attempt
	s1.mustOK("GET", "/api/student/exams/e1", nil, &after)
	got := map[string]string{}
	flagged := map[string]bool{}
	for _, q := range after.Questions {
		if q.Answer != "" {
			got[q.ID] = q.Answer
		}
		flagged[q.ID] = q.Flagged
	}
	want := map[string]string{"q1": "c", "mc": "a,c", "tf": "true", "sa": "empat", "es": "Karena ..."}
	if fmt.Sprint(got) != fmt.Sprint(want) || !flagged["q2"] || after.RemainingSeconds != 3000 || !slices.Equal(after.ids(), a.ids()) {
		t.Fatalf("after restart: answers %v flags %v remaining %d", got, flagged, after.RemainingSeconds)
	}
	// Every save went to the outbox, in order, changes of mind included.
	batches, err := l2.db.SealAll(t.Context(), 100, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(batches) != 1 || len(batches[0].Answers) != 6 || batches[0].Answers[5].Answer != "c" || batches[0].Answers[5].QuestionID != "q1" {
		t.Fatalf("outbox = %+v", batches)
	}
	if l.saves != 6 {
		t.Errorf("OnSave called %d times, want 6", l.saves)
	}

	var fin struct {
		Finished        bool
		Answered, Total int
	}
	s1.mustOK("POST", "/api/student/exams/e1/finish", nil, &fin)
	if !fin.Finished || fin.Answered != 5 || fin.Total != 14 {
		t.Fatalf("finish = %+v", fin)
	}
	if st, code := s1.do("PUT", "/api/student/exams/e1/answers/q3", map[string]string{"answer": "a"}, nil); st != 409 || code != "EXAM_FINISHED" {
		t.Fatalf("answer after finish = %d %s", st, code)
	}
	// A finished attempt cannot be extended.
	p := l2.proctor()
	if st, code := p.do("POST", "/api/proctor/students/m1/extend", map[string]any{"exam_id": "e1", "minutes": 5, "reason": "x"}, nil); st != 409 || code != "EXAM_FINISHED" {
		t.Fatalf("extend finished = %d %s", st, code)
	}
}

func TestTimeUpAndExtension(t *testing.T) {
	clk := testkit.NewClock(t0.Add(time.Minute))
	l := newLab(t, filepath.Join(t.TempDir(), "labagent.db"), 0, clk)
	s1 := l.signIn(1)
	s1.mustOK("POST", "/api/student/exams/e1/start", nil, nil)
	s1.mustOK("PUT", "/api/student/exams/e1/answers/q1", map[string]string{"answer": "a"}, nil)

	clk.Add(61 * time.Minute)
	if st, code := s1.do("PUT", "/api/student/exams/e1/answers/q2", map[string]string{"answer": "a"}, nil); st != 409 || code != "TIME_UP" {
		t.Fatalf("answer after the deadline = %d %s", st, code)
	}
	var a attempt
	s1.mustOK("GET", "/api/student/exams/e1", nil, &a)
	if !a.Finished || a.RemainingSeconds != 0 {
		t.Fatalf("attempt after time up = %+v", a)
	}

	// The proctor gives back ten minutes lost to a power cut: counted from now.
	p := l.proctor()
	for _, bad := range []map[string]any{{"exam_id": "e1", "minutes": 0}, {"exam_id": "e1", "minutes": 241}} {
		if st, code := p.do("POST", "/api/proctor/students/m1/extend", bad, nil); st != 400 || code != "VALIDATION_FAILED" {
			t.Errorf("extend %v = %d %s", bad, st, code)
		}
	}
	if st, code := p.do("POST", "/api/proctor/students/m2/extend", map[string]any{"exam_id": "e1", "minutes": 10}, nil); st != 404 || code != "NOT_FOUND" {
		t.Errorf("extend a student who has not started = %d %s", st, code)
	}
	p.mustOK("POST", "/api/proctor/students/m1/extend", map[string]any{"exam_id": "e1", "minutes": 10, "reason": "listrik padam"}, nil)
	s1.mustOK("GET", "/api/student/exams/e1", nil, &a)
	if a.Finished || a.RemainingSeconds != 600 || a.ExtendedMinutes != 10 {
		t.Fatalf("after extension = %+v", a)
	}
	s1.mustOK("PUT", "/api/student/exams/e1/answers/q2", map[string]string{"answer": "b"}, nil)
	exts, err := l.db.Extensions()
	if err != nil || len(exts) != 1 || exts[0].Reason != "listrik padam" || exts[0].Minutes != 10 {
		t.Fatalf("recorded extensions = %+v, %v", exts, err)
	}

	var st struct {
		Seated   int
		Disk     localdb.Space
		Students []struct {
			ID       string
			SignedIn bool `json:"signed_in"`
			Attempts []struct {
				ExamID          string `json:"exam_id"`
				Answered, Total int
				Finished        bool
			}
		}
	}
	p.mustOK("GET", "/api/proctor/state", nil, &st)
	if st.Disk.FreeBytes == 0 || st.Disk.Low != (st.Disk.FreeBytes < localdb.LowSpace) {
		t.Errorf("proctor state: disk %+v", st.Disk)
	}
	if st.Seated != 1 || len(st.Students) != 1 || !st.Students[0].SignedIn || len(st.Students[0].Attempts) != 1 ||
		st.Students[0].Attempts[0].Answered != 2 || st.Students[0].Attempts[0].Total != 14 || st.Students[0].Attempts[0].Finished {
		t.Fatalf("proctor state = %+v", st)
	}
	if got := l.srv.ConnectedStudents(); got != 1 {
		t.Errorf("connected students = %d", got)
	}
	if got := l.srv.ActiveExams(); got != 1 {
		t.Errorf("active exams = %d", got)
	}
}

func TestProctorAuth(t *testing.T) {
	clk := testkit.NewClock(t0)
	l := newLab(t, filepath.Join(t.TempDir(), "labagent.db"), 0, clk)
	b := l.browser()
	if st, code := b.do("GET", "/api/proctor/state", nil, nil); st != 401 || code != "UNAUTHORIZED" {
		t.Fatalf("state without sign-in = %d %s", st, code)
	}
	if st, code := b.do("POST", "/api/proctor/login", map[string]string{"password": "nope"}, nil); st != 401 || code != "INVALID_CREDENTIALS" {
		t.Fatalf("wrong proctor password = %d %s", st, code)
	}
	// A student's session is not a proctor's.
	s1 := l.signIn(1)
	if st, _ := s1.do("POST", "/api/proctor/token/rotate", nil, nil); st != 401 {
		t.Fatalf("student rotating the token = %d", st)
	}
}
