package sheet_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/qbank/sheet"
)

// TestImportNumericAndCloze: numeric rows (a number cell, a key typed with
// a decimal comma, a relative tolerance, the Indonesian type name) and
// cloze rows in the key notation a teacher types, scored as the exam
// scores them; the rows that break the notation are refused.
func TestImportNumericAndCloze(t *testing.T) {
	rows := []map[string]string{
		{"id": "n1", "type": "numeric", "text": "g = ?", "tolerance": "0,1"},
		{"id": "n2", "type": "isian_angka", "text": "Berapa persen?", "answer": "2,5\n1.234,5", "tolerance": "5%"},
		{"id": "c1", "type": "cloze", "text": "Harga $5: ibu kota [[b1]], sisi [[b2]] cm, arah [[b3]].", "points": "6",
			"answer": "b1 = Jakarta | DKI Jakarta; b2 = 128,3 ± 0,5; b3 = *selatan | utara"},
		{"id": "c2", "type": "isian_rumpang", "format": "markdown", "text": "**Isi** [[a]] dan [[b]]",
			"answer": "a (2) = 1/2 | setengah\nb (0,5) = 2,5 +- 5%", "points": "9"},
		{"id": "bad1", "type": "cloze", "text": "[[b1]]", "answer": "b1 = *a | *b"},
		{"id": "bad2", "type": "cloze", "text": "[[b1]]", "answer": "Jakarta"},
		{"id": "bad3", "type": "cloze", "text": "[[b1]] [[b2]]", "answer": "b1 = x"},
		{"id": "bad4", "type": "short_answer", "text": "x", "answer": "x", "tolerance": "1"},
		{"id": "bad5", "type": "numeric", "text": "x", "answer": "dua"},
	}
	b := MustSheet(t, rows, nil, func(f *excelize.File) {
		header, _ := f.GetRows(sheet.QuestionSheet)
		for i, name := range header[0] {
			if name == "answer" {
				cell, _ := excelize.CoordinatesToCellName(i+1, 2)
				if err := f.SetCellFloat(sheet.QuestionSheet, cell, 9.8, -1, 64); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
	bank, _, err := importBytes(t, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		status qbank.Status
		code   string
	}{{qbank.Imported, ""}, {qbank.Imported, ""}, {qbank.Imported, ""}, {qbank.Changed, ""},
		{qbank.Refused, "INVALID_ITEM"}, {qbank.Refused, "INVALID_ITEM"}, {qbank.Refused, "INVALID_ITEM"},
		{qbank.Refused, "INVALID_ITEM"}, {qbank.Refused, "INVALID_ITEM"}}
	for i, w := range want {
		if it := bank.Items[i]; it.Status != w.status || it.Code != w.code {
			t.Errorf("row %d: %+v, want %v %s", i+2, it, w.status, w.code)
		}
	}
	if len(bank.Questions) != 4 {
		t.Fatalf("%d questions", len(bank.Questions))
	}
	e := exam.Exam{Title: "t", NPSNs: []string{"12345678"}, StartsAt: time.Unix(0, 0), EndsAt: time.Unix(7200, 0), DurationMinutes: 60,
		Questions: bank.Questions}
	if err := exam.ValidateExam(&e); err != nil {
		t.Fatal(err)
	}
	n1, n2, c1, c2 := bank.Questions[0], bank.Questions[1], bank.Questions[2], bank.Questions[3]
	if !reflect.DeepEqual(n1.Answer, []string{"9.8"}) || n1.Tolerance != 0.1 || n1.ToleranceMode != "" {
		t.Errorf("n1 %+v", n1)
	}
	if !reflect.DeepEqual(n2.Answer, []string{"2.5", "1234.5"}) || n2.Tolerance != 5 || n2.ToleranceMode != exam.ToleranceRelative {
		t.Errorf("n2 %+v", n2)
	}
	for answer, want := range map[string]bool{"2,6": true, "2.4": true, "2,7": false, "1.234,5": true} {
		if ok, _ := exam.Score(n2, answer); ok != want {
			t.Errorf("n2 Score(%q) = %v", answer, ok)
		}
	}
	if c1.Format != "markdown" || c1.Text != `Harga \$5: ibu kota [[b1]], sisi [[b2]] cm, arah [[b3]].` || c1.Points != 6 {
		t.Errorf("c1 %+v", c1)
	}
	if b1 := c1.Blanks[0]; b1.Kind != exam.BlankText || !reflect.DeepEqual(b1.Answer, []string{"Jakarta", "DKI Jakarta"}) || b1.Points != 2 {
		t.Errorf("c1 b1 %+v", b1)
	}
	if b2 := c1.Blanks[1]; b2.Kind != exam.BlankNumber || !reflect.DeepEqual(b2.Answer, []string{"128.3"}) || b2.Tolerance != 0.5 {
		t.Errorf("c1 b2 %+v", b2)
	}
	if b3 := c1.Blanks[2]; b3.Kind != exam.BlankChoice || len(b3.Options) != 2 || b3.Options[0].Text != "selatan" || !reflect.DeepEqual(b3.Answer, []string{"o1"}) {
		t.Errorf("c1 b3 %+v", b3)
	}
	for answer, want := range map[string]float64{
		`{"b1":"dki jakarta","b2":"128,7","b3":"o1"}`: 6,
		`{"b1":"Bandung","b2":"129","b3":"o1"}`:       2,
		`{"b2":"127,8"}`:                              2,
	} {
		if _, p := exam.Score(c1, answer); p != want {
			t.Errorf("c1 Score(%s) = %v, want %v", answer, p, want)
		}
	}
	if c2.Points != 2.5 || c2.Blanks[0].Points != 2 || c2.Blanks[1].ToleranceMode != exam.ToleranceRelative ||
		!reflect.DeepEqual(c2.Blanks[0].Answer, []string{"1/2", "setengah"}) || !strings.Contains(bank.Items[3].Changes[0], "2.5") {
		t.Errorf("c2 %+v %q", c2, bank.Items[3].Changes)
	}
}
