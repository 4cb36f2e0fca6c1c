//go:build !windows

package agent_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
)

func TestEnroll(t *testing.T) {
	url, svc := newPortal(t)
	lic := mustLicense(t, svc, "HW-LAB-1", 30)
	dir := filepath.Join(t.TempDir(), "state")
	cfg, err := agent.Enroll(t.Context(), agent.EnrollOptions{
		PortalURL: url + "/", ServerCode: "LAB-01", NPSN: testNPSN, LicenseToken: " " + lic.Token + "\n",
		HardwareID: "HW-LAB-1", DataDir: dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SchoolName != "SMA Negeri 1 Contoh" || cfg.LicenseID != lic.ID || cfg.MaxStudents != 40 || cfg.PortalURL != url {
		t.Fatalf("config = %+v", cfg)
	}
	st, err := os.Stat(filepath.Join(dir, agent.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("config mode = %v, want 0600", st.Mode().Perm())
	}
	b, _ := os.ReadFile(filepath.Join(dir, agent.ConfigFile))
	var onDisk agent.Config
	if err := json.Unmarshal(b, &onDisk); err != nil || onDisk.LicenseToken != lic.Token || onDisk.PublicKey == "" {
		t.Fatalf("config on disk = %s (%v)", b, err)
	}
	servers, err := svc.ListServers(t.Context(), testNPSN)
	if err != nil || len(servers) != 1 || servers[0].HardwareID != "HW-LAB-1" {
		t.Fatalf("portal bindings = %+v, %v", servers, err)
	}
}

func TestEnrollRefusals(t *testing.T) {
	url, svc := newPortal(t)
	good := mustLicense(t, svc, "HW-LAB-1", 30)
	revoked := mustLicense(t, svc, "HW-LAB-1", 30)
	if _, err := svc.RevokeLicense(t.Context(), revoked.ID); err != nil {
		t.Fatal(err)
	}
	_, otherSvc := newPortal(t)
	foreign := mustLicense(t, otherSvc, "HW-LAB-1", 30)

	tests := []struct {
		name string
		mod  func(*agent.EnrollOptions)
		want string
	}{
		{"garbled token", func(o *agent.EnrollOptions) { o.LicenseToken = good.Token[:20] }, "not valid for this portal"},
		{"token of another portal", func(o *agent.EnrollOptions) { o.LicenseToken = foreign.Token }, "not valid for this portal"},
		{"another machine", func(o *agent.EnrollOptions) { o.HardwareID = "HW-OTHER" }, "licence is for another machine"},
		{"another school", func(o *agent.EnrollOptions) { o.NPSN = "20100009" }, "issued to school 20100001"},
		{"expired", func(o *agent.EnrollOptions) {
			o.Now = func() time.Time { return time.Now().AddDate(0, 0, 31) }
		}, "licence expired"},
		{"revoked", func(o *agent.EnrollOptions) { o.LicenseToken = revoked.Token }, "LICENSE_REVOKED"},
		{"no portal", func(o *agent.EnrollOptions) { o.PortalURL = "" }, "portal URL is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			o := agent.EnrollOptions{PortalURL: url, ServerCode: "LAB-01", NPSN: testNPSN, LicenseToken: good.Token, HardwareID: "HW-LAB-1", DataDir: dir}
			tt.mod(&o)
			_, err := agent.Enroll(t.Context(), o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Enroll error = %v, want it to contain %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, agent.ConfigFile)); !os.IsNotExist(err) {
				t.Fatalf("a refused enrolment wrote a config (stat: %v)", err)
			}
		})
	}
}

func TestMachineHardwareIDIsStable(t *testing.T) {
	a, err := agent.MachineHardwareID()
	if err != nil {
		t.Skipf("no machine id on this host: %v", err)
	}
	b, _ := agent.MachineHardwareID()
	if a != b || !strings.HasPrefix(a, "HW-") || len(a) != 19 {
		t.Fatalf("hardware ids %q and %q", a, b)
	}
}
