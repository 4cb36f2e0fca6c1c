package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/agent"
)

func TestEnrollNamesMissingSettings(t *testing.T) {
	t.Setenv("LABAGENT_NPSN", "20100001")
	var out, errOut bytes.Buffer
	code := Main(t.Context(), []string{"enroll", "--data-dir", t.TempDir()}, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit code = %d, want 1", code)
	}
	msg := errOut.String()
	for _, want := range []string{"portal-url (--portal-url, LABAGENT_PORTAL_URL): is required", "server-code"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "npsn") {
		t.Errorf("npsn came from the environment but is reported missing: %q", msg)
	}
}

// TestEnrollSkipIfEnrolled: the installer's "enroll --skip-if-enrolled"
// leaves an enrolled data directory as it is, without asking the portal,
// and enrols (here: names what is missing) when the directory is not.
func TestEnrollSkipIfEnrolled(t *testing.T) {
	dir := t.TempDir()
	cfg := []byte(`{"portal_url":"https://portal.example.org","server_code":"LAB-01","npsn":"20100001","license_token":"x"}`)
	if err := os.WriteFile(filepath.Join(dir, agent.ConfigFile), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := Main(t.Context(), []string{"enroll", "--skip-if-enrolled", "--data-dir", dir,
		"--portal-url", "", "--server-code", "", "--npsn", "", "--license-file", "", "--hardware-id", ""}, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "already enrolled as LAB-01") {
		t.Fatalf("enroll --skip-if-enrolled on an enrolled directory: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, agent.ConfigFile)); !bytes.Equal(b, cfg) {
		t.Errorf("%s changed: %s", agent.ConfigFile, b)
	}

	out.Reset()
	errOut.Reset()
	code = Main(t.Context(), []string{"enroll", "--skip-if-enrolled", "--data-dir", t.TempDir(), "--portal-url", ""}, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "portal-url") {
		t.Errorf("enroll --skip-if-enrolled on an empty directory: exit %d, stderr %q; want 1 naming portal-url", code, errOut.String())
	}
}
