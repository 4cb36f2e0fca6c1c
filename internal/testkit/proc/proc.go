// Package proc runs the module's real binaries in end-to-end tests: it
// builds them once per test process with go build, starts them with their
// output captured line by line, waits for a log line (such as the
// "listening" line that gives a server's address), runs one-shot commands
// to completion, and stops what it started. It is imported by tests only.
//
// A test package declares its binaries once and removes them in TestMain:
//
//	var bins = &proc.Binaries{Packages: []string{"github.com/seedhq/portal/cmd/portal"}}
//
//	func TestMain(m *testing.M) {
//		code := m.Run()
//		bins.Remove()
//		os.Exit(code)
//	}
//
//	func TestServe(t *testing.T) {
//		p := proc.Start(t, bins.Path(t, "portal"), proc.Options{DropEnv: []string{"PORTAL_"}},
//			"serve", "--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--log-format", "json")
//		url := "http://" + p.WaitListening(time.Minute)
//		proc.WaitReady(t, url+"/readyz", 30*time.Second)
//		...
//		p.Stop()
//	}
package proc

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/testkit"
)

// BinDirEnv names the environment variable that makes every test process
// of a run share its builds (make test sets it to bin/testbin): with it
// set, Binaries builds into one directory under it per configuration (its
// BuildFlags and Env, and the test's GOOS, GOARCH, CGO_ENABLED and GOFLAGS),
// one process at a time, and keeps the binaries for the next process and
// the next run. go build relinks only what changed, so the portal that
// cmd/labagent's tests build is the one cmd/linkctl's then find. Without it
// each test process builds into a temporary directory of its own.
const BinDirEnv = "PORTAL_TEST_BIN_DIR"

// Binaries builds main packages with go build, once per test process, into
// a temporary directory or the shared one of BinDirEnv. Declare one per
// test package (a package variable) and call Remove from TestMain.
type Binaries struct {
	// Packages are the main packages to build, as go build takes them:
	// import paths, or directories relative to the test's package ("."
	// is the package under test). Their last elements must differ from
	// those of every other main package built with the same configuration.
	Packages []string
	// BuildFlags are added to go build, e.g. "-race" or
	// "-ldflags", "-X main.version=e2e-test".
	BuildFlags []string
	// Env is added to go build's environment, e.g. "GOOS=windows" and
	// "CGO_ENABLED=0" to build for another platform.
	Env []string

	once sync.Once
	dir  string
	temp bool // dir is this process's own, for Remove
	err  error
}

// Path returns the path of the binary name, the last element of its
// package's import path ("portal" for .../cmd/portal), building every
// package on the first call; a failed build fails the test. With -short it
// skips the test instead: end-to-end tests build and run processes.
func (b *Binaries) Path(t testing.TB, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs binaries; skipped with -short")
	}
	b.once.Do(func() { b.err = b.build() })
	if b.err != nil {
		t.Fatal(b.err)
	}
	if b.goos() == "windows" {
		name += ".exe"
	}
	return filepath.Join(b.dir, name)
}

// build runs go build into b.dir: the shared directory of the
// configuration, under its lock, or a new temporary one.
func (b *Binaries) build() error {
	if shared := os.Getenv(BinDirEnv); shared != "" {
		b.dir = filepath.Join(shared, b.config())
		if err := os.MkdirAll(b.dir, 0o755); err != nil {
			return fmt.Errorf("shared binaries: %w", err)
		}
		unlock, err := testkit.LockFile(b.dir + ".lock")
		if err != nil {
			return fmt.Errorf("shared binaries: %w", err)
		}
		defer unlock()
	} else {
		dir, err := os.MkdirTemp("", "testkit-bin-")
		if err != nil {
			return err
		}
		b.dir, b.temp = dir, true
	}
	args := append([]string{"build", "-o", b.dir + string(os.PathSeparator)}, b.BuildFlags...)
	cmd := exec.Command("go", append(args, b.Packages...)...)
	cmd.Env = append(os.Environ(), b.Env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, out)
	}
	return nil
}

// config names the build configuration: the target platform, then a hash
// of everything else that changes the binaries besides the packages.
func (b *Binaries) config() string {
	h := sha256.New()
	for _, k := range []string{"GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS", "GOEXPERIMENT"} {
		fmt.Fprintf(h, "%s=%s\x00", k, os.Getenv(k))
	}
	for _, s := range [][]string{b.BuildFlags, b.Env} {
		fmt.Fprintf(h, "%q\x00", s)
	}
	return fmt.Sprintf("%s-%s-%x", b.goos(), b.env("GOARCH", runtime.GOARCH), h.Sum(nil)[:6])
}

// goos is the operating system the binaries are built for.
func (b *Binaries) goos() string { return b.env("GOOS", runtime.GOOS) }

// env is the value of the variable key for go build: b.Env's, else the
// test's environment's, else def.
func (b *Binaries) env(key, def string) string {
	v := os.Getenv(key)
	for _, kv := range b.Env {
		if s, ok := strings.CutPrefix(kv, key+"="); ok {
			v = s
		}
	}
	if v == "" {
		return def
	}
	return v
}

// Remove deletes the built binaries if they are this process's own (not
// those of the shared directory); call it from TestMain after m.Run.
func (b *Binaries) Remove() {
	if b.temp {
		os.RemoveAll(b.dir)
	}
}

// Options say how Start and Run run a binary.
type Options struct {
	// Name names the process in messages; default the binary's base name.
	Name string
	// Env is added to the test's environment (after DropEnv), as
	// "NAME=value".
	Env []string
	// DropEnv are prefixes ("PORTAL_") of the test's environment variables
	// to leave out, so that a developer's own settings do not leak into
	// the process under test.
	DropEnv []string
	// Dir is the working directory; default the test's.
	Dir string
	// Stdin is the process's standard input; default empty.
	Stdin string
	// Wrapper, if not empty, is the command that runs the binary: the
	// process is Wrapper[0] with Wrapper[1:], the binary and its arguments
	// (Wine's loader for a Windows binary, qemu-aarch64-static for an arm64
	// one). Name still names the binary.
	Wrapper []string
	// OnLine, if not nil, sees every output line of a process started by
	// Start as it comes (on another goroutine). Run ignores it.
	OnLine func(line string)
}

// command builds the exec.Cmd of bin with o.
func (o Options) command(ctx context.Context, bin string, args []string) *exec.Cmd {
	if len(o.Wrapper) > 0 {
		args = append(append(slices.Clone(o.Wrapper[1:]), bin), args...)
		bin = o.Wrapper[0]
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = o.Dir
	cmd.Stdin = strings.NewReader(o.Stdin)
	for _, kv := range os.Environ() {
		drop := false
		for _, p := range o.DropEnv {
			drop = drop || strings.HasPrefix(kv, p)
		}
		if !drop {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, o.Env...)
	return cmd
}

func (o Options) name(bin string) string {
	if o.Name != "" {
		return o.Name
	}
	return filepath.Base(bin)
}

// Proc is a process started by Start. Its output (stdout and stderr
// interleaved) is kept in full.
type Proc struct {
	Name string
	Cmd  *exec.Cmd

	t       testing.TB
	bin     string   // what Start ran, for Restart
	opts    Options  // how
	args    []string // with which arguments
	out     *testkit.Buffer
	done    chan struct{} // closed once the process has exited and its output is read
	waitErr error
}

// Start starts bin with args. The process is killed at the test's cleanup
// if it is still running, and its last output lines are logged when the
// test failed.
func Start(t testing.TB, bin string, o Options, args ...string) *Proc {
	t.Helper()
	cmd := o.command(context.Background(), bin, args)
	p := &Proc{Name: o.name(bin), Cmd: cmd, t: t, bin: bin, opts: o, args: slices.Clone(args),
		out: &testkit.Buffer{}, done: make(chan struct{})}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", p.Name, err)
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.out.Write([]byte(line + "\n"))
			if o.OnLine != nil {
				o.OnLine(line)
			}
		}
		io.Copy(io.Discard, pr) // a line over 1 MiB: keep the process from blocking
	}()
	go func() {
		p.waitErr = cmd.Wait()
		pw.Close()
		<-readDone // every line is kept before done closes
		close(p.done)
	}()
	t.Cleanup(func() {
		if p.Running() {
			cmd.Process.Kill()
			<-p.done
		}
		checkRace(t, p.Name, p.Output())
		if t.Failed() {
			t.Logf("%s (pid %d) output, last lines:\n%s", p.Name, cmd.Process.Pid, p.Tail(150))
		}
	})
	return p
}

// raceReport is how the race detector begins a report, in a binary built
// with -race.
const raceReport = "WARNING: DATA RACE"

// checkRace fails the test when the output of the process name holds a
// report of the race detector: a process killed at the end of its test
// never reaches the exit status (66) that would otherwise tell.
func checkRace(t testing.TB, name, output string) {
	t.Helper()
	if i := strings.Index(output, raceReport); i >= 0 {
		t.Errorf("%s: the race detector reported a data race:\n%s", name, output[i:min(len(output), i+8000)])
	}
}

// Restart starts the binary again with the same options and arguments,
// e.g. a server coming back on the data and the fixed address it had, and
// returns the new process, which Start's cleanup covers as well. It fails
// the test if p is still running.
func (p *Proc) Restart() *Proc {
	p.t.Helper()
	if p.Running() {
		p.t.Fatalf("%s (pid %d): restart while it is still running", p.Name, p.Cmd.Process.Pid)
	}
	return Start(p.t, p.bin, p.opts, p.args...)
}

// Output returns everything the process has written so far.
func (p *Proc) Output() string { return p.out.String() }

// Tail returns the last n lines of the output.
func (p *Proc) Tail(n int) string {
	lines := strings.Split(strings.TrimRight(p.out.String(), "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... %d lines before", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// LogLines returns the output lines that are JSON objects (a slog JSON
// log), decoded, in order.
func (p *Proc) LogLines() []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(p.out.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// FindLog returns the first JSON log line whose "msg" is msg, or nil.
func (p *Proc) FindLog(msg string) map[string]any {
	for _, m := range p.LogLines() {
		if m["msg"] == msg {
			return m
		}
	}
	return nil
}

// WaitLog waits for a JSON log line whose "msg" is msg and returns it; it
// fails the test when the process exits first or after timeout.
func (p *Proc) WaitLog(msg string, timeout time.Duration) map[string]any {
	p.t.Helper()
	deadline := time.After(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if m := p.FindLog(msg); m != nil {
			return m
		}
		select {
		case <-p.done:
			if m := p.FindLog(msg); m != nil {
				return m
			}
			p.t.Fatalf("%s exited (%v) before logging %q\n%s", p.Name, p.waitErr, msg, p.Tail(50))
		case <-deadline:
			p.t.Fatalf("%s did not log %q within %s\n%s", p.Name, msg, timeout, p.Tail(50))
		case <-tick.C:
		}
	}
}

// WaitListening waits for the JSON log line {"msg":"listening",
// "addr":"host:port"} that the module's servers write once their listener
// is open (e.g. on "127.0.0.1:0"), and returns the address.
func (p *Proc) WaitListening(timeout time.Duration) string {
	p.t.Helper()
	m := p.WaitLog("listening", timeout)
	addr, _ := m["addr"].(string)
	if addr == "" {
		p.t.Fatalf("%s: \"listening\" log line without addr: %v", p.Name, m)
	}
	return addr
}

// Running reports whether the process has not exited yet.
func (p *Proc) Running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Done is closed once the process has exited and its output is read.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err returns how the process ended, as exec.Cmd.Wait reported it: nil
// for exit status 0, an *exec.ExitError for another status or a signal
// ("signal: killed"). It is nil while the process runs.
func (p *Proc) Err() error {
	select {
	case <-p.done:
		return p.waitErr
	default:
		return nil
	}
}

// Signal sends sig to the process.
func (p *Proc) Signal(sig os.Signal) {
	p.t.Helper()
	if err := p.Cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("%s: signal %v: %v", p.Name, sig, err)
	}
}

// Wait waits for the process to exit and returns its exit status (-1 when
// a signal ended it); it fails the test after timeout.
func (p *Proc) Wait(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.t.Fatalf("%s did not exit within %s\n%s", p.Name, timeout, p.Tail(50))
	}
	return p.exitCode()
}

// exitCode is the exit status of the process, which has exited.
func (p *Proc) exitCode() int {
	p.t.Helper()
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.ExitCode()
	}
	if p.waitErr != nil {
		p.t.Fatalf("%s: wait: %v", p.Name, p.waitErr)
	}
	return 0
}

// Stop sends SIGTERM and fails the test unless the process exits with
// status 0 within a minute.
func (p *Proc) Stop() {
	p.t.Helper()
	p.StopWith(syscall.SIGTERM)
}

// StopWith is Stop with the signal sig: os.Interrupt for a Windows program
// under Wine, which delivers SIGINT to it as Ctrl+C (its SIGTERM ends the
// program at once, as taskkill /F would).
func (p *Proc) StopWith(sig os.Signal) {
	p.t.Helper()
	p.Signal(sig)
	if code := p.Wait(time.Minute); code != 0 {
		p.t.Fatalf("%s exited with status %d after %v\n%s", p.Name, code, sig, p.Tail(50))
	}
}

// Kill sends SIGKILL (kill -9), waits for the process to be gone and
// returns its exit status as Wait does: -1 when the signal ended it, the
// status it had exited with when it was gone before the signal came.
func (p *Proc) Kill() int {
	p.t.Helper()
	p.Cmd.Process.Kill() // fails only when the process is gone already
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		p.t.Fatalf("%s survived SIGKILL", p.Name)
	}
	return p.exitCode()
}

// Result is the outcome of Run.
type Result struct {
	Code           int // exit status
	Stdout, Stderr string
}

func (r Result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
}

// Run runs bin with args to completion, two minutes at most, and returns
// its exit status and output. It fails the test only when the process
// cannot be run or does not finish in time; a non-zero status is the
// caller's to check.
func Run(t testing.TB, bin string, o Options, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := o.command(ctx, bin, args)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	res := Result{Stdout: out.String(), Stderr: errOut.String()}
	checkRace(t, o.name(bin), res.Stderr)
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s %s: not finished within 2 minutes\n%s", o.name(bin), strings.Join(args, " "), res)
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %s %s: %v", o.name(bin), strings.Join(args, " "), err)
	}
	return res
}

// WaitReady polls url with GET until it answers 200 (a server's /readyz),
// failing the test after timeout.
func WaitReady(t testing.TB, url string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		resp, err := http.Get(url)
		last := fmt.Sprint(err)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = resp.Status
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer 200 within %s (last: %s)", url, timeout, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
