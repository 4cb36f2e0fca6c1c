package testkit

import (
	"os"
	"testing"
)

// Missing ends t for want of a tool or service that msg names (loudly: msg
// says what was NOT tested): it fails under CI (CI=true), which installs
// everything the tests need, and skips elsewhere.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
