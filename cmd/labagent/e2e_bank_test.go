package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/seedhq/portal/pkg/client"
)

// TestImportedBankReachesStudents: a spreadsheet bank made from the
// portal's template is imported into an exam of the school (the refused row
// left out), the real labagent pulls it, and a student takes it in
// Chromium with the questions that passed.
func TestImportedBankReachesStudents(t *testing.T) {
	t.Parallel()
	p := startPortal(t, portalConfig{DataDir: filepath.Join(t.TempDir(), "pdata")})
	op := p.operator()
	sch := setupSchool(t, p, []string{"ani"})

	var tpl bytes.Buffer
	if _, err := op.Exam.Admin.ImportTemplate(t.Context(), &tpl); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&tpl)
	if err != nil {
		t.Fatal(err)
	}
	for cell, row := range map[string][]string{
		"A2": {"pg", "single_choice", "", "Ibu kota Bali adalah ...", "a: Denpasar\nb: Mataram", "a"},
		"A3": {"bs", "statement_grid", "", "Benar atau salah?", "", "s1=true", "", "", "", "", "", "", "s1: 1 + 1 = 2"},
		"A4": {"ms", "matching", "markdown", "Jodohkan $x$.", "", "p1=r1", "", "", "", "", "", "", "", "", "p1: dua", "r1: 2\nr2: 3"},
		"A5": {"rusak", "essay", "markdown", "Rumus rusak $\\frac{1}{$"},
	} {
		f.SetSheetRow("Soal", cell, &row)
	}
	var xlsx bytes.Buffer
	if err := f.Write(&xlsx); err != nil {
		t.Fatal(err)
	}
	starts, ends := openWindow()
	rep, _, err := op.Exam.Admin.ImportExam(t.Context(), &xlsx, client.ExamImportOptions{Create: true, OnlyPassed: true,
		Title: "Bank dari Excel", NPSN: []string{e2eNPSN}, StartsAt: starts, EndsAt: ends, DurationMinutes: 60})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Refused != 1 || rep.Items[3].Code != "TEX_ERROR" || rep.Exam == nil {
		t.Fatalf("import: %s", jsonString(rep))
	}
	sch.exams = append(sch.exams, rep.Exam)

	lab := enrollLab(t, p.URL, sch)
	lab.start()
	lab.waitPackage()
	// A student takes it in Chromium: the three questions that passed, each
	// drawn as its type.
	pg := openStudentPage(t, lab, sch, "ani", rep.Exam.ID)
	if pg.total != 3 {
		t.Fatalf("the student's page shows %d questions, want 3", pg.total)
	}
	pg.show("Ibu kota Bali")
	pg.wait("the choice's options", `document.querySelectorAll('#answer-area .option').length === 2`)
	pg.show("Benar atau salah")
	pg.wait("the statement grid", `document.querySelectorAll('#answer-area .grid-choice').length === 2`)
	pg.show("Jodohkan")
	pg.wait("the matching lists and the formula", `document.querySelectorAll('#answer-area select.match-select').length === 1 &&
		document.querySelectorAll('#question-text math').length === 1`)
}
