package analysissheet

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/itemanalysis"
)

// fixture is the analysis of four students on a choice question whose
// text starts like a formula, a true-false question, and an essay left out
// while two answers wait for a grader (number 2, between the others).
func fixture(t *testing.T) exam.ItemAnalysis {
	t.Helper()
	items := []itemanalysis.Item{
		{ID: "q1", MaxPoints: 2, Options: []string{"a", "b", "c"}, Key: []string{"b"}},
		{ID: "q3", MaxPoints: 1, Options: []string{"true", "false"}, Key: []string{"false"}},
	}
	an, err := itemanalysis.New(items)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range [][]itemanalysis.Answer{
		{{Points: 2, Chosen: []string{"b"}}, {Points: 1, Chosen: []string{"false"}}},
		{{Points: 2, Chosen: []string{"b"}}, {Points: 0, Chosen: []string{"true"}}},
		{{Points: 0, Chosen: []string{"a"}}, {Points: 1, Chosen: []string{"false"}}},
		{{Omitted: true}, {Points: 0, Chosen: []string{"true"}}},
	} {
		if err := an.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	return exam.ItemAnalysis{ExamID: "ex1", ExamTitle: "Matematika", Filter: exam.AnalysisFilter{NPSN: "20100001"}, Report: an.Report(),
		Questions: []exam.AnalysedQuestion{
			{Number: 1, Question: exam.Question{ID: "q1", Type: exam.SingleChoice, Text: "=1+1, <b>berapa</b>?", Answer: []string{"b"}, Points: 2}},
			{Number: 3, Question: exam.Question{ID: "q3", Type: exam.TrueFalse, Text: "0 bilangan asli", Answer: []string{"false"}, Points: 1}},
		},
		Skipped: []exam.SkippedQuestion{{Number: 2, QuestionID: "q2", Pending: 2}},
	}
}

// TestCSV: the table in the paper's order with Indonesian headings, the
// skipped essay in its place, the figures rounded to four decimals, the
// bands and option shares named, and a text that would be a formula kept
// as text.
func TestCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, fixture(t), CSV, "id"); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || recs[0][0] != "No" || recs[0][6] != "Tingkat kesukaran (P)" || recs[0][14] != "Catatan" {
		t.Fatalf("table: %q", recs)
	}
	q1, q2, q3 := recs[1], recs[2], recs[3]
	if q1[0] != "1" || q1[1] != "q1" || q1[2] != "'=1+1, <b>berapa</b>?" || q1[3] != "b" || q1[4] != "2" || q1[5] != "1" || q1[6] != "0.5" || q1[7] != "sedang" {
		t.Errorf("q1: %q", q1)
	}
	if q1[13] != "a 25 % · b ✓ 50 % · c 0 % · kosong 25 %" || !strings.Contains(q1[14], "pengecoh tidak dipilih") {
		t.Errorf("q1 options and notes: %q, %q", q1[13], q1[14])
	}
	if q2[0] != "2" || q2[1] != "q2" || q2[14] != "tidak dianalisis: jawaban belum dinilai (2)" || q2[6] != "" {
		t.Errorf("skipped essay: %q", q2)
	}
	if q3[0] != "3" || q3[3] != "false" || q3[6] != "0.5" {
		t.Errorf("q3: %q", q3)
	}
}

// TestXLSX: the workbook's two sheets in English, numbers as numbers, an
// undefined figure an empty cell, the formula-like text a string.
func TestXLSX(t *testing.T) {
	var buf bytes.Buffer
	a := fixture(t)
	if err := Write(&buf, a, XLSX, "en"); err != nil {
		t.Fatal(err)
	}
	x, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := x.GetSheetList(); len(got) != 2 || got[0] != "Summary" || got[1] != "Questions" {
		t.Fatalf("sheets %v", got)
	}
	get := func(sheet, ref string) string {
		v, err := x.GetCellValue(sheet, ref, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if get("Summary", "B1") != "Matematika" || get("Summary", "B2") != "20100001" || get("Summary", "B3") != "all" || get("Summary", "B4") != "all" ||
		get("Summary", "A5") != "Region" || get("Summary", "B5") != "all" || get("Summary", "B6") != "4" {
		t.Errorf("summary: %q %q %q %q %q %q", get("Summary", "B1"), get("Summary", "B2"), get("Summary", "B3"), get("Summary", "B4"), get("Summary", "B5"), get("Summary", "B6"))
	}
	if typ, _ := x.GetCellType("Questions", "G2"); typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset {
		t.Errorf("facility cell type %v", typ)
	}
	if get("Questions", "G2") != "0.5" || get("Questions", "C2") != "=1+1, <b>berapa</b>?" || get("Questions", "H2") != "medium" {
		t.Errorf("q1 row: %q %q %q", get("Questions", "G2"), get("Questions", "C2"), get("Questions", "H2"))
	}
	if f, _ := x.GetCellFormula("Questions", "C2"); f != "" {
		t.Errorf("the question's text became a formula: %q", f)
	}
	if get("Questions", "G3") != "" || get("Questions", "O3") != "not analysed: answers to grade (2)" {
		t.Errorf("skipped row: %q %q", get("Questions", "G3"), get("Questions", "O3"))
	}
}
