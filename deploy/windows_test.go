package deploy

import (
	"os/exec"
	"strings"
	"testing"
)

// TestMSIVersion: deploy/windows/msi-version maps labagent's versions (git
// describe) to MSI ProductVersions that order the releases, and refuses
// what an MSI version cannot hold.
func TestMSIVersion(t *testing.T) {
	count, err := exec.Command("git", "rev-list", "--count", "HEAD").Output()
	untagged := "0.0." + strings.TrimSpace(string(count)) + ".0"
	if err != nil {
		untagged = "0.0.0.0"
	}
	for in, want := range map[string]string{
		"v1.2.3":                       "1.2.3.0",
		"1.2.3":                        "1.2.3.0",
		"v1.2.3-dirty":                 "1.2.3.0",
		"v1.2.3-4-gabc1234":            "1.2.3.4",
		"v1.2.3-4-gabc1234-dirty":      "1.2.3.4",
		"v1.2.3-rc.1":                  "1.2.3.0",
		"v1.2.3-rc.1-14-g0123456789ab": "1.2.3.14",
		"v255.255.65535":               "255.255.65535.0",
		"abc1234":                      untagged,
		"abc1234-dirty":                untagged,
		"dev":                          untagged,
		"v1.2":                         untagged,
	} {
		out, err := exec.Command("windows/msi-version", in).CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != want {
			t.Errorf("msi-version %s = %q (%v), want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"v256.0.0", "v1.2.65536", "v1.2.3-65536-gabc1234"} {
		if out, err := exec.Command("windows/msi-version", in).CombinedOutput(); err == nil {
			t.Errorf("msi-version %s = %q, want a refusal", in, out)
		}
	}
}
