//go:build wine

package main

// labagent's Windows installer (deploy/windows, make msi), installed,
// upgraded and uninstalled by msiexec under Wine, as a school's IT staff
// deploy it: the test's log is the record of each step.

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/proc"
	"github.com/seedhq/portal/internal/testkit/wine"
	"github.com/seedhq/portal/pkg/client"
)

// Where the MSI installs, as Windows paths.
const (
	msiInstallDir = `C:\Program Files\labagent`
	msiDataDir    = `C:\ProgramData\labagent`
)

// msiBuild is one version's MSI, built and signed by make msi.
type msiBuild struct {
	version     string // labagent's version (VERSION)
	host        string // the MSI's path on this machine
	productCode string // its ProductCode, new in every build
}

// buildMSI runs "make msi" for version into dir, signed with the test
// certificate in certDir, and checks the MSI's version and signature.
func buildMSI(t *testing.T, version, dir, certDir string) msiBuild {
	t.Helper()
	start := time.Now()
	cmd := exec.CommandContext(t.Context(), "make", "--no-print-directory", "-C", "../..", "msi",
		"VERSION="+version, "MSI_OUT="+dir, "MSI_BUILD="+filepath.Join(dir, "build"))
	cmd.Env = append(os.Environ(), "SIGN_CERT="+filepath.Join(certDir, "cert.pem"), "SIGN_KEY="+filepath.Join(certDir, "key.pem"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make msi VERSION=%s: %v\n%s", version, err, out)
	}
	b := msiBuild{version: version, host: filepath.Join(dir, "labagent-"+version+"-x64.msi")}
	t.Logf("make msi VERSION=%s (%s):\n%s", version, time.Since(start).Round(time.Millisecond), indent(string(out)))
	props := msiProperties(t, b.host)
	t.Logf("%s: ProductName %s, ProductVersion %s, UpgradeCode %s, ProductCode %s", filepath.Base(b.host),
		props["ProductName"], props["ProductVersion"], props["UpgradeCode"], props["ProductCode"])
	if props["UpgradeCode"] != "{4182A1B3-DB57-4DB6-861D-24A77F39A224}" {
		t.Errorf("UpgradeCode %s: it must never change", props["UpgradeCode"])
	}
	b.productCode = props["ProductCode"]
	// wixl does not check the columns' widths that Windows Installer's
	// validation does: a command line of a custom action holds 255
	// characters at most.
	if out, err := exec.Command("msiinfo", "export", b.host, "CustomAction").Output(); err != nil {
		t.Errorf("msiinfo export CustomAction: %v", err)
	} else {
		for _, line := range strings.Split(string(out), "\n")[3:] {
			if f := strings.Split(strings.TrimRight(line, "\r"), "\t"); len(f) >= 4 && len(f[3]) > 255 {
				t.Errorf("custom action %s: its target has %d characters, more than 255", f[0], len(f[3]))
			}
		}
	}
	verifySigned(t, certDir, b.host)
	return b
}

// msiProperties reads the Property table of an MSI with msiinfo.
func msiProperties(t *testing.T, msi string) map[string]string {
	t.Helper()
	out, err := exec.Command("msiinfo", "export", msi, "Property").Output()
	if err != nil {
		t.Fatalf("msiinfo export %s Property: %v", msi, err)
	}
	props := map[string]string{}
	for _, line := range strings.Split(string(out), "\n")[3:] {
		if k, v, ok := strings.Cut(strings.TrimRight(line, "\r"), "\t"); ok {
			props[k] = v
		}
	}
	return props
}

// verifySigned checks the Authenticode signature of file against the test
// CA with deploy/windows/sign -verify (osslsigncode verify), and that it
// does not verify against the system's CAs (the check is not vacuous).
func verifySigned(t *testing.T, certDir, file string) {
	t.Helper()
	cmd := exec.Command("../../deploy/windows/sign", "-verify", file)
	cmd.Env = append(os.Environ(), "SIGN_CA="+filepath.Join(certDir, "ca.pem"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sign -verify %s: %v\n%s", file, err, out)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "Subject:") || strings.Contains(l, "Signature verification") || strings.Contains(l, "Message digest algorithm  ") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	t.Logf("osslsigncode verify -CAfile <test CA> %s: %s", filepath.Base(file), strings.Join(lines, "; "))
	if out, err := exec.Command("osslsigncode", "verify", "-in", file).CombinedOutput(); err == nil {
		t.Errorf("%s verifies against the system's CAs, signed by a throw-away CA:\n%s", file, out)
	}
}

// msiPrefix is the Wine prefix the MSI is installed in.
type msiPrefix struct {
	*wine.Prefix
	t    *testing.T
	step int
}

// msiexec runs "msiexec args..." with a verbose log and returns the log;
// on failure it fails the test with the log's errors.
func (p *msiPrefix) msiexec(what string, args ...string) string {
	p.t.Helper()
	log, err := p.tryMSIExec(what, args...)
	if err != nil {
		p.t.Fatalf("%s: %v\nthe log's errors:\n%s\nthe log's end:\n%s", what, err, msiLogErrors(log), lastLines(log, 60))
	}
	return log
}

// tryMSIExec runs "msiexec args..." with a verbose log and returns the log
// and msiexec's error.
func (p *msiPrefix) tryMSIExec(what string, args ...string) (string, error) {
	p.t.Helper()
	p.step++
	logWin := fmt.Sprintf(`C:\msi\%02d-%s.log`, p.step, strings.ReplaceAll(what, " ", "-"))
	args = append(append([]string{}, args...), "/l*v", logWin)
	p.t.Logf("%s: msiexec %s", what, strings.Join(args, " "))
	ctx, cancel := context.WithTimeout(p.t.Context(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	// Its output into a file, not a pipe: services.exe, started by the
	// first msiexec, inherits it and would hold a pipe open.
	outFile, err := os.CreateTemp("", "msiexec-*.out")
	if err != nil {
		p.t.Fatal(err)
	}
	defer os.Remove(outFile.Name())
	defer outFile.Close()
	cmd := p.Command(ctx, "msiexec", args...)
	cmd.Stdout, cmd.Stderr = outFile, outFile
	if err = cmd.Run(); err != nil {
		out, _ := os.ReadFile(outFile.Name())
		err = fmt.Errorf("%w\n%s", err, out)
	}
	log := readMSILog(p.HostPath(logWin))
	if dir := os.Getenv("LABAGENT_MSI_LOGS"); dir != "" {
		// The whole logs, for a CI artifact or a closer look.
		name := filepath.Join(dir, filepath.Base(strings.ReplaceAll(logWin, `\`, "/")))
		if err := os.WriteFile(name, []byte(log), 0o644); err != nil {
			p.t.Errorf("keep the msiexec log: %v", err)
		}
	}
	if err != nil {
		err = fmt.Errorf("msiexec failed after %s: %w", time.Since(start).Round(time.Millisecond), err)
		p.t.Logf("%s: %v; the log (%s) says: %s", what, firstLine(err.Error()), logWin, msiLogOutcome(log))
		return log, err
	}
	p.t.Logf("%s: msiexec exit 0 in %s; the log (%s) says: %s", what, time.Since(start).Round(time.Millisecond), logWin, msiLogOutcome(log))
	return log, nil
}

// msiLogProperty returns a property's value as an msiexec log lists it at
// the end ("Property(S): NAME = value").
func msiLogProperty(log, name string) string {
	value := ""
	for _, l := range strings.Split(log, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "Property(S): "+name+" = "); ok {
			value = v
		}
	}
	return value
}

// readMSILog reads an msiexec log, UTF-16 or not.
func readMSILog(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	if len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe {
		u := make([]uint16, (len(b)-2)/2)
		for i := range u {
			u[i] = uint16(b[2+2*i]) | uint16(b[3+2*i])<<8
		}
		return string(utf16.Decode(u))
	}
	return string(b)
}

// msiLogErrors returns the lines of an msiexec log that tell why it failed.
func msiLogErrors(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "Return value 3") || strings.Contains(l, "rror") || strings.Contains(l, "failed") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	if len(out) > 60 {
		out = out[len(out)-60:]
	}
	return strings.Join(out, "\n")
}

// msiLogOutcome returns what an msiexec log says of the top action
// (INSTALL) and of the package's own actions, as they were executed (the
// last "Action ended" line of each).
func msiLogOutcome(log string) string {
	ended := map[string]string{}
	var order []string
	for _, l := range strings.Split(log, "\n") {
		_, rest, ok := strings.Cut(strings.TrimSpace(l), "Action ended ")
		if !ok {
			continue
		}
		_, rest, _ = strings.Cut(rest, ": ")
		name, value, ok := strings.Cut(rest, ". Return value ")
		if !ok {
			continue
		}
		if _, seen := ended[name]; !seen {
			order = append(order, name)
		}
		ended[name] = strings.TrimSuffix(strings.TrimSpace(value), ".")
	}
	var out []string
	for _, name := range order {
		switch name {
		case "INSTALL", "RemoveExistingProducts", "StopServices", "DeleteServices", "InstallServices", "StartServices",
			"Enroll", "FirewallClear", "FirewallAdd", "FirewallRemove", "ServiceRecovery", "ServiceRecoveryFlag", "RemoveData":
			out = append(out, name+"="+ended[name])
		}
	}
	if len(out) == 0 {
		return "(no action ended)"
	}
	return "return values (1 success; a failure is 3 on Windows, 0 under Wine) " + strings.Join(out, " ")
}

// stayOn keeps the prefix's wineserver up after its last program exits,
// as a Windows machine stays on: by default it shuts down a few seconds
// after the last program other than Wine's own (services.exe and the
// services it runs) has exited, and the service would go with it between
// two steps of the test. It waits for the wineserver wineboot started to
// exit, then starts a persistent one (wineserver -p); Close stops it.
func (p *msiPrefix) stayOn() {
	p.t.Helper()
	loader, err := wine.Loader()
	if err != nil {
		p.t.Fatal(err)
	}
	server := filepath.Join(filepath.Dir(loader), "wineserver")
	if _, err := os.Stat(server); err != nil {
		server = "wineserver"
	}
	for _, args := range [][]string{{"-w"}, {"-p"}} {
		// No pipes: the persistent server would hold them open.
		cmd := exec.Command(server, args...)
		cmd.Env = append(os.Environ(), p.Env()...)
		if err := cmd.Run(); err != nil {
			p.t.Fatalf("wineserver %s: %v", args[0], err)
		}
	}
	p.t.Logf("the prefix's wineserver stays on (wineserver -p)")
}

// service returns "sc query labagent": its output and whether it ran.
func (p *msiPrefix) service() (string, error) {
	return p.Run(p.t.Context(), "sc", "query", "labagent")
}

// waitService waits until "sc query labagent" reports state.
func (p *msiPrefix) waitService(state string) string {
	p.t.Helper()
	var out string
	eventually(p.t, 90*time.Second, "sc query labagent: "+state, func() (bool, string) {
		var err error
		out, err = p.service()
		if err != nil {
			return false, err.Error()
		}
		return strings.Contains(out, state), out
	})
	return out
}

// regQuery returns "reg query key" or its error.
func (p *msiPrefix) regQuery(key string) (string, error) {
	return p.Run(p.t.Context(), "reg", "query", key)
}

// installed reports whether Windows lists the MSI b as installed (under
// Uninstall, as "Apps and features" shows it).
func (p *msiPrefix) installed(b msiBuild) bool {
	_, err := p.regQuery(`HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\` + b.productCode)
	return err == nil
}

// exists reports whether the Windows path exists in the prefix.
func (p *msiPrefix) exists(win string) bool {
	_, err := os.Stat(p.HostPath(win))
	return err == nil
}

// TestWindowsMSI builds two versions of the MSI with make msi, signs and
// verifies them, then under Wine: a silent install that enrols against a
// real portal and starts the service; a student's answers saved while the
// portal is down; an upgrade to the newer MSI that keeps the enrolment,
// the settings and the waiting answers, which reach the portal once it is
// back; an uninstall that removes the program and the service and keeps
// the data; a reinstall on the kept data, and an uninstall with
// REMOVE_DATA=1 that removes it.
func TestWindowsMSI(t *testing.T) {
	for _, tool := range []string{"wixl", "msiinfo", "osslsigncode", "openssl", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install Debian's wixl, msitools, osslsigncode, openssl and make (.ci/run does)", tool)
		}
	}
	testStart := time.Now()
	work := t.TempDir()

	// ---- build and sign
	certDir := filepath.Join(work, "cert")
	if out, err := exec.Command("../../deploy/windows/sign", "-test-cert", certDir).CombinedOutput(); err != nil {
		t.Fatalf("sign -test-cert: %v\n%s", err, out)
	} else {
		t.Logf("%s", strings.TrimSpace(string(out)))
	}
	v1 := buildMSI(t, "v0.9.0", filepath.Join(work, "v1"), certDir)
	v2 := buildMSI(t, "v0.9.1-2-gabcdef0", filepath.Join(work, "v2"), certDir)
	if got := msiProperties(t, v2.host)["ProductVersion"]; got != "0.9.1.2" {
		t.Errorf("ProductVersion of v0.9.1-2-gabcdef0: %s, want 0.9.1.2", got)
	}

	// ---- the Wine prefix: a Windows installation of its own
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	wp, err := wine.New(ctx, filepath.Join(work, "prefix"))
	if err != nil {
		t.Fatalf("Wine prefix: %v", err)
	}
	t.Cleanup(func() { wp.Close() })
	p := &msiPrefix{Prefix: wp, t: t}
	p.stayOn()
	if err := os.MkdirAll(p.HostPath(`C:\msi`), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, b := range []msiBuild{v1, v2} {
		data, err := os.ReadFile(b.host)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p.HostPath(`C:\msi\`+filepath.Base(b.host)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	msiWin := func(b msiBuild) string { return `C:\msi\` + filepath.Base(b.host) }
	t.Logf("Wine prefix ready in %s (%s)", wp.Dir, time.Since(testStart).Round(time.Second))

	// ---- the portal and the school
	portal := startPortal(t, portalConfig{DataDir: t.TempDir(), Listen: testkit.FreeAddr(t)})
	sch := setupSchool(t, portal, []string{"ani", "budi"}, shortAnswerExam("MSI", 3))
	examID := sch.exams[0].ID
	if err := os.WriteFile(p.HostPath(`C:\msi\licence.txt`), []byte(sch.licence+"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("portal at %s with school %s, students ani and budi, exam %s", portal.URL, e2eNPSN, examID)

	// ---- install
	_, port, _ := strings.Cut(testkit.FreeAddr(t), ":")
	_, controlPort, _ := strings.Cut(testkit.FreeAddr(t), ":")
	exe := msiInstallDir + `\labagent.exe`
	// An enrolment the portal refuses (another school's npsn) fails the
	// install, which is rolled back.
	if _, err := p.tryMSIExec("install with a wrong npsn", "/i", msiWin(v1), "/qn",
		"PORTAL_URL="+portal.URL, "SERVER_CODE="+e2eServerCode, "NPSN=20109999", `LICENSE_FILE=C:\msi\licence.txt`,
		"HARDWARE_ID="+e2eHardwareID, "LISTEN_HOST=127.0.0.1", "PORT="+port, "CONTROL_PORT="+controlPort); err == nil {
		t.Fatalf("an install with another school's npsn succeeded")
	}
	if p.exists(exe) || p.installed(v1) || p.exists(msiDataDir+`\`+agent.ConfigFile) {
		t.Fatalf("the failed install left something: %s %v, listed as installed %v, enrolled %v",
			exe, p.exists(exe), p.installed(v1), p.exists(msiDataDir+`\`+agent.ConfigFile))
	}
	if out, err := p.service(); err == nil {
		t.Fatalf("the failed install left the service:\n%s", out)
	}
	t.Logf("install with a wrong npsn: failed and rolled back (no program, no service, no enrolment)")
	log := p.msiexec("install v0.9.0", "/i", msiWin(v1), "/qn",
		"PORTAL_URL="+portal.URL, "SERVER_CODE="+e2eServerCode, "NPSN="+e2eNPSN, `LICENSE_FILE=C:\msi\licence.txt`,
		"HARDWARE_ID="+e2eHardwareID, "LISTEN_HOST=127.0.0.1", "PORT="+port, "CONTROL_PORT="+controlPort)
	if !p.installed(v1) {
		t.Errorf("%s (%s) is not listed as installed", filepath.Base(v1.host), v1.productCode)
	}
	if !p.exists(exe) {
		t.Fatalf("%s is not there after the install", exe)
	}
	t.Logf("installed: %s", exe)
	verifySigned(t, certDir, p.HostPath(exe))
	// Windows puts a per-machine install's Start menu in ProgramData, Wine
	// in the user's profile: the log says where.
	startMenu := strings.TrimSuffix(msiLogProperty(log, "ProgramMenuDir"), `\`)
	links, _ := filepath.Glob(filepath.Join(p.HostPath(startMenu), "*.lnk"))
	if len(links) != 3 {
		t.Errorf("Start menu %s: %q, want 3 shortcuts", startMenu, links)
	}
	for _, l := range links {
		t.Logf("Start menu %s: %s", startMenu, filepath.Base(l))
	}
	for _, prop := range []string{"PORT", "LISTEN_HOST", "CONTROL_PORT", "System64Folder", "CommonAppDataFolder", "INSTALLDIR"} {
		t.Logf("install: %s = %s", prop, msiLogProperty(log, prop))
	}
	reg, err := p.regQuery(`HKLM\SOFTWARE\labagent`)
	if err != nil || !strings.Contains(reg, port) || !strings.Contains(reg, controlPort) {
		t.Errorf("HKLM\\SOFTWARE\\labagent does not remember the ports %s and %s: %v\n%s", port, controlPort, err, reg)
	}
	t.Logf("reg query HKLM\\SOFTWARE\\labagent:\n%s", indent(reg))
	t.Logf("sc query labagent:\n%s", indent(p.waitService("RUNNING")))
	if !p.exists(msiDataDir + `\` + agent.ConfigFile) {
		t.Fatalf("%s\\%s: not enrolled by the install", msiDataDir, agent.ConfigFile)
	}
	cfgBefore, err := os.ReadFile(p.HostPath(msiDataDir + `\` + agent.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}

	// labagent as the MSI runs it: the installed exe, the service's data.
	tg := &target{
		name: "windows/amd64 installed by the MSI under Wine",
		bin:  func(testing.TB) string { return p.HostPath(exe) },
		opts: proc.Options{Env: p.Env(), Wrapper: p.Wrapper()},
	}
	lab := &labAgent{t: t, target: tg, bin: p.HostPath(exe), dir: p.HostPath(msiDataDir), dirArg: msiDataDir}
	// The service's command line (Wine's sc has no qc).
	if out, err := p.regQuery(`HKLM\SYSTEM\CurrentControlSet\Services\labagent`); err != nil {
		t.Errorf("the service's registry key: %v", err)
	} else {
		t.Logf("reg query HKLM\\SYSTEM\\CurrentControlSet\\Services\\labagent:\n%s", indent(out))
		if want := `--listen 127.0.0.1:` + port + ` --control-addr 127.0.0.1:` + controlPort; !strings.Contains(out, want) {
			t.Errorf("the service's command line lacks %q", want)
		}
	}
	// Wine implements no failure actions: the ServiceRecovery custom
	// action's sc failure fails there, and is ignored.
	if out, err := p.Run(t.Context(), "sc", "qfailure", "labagent"); err != nil {
		t.Logf("sc qfailure labagent (the restart after a failure) fails under Wine: %s", firstLine(err.Error()))
	} else {
		t.Logf("sc qfailure labagent:\n%s", indent(out))
	}
	connect := func(what string) time.Time {
		t.Helper()
		var ctl *agent.Control
		eventually(t, 90*time.Second, what+": the service's control file", func() (bool, string) {
			c, err := agent.ReadControl(lab.dir)
			if err != nil {
				return false, err.Error()
			}
			ctl = c
			return true, ""
		})
		fi, _ := os.Stat(filepath.Join(lab.dir, agent.ControlFile))
		lab.mu.Lock()
		lab.lan, lab.control = ctl.LANAddr, *ctl
		lab.mu.Unlock()
		if want := "127.0.0.1:" + port; ctl.LANAddr != want {
			t.Errorf("%s: the service listens on %s, want %s", what, ctl.LANAddr, want)
		}
		proc.WaitReady(t, lab.lanURL()+"/healthz", 60*time.Second)
		t.Logf("%s: the service serves students on %s (control %s)", what, ctl.LANAddr, ctl.ControlAddr)
		return fi.ModTime()
	}
	started := connect("after the install")
	st := lab.waitStatus(90*time.Second, "enrolled, package held", func(s agent.Status) bool {
		return s.Running && s.ServerCode == e2eServerCode && len(s.Exams) == 1
	})
	t.Logf("labagent status (via %s status): running %v, server %s, npsn %s, portal %s, exams %d, package %s",
		exe, st.Running, st.ServerCode, st.NPSN, st.PortalURL, len(st.Exams), jsonString(st.Sync))
	lab.waitPackage()
	if res := proc.Run(t, lab.bin, tg.options(), "--version"); !strings.Contains(res.Stdout, "v0.9.0") {
		t.Errorf("installed labagent.exe --version: %s", res)
	}

	// ---- a student answers while the portal is down
	token := lab.proctorToken()
	ani := newStudent(t, lab, sch, "ani")
	ani.mustLogin(token)
	ani.mustStart(examID)
	ani.mustSave(examID, "k01", "final")
	portal.Stop()
	t.Logf("portal stopped; ani saves k02 and k03")
	ani.mustSave(examID, "k02", "final")
	ani.mustSave(examID, "k03", "final")
	st = lab.waitStatus(60*time.Second, "answers waiting for the portal", func(s agent.Status) bool { return s.AnswersPending >= 2 })
	t.Logf("labagent status: %d answers saved, %d waiting for the portal", st.AnswersSaved, st.AnswersPending)

	// ---- upgrade, the portal still down, no properties given
	p.msiexec("upgrade to v0.9.1-2-gabcdef0", "/i", msiWin(v2), "/qn")
	if p.installed(v1) || !p.installed(v2) {
		t.Errorf("after the upgrade: v0.9.0 installed %v, v0.9.1 installed %v; want only v0.9.1", p.installed(v1), p.installed(v2))
	} else {
		t.Logf("after the upgrade only %s (%s) is installed", filepath.Base(v2.host), v2.productCode)
	}
	if res := proc.Run(t, lab.bin, tg.options(), "--version"); !strings.Contains(res.Stdout, "v0.9.1-2-gabcdef0") {
		t.Errorf("labagent.exe --version after the upgrade: %s", res)
	}
	t.Logf("sc query labagent after the upgrade:\n%s", indent(p.waitService("RUNNING")))
	eventually(t, 90*time.Second, "the upgraded service's control file", func() (bool, string) {
		fi, err := os.Stat(filepath.Join(lab.dir, agent.ControlFile))
		if err != nil {
			return false, err.Error()
		}
		return fi.ModTime().After(started), "control file of the run before the upgrade"
	})
	connect("after the upgrade")
	cfgAfter, err := os.ReadFile(p.HostPath(msiDataDir + `\` + agent.ConfigFile))
	if err != nil {
		t.Fatalf("the enrolment after the upgrade: %v", err)
	}
	if !bytes.Equal(cfgBefore, cfgAfter) {
		t.Errorf("the upgrade changed %s:\nbefore %s\nafter  %s", agent.ConfigFile, cfgBefore, cfgAfter)
	}
	t.Logf("%s unchanged by the upgrade (no second enrolment)", agent.ConfigFile)
	st = lab.waitStatus(60*time.Second, "the waiting answers kept", func(s agent.Status) bool { return s.Running })
	if st.AnswersSaved < 3 || st.AnswersPending < 2 {
		t.Errorf("after the upgrade: %d answers saved, %d waiting; want 3 and at least 2", st.AnswersSaved, st.AnswersPending)
	}
	t.Logf("labagent status after the upgrade: %d answers saved, %d waiting", st.AnswersSaved, st.AnswersPending)
	if got := ani.mustAttempt(examID).answers(); got["k01"] != "final" || got["k02"] != "final" || got["k03"] != "final" {
		t.Errorf("ani's answers after the upgrade: %v", got)
	}
	t.Logf("ani carries on in the same session after the upgrade; finishes")
	ani.mustFinish(examID)

	// ---- the portal comes back: the waiting answers leave, once
	portal = portal.restart()
	t.Logf("portal back at %s", portal.URL)
	lab.waitStatus(120*time.Second, "every answer pushed", func(s agent.Status) bool { return s.AnswersPending == 0 })
	op := portal.operator()
	var res client.MemberResult
	eventually(t, 60*time.Second, "ani's results on the portal", func() (bool, string) {
		res = results(t, op, examID)["ani"]
		return res.Answered == 3 && res.Score == 3, jsonString(res)
	})
	ledger := pushLogs(t, op)
	t.Logf("portal results: ani answered %d, %v points; %d pushes accepted holding %d records, %d duplicates",
		res.Answered, res.Score, len(ledger.accepted), ledger.records, len(ledger.duplicates))

	// ---- uninstall: program, service, shortcuts and settings gone, data kept
	p.msiexec("uninstall", "/x", msiWin(v2), "/qn")
	if p.installed(v2) {
		t.Errorf("%s is still listed as installed after the uninstall", filepath.Base(v2.host))
	}
	for _, gone := range []string{exe, startMenu} {
		if p.exists(gone) {
			t.Errorf("%s is still there after the uninstall", gone)
		}
	}
	if out, err := p.service(); err == nil {
		t.Errorf("sc query labagent after the uninstall: the service is still there:\n%s", out)
	} else {
		t.Logf("sc query labagent after the uninstall fails, as it should: %s", firstLine(err.Error()))
	}
	if out, err := p.regQuery(`HKLM\SOFTWARE\labagent`); err == nil {
		t.Errorf("HKLM\\SOFTWARE\\labagent is still there after the uninstall:\n%s", out)
	}
	var kept []string
	filepath.WalkDir(lab.dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(lab.dir, path)
			kept = append(kept, rel)
		}
		return nil
	})
	for _, f := range []string{agent.ConfigFile, "labagent.db", agent.ProctorPasswordFile} {
		if !p.exists(msiDataDir + `\` + f) {
			t.Errorf("%s\\%s is gone after the uninstall", msiDataDir, f)
		}
	}
	t.Logf("after the uninstall %s holds %q", msiDataDir, kept)
	lab.bin = filepath.Join(filepath.Dir(v2.host), "build", "labagent.exe")
	st = lab.status() // with the labagent.exe the MSI was built with, the installed one being gone
	if st.Running || st.AnswersSaved < 3 || st.AnswersPending != 0 {
		t.Errorf("labagent status on the kept data: %s", jsonString(st))
	}

	// ---- reinstall on the kept data (no enrolment given), then uninstall with REMOVE_DATA=1
	p.msiexec("reinstall on the kept data", "/i", msiWin(v2), "/qn", "LISTEN_HOST=127.0.0.1", "PORT="+port, "CONTROL_PORT="+controlPort)
	p.waitService("RUNNING")
	connect("after the reinstall")
	if cfg, _ := os.ReadFile(p.HostPath(msiDataDir + `\` + agent.ConfigFile)); !bytes.Equal(cfg, cfgBefore) {
		t.Errorf("the reinstall changed the enrolment")
	}
	p.msiexec("uninstall with REMOVE_DATA=1", "/x", msiWin(v2), "/qn", "REMOVE_DATA=1")
	if p.exists(msiDataDir) {
		t.Errorf("%s is still there after an uninstall with REMOVE_DATA=1", msiDataDir)
	} else {
		t.Logf("%s removed by the uninstall with REMOVE_DATA=1", msiDataDir)
	}
	if p.exists(exe) {
		t.Errorf("%s is still there after the second uninstall", exe)
	}
	t.Logf("TestWindowsMSI: build, sign, install, upgrade, uninstall in %s", time.Since(testStart).Round(time.Second))
}

// indent indents every line of s for the test log.
func indent(s string) string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r", ""), "\n")
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// firstLine returns the first line of s.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
