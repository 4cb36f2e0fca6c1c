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
// left out), the real labagent pulls it, and a student starts it with the
// questions that passed.
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
	st := newStudent(t, lab, sch, "ani")
	st.mustLogin(lab.proctorToken())
	a := st.mustStart(rep.Exam.ID)
	if len(a.Questions) != 3 {
		t.Fatalf("the student's attempt: %s", jsonString(a))
	}
	types := map[string]string{}
	for _, q := range a.Questions {
		types[q.ID] = q.Type
	}
	if types["pg"] != "single_choice" || types["bs"] != "statement_grid" || types["ms"] != "matching" {
		t.Fatalf("the student's questions: %v", types)
	}
}
