package s3server

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestShortSkipsEvenInCI: with -short and no versitygw to be found, a test
// that needs it is skipped, CI=true or not: make test-arm64's short run,
// started beside the full run that installs versitygw, failed whenever it
// reached such a test first. The test runs itself as a child, in an empty
// directory outside the module with an empty cache, so that no versitygw
// is found.
func TestShortSkipsEvenInCI(t *testing.T) {
	if os.Getenv("S3SERVER_TEST_CHILD") == "1" {
		Binary(t)
		t.Fatal("Binary returned without a versitygw to be had")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestShortSkipsEvenInCI$", "-test.short", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "S3SERVER_TEST_CHILD=1", "CI=true", "VERSITYGW=", "XDG_CACHE_HOME="+dir, "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- SKIP: TestShortSkipsEvenInCI") {
		t.Fatalf("the short child run in CI: %v\n%s", err, out)
	}
}
