//go:build !windows

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/testkit/proc"
)

// target is a platform labagent runs on in the end-to-end tests: this
// machine (hostTarget), or another one's build run through a wrapper
// (Windows under Wine, linux/arm64 under qemu-user-static; platform_*_test.go).
// The portal always runs on this machine.
type target struct {
	// name names the platform in messages ("windows/amd64 under Wine").
	name string
	// bin returns the path of labagent built for the platform.
	bin func(t testing.TB) string
	// opts are the options labagent's processes run with: the wrapper and
	// its environment.
	opts proc.Options
	// dataDir returns a new data directory: the path labagent is given,
	// and the same directory's path on this machine.
	dataDir func(t testing.TB) (arg, host string)
	// ownPIDs is true when the pid a process writes in its control file
	// is the one this machine gave it (false under Wine, where Windows
	// pids are Wine's own).
	ownPIDs bool
	// kill ends a running labagent at once, as a power cut or kill -9
	// would (under Wine: taskkill /F).
	kill func(l *labAgent)
	// stopSignal asks a running labagent to stop cleanly: SIGTERM on this
	// machine, Ctrl+C (SIGINT, which Wine delivers as CTRL_C_EVENT) under
	// Wine.
	stopSignal os.Signal
}

// hostTarget is labagent built for and run on this machine.
var hostTarget = &target{
	name: "host",
	bin: func(t testing.TB) string {
		_, bin := mustBuild(t)
		return bin
	},
	opts: proc.Options{DropEnv: dropEnv},
	dataDir: func(t testing.TB) (string, string) {
		dir := filepath.Join(t.TempDir(), "ldata")
		return dir, dir
	},
	ownPIDs:    true,
	kill:       func(l *labAgent) { l.proc().Kill() },
	stopSignal: syscall.SIGTERM,
}

// options returns the target's process options with env added.
func (tg *target) options(env ...string) proc.Options {
	o := tg.opts
	o.DropEnv = dropEnv
	o.Env = append(append([]string(nil), o.Env...), env...)
	return o
}

// controlOf waits for the control file that the run p, started at
// started, writes, and returns it: a control file left by a killed run
// names another pid or, where pids are not this machine's, is older or
// holds prevToken, the token of the run before (each run draws its own).
func (tg *target) controlOf(t testing.TB, dir string, p *proc.Proc, started time.Time, prevToken string) *agent.Control {
	t.Helper()
	var ctl *agent.Control
	eventually(t, 60*time.Second, "labagent control file", func() (bool, string) {
		if !p.Running() {
			t.Fatalf("labagent run (%s) exited: %v\n%s", tg.name, p.Err(), p.Tail(50))
		}
		c, err := agent.ReadControl(dir)
		if err != nil {
			return false, err.Error()
		}
		if tg.ownPIDs {
			if pid := p.Cmd.Process.Pid; c.PID != pid {
				return false, fmt.Sprintf("control file of pid %d, want %d", c.PID, pid)
			}
		} else if fi, err := os.Stat(filepath.Join(dir, agent.ControlFile)); err != nil || fi.ModTime().Before(started.Add(-time.Second)) ||
			c.Token == prevToken {
			return false, fmt.Sprintf("control file of an earlier run (pid %d)", c.PID)
		}
		ctl = c
		return true, ""
	})
	return ctl
}
