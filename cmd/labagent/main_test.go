package main

import (
	"bytes"
	"strings"
	"testing"
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
