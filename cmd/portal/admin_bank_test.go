package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/seedhq/portal/pkg/client"
)

// TestAdminExamImport drives "portal admin exam template, import, export"
// of the real binary against a running portal.
func TestAdminExamImport(t *testing.T) {
	t.Parallel()
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), []string{"PORTAL_ADMIN_PASSWORD=cli-test-password"})
	defer p.Stop()
	dir := t.TempDir()
	a := &adminCLI{t: t, env: []string{"PORTAL_URL=" + p.URL, "PORTAL_ADMIN_PASSWORD=cli-test-password"}}

	tpl := filepath.Join(dir, "template.xlsx")
	a.mustRun("exam", "template", "--out", tpl)
	f, err := excelize.OpenFile(tpl)
	if err != nil {
		t.Fatalf("the template is no spreadsheet: %v", err)
	}
	f.SetSheetRow("Soal", "A2", &[]string{"q1", "short_answer", "", "7 × 8 = ?", "", "56"})
	f.SetSheetRow("Soal", "A3", &[]string{"q2", "drag_and_drop", "", "Seret"})
	bank := filepath.Join(dir, "bank.xlsx")
	if err := f.SaveAs(bank); err != nil {
		t.Fatal(err)
	}

	out := a.mustRun("exam", "import", bank, "--output", "table")
	for _, want := range []string{"POSITION", "imported", "refused", "UNSUPPORTED_TYPE", "xlsx: 1 imported, 0 changed, 1 refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("exam import table lacks %q:\n%s", want, out)
		}
	}
	create := []string{"exam", "import", bank, "--create", "--title", "Hitung", "--npsn", e2eNPSN,
		"--starts", "2026-12-01T07:30:00+07:00", "--ends", "2026-12-01T09:30:00+07:00", "--duration", "60"}
	a.mustFail(1, "BANK_HAS_REFUSED_ITEMS", create...)
	if r := a.run(append(create, "--output", "table")...); r.Code != 1 || !strings.Contains(r.Stdout, "refused") || !strings.Contains(r.Stderr, "only_passed") {
		t.Errorf("a refused creation shows its report: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var rep client.BankReport
	a.mustJSON(&rep, append(create, "--only-passed")...)
	if rep.Exam == nil || rep.Exam.Title != "Hitung" || len(rep.Exam.Questions) != 1 || rep.Refused != 1 {
		t.Fatalf("exam import --create: %+v", rep)
	}
	a.mustFail(2, "--starts", "exam", "import", bank, "--create", "--starts", "tomorrow")

	exported := filepath.Join(dir, "out.xlsx")
	a.mustRun("exam", "export", rep.Exam.ID, "--format", "xlsx", "--out", exported)
	b, err := os.ReadFile(exported)
	if err != nil || !bytes.HasPrefix(b, []byte("PK")) {
		t.Fatalf("export: %v", err)
	}
	var back client.BankReport
	a.mustJSON(&back, "exam", "import", exported)
	if back.Imported != 1 || back.Questions[0].Answer[0] != "56" {
		t.Fatalf("the export read back: %+v", back)
	}
	// A question whose figure cannot be stored is refused, or kept with
	// --allow-missing-media.
	gif := filepath.Join(dir, "peta.xml")
	if err := os.WriteFile(gif, []byte(`<quiz><question type="essay"><name><text>peta</text></name><questiontext format="html"><text><![CDATA[<p>Lihat.</p>`+
		`<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Peta">]]></text></questiontext></question></quiz>`), 0o644); err != nil {
		t.Fatal(err)
	}
	var missing client.BankReport
	a.mustJSON(&missing, "exam", "import", gif)
	if missing.Refused != 1 || missing.Items[0].Code != "MEDIA_NOT_FOUND" {
		t.Errorf("a lost figure: %+v", missing)
	}
	a.mustJSON(&missing, "exam", "import", gif, "--allow-missing-media")
	if missing.Changed != 1 || missing.Refused != 0 {
		t.Errorf("a lost figure with --allow-missing-media: %+v", missing)
	}
	a.mustFail(1, "NOT_FOUND", "exam", "export", "no-such-exam", "--format", "xlsx", "--out", filepath.Join(dir, "x.xlsx"))
	if _, err := os.Stat(filepath.Join(dir, "x.xlsx")); !os.IsNotExist(err) {
		t.Errorf("a failed export left a file: %v", err)
	}
}

func TestFormatByExt(t *testing.T) {
	for name, want := range map[string]string{"bank.XML": "moodle", "a/b.xlsx": "xlsx", "qti.zip": "", "soal": ""} {
		if got := formatByExt(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
