//go:build wine

package main

// labagent's Windows build, run under Wine (make test-windows): the
// end-to-end flows of a Windows lab server, against a portal on this
// machine.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/testkit/proc"
	"github.com/seedhq/portal/internal/testkit/tmpfs"
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

// TestWindowsDiskFull: labagent.exe's data on a drive that fills up (a
// small tmpfs on this machine, mapped to a drive letter of the prefix)
// while the portal is down: saves are acknowledged until one does not fit,
// which is refused with 503 DISK_FULL (Wine reports the full file system
// as Windows' ERROR_DISK_FULL, which labagent must recognise), status
// reports the drive's free space (under LowSpace, as the whole drive is),
// and every acknowledged save is kept; once space is freed the student
// saves again, and with the portal back every save reaches it exactly
// once.
func TestWindowsDiskFull(t *testing.T) {
	t.Parallel()
	tg := windowsTarget(t)
	const size = 16 << 20
	small := tmpfs.Mount(t, size)
	drive := wineDrive(t, small)
	onSmall := *tg
	onSmall.dataDir = func(testing.TB) (string, string) {
		return drive + `\lab agent\data`, filepath.Join(small, "lab agent", "data")
	}
	o := startOnlineOn(t, &onSmall, "Geografi", []string{"df1", "df2"}, "final")
	p, lab, examID, s := o.p, o.lab, o.examID, o.st["df1"]

	// The portal goes away: the answers stay on the lab server's disk,
	// which is then filled up to its last megabyte.
	p.Stop()
	before := lab.status()
	checkDisk(t, before, lab.dir)
	filler := int(before.Disk.FreeBytes) - 1<<20
	release := tmpfs.Fill(t, small, filler)
	saved, last := 0, ""
	var err error
	for ; saved < 10_000; saved++ {
		v := fmt.Sprintf("%05d %s", saved, strings.Repeat("x", 4000))
		if err = s.save(examID, "k02", v); err != nil {
			break
		}
		last = v
	}
	var ae *apiError
	if !errors.As(err, &ae) || ae.Status != http.StatusServiceUnavailable || ae.Code != "DISK_FULL" {
		t.Fatalf("save %d on a full disk: %v, want 503 DISK_FULL", saved, err)
	}
	full := lab.status()
	if full.Disk == nil || !full.Disk.Low || full.Disk.FreeBytes >= 1<<20 || full.AnswersPending != saved {
		t.Errorf("status on a full disk: %s; want under 1 MB free, low, and the %d saves pending", jsonString(full), saved)
	}
	if got := s.mustAttempt(examID).answers()["k02"]; got != last {
		t.Fatalf("after the refused save labagent holds %.10q..., the last acknowledged save was %.10q...", got, last)
	}

	// Space is freed: the refused save goes through, and everything
	// reaches the portal once it is back.
	release()
	s.mustSave(examID, "k02", "final")
	saved++
	lab.waitStatus(30*time.Second, "the freed space reported", func(st agent.Status) bool {
		return st.Disk != nil && st.Disk.FreeBytes >= full.Disk.FreeBytes+uint64(filler)/2
	})
	p = p.restart()
	op := p.operator()
	lab.waitStatus(60*time.Second, "everything pushed", func(st agent.Status) bool { return st.AnswersPending == 0 })
	if l := pushLogs(t, op); l.records != o.online+saved {
		t.Errorf("accepted pushes carry %d records, want %d (each save once)", l.records, o.online+saved)
	}
	lab.stop()
	p.Stop()
	checkStored(t, o.cfg, examID, o.sch, map[string]map[string]string{"df1": {"k01": "final", "k02": "final"}, "df2": {"k01": "final"}})
	if !t.Failed() {
		t.Logf("proved (%s, data in %q on a %d MB drive): %d saves acknowledged, then 503 DISK_FULL, status under 1 MB free, every acknowledged save kept, saves again once space was freed, %d records pushed once",
			tg.name, lab.dirArg, size>>20, saved-1, o.online+saved)
	}
}

// wineDrive maps a free drive letter of the Wine prefix to the directory
// dir on this machine and returns it ("Q:"); the mapping goes when the
// test ends.
func wineDrive(t *testing.T, dir string) string {
	t.Helper()
	for c := 'q'; c <= 'y'; c++ {
		link := filepath.Join(winPrefix.Dir, "dosdevices", string(c)+":")
		if err := os.Symlink(dir, link); err == nil {
			t.Cleanup(func() { os.Remove(link) })
			return strings.ToUpper(string(c)) + ":"
		}
	}
	t.Fatalf("no free drive letter from Q: to Y: in %s", winPrefix.Dir)
	return ""
}
