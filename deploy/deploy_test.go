// Package deploy holds the files operators install the programs with: the
// systemd units (systemd/), the portal's container image definition
// (container/) and labagent's Windows installer (windows/). Its tests check
// that the units are valid and that the programs accept the command lines
// they start, and the installer's version mapping.
package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/testkit/proc"
)

// bins are the programs the units start, built as the end-to-end tests of
// cmd/ build them (the same flags), so that make test builds them once.
var bins = &proc.Binaries{
	Packages:   []string{"../cmd/portal", "../cmd/labagent"},
	BuildFlags: []string{"-ldflags", "-X main.version=e2e-test"},
}

func TestMain(m *testing.M) {
	code := m.Run()
	bins.Remove()
	os.Exit(code)
}

// TestSystemdUnits: each unit starts its program with flags the program
// accepts, keeps the hardening it promises, and passes systemd-analyze
// verify where systemd is installed.
func TestSystemdUnits(t *testing.T) {
	for _, u := range []struct{ file, program string }{
		{"systemd/portal.service", "portal"},
		{"systemd/labagent.service", "labagent"},
	} {
		t.Run(u.program, func(t *testing.T) {
			keys := unitKeys(t, u.file)
			for _, want := range []string{"NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
				"CapabilityBoundingSet=", "User=" + u.program, "StateDirectory=" + u.program, "UMask=0077"} {
				if !keys[want] {
					t.Errorf("%s lacks %s", u.file, want)
				}
			}
			var exe []string
			for k := range keys {
				if v, ok := strings.CutPrefix(k, "ExecStart="); ok {
					exe = strings.Fields(v)
				}
			}
			if len(exe) < 2 || filepath.Base(exe[0]) != u.program {
				t.Fatalf("%s: ExecStart %q does not start %s", u.file, exe, u.program)
			}
			path := bins.Path(t, u.program)
			// --help parses every flag of the command line and stops.
			if out, err := exec.Command(path, append(exe[1:], "--help")...).CombinedOutput(); err != nil {
				t.Fatalf("%s %s --help: %v\n%s", u.program, strings.Join(exe[1:], " "), err, out)
			}
			if analyze, err := exec.LookPath("systemd-analyze"); err == nil {
				// The program is not installed where the unit starts it here:
				// that line of the report is expected, any other is a fault.
				out, _ := exec.Command(analyze, "verify", u.file).CombinedOutput()
				for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
					if line != "" && !strings.Contains(line, "is not executable") {
						t.Errorf("systemd-analyze verify %s: %s", u.file, line)
					}
				}
			} else {
				t.Log("systemd-analyze is not installed: the units were not verified by systemd")
			}
		})
	}
}

// unitKeys returns the unit's "Key=value" lines (comments and sections
// left out), trimmed.
func unitKeys(t *testing.T, file string) map[string]bool {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "[") {
			keys[line] = true
		}
	}
	return keys
}
