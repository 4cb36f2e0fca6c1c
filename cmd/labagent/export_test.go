package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/config"
	"github.com/seedhq/portal/pkg/labwire"
)

// runExport runs "labagent export args..." under a root command shaped as
// Main's and returns what it printed.
func runExport(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	root := &cobra.Command{Use: "labagent", SilenceUsage: true, SilenceErrors: true}
	root.PersistentFlags().String(config.FlagConfig, "", "")
	root.PersistentFlags().String("data-dir", "./labagent-data", "")
	root.AddCommand(newExportCmd(&out))
	root.SetArgs(append([]string{"export"}, args...))
	root.SetOut(&out)
	root.SetErr(&out)
	err := root.ExecuteContext(t.Context())
	return out.String(), err
}

func TestExportCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	usb := t.TempDir()
	out := filepath.Join(usb, "answers.enc")

	_, err := runExport(t, "--data-dir", dir, "--out", out)
	if err == nil || !strings.Contains(err.Error(), "not enrolled") || !strings.Contains(err.Error(), "labagent enroll") {
		t.Fatalf("export before enrolment: %v", err)
	}
	cfg := &agent.Config{ServerCode: "LAB-01", NPSN: "20100001", LicenseToken: "token", LicenseID: "lic-1"}
	if err := agent.WriteConfig(dir, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := runExport(t, "--data-dir", dir, "--out", out); err == nil || !strings.Contains(err.Error(), "no state file") {
		t.Fatalf("export without a state file: %v", err)
	}
	if _, err := runExport(t, "--data-dir", dir); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Fatalf("export without --out: %v", err)
	}

	// The state of a lab that saved answers offline.
	db, err := localdb.Open(filepath.Join(dir, localdb.FileName), localdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	key := bytes.Repeat([]byte{1}, 32)
	now := time.Now()
	if err := agent.SavePackageKey(ctx, db, cfg, key); err != nil {
		t.Fatal(err)
	}
	if _, err := db.StartAttempt(ctx, localdb.Attempt{ExamID: "e1", MemberID: "m1", StartedAt: now, Deadline: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"q1", "q2", "q3"} {
		if _, err := db.SaveAnswer(ctx, "e1", "m1", q, "a", now); err != nil {
			t.Fatal(err)
		}
	}

	// While labagent run holds the file, export says what to do.
	if _, err := runExport(t, "--data-dir", dir, "--out", out); err == nil ||
		!strings.Contains(err.Error(), "stop it first") || !strings.Contains(err.Error(), "labagent push --now") {
		t.Fatalf("export of a locked state file: %v", err)
	}
	db.Close()

	stdout, err := runExport(t, "--data-dir", dir, "--out", out)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	for _, want := range []string{"exported 3 answers in 1 batches of LAB-01", out, "checksum (sha256) ", "portal admin import-answers answers.enc", "duplicate"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(usb); len(entries) != 1 {
		t.Errorf("the USB directory holds %d entries, want only the file", len(entries))
	}
	data, _ := os.ReadFile(out)
	head, _, _ := bytes.Cut(data, []byte("\n"))
	var h labwire.AnswerExportHeader
	if err := json.Unmarshal(head, &h); err != nil || h.Batches != 1 || h.Records != 3 || !strings.Contains(stdout, h.Checksum) {
		t.Fatalf("header %s (%v)", head, err)
	}

	// Exporting again writes the same batch (still unacknowledged).
	if _, err := runExport(t, "--data-dir", dir, "--out", out); err != nil {
		t.Fatalf("second export: %v", err)
	}

	// Nothing waiting: an error, and no file.
	db, err = localdb.Open(filepath.Join(dir, localdb.FileName), localdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	bs, _ := db.Batches()
	for _, b := range bs {
		if err := db.AckBatch(ctx, b.Seq, localdb.Receipt{IdempotencyKey: b.IdempotencyKey}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	empty := filepath.Join(usb, "empty.enc")
	if _, err := runExport(t, "--data-dir", dir, "--out", empty); err == nil || !strings.Contains(err.Error(), "nothing to export") {
		t.Fatalf("export with nothing pending: %v", err)
	}
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("a file was written with nothing to export: %v", err)
	}
	if entries, _ := os.ReadDir(usb); len(entries) != 1 {
		t.Errorf("the USB directory holds %d entries after a failed export", len(entries))
	}
}
