//go:build wine

package main

// labagent's Windows build, run under Wine (make test-windows): the
// end-to-end flows of a Windows lab server, against a portal on this
// machine.

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/testkit/proc"
	"github.com/seedhq/portal/internal/testkit/wine"
)

// winBins is labagent built for windows/amd64.
var winBins = &proc.Binaries{
	Packages:   []string{"."},
	BuildFlags: []string{"-ldflags", "-X main.version=" + e2eVersion},
	Env:        []string{"GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0"},
}

var (
	winOnce   sync.Once
	winPrefix *wine.Prefix
	winErr    error
)

// windowsTarget is labagent.exe in a fresh Wine prefix, one per test
// process, stopped when the tests end.
func windowsTarget(t testing.TB) *target {
	t.Helper()
	winOnce.Do(func() {
		dir, err := os.MkdirTemp("", "labagent-wine-")
		if err != nil {
			winErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		winPrefix, winErr = wine.New(ctx, dir)
		atExit(func() {
			winBins.Remove()
			if winPrefix != nil {
				winPrefix.Close()
			}
			os.RemoveAll(dir)
		})
	})
	if winErr != nil {
		t.Fatalf("Wine prefix: %v", winErr)
	}
	p := winPrefix
	n := 0
	var mu sync.Mutex
	return &target{
		name: "windows/amd64 under Wine",
		bin:  func(t testing.TB) string { return winBins.Path(t, "labagent") },
		opts: proc.Options{Env: p.Env(), Wrapper: p.Wrapper()},
		// A data directory under C:\ProgramData with a space in its path,
		// as the MSI installs it; one per lab server.
		dataDir: func(t testing.TB) (string, string) {
			mu.Lock()
			n++
			win := fmt.Sprintf(`C:\ProgramData\lab agent %s %d\data`, t.Name(), n)
			mu.Unlock()
			host := p.HostPath(win)
			t.Cleanup(func() { os.RemoveAll(p.HostPath(win[:len(win)-len(`\data`)])) })
			return win, host
		},
		ownPIDs:    false,
		stopSignal: os.Interrupt,
		kill: func(l *labAgent) {
			l.t.Helper()
			l.mu.Lock()
			pid := l.control.PID
			l.mu.Unlock()
			if _, err := p.Run(l.t.Context(), "taskkill", "/F", "/PID", strconv.Itoa(pid)); err != nil {
				l.t.Fatalf("taskkill /F: %v", err)
			}
			select {
			case <-l.proc().Done():
			case <-time.After(30 * time.Second):
				l.t.Fatalf("labagent.exe (Windows pid %d) survived taskkill /F", pid)
			}
		},
	}
}

// TestWindowsSmoke enrols labagent.exe, runs it and serves a student.
func TestWindowsSmoke(t *testing.T) {
	tg := windowsTarget(t)
	p := startPortal(t, portalConfig{DataDir: t.TempDir()})
	sch := setupSchool(t, p, []string{"ani"}, shortAnswerExam("Windows", 3))
	lab := enrollLabOn(t, tg, p.URL, sch)
	lab.start()
	lab.waitPackage()
	st := lab.status()
	t.Logf("status: %s", jsonString(st))
	lab.kill9()
}

// TestWindowsEndToEnd is TestEndToEnd's scenario with labagent.exe under
// Wine and its data under C:\ProgramData in a path with spaces: enrolment,
// three students answering every question type through the LAN API,
// finish, the push exactly once, the results and stored answers, the sync
// log and monitor, labagent status in JSON with the disk's free space
// checked against this machine's figure, and a second labagent run on the
// same data directory refused (bbolt's lock on Windows).
func TestWindowsEndToEnd(t *testing.T) {
	t.Parallel()
	runEndToEnd(t, windowsTarget(t), portalConfig{DataDir: t.TempDir()})
}

// TestWindowsTaskkill is the storm of TestKillNine with labagent.exe under
// Wine: students save as fast as they can while labagent is ended with
// taskkill /F, three times; after each restart every acknowledged answer
// is there, and the portal ends up with every save exactly once and each
// student's final answers.
func TestWindowsTaskkill(t *testing.T) {
	t.Parallel()
	const rounds, students = 3, 4
	ks := runKillStorm(t, windowsTarget(t), rounds, students, nil)
	ks.lab.stop()
	ks.p.Stop()
	checkStoredKeys(t, ks.cfg, ks.examID, ks.want)
	if !t.Failed() {
		t.Logf("proved (%s, data in %q): %d students, %d saves acknowledged, %d taskkill /F, every acknowledged answer kept (%d more stored while in flight), %d records pushed once, %d final answers stored",
			ks.lab.target.name, ks.lab.dirArg, students, ks.acked, rounds, ks.landed, ks.saves, len(ks.want))
	}
}

// TestWindowsExportImport is TestExportImport's scenario with labagent.exe
// under Wine: "labagent export" to a file beside the data directory while
// the portal is down, the portal's import of it (once, then as
// duplicates), and labagent's later push of the same batches.
func TestWindowsExportImport(t *testing.T) {
	t.Parallel()
	runExportImport(t, windowsTarget(t))
}
