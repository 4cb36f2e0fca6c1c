package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/pkg/client"
)

// TestAdminGrading drives "portal admin grader" and "portal admin exam
// grade" of the real binary: an operator makes a grader and assigns it an
// exam, the grader grades an essay, a stale save is refused with the grade
// that won, and the results change.
func TestAdminGrading(t *testing.T) {
	t.Parallel()
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), []string{"PORTAL_ADMIN_PASSWORD=cli-test-password"})
	defer p.Stop()
	a := &adminCLI{t: t, env: []string{"PORTAL_URL=" + p.URL, "PORTAL_ADMIN_PASSWORD=cli-test-password"}}

	// An exam with an essay, a student's answer pushed by a lab server.
	examFile := filepath.Join(t.TempDir(), "exam.json")
	os.WriteFile(examFile, []byte(`{"title":"Bahasa","npsn":["`+e2eNPSN+`"],
		"starts_at":"2026-12-01T07:00:00Z","ends_at":"2026-12-01T09:00:00Z","duration_minutes":90,
		"questions":[{"id":"q1","type":"essay","text":"Tulis pantun","points":10,"rubric":"sampiran dan isi"}]}`), 0o600)
	var ex client.Exam
	a.mustJSON(&ex, "exam", "create", "--file", examFile)
	var issued client.IssuedLicense
	a.mustJSON(&issued, "license", "generate", "--npsn", e2eNPSN, "--school", e2eSchool, "--hardware-id", e2eHardwareID)
	lab, err := client.NewClient(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	ver, _, err := lab.Exam.Sync.VerifyServer(t.Context(), &client.VerifyServerRequest{
		ServerCode: e2eServerCode, NPSN: e2eNPSN, HardwareID: e2eHardwareID, LicenseToken: issued.LicenseToken,
	})
	if err != nil {
		t.Fatalf("verify server: %v", err)
	}
	lab.SetToken(ver.AccessToken)
	at := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	if _, _, err := lab.Exam.Sync.PushAnswers(t.Context(), &client.PushAnswersRequest{ServerCode: e2eServerCode, NPSN: e2eNPSN,
		Answers: []client.Answer{{ExamID: ex.ID, MemberID: "m-1", QuestionID: "q1", Answer: "Ada ubi ada talas", AnsweredAt: at}}}); err != nil {
		t.Fatalf("push: %v", err)
	}

	// The operator makes a grader and assigns it the exam.
	var g client.Grader
	a.mustJSON(&g, "grader", "create", "--account-username", "bu.sari", "--name", "Bu Sari", "--account-password", "rahasia-guru")
	a.mustFail(1, "error: VALIDATION_FAILED: ", "grader", "create", "--account-username", "x", "--account-password", "short")
	a.mustFail(2, "required flag(s)", "grader", "create", "--account-username", "bu.budi")
	a.mustJSON(&g, "grader", "assign", g.ID, ex.ID)
	if len(g.ExamIDs) != 1 || g.ExamIDs[0] != ex.ID {
		t.Fatalf("grader assign: %+v", g)
	}
	if out := a.mustRun("grader", "list", "--output", "table"); !strings.Contains(out, "bu.sari") || !strings.Contains(out, ex.ID) {
		t.Errorf("grader list:\n%s", out)
	}

	// Before grading, the item analysis leaves the essay out as pending.
	var an client.ExamAnalysis
	a.mustJSON(&an, "exam", "analysis", ex.ID)
	if an.Students != 1 || len(an.Items) != 0 || len(an.Skipped) != 1 || an.Skipped[0].Pending != 1 {
		t.Fatalf("analysis before grading: %+v", an)
	}

	// The grader signs in with its own account and grades.
	guru := &adminCLI{t: t, env: []string{"PORTAL_URL=" + p.URL, "PORTAL_ADMIN_USERNAME=bu.sari", "PORTAL_ADMIN_PASSWORD=rahasia-guru"}}
	guru.mustFail(1, "error: GRADER_FORBIDDEN: ", "exam", "list")
	if out := guru.mustRun("exam", "grade", "progress", ex.ID, "--output", "table"); !strings.Contains(out, "TO GRADE") || !strings.Contains(out, "q1") {
		t.Errorf("grade progress:\n%s", out)
	}
	var as []client.EssayAnswer
	guru.mustJSON(&as, "exam", "grade", "list", ex.ID, "q1", "--ungraded")
	if len(as) != 1 || as[0].MemberID != "" || as[0].Grade != nil {
		t.Fatalf("grade list: %+v", as)
	}
	code := as[0].Code
	guru.mustFail(1, "error: GRADER_FORBIDDEN: ", "exam", "grade", "list", ex.ID, "q1", "--names")
	guru.mustFail(1, "error: VALIDATION_FAILED: ", "exam", "grade", "save", ex.ID, "q1", code, "--points", "12", "--version", "0")
	guru.mustFail(2, "required flag(s)", "exam", "grade", "save", ex.ID, "q1", code, "--points", "5")
	if out := guru.mustRun("exam", "grade", "save", ex.ID, "q1", code, "--points", "7.5", "--comment", "isi kurang", "--version", "0", "--output", "table"); !strings.Contains(out, "graded "+code+": 7.5 points (version 1)") {
		t.Errorf("grade save:\n%s", out)
	}
	a.mustFail(1, "the grade now is 7.5 points by bu.sari (version 1, isi kurang): to replace it, save again with --version 1",
		"exam", "grade", "save", ex.ID, "q1", code, "--points", "3", "--version", "0")

	var res client.ExamResults
	a.mustJSON(&res, "exam", "results", ex.ID)
	if len(res.Results) != 1 || res.Results[0].Score != 7.5 || !res.Results[0].Graded {
		t.Errorf("results after grading: %+v", res.Results)
	}
	// Graded, the essay is analysed: one student leaves the spread undefined.
	a.mustJSON(&an, "exam", "analysis", ex.ID)
	if len(an.Items) != 1 || an.Items[0].Facility == nil || *an.Items[0].Facility != 0.75 || an.Alpha != nil || len(an.Skipped) != 0 {
		t.Errorf("analysis after grading: %+v", an)
	}
	if out := a.mustRun("exam", "analysis", ex.ID, "--output", "table"); !strings.Contains(out, "ALPHA") || !strings.Contains(out, "0.75") {
		t.Errorf("analysis table:\n%s", out)
	}
	a.mustFail(1, "error: UNKNOWN_SCHOOL: ", "exam", "analysis", ex.ID, "--npsn", "99999999")
	a.mustFail(1, "error: UNKNOWN_REGION: ", "exam", "analysis", ex.ID, "--region", "Bali")
	table := filepath.Join(t.TempDir(), "analisis.csv")
	a.mustRun("exam", "analysis", ex.ID, "--out", table, "--lang", "en")
	if b, err := os.ReadFile(table); err != nil || !strings.HasPrefix(string(b), "No,Question id,Question,Key") || !strings.Contains(string(b), "0.75") {
		t.Errorf("analysis table file (%v):\n%s", err, b)
	}
	a.mustFail(1, "must end in .xlsx or .csv", "exam", "analysis", ex.ID, "--out", filepath.Join(t.TempDir(), "a.pdf"))
	// One student cannot be calibrated: a note, no items.
	var cal client.ExamCalibration
	a.mustJSON(&cal, "exam", "calibration", ex.ID, "--model", "2pl")
	if cal.Model != client.ModelTwoPL || cal.Students != 1 || cal.Note == "" || len(cal.Items) != 0 || cal.LogLikelihood != nil {
		t.Errorf("calibration of one student: %+v", cal)
	}
	if out := a.mustRun("exam", "calibration", ex.ID, "--output", "table"); !strings.Contains(out, "NOTE: fewer than two students") ||
		!strings.Contains(out, "rasch") || !strings.Contains(out, "CALIBRATED: ") {
		t.Errorf("calibration table:\n%s", out)
	}
	// --latest fits nothing: it shows the 2PL calibration made above.
	var latest client.ExamCalibration
	a.mustJSON(&latest, "exam", "calibration", ex.ID, "--model", "2pl", "--latest")
	if latest.FinishedAt == nil || cal.FinishedAt == nil || !latest.FinishedAt.Equal(*cal.FinishedAt) || latest.Run != nil || latest.Note != cal.Note {
		t.Errorf("--latest: %+v, want the calibration of %v", latest, cal.FinishedAt)
	}
	a.mustFail(2, "--keep and --latest cannot be used together", "exam", "calibration", ex.ID, "--keep", "--latest")
	a.mustFail(1, "error: UNKNOWN_MODEL: ", "exam", "calibration", ex.ID, "--model", "3pl")
	a.mustFail(1, "error: NOT_CALIBRATED: the answers cannot be calibrated: fewer than two students", "exam", "calibration", ex.ID, "--keep")
	var shown client.EssayAnswer
	a.mustJSON(&shown, "exam", "grade", "show", ex.ID, "q1", code, "--names")
	if shown.MemberID != "m-1" || len(shown.History) != 1 || shown.History[0].Comment != "isi kurang" {
		t.Errorf("grade show: %+v", shown)
	}
}

// TestRunProgress: how far a calibration going on has got, in words, for
// each stage.
func TestRunProgress(t *testing.T) {
	for _, tc := range []struct {
		run  client.CalibrationRun
		want string
	}{
		{client.CalibrationRun{Stage: client.StageReading, Students: 52000}, "reading the answers: 52000 students so far"},
		{client.CalibrationRun{Stage: client.StageFit, Students: 1000000, Iteration: 12}, "fitting 1000000 students: iteration 12"},
		{client.CalibrationRun{Stage: client.StageErrors, Iteration: 57}, "standard errors, after 57 iterations"},
		{client.CalibrationRun{Stage: client.StageItemFit}, "infit and outfit of every question"},
		{client.CalibrationRun{Stage: "later"}, "later"},
	} {
		if got := runProgress(tc.run); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.run, got, tc.want)
		}
	}
}
