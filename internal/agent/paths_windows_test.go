package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/testkit"
)

// TestDataDirPathsWindows: a data directory with spaces in its path, as
// C:\ProgramData\lab agent, not there yet: enrolment's config is written
// (the directory created), read back, and replaced in place (a rename over
// an existing file, which Windows refuses unless asked to replace); the
// control file likewise; no temporary file is left behind; and a
// directory without a config says so, naming its Windows path.
func TestDataDirPathsWindows(t *testing.T) {
	dir := filepath.Join(testkit.TempDir(t), "lab agent", "data dir")
	if _, err := ReadConfig(dir); !errors.Is(err, ErrNotEnrolled) || !strings.Contains(err.Error(), filepath.Join(dir, ConfigFile)) {
		t.Fatalf("ReadConfig of an empty data directory: %v, want ErrNotEnrolled naming %s", err, filepath.Join(dir, ConfigFile))
	}
	for i, code := range []string{"LAB-01", "LAB-02"} {
		cfg := &Config{PortalURL: "https://portal.example", ServerCode: code, NPSN: "20100001", LicenseToken: "token", SchoolName: "SMA 1"}
		if err := WriteConfig(dir, cfg); err != nil {
			t.Fatalf("WriteConfig %d: %v", i, err)
		}
		got, err := ReadConfig(dir)
		if err != nil || got.ServerCode != code {
			t.Fatalf("ReadConfig after WriteConfig %d: %+v, %v", i, got, err)
		}
		// The data directory as a service's command line may give it: with
		// a trailing separator or forward slashes.
		for _, d := range []string{dir + `\`, filepath.ToSlash(dir)} {
			if got, err := ReadConfig(d); err != nil || got.ServerCode != code {
				t.Fatalf("ReadConfig(%q): %+v, %v", d, got, err)
			}
		}

		ctl := Control{PID: os.Getpid(), LANAddr: "127.0.0.1:8090", ControlAddr: "127.0.0.1:8091", Token: code}
		if err := writeFileAtomic(filepath.Join(dir, ControlFile), ctl); err != nil {
			t.Fatalf("write the control file %d: %v", i, err)
		}
		if got, err := ReadControl(dir); err != nil || *got != ctl {
			t.Fatalf("ReadControl after write %d: %+v, %v", i, got, err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != ControlFile+" "+ConfigFile {
		t.Errorf("the data directory holds %q, want %s and %s only", names, ControlFile, ConfigFile)
	}
}
