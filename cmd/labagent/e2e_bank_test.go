//go:build !windows

package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/seedhq/portal/pkg/client"
)

// TestImportedBankReachesStudents: a spreadsheet bank made from the
// portal's template (a number with a decimal comma and a text with blanks
// among its rows) is imported into an exam of the school (the refused row
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
		"A6": {"angka", "isian_angka", "", "Berapa 5 : 2?", "", "2,5"},
		"A7": {"isi", "isian_rumpang", "", "Pulau Dewata terletak [[b1]], di [[b2]] Lombok.", "", "b1 = dekat Jawa\nb2 = *barat | timur"},
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
	if pg.total != 5 {
		t.Fatalf("the student's page shows %d questions, want 5", pg.total)
	}
	pg.show("Ibu kota Bali")
	pg.wait("the choice's options", `document.querySelectorAll('#answer-area .option').length === 2`)
	pg.show("Benar atau salah")
	pg.wait("the statement grid", `document.querySelectorAll('#answer-area .grid-choice').length === 2`)
	pg.show("Jodohkan")
	pg.wait("the matching lists and the formula", `document.querySelectorAll('#answer-area select.match-select').length === 1 &&
		document.querySelectorAll('#question-text math').length === 1`)
	pg.show("Berapa 5 : 2")
	pg.wait("the number's field", `document.querySelector('#answer-area input.answer-number[inputmode="decimal"]') !== null`)
	pg.show("Pulau Dewata")
	pg.wait("the blanks in the text", `document.querySelectorAll('#question-text input[data-blank-id="b1"]').length === 1 &&
		document.querySelectorAll('#question-text select[data-blank-id="b2"] option').length === 3`)
}
