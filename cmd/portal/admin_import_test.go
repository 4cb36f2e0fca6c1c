package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/pkg/client"
	"github.com/seedhq/portal/pkg/labwire"
)

// TestAdminImportAnswers drives "portal admin import-answers" against a
// running portal with files shaped as labagent export writes them.
func TestAdminImportAnswers(t *testing.T) {
	t.Parallel()
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), []string{"PORTAL_ADMIN_PASSWORD=cli-test-password"})
	defer p.Stop()
	dir := t.TempDir()
	a := &adminCLI{t: t, env: []string{"PORTAL_URL=" + p.URL, "PORTAL_ADMIN_PASSWORD=cli-test-password"}}

	var issued client.IssuedLicense
	a.mustJSON(&issued, "license", "generate", "--npsn", e2eNPSN, "--school", e2eSchool, "--hardware-id", e2eHardwareID)
	examFile := filepath.Join(dir, "exam.json")
	os.WriteFile(examFile, []byte(`{"title":"Fisika","subject":"FIS","npsn":["`+e2eNPSN+`"],
		"starts_at":"2026-12-01T07:00:00Z","ends_at":"2026-12-01T09:00:00Z","duration_minutes":90,
		"questions":[{"id":"q1","type":"single_choice","text":"g?","options":[{"id":"a","text":"9.8"},{"id":"b","text":"1"}],"answer":["a"],"points":10}]}`), 0o600)
	var ex client.Exam
	a.mustJSON(&ex, "exam", "create", "--file", examFile)
	lab, err := client.NewClient(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	ver, _, err := lab.Exam.Sync.VerifyServer(t.Context(), &client.VerifyServerRequest{
		ServerCode: e2eServerCode, NPSN: e2eNPSN, HardwareID: e2eHardwareID, LicenseToken: issued.LicenseToken,
	})
	if err != nil {
		t.Fatal(err)
	}

	// writeExport writes an answer export file with one batch per question
	// id (one answer each) and returns its path.
	writeExport := func(name string, questions ...string) string {
		t.Helper()
		e := labwire.AnswerExport{ServerCode: e2eServerCode, NPSN: e2eNPSN, LicenseID: issued.Payload.LicenseID, ExportedAt: time.Now()}
		for i, q := range questions {
			raw, _ := json.Marshal([]client.Answer{{ExamID: ex.ID, MemberID: name + "-m" + string(rune('1'+i)), QuestionID: q, Answer: "a",
				AnsweredAt: time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)}})
			e.Batches = append(e.Batches, labwire.AnswerExportBatch{IdempotencyKey: name + "-" + q + "-" + string(rune('1'+i)), Answers: raw})
		}
		var buf bytes.Buffer
		if _, err := labwire.WriteAnswerExport(&buf, ver.PackageKey, e); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".enc")
		os.WriteFile(path, buf.Bytes(), 0o600)
		return path
	}

	good := writeExport("good", "q1", "q1")
	var res client.AnswerImportResult
	a.mustJSON(&res, "import-answers", good)
	if res.Accepted != 2 || res.Records != 2 || len(res.Batches) != 2 || res.ServerCode != e2eServerCode {
		t.Fatalf("import-answers: %+v", res)
	}
	// Again, as a table: every batch a duplicate, exit 0.
	out := a.mustRun("import-answers", good, "--output", "table")
	for _, want := range []string{"0 accepted, 2 duplicate, 0 rejected", "IDEMPOTENCY KEY", "good-q1-1", "duplicate", res.Batches[0].SyncID} {
		if !strings.Contains(out, want) {
			t.Errorf("import-answers table lacks %q:\n%s", want, out)
		}
	}
	// From standard input.
	data, _ := os.ReadFile(good)
	if r := runPortal(t, a.env, string(data), "admin", "import-answers", "-", "--output", "json"); r.Code != 0 || !strings.Contains(r.Stdout, `"duplicates": 2`) {
		t.Errorf("import-answers -: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}

	// A rejected batch: the others are imported, the report printed, exit 1.
	mixed := writeExport("mixed", "q1", "q9")
	r := a.run("import-answers", mixed, "--output", "table")
	if r.Code != 1 || !strings.Contains(r.Stdout, "1 accepted, 0 duplicate, 1 rejected") || !strings.Contains(r.Stdout, "UNKNOWN_QUESTION") ||
		!strings.Contains(r.Stderr, "error: batches rejected: 1 of 2 batches were not imported") {
		t.Errorf("import-answers with a rejected batch: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}

	// A damaged copy is refused as a whole.
	damaged := filepath.Join(dir, "damaged.enc")
	data[len(data)-1] ^= 1
	os.WriteFile(damaged, data, 0o600)
	a.mustFail(1, "error: CHECKSUM_MISMATCH: ", "import-answers", damaged)
	a.mustFail(1, "error: EXPORT_INVALID: ", "import-answers", examFile)
	a.mustFail(1, "no such file", "import-answers", filepath.Join(dir, "missing.enc"))
	a.mustFail(2, "takes 1 argument(s): FILE", "import-answers")

	var results client.ExamResults
	a.mustJSON(&results, "exam", "results", ex.ID)
	if len(results.Results) != 3 {
		t.Errorf("results after the imports: %+v", results)
	}
}
