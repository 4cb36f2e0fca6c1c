package proc

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
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
		fmt.Fprintf(os.Stderr, "{\"msg\":\"listening\",\"addr\":\"127.0.0.1:4321\",\"env\":%q}\n", os.Getenv("PROC_TEST_SECRET"))
		<-term
		fmt.Println(`{"msg":"stopped"}`)
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
