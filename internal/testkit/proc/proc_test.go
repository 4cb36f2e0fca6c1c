package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the process under test: with PROC_TEST_CHILD
// set, TestMain acts as a small server or command instead of running tests.
func TestMain(m *testing.M) {
	switch os.Getenv("PROC_TEST_CHILD") {
	case "server":
		// Logs like the module's servers, then exits 0 on SIGTERM.
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		fmt.Println("plain text first")
		fmt.Fprintf(os.Stderr, "{\"msg\":\"listening\",\"addr\":\"127.0.0.1:4321\",\"env\":%q,\"args\":%q}\n",
			os.Getenv("PROC_TEST_SECRET"), strings.Join(os.Args[1:], " "))
		<-term
		fmt.Println(`{"msg":"stopped"}`)
		os.Exit(0)
	case "racy":
		// Prints what a binary built with -race prints when it finds a race.
		fmt.Fprintln(os.Stderr, "==================\nWARNING: DATA RACE\nWrite at 0x00c000012345 by goroutine 7:\n  main.main()")
		os.Exit(0)
	case "command":
		b := make([]byte, 64)
		n, _ := os.Stdin.Read(b)
		fmt.Printf("in=%s", b[:n])
		fmt.Fprint(os.Stderr, "to stderr")
		os.Exit(3)
	}
	os.Exit(m.Run())
}

func TestStartWaitStop(t *testing.T) {
	t.Setenv("PROC_TEST_SECRET", "leaked")
	var lines atomic.Int32
	p := Start(t, os.Args[0], Options{
		Name:    "child",
		Env:     []string{"PROC_TEST_CHILD=server"},
		DropEnv: []string{"PROC_TEST_SECRET"},
		OnLine:  func(string) { lines.Add(1) },
	})
	if addr := p.WaitListening(10 * time.Second); addr != "127.0.0.1:4321" {
		t.Errorf("WaitListening = %q", addr)
	}
	if m := p.FindLog("listening"); m["env"] != "" {
		t.Errorf("a dropped variable reached the process: %v", m)
	}
	if !p.Running() {
		t.Fatal("not running")
	}
	p.Stop()
	if p.Running() || p.FindLog("stopped") == nil || !strings.HasPrefix(p.Output(), "plain text first\n") {
		t.Errorf("after Stop: running %v, output %q", p.Running(), p.Output())
	}
	if n := lines.Load(); n != 3 {
		t.Errorf("OnLine saw %d lines, want 3", n)
	}
}

func TestRun(t *testing.T) {
	r := Run(t, os.Args[0], Options{Env: []string{"PROC_TEST_CHILD=command"}, Stdin: "hello"})
	if r.Code != 3 || r.Stdout != "in=hello" || r.Stderr != "to stderr" {
		t.Errorf("Run = %s", r)
	}
}

func TestRestart(t *testing.T) {
	t.Setenv("PROC_TEST_SECRET", "leaked")
	o := Options{Name: "child", Env: []string{"PROC_TEST_CHILD=server"}, DropEnv: []string{"PROC_TEST_SECRET"}}
	args := []string{"serve", "--data", "d"}
	p := Start(t, os.Args[0], o, args...)
	p.WaitListening(10 * time.Second)
	p.Stop()
	args[2] = "changed by the caller" // Start keeps its own copy
	q := p.Restart()
	m := q.WaitLog("listening", 10*time.Second)
	if q == p || q.Cmd.Process.Pid == p.Cmd.Process.Pid || q.Name != "child" || !q.Running() {
		t.Errorf("Restart = %s pid %d running %v; was %s pid %d", q.Name, q.Cmd.Process.Pid, q.Running(), p.Name, p.Cmd.Process.Pid)
	}
	if m["args"] != "serve --data d" || m["env"] != "" {
		t.Errorf("the restarted process got args %q, dropped variable %q", m["args"], m["env"])
	}
	if n := strings.Count(p.Output(), "listening"); n != 1 {
		t.Errorf("the first process's output holds %d listening lines, want 1 (its own)", n)
	}
	q.Stop()
}

func TestKillErr(t *testing.T) {
	p := Start(t, os.Args[0], Options{Env: []string{"PROC_TEST_CHILD=server"}})
	p.WaitListening(10 * time.Second)
	if err := p.Err(); err != nil {
		t.Errorf("Err of a running process = %v", err)
	}
	if code := p.Kill(); code != -1 {
		t.Errorf("Kill = %d, want -1 (ended by the signal)", code)
	}
	var ee *exec.ExitError
	if err := p.Err(); !errors.As(err, &ee) || !strings.Contains(err.Error(), "killed") || p.Running() {
		t.Errorf("after Kill: Err %v, running %v", err, p.Running())
	}

	// A process gone before the signal: Kill reports the status it exited with.
	c := Start(t, os.Args[0], Options{Env: []string{"PROC_TEST_CHILD=command"}, Stdin: "x"})
	if code := c.Wait(10 * time.Second); code != 3 {
		t.Fatalf("Wait = %d, want 3", code)
	}
	if code := c.Kill(); code != 3 || c.Err() == nil {
		t.Errorf("Kill of an exited process = %d (Err %v), want 3", code, c.Err())
	}
}

// TestBinariesShared: with BinDirEnv set, the Binaries of the same
// configuration (another test package's, another process's) share one
// build that Remove keeps, while another configuration builds apart;
// without it each builds into a directory of its own that Remove deletes.
func TestBinariesShared(t *testing.T) {
	shared := t.TempDir()
	t.Setenv(BinDirEnv, shared)
	hello := []string{"./testdata/hello"}
	other := []string{"-ldflags", "-X main.greeting=other"}
	a := &Binaries{Packages: hello, BuildFlags: other}
	b := &Binaries{Packages: hello, BuildFlags: slices.Clone(other)}
	c := &Binaries{Packages: hello}

	// a and b build at the same time, as two test processes may: the
	// lock makes them take turns.
	var wg sync.WaitGroup
	paths := make([]string, 2)
	for i, bins := range []*Binaries{a, b} {
		wg.Go(func() { paths[i] = bins.Path(t, "hello") })
	}
	wg.Wait()
	pc := c.Path(t, "hello")
	if paths[0] != paths[1] || !strings.HasPrefix(paths[0], shared+string(os.PathSeparator)) {
		t.Errorf("the same configuration built into %q and %q, want one path under %s", paths[0], paths[1], shared)
	}
	if filepath.Dir(pc) == filepath.Dir(paths[0]) || !strings.HasPrefix(pc, shared) {
		t.Errorf("another configuration built into %s, beside %s", pc, paths[0])
	}
	for p, want := range map[string]string{paths[0]: "other\n", pc: "hello\n"} {
		if r := Run(t, p, Options{}); r.Code != 0 || r.Stdout != want {
			t.Errorf("%s: %s, want output %q", p, r, want)
		}
	}
	a.Remove()
	if _, err := os.Stat(paths[0]); err != nil {
		t.Errorf("Remove deleted the shared build: %v", err)
	}

	t.Setenv(BinDirEnv, "")
	own := &Binaries{Packages: hello}
	p := own.Path(t, "hello")
	if strings.HasPrefix(p, shared) {
		t.Errorf("without %s the binary was built into the shared directory: %s", BinDirEnv, p)
	}
	own.Remove()
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Remove left the process's own build: %v", err)
	}
}

// errorRecorder is a testing.TB whose Errorf is recorded, not reported.
type errorRecorder struct {
	testing.TB
	errors []string
}

func (r *errorRecorder) Helper() {}

func (r *errorRecorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestRaceReportFails: a race detector's report in a process's output fails
// the test, whether the process ran to its end (Run) or was started
// (Start) and left to its cleanup; clean output does not.
func TestRaceReportFails(t *testing.T) {
	ran := &errorRecorder{TB: t}
	Run(ran, os.Args[0], Options{Name: "racy", Env: []string{"PROC_TEST_CHILD=racy"}})
	clean := &errorRecorder{TB: t}
	Run(clean, os.Args[0], Options{Env: []string{"PROC_TEST_CHILD=command"}})
	started := &errorRecorder{}
	t.Run("started", func(t *testing.T) {
		started.TB = t
		p := Start(started, os.Args[0], Options{Name: "racy", Env: []string{"PROC_TEST_CHILD=racy"}})
		<-p.Done()
	}) // its cleanup has run
	for name, c := range map[string]struct {
		r    *errorRecorder
		want int
	}{"Run": {ran, 1}, "Start": {started, 1}, "clean": {clean, 0}} {
		if len(c.r.errors) != c.want {
			t.Errorf("%s: %d errors, want %d: %q", name, len(c.r.errors), c.want, c.r.errors)
		}
		for _, e := range c.r.errors {
			if !strings.Contains(e, "racy: the race detector reported a data race") || !strings.Contains(e, "by goroutine 7") {
				t.Errorf("%s: error %q", name, e)
			}
		}
	}
}
