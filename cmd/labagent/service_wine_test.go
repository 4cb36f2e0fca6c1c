//go:build wine

package main

// labagent.exe as a Windows service under Wine's service manager
// (services.exe): "labagent service install" and "uninstall", Stop and
// Start, a crash, a power cut and the boot after it, against a portal on
// this machine.
//
// A prefix's wineserver, and with it services.exe and every service, exits
// a few seconds after the prefix's last ordinary process has: to Wine's
// services that is the machine switched off, and the next Wine program
// boots it again (services.exe starting the automatic services). The tests
// keep a cmd.exe running (keepBooted) so that the service lives between
// the commands that drive it, and stop it and the wineserver to cut the
// power; so they must not run in parallel with other tests of the prefix.
//
// Wine's service manager has no recovery actions (the restart after a
// failure): under Wine, install warns and goes on, and these tests check
// what a restart by hand keeps; that the actions are stored is checked on
// Windows only, by install itself reading them back (setRecovery in
// service_windows.go).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/testkit/proc"
	"github.com/seedhq/portal/internal/testkit/wine"
)

// svcExeWin is where the service tests put labagent.exe, as the
// documentation says to (a path with a space).
const svcExeWin = `C:\Program Files\labagent\labagent.exe`

// winServiceName is the Windows service's name (serviceName in
// service_windows.go, which this test, built for this machine, cannot see).
const winServiceName = "labagent"

// eventSourceKey is the registry key of the service's event log source.
const eventSourceKey = `HKLM\SYSTEM\CurrentControlSet\Services\EventLog\Application\` + winServiceName

// winService is one enrolled lab server whose labagent.exe is installed,
// or to be installed, as the Windows service in the test process's Wine
// prefix.
type winService struct {
	t      *testing.T
	prefix *wine.Prefix
	lab    *labAgent
	// config is the config file given to service install, as labagent is
	// given it: the control API on a free port, not the fixed 8091 another
	// test process may hold.
	config string
	proved []string
	// keeper ends the process keepBooted started; nil when none runs.
	keeper func()
}

// newWinService enrols labagent.exe (in a data directory whose path has
// spaces) against the portal p for the school sch, copies it to
// svcExeWin and writes the config file; the service is removed when the
// test ends, whatever state the test left it in.
func newWinService(t *testing.T, p *portalProc, sch *school) *winService {
	t.Helper()
	tg := windowsTarget(t)
	w := &winService{t: t, prefix: prefixOf(t, tg)}
	w.keepBooted()
	w.checkNoService()
	w.lab = enrollLabOn(t, tg, p.URL, sch)
	t.Cleanup(w.removeService) // before the data directory's removal
	if !strings.Contains(w.lab.dirArg, " ") {
		t.Fatalf("data directory %q: want a path with spaces", w.lab.dirArg)
	}
	exe := w.prefix.HostPath(svcExeWin)
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, w.lab.bin, exe)
	w.config = w.lab.siblingArg("labagent.yaml")
	cfg := "control-addr: 127.0.0.1:0\npull-interval: 5s\nlog-format: json\n"
	if err := os.WriteFile(filepath.Join(filepath.Dir(w.lab.dir), "labagent.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// prefixOf returns the Wine prefix the target tg runs in (its WINEPREFIX).
func prefixOf(t *testing.T, tg *target) *wine.Prefix {
	t.Helper()
	for _, kv := range tg.opts.Env {
		if dir, ok := strings.CutPrefix(kv, "WINEPREFIX="); ok {
			p, err := wine.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	t.Fatalf("target %s has no WINEPREFIX", tg.name)
	return nil
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// keepBooted starts a cmd.exe reading a pipe that stays open until
// stopKeeper or the end of the test: an ordinary process that keeps the
// prefix's wineserver, and the services, running.
func (w *winService) keepBooted() {
	w.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := w.prefix.Command(ctx, "cmd")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		w.t.Fatalf("start cmd.exe to keep Wine running: %v", err)
	}
	w.t.Cleanup(w.stopKeeper)
	w.keeper = func() {
		stdin.Close() // cmd.exe exits at the end of its input
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cancel()
			<-done
		}
		cancel()
	}
}

// stopKeeper ends the process keepBooted started, if it runs.
func (w *winService) stopKeeper() {
	if w.keeper != nil {
		w.keeper()
		w.keeper = nil
	}
}

// powerCut switches the Wine "machine" off, as a power cut would (every
// process in the prefix killed), and boots it again: services.exe starts
// the automatic services.
func (w *winService) powerCut() {
	w.t.Helper()
	w.stopKeeper()
	if err := w.prefix.Close(); err != nil {
		w.t.Fatalf("stop the prefix's wineserver: %v", err)
	}
	w.keepBooted()
}

// ok records one thing the test proved.
func (w *winService) ok(what string) { w.proved = append(w.proved, what) }

// report logs the count of what the test proved, on one line.
func (w *winService) report() {
	w.t.Logf("proved %d things: %s", len(w.proved), strings.Join(w.proved, "; "))
}

// labagent runs svcExeWin with args in the prefix.
func (w *winService) labagent(args ...string) proc.Result {
	w.t.Helper()
	return proc.Run(w.t, svcExeWin, w.lab.target.options(), args...)
}

// install runs "labagent service install" for the lab's data directory.
func (w *winService) install() proc.Result {
	w.t.Helper()
	return w.labagent("service", "install", "--data-dir", w.lab.dirArg, "--listen", "127.0.0.1:0", "--config", w.config)
}

// run runs one of Wine's programs (sc, net, taskkill, reg) in the prefix,
// for two minutes at most (also in a cleanup, after t.Context has ended).
func (w *winService) run(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return w.prefix.Run(ctx, name, args...)
}

// state returns the service's state as "sc query" prints it (RUNNING,
// STOPPED, ...), and "" when sc query fails (no such service).
func (w *winService) state() string {
	out, err := w.run("sc", "query", winServiceName)
	if err != nil {
		return ""
	}
	for line := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "STATE"); ok {
			if f := strings.Fields(strings.TrimLeft(rest, " :")); len(f) == 2 {
				return f[1]
			}
		}
	}
	return "unknown: " + out
}

// waitState waits until "sc query" reports the state want.
func (w *winService) waitState(want string) {
	w.t.Helper()
	eventually(w.t, 60*time.Second, "service "+want, func() (bool, string) {
		got := w.state()
		return got == want, "sc query: " + got
	})
}

// waitServing waits until the service's labagent run has written a control
// file other than old's (nil: any) and answers on the LAN, and points the
// lab's clients at it.
func (w *winService) waitServing(old *agent.Control) *agent.Control {
	w.t.Helper()
	var ctl *agent.Control
	eventually(w.t, 90*time.Second, "the service writes its control file", func() (bool, string) {
		c, err := agent.ReadControl(w.lab.dir)
		if err != nil {
			return false, err.Error() + "; sc query: " + w.state()
		}
		if old != nil && c.Token == old.Token {
			return false, fmt.Sprintf("control file of the earlier run (pid %d)", c.PID)
		}
		ctl = c
		return true, ""
	})
	proc.WaitReady(w.t, "http://"+ctl.LANAddr+"/healthz", 60*time.Second)
	resp, err := http.Get("http://" + ctl.LANAddr + "/")
	if err != nil {
		w.t.Fatalf("student page: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(strings.ToLower(string(body)), "<html") {
		w.t.Fatalf("student page: %s\n%.300s", resp.Status, body)
	}
	w.lab.mu.Lock()
	w.lab.lan, w.lab.control = ctl.LANAddr, *ctl
	w.lab.mu.Unlock()
	return ctl
}

// waitControlGone waits until the control file is removed, as labagent run
// does when it stops cleanly.
func (w *winService) waitControlGone() {
	w.t.Helper()
	eventually(w.t, 60*time.Second, "control file removed", func() (bool, string) {
		_, err := os.Stat(filepath.Join(w.lab.dir, agent.ControlFile))
		return errors.Is(err, os.ErrNotExist), fmt.Sprint(err)
	})
}

// serviceKey is the registry key that holds the service's configuration,
// from which services.exe loads it at every boot.
const serviceKey = `HKLM\SYSTEM\CurrentControlSet\Services\` + winServiceName

// removeService removes whatever a test, failed half-way, left of the
// service: it stops and deletes it, deletes its registry keys (a service
// whose process was killed stays in Wine's database, marked for deletion,
// until services.exe exits) and switches the prefix off, so that the next
// boot starts without it.
func (w *winService) removeService() {
	if st := w.state(); st != "" {
		if st != "STOPPED" {
			w.run("sc", "stop", winServiceName)
			deadline := time.Now().Add(60 * time.Second)
			for st := w.state(); st != "STOPPED" && st != "" && time.Now().Before(deadline); st = w.state() {
				time.Sleep(200 * time.Millisecond)
			}
		}
		w.run("sc", "delete", winServiceName)
	}
	w.run("reg", "delete", serviceKey, "/f")
	w.run("reg", "delete", eventSourceKey, "/f")
	w.stopKeeper()
	if err := w.prefix.Close(); err != nil {
		w.t.Errorf("stop the prefix's wineserver: %v", err)
	}
}

// checkNoService fails the test if the prefix holds a service named
// labagent, in services.exe or in the registry.
func (w *winService) checkNoService() {
	w.t.Helper()
	if st := w.state(); st != "" {
		w.t.Fatalf("sc query %s: %s, want no such service", winServiceName, st)
	}
	if _, err := w.run("reg", "query", serviceKey); err == nil {
		w.t.Fatalf("registry key %s present, want no such service", serviceKey)
	}
}

// TestWindowsServiceLifecycle installs labagent.exe as a service under
// Wine's service manager and takes it through Stop and Start, a crash and
// the uninstall, with a student's answers kept throughout.
func TestWindowsServiceLifecycle(t *testing.T) {
	p := startPortal(t, portalConfig{DataDir: t.TempDir()})
	sch := setupSchool(t, p, []string{"ani"}, shortAnswerExam("Windows service", 3))
	examID := sch.exams[0].ID
	w := newWinService(t, p, sch)
	lab := w.lab

	// Install: registered, started, serving; the warning that the restart
	// after a failure is not available under Wine.
	res := w.install()
	if res.Code != 0 || !strings.Contains(res.Stdout, `service "labagent" installed and started`) ||
		!strings.Contains(res.Stdout, lab.dirArg) {
		t.Fatalf("labagent service install: %s", res)
	}
	w.ok("install exits 0 and names the data directory (a path with spaces)")
	if !strings.Contains(res.Stderr, noRestartUnderWine) || strings.Count(res.Stderr, "warning:") != 1 {
		t.Errorf("install under Wine: want the one warning %q\n%s", noRestartUnderWine, res)
	}
	w.ok("install warns once that the restart after a failure is unavailable under Wine")
	// Its configuration: automatic start, as LocalSystem, the command line
	// quoted where paths have spaces.
	cfg, err := w.run("reg", "query", serviceKey)
	if err != nil {
		t.Fatalf("service configuration: %v", err)
	}
	cmdLine := `"` + svcExeWin + `" run --data-dir "` + lab.dirArg + `" --listen 127.0.0.1:0 --config "` + w.config + `"`
	for _, want := range []string{"Start    REG_DWORD    0x2", "ObjectName    REG_SZ    LocalSystem", "ImagePath    REG_SZ    " + cmdLine} {
		if !strings.Contains(cfg, want) {
			t.Errorf("service configuration: no %q in\n%s", want, cfg)
		}
	}
	w.ok("registered: automatic start, LocalSystem, paths with spaces quoted")
	if _, err := w.run("reg", "query", eventSourceKey); err != nil {
		t.Errorf("event log source: %v", err)
	}
	w.ok("event log source registered")
	w.waitState("RUNNING")
	w.ok("sc query: RUNNING")
	ctl := w.waitServing(nil)
	w.ok("LAN pages answer at the address of the control file")
	lab.waitPackage()
	if st := lab.status(); !st.Running || st.LANAddr != ctl.LANAddr || st.Sync.PackageChecksum == "" {
		t.Fatalf("status of the service: %s", jsonString(st))
	}
	w.ok("labagent status reaches the service's control API, the exam package pulled")

	// A student saves answers to the service.
	ani := newStudent(t, lab, sch, "ani")
	ani.mustLogin(lab.proctorToken())
	ani.mustStart(examID)
	ani.mustSave(examID, "k01", "final")
	ani.mustSave(examID, "k02", "first")

	// Stop and start, as from the Services console.
	if out, err := w.run("net", "stop", winServiceName); err != nil {
		t.Fatalf("net stop: %v", err)
	} else {
		t.Logf("net stop: %s", strings.TrimSpace(out))
	}
	w.waitState("STOPPED")
	w.waitControlGone()
	if out, _ := w.run("sc", "query", winServiceName); !strings.Contains(out, "WIN32_EXIT_CODE    : 0  (0x0)") ||
		!strings.Contains(out, "SERVICE_EXIT_CODE  : 0  (0x0)") {
		t.Errorf("sc query after net stop: want exit codes 0\n%s", out)
	}
	w.ok("net stop: STOPPED with exit code 0, control file removed (a clean stop)")
	if _, err := w.run("net", "start", winServiceName); err != nil {
		t.Fatalf("net start: %v", err)
	}
	w.waitState("RUNNING")
	ctl = w.waitServing(ctl)
	if got := ani.mustAttempt(examID).answers(); got["k01"] != "final" || got["k02"] != "first" {
		t.Fatalf("answers after net stop and start: %v", got)
	}
	w.ok("net start: RUNNING again, the student's answers kept")
	ani.mustSave(examID, "k02", "second")

	// A crash: the service's process killed. Wine 8's services.exe does not
	// notice (sc query still says RUNNING) and, having no recovery
	// actions, does not restart it; an operator's net start brings it back
	// with everything kept. Should a later Wine restart it, that is checked
	// instead.
	if _, err := w.run("taskkill", "/F", "/PID", strconv.Itoa(ctl.PID)); err != nil {
		t.Fatalf("taskkill /F: %v", err)
	}
	eventually(t, 60*time.Second, "the killed service stops answering", func() (bool, string) {
		resp, err := http.Get("http://" + ctl.LANAddr + "/healthz")
		if err != nil {
			return true, ""
		}
		resp.Body.Close()
		return false, resp.Status
	})
	if _, err := os.Stat(filepath.Join(lab.dir, agent.ControlFile)); err != nil {
		t.Errorf("control file after a crash: %v, want the stale one left", err)
	}
	if c, err := agent.ReadControl(lab.dir); err == nil && c.Token != ctl.Token {
		t.Logf("after taskkill /F: Wine's service manager restarted the service by itself (sc query: %s)", w.state())
		w.ok("taskkill /F: restarted by Wine's service manager")
	} else {
		t.Logf("after taskkill /F: sc query says %s; no restart", w.state())
		if _, err := w.run("net", "start", winServiceName); err != nil {
			t.Fatalf("net start after the crash: %v", err)
		}
		w.ok("taskkill /F: no restart by Wine's service manager, net start accepted")
	}
	w.waitState("RUNNING")
	ctl = w.waitServing(ctl)
	if got := ani.mustAttempt(examID).answers(); got["k01"] != "final" || got["k02"] != "second" {
		t.Fatalf("answers after the crash: %v", got)
	}
	w.ok("net start after the crash: serving, every answer saved before the kill kept")
	lab.waitStatus(60*time.Second, "answers pushed by the service", func(st agent.Status) bool {
		return st.AnswersPending == 0 && st.Sync.LastReceipt != nil
	})
	w.ok("the answers reach the portal")

	// A power cut and the boot after it: the service starts by itself.
	ani.mustSave(examID, "k03", "after the push")
	w.powerCut()
	w.waitState("RUNNING")
	w.waitServing(ctl)
	if got := ani.mustAttempt(examID).answers(); got["k01"] != "final" || got["k02"] != "second" || got["k03"] != "after the push" {
		t.Fatalf("answers after a power cut: %v", got)
	}
	w.ok("power cut: the service starts at the boot by itself, every answer kept")
	if n := ani.mustFinish(examID); n != 3 {
		t.Errorf("finish: %d answered, want 3", n)
	}
	lab.waitStatus(60*time.Second, "answers pushed after the boot", func(st agent.Status) bool {
		return st.AnswersPending == 0
	})
	if r, ok := results(t, p.operator(), examID)["ani"]; !ok || r.Answered != 3 || r.Correct != 1 {
		t.Errorf("portal's result for ani: %s", jsonString(r))
	}
	w.ok("the portal holds the three answers")

	// Uninstall: the service gone, its data directory kept.
	res = w.labagent("service", "uninstall")
	if res.Code != 0 || !strings.Contains(res.Stdout, "stopped and removed") {
		t.Fatalf("labagent service uninstall: %s", res)
	}
	if st := w.state(); st != "" {
		t.Errorf("sc query after uninstall: %s", st)
	}
	w.waitControlGone()
	w.ok("uninstall: the service gone, stopped cleanly")
	if _, err := w.run("reg", "query", eventSourceKey); err == nil {
		t.Errorf("event log source left after uninstall")
	}
	w.ok("event log source removed")
	if st := lab.status(); st.Running || st.ServerCode != e2eServerCode || st.AnswersSaved != 3 || st.AnswersPending != 0 {
		t.Errorf("status from the data directory after uninstall: %s", jsonString(st))
	}
	w.ok("data directory kept: labagent status reads it")
	w.report()
}

// TestWindowsServiceRefusals checks that "labagent service" refuses what it
// cannot do, with a clear message and nothing changed: install before the
// enrolment, install twice, uninstall when not installed.
func TestWindowsServiceRefusals(t *testing.T) {
	p := startPortal(t, portalConfig{DataDir: t.TempDir()})
	sch := setupSchool(t, p, []string{"ani"}, shortAnswerExam("Windows service", 1))
	w := newWinService(t, p, sch)

	res := w.labagent("service", "uninstall")
	if res.Code != 1 || !strings.Contains(res.Stderr, `the service "labagent" is not installed`) {
		t.Errorf("uninstall when not installed: %s", res)
	}
	w.ok("uninstall when not installed: refused")

	empty := w.lab.siblingArg("not enrolled")
	res = w.labagent("service", "install", "--data-dir", empty, "--listen", "127.0.0.1:0")
	if res.Code != 1 || !strings.Contains(res.Stderr, "enrol this server first") {
		t.Errorf("install of a data directory not enrolled: %s", res)
	}
	if st := w.state(); st != "" {
		t.Errorf("sc query after a refused install: %s", st)
	}
	w.ok("install before the enrolment: refused, no service left")

	if res := w.install(); res.Code != 0 {
		t.Fatalf("labagent service install: %s", res)
	}
	w.waitState("RUNNING")
	ctl := w.waitServing(nil)
	res = w.install()
	if res.Code != 1 || !strings.Contains(res.Stderr, `the service "labagent" is already installed`) {
		t.Errorf("install twice: %s", res)
	}
	if st := w.state(); st != "RUNNING" {
		t.Errorf("sc query after the second install: %s, want the first still RUNNING", st)
	}
	if c, err := agent.ReadControl(w.lab.dir); err != nil || c.Token != ctl.Token {
		t.Errorf("control file after the second install: %v %v, want the first run's", c, err)
	}
	w.ok("install twice: refused, the installed service untouched")

	if res := w.labagent("service", "uninstall"); res.Code != 0 {
		t.Fatalf("labagent service uninstall: %s", res)
	}
	res = w.labagent("service", "uninstall")
	if res.Code != 1 || !strings.Contains(res.Stderr, `the service "labagent" is not installed`) {
		t.Errorf("uninstall twice: %s", res)
	}
	w.ok("uninstall twice: refused")
	w.report()
}
