//go:build qemu

package main

// labagent's and the portal's linux/arm64 builds (the lab's mini PCs), run
// through qemu-aarch64-static (make test-arm64): an end-to-end run of a lab
// server with kill -9 during the saves, against an arm64 portal on this
// machine. The binaries are run through the emulator explicitly, so no
// binfmt_misc registration is needed. (The file is not named
// platform_arm64_test.go: that suffix would compile it for GOARCH=arm64
// only, and these tests run on this machine.)

import (
	"debug/elf"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/testkit/proc"
)

// arm64Bins are labagent and the portal built for linux/arm64.
var arm64Bins = &proc.Binaries{
	Packages:   []string{".", "../portal"},
	BuildFlags: []string{"-ldflags", "-X main.version=" + e2eVersion},
	Env:        []string{"GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0"},
}

func init() { atExit(arm64Bins.Remove) }

// qemuAarch64 returns the path of qemu-aarch64-static; without it the test
// is skipped, loudly, or fails under CI=true.
func qemuAarch64(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("qemu-aarch64-static")
	if err != nil {
		msg := "NO QEMU: qemu-aarch64-static is not on PATH, so the linux/arm64 builds were NOT run " +
			"(install Debian's qemu-user-static: apt-get install qemu-user-static)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// arm64Bin returns the path of name built for linux/arm64, after checking
// that it is an arm64 executable (not this machine's build).
func arm64Bin(t testing.TB, name string) string {
	t.Helper()
	bin := arm64Bins.Path(t, name)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	defer f.Close()
	if f.Machine != elf.EM_AARCH64 {
		t.Fatalf("%s is built for %v, want EM_AARCH64", bin, f.Machine)
	}
	return bin
}

// arm64Target is labagent built for linux/arm64 and run through
// qemu-aarch64-static. qemu-user runs the program in its own process, so
// the pid labagent writes in its control file is the one this machine
// gave it, and SIGKILL to that process is a kill -9 of labagent.
func arm64Target(t testing.TB) *target {
	t.Helper()
	qemu := qemuAarch64(t)
	return &target{
		name: "linux/arm64 under qemu-user",
		bin:  func(t testing.TB) string { return arm64Bin(t, "labagent") },
		opts: proc.Options{Wrapper: []string{qemu}},
		dataDir: func(t testing.TB) (string, string) {
			dir := filepath.Join(t.TempDir(), "ldata")
			return dir, dir
		},
		ownPIDs:    true,
		kill:       func(l *labAgent) { l.proc().Kill() },
		stopSignal: syscall.SIGTERM,
	}
}

// TestArm64EndToEnd: the arm64 portal and labagent, both under qemu-user:
// enrolment, handshake and pull; students sign in and save while labagent
// is killed with SIGKILL at random moments, and after each restart it holds
// every acknowledged answer; a kill after the portal stored a batch but
// before its receipt reached labagent; then every save is on the portal
// exactly once (sync log, results, the stored values), and labagent status
// reports it, running and stopped.
func TestArm64EndToEnd(t *testing.T) {
	tg := arm64Target(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))

	cfg := portalConfig{DataDir: filepath.Join(t.TempDir(), "pdata"),
		Bin: arm64Bin(t, "portal"), Wrapper: tg.opts.Wrapper}
	p := startPortal(t, cfg)
	users := []string{"arm1", "arm2", "arm3"}
	sch := setupSchool(t, p, users, shortAnswerExam("Biologi", 5))
	examID := sch.exams[0].ID
	qs := questionIDs(sch.exams[0])
	op := p.operator()
	proxy := newPortalProxy(t, p.URL)

	lab := enrollLabOn(t, tg, proxy.URL, sch)
	lab.start()
	lab.waitPackage()
	if st := lab.status(); !st.Running || st.ServerCode != e2eServerCode || st.Sync.PackageChecksum == "" ||
		len(st.Exams) != 1 || st.Exams[0].ID != examID || st.Exams[0].Questions != len(qs) {
		t.Errorf("status after the first pull: %s", jsonString(st))
	}
	token := lab.proctorToken()
	students := make([]*student, len(users))
	for i, u := range users {
		students[i] = newStudent(t, lab, sch, u)
		students[i].mustLogin(token)
		students[i].mustStart(examID)
	}

	// Rounds: the students save as fast as they can, labagent is killed at
	// a random moment and restarted; it must hold, for every question, the
	// last acknowledged answer or the one in flight at the kill.
	const rounds = 3
	acked, landed := 0, 0
	for round := range rounds {
		type sent struct{ acked, inFlight string }
		hist := make([]map[string]*sent, len(students))
		errs := make([]error, len(students))
		count := make([]int, len(students)) // saves acknowledged, by student
		var wg sync.WaitGroup
		for i, s := range students {
			hist[i] = map[string]*sent{}
			for _, q := range qs {
				hist[i][q] = &sent{}
			}
			cur := s.mustAttempt(examID).answers()
			for q, a := range cur {
				hist[i][q].acked = a
			}
			wg.Go(func() {
				for n := 0; ; n++ {
					q := qs[n%len(qs)]
					v := fmt.Sprintf("%s-r%d-n%d", s.username, round, n)
					hist[i][q].inFlight = v
					if err := s.save(examID, q, v); err != nil {
						errs[i] = err
						return
					}
					hist[i][q].acked, hist[i][q].inFlight = v, ""
					count[i]++
				}
			})
		}
		time.Sleep(time.Duration(300+rng.IntN(1200)) * time.Millisecond)
		lab.kill9()
		wg.Wait()
		lab.start()
		token = lab.proctorToken()
		for i, s := range students {
			acked += count[i]
			if errCode(errs[i]) != "" {
				t.Fatalf("round %d: %s: a save refused by labagent: %v", round, s.username, errs[i])
			}
			a, err := s.attempt(examID)
			if errCode(err) == "UNAUTHORIZED" { // the session did not survive: sign in again
				s.mustLogin(token)
				a, err = s.attempt(examID)
			}
			if err != nil {
				t.Fatalf("round %d: %s: attempt after the restart: %v", round, s.username, err)
			}
			inFlight := 0
			for q, got := range a.answers() {
				h := hist[i][q]
				switch {
				case got == h.acked:
				case got == h.inFlight && h.inFlight != "":
					inFlight++
				default:
					t.Errorf("round %d: %s %s: labagent holds %q; acknowledged %q, in flight %q",
						round, s.username, q, got, h.acked, h.inFlight)
				}
			}
			if inFlight > 1 {
				t.Errorf("round %d: %s: %d unacknowledged saves stored, one can be in flight at most", round, s.username, inFlight)
			}
			landed += inFlight
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("%d kill -9 rounds: %d saves acknowledged, %d more stored while in flight", rounds, acked, landed)

	// The last answers go while no push reaches the portal, then labagent
	// is killed, restarted, and killed again once the portal has stored
	// its first push but before the receipt reaches it.
	proxy.hooks(func(*http.Request) bool { return true }, nil)
	want := map[string]map[string]string{}
	wantCorrect := map[string]int{}
	final := 0
	for i, s := range students {
		want[s.username] = map[string]string{}
		for j, q := range qs {
			v := "wrong"
			if (i+j)%2 == 0 {
				v = "final"
				wantCorrect[s.username]++
			}
			s.mustSave(examID, q, v)
			want[s.username][q] = v
			final++
		}
		s.mustFinish(examID)
	}
	if st, err := lab.quickStatus(); err != nil || st.AnswersPending < final {
		t.Fatalf("pending %d after the last saves, want %d at least (%v)", st.AnswersPending, final, err)
	}
	lab.kill9()
	lostKey := proxy.killBeforeReceipt(t, lab, 3*time.Minute)
	lab.start()
	st := lab.waitStatus(3*time.Minute, "everything pushed", func(s agent.Status) bool {
		return s.AnswersPending == 0 && s.Sync.LastReceipt != nil
	})
	if !st.Running || st.AnswersSaved != len(users)*len(qs) || st.Sync.LastSyncID == "" {
		t.Errorf("status after the pushes: %s", jsonString(st))
	}

	// Every save exactly once on the portal; the withheld batch came again
	// as a duplicate.
	l := pushLogs(t, op)
	if l.records != acked+landed+final {
		t.Errorf("accepted pushes carry %d records, want %d (each save once)", l.records, acked+landed+final)
	}
	dup := false
	for _, d := range l.duplicates {
		dup = dup || d.IdempotencyKey == lostKey
	}
	if _, ok := l.accepted[lostKey]; !ok || !dup {
		t.Errorf("the batch whose receipt was lost (%s): accepted %v, pushed again as a duplicate %v", lostKey, ok, dup)
	}
	res := results(t, op, examID)
	for _, u := range users {
		if r := res[u]; r.Answered != len(qs) || r.Correct != wantCorrect[u] {
			t.Errorf("%s: %d answered, %d correct; want %d, %d", u, r.Answered, r.Correct, len(qs), wantCorrect[u])
		}
	}

	lab.stop()
	if st := lab.status(); st.Running || st.AnswersPending != 0 || st.Sync.LastReceipt == nil || st.Disk == nil || st.Disk.FreeBytes == 0 {
		t.Errorf("status of the stopped labagent: %s", jsonString(st))
	}
	if res := lab.cli("status"); res.Code != 0 || !strings.Contains(res.Stdout, "0 waiting to be pushed") {
		t.Errorf("labagent status (table): %s", res)
	}
	p.Stop()
	checkStored(t, cfg, examID, sch, want)
	t.Logf("proved on linux/arm64 under qemu-user (portal and labagent): %d kill -9 (%d during saves, 2 with pushes under way), "+
		"%d acknowledged saves all held; %d records in %d accepted pushes, each once, %d duplicate pushes; %d answers stored",
		rounds+2, rounds, acked, l.records, len(l.accepted), len(l.duplicates), len(users)*len(qs))
}
