package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/testkit"
)

// The portal binary that the end-to-end tests run, built once per test
// process (with -race when the tests run with -race).
var (
	buildOnce sync.Once
	buildDir  string
	buildPath string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// mustBuildPortal builds the real portal binary (go build) and returns its path.
func mustBuildPortal(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "portal-e2e-bin-")
		if buildErr != nil {
			return
		}
		buildPath = filepath.Join(buildDir, "portal")
		args := []string{"build", "-o", buildPath, "-ldflags", "-X main.version=e2e-test"}
		if raceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, ".")...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// portalProc is a running "portal serve".
type portalProc struct {
	t       testing.TB
	cmd     *exec.Cmd
	Addr    string // host:port it listens on
	URL     string // http://Addr
	DataDir string
	logs    *testkit.Buffer
	done    chan struct{} // closed when the process has exited
	waitErr error
}

// logLines returns the JSON log lines written so far.
func (p *portalProc) logLines() []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(p.logs.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// findLog returns the first log line with the message, or nil.
func (p *portalProc) findLog(msg string) map[string]any {
	for _, m := range p.logLines() {
		if m["msg"] == msg {
			return m
		}
	}
	return nil
}

// mustStartPortal starts "portal serve --listen 127.0.0.1:0 --data-dir dataDir
// --log-format json extra..." with env added to the environment, waits for
// its "listening" line and for /readyz, and stops it (SIGKILL) at cleanup if
// the test has not stopped it.
func mustStartPortal(t testing.TB, dataDir string, env []string, extra ...string) *portalProc {
	t.Helper()
	bin := mustBuildPortal(t)
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--log-format", "json", "--log-level", "debug"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(cleanEnv(), env...)
	p := &portalProc{t: t, cmd: cmd, DataDir: dataDir, logs: &testkit.Buffer{}, done: make(chan struct{})}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		t.Fatalf("start portal: %v", err)
	}
	addrc := make(chan string, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.logs.Write([]byte(line + "\n"))
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "listening" {
				if a, ok := m["addr"].(string); ok {
					select {
					case addrc <- a:
					default:
					}
				}
			}
		}
		io.Copy(io.Discard, pr)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		pw.Close()
		<-readDone // every line is in p.logs before done closes
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("portal log:\n%s", p.logs.String())
		}
	})

	select {
	case p.Addr = <-addrc:
	case <-p.done:
		t.Fatalf("portal exited before listening: %v\n%s", p.waitErr, p.logs.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("portal did not log \"listening\" within 60s\n%s", p.logs.String())
	}
	p.URL = "http://" + p.Addr
	p.mustWaitReady()
	return p
}

// cleanEnv is the test's environment without PORTAL_* variables, so that a
// developer's own settings do not leak into the process under test.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PORTAL_") {
			env = append(env, kv)
		}
	}
	return env
}

// mustWaitReady polls /readyz until it answers 200.
func (p *portalProc) mustWaitReady() {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(p.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("/readyz did not answer 200 within 30s (last: %v)", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// signal sends sig to the process.
func (p *portalProc) signal(sig os.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signal %v: %v", sig, err)
	}
}

// mustWaitLog waits until a log line with msg appears.
func (p *portalProc) mustWaitLog(msg string) map[string]any {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := p.findLog(msg); m != nil {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("no log line %q within 30s\n%s", msg, p.logs.String())
	return nil
}

// wait waits for the process to exit and returns its exit code.
func (p *portalProc) wait(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.t.Fatalf("portal did not exit within %s\n%s", timeout, p.logs.String())
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.ExitCode()
	}
	if p.waitErr != nil {
		p.t.Fatalf("wait: %v", p.waitErr)
	}
	return 0
}

// mustStop sends SIGTERM and checks a clean exit (status 0).
func (p *portalProc) mustStop() {
	p.t.Helper()
	p.signal(syscall.SIGTERM)
	if code := p.wait(60 * time.Second); code != 0 {
		p.t.Fatalf("portal exited with status %d after SIGTERM\n%s", code, p.logs.String())
	}
}

// runResult is the outcome of one run of the portal binary.
type runResult struct {
	Code   int
	Stdout string
	Stderr string
}

// runPortal runs the portal binary with args and env and returns what it
// printed and its exit status.
func runPortal(t testing.TB, env []string, stdin string, args ...string) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mustBuildPortal(t), args...)
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	res := runResult{Stdout: out.String(), Stderr: errOut.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run portal %v: %v", args, err)
	}
	return res
}
