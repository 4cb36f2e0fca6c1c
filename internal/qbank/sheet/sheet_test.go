package sheet_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/qbank/qbanktest"
	"github.com/seedhq/portal/internal/qbank/sheet"
	"github.com/seedhq/portal/internal/testkit"
)

// memMedia is a MediaStore in memory; it refuses files named "*.svg".
type memMedia struct{ files map[string][]byte }

func (m *memMedia) UploadMedia(_ context.Context, name string, r io.Reader) (exam.Media, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return exam.Media{}, err
	}
	if strings.HasSuffix(name, ".svg") {
		return exam.Media{}, apperr.New(apperr.UnsupportedMedia, "UNSUPPORTED_MEDIA", "SVG is not accepted")
	}
	sum := sha256.Sum256(b)
	sha := hex.EncodeToString(sum[:])
	if m.files == nil {
		m.files = map[string][]byte{}
	}
	m.files[sha] = b
	return exam.Media{SHA256: sha, Name: name, Size: int64(len(b))}, nil
}

// MustSheet builds an .xlsx from the template with rows on the questions
// sheet (and stimuli), edited by edit when not nil.
func MustSheet(t testing.TB, rows []map[string]string, stimuli [][]string, edit func(*excelize.File)) []byte {
	t.Helper()
	var tpl bytes.Buffer
	if err := sheet.Template(&tpl); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&tpl)
	if err != nil {
		t.Fatal(err)
	}
	header, _ := f.GetRows(sheet.QuestionSheet)
	for i, r := range rows {
		for j, name := range header[0] {
			if v, ok := r[name]; ok {
				cell, _ := excelize.CoordinatesToCellName(j+1, i+2)
				if err := f.SetCellStr(sheet.QuestionSheet, cell, v); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for i, st := range stimuli {
		if err := f.SetSheetRow(sheet.StimulusSheet, fmt.Sprintf("A%d", i+2), &st); err != nil {
			t.Fatal(err)
		}
	}
	if edit != nil {
		edit(f)
	}
	var out bytes.Buffer
	if err := f.Write(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func importBytes(t testing.TB, b []byte, files map[string][]byte) (*qbank.Bank, *memMedia, error) {
	t.Helper()
	m := &memMedia{}
	var ff sheet.FileFunc
	if files != nil {
		ff = func(name string) (io.ReadCloser, bool) {
			d, ok := files[name]
			return io.NopCloser(bytes.NewReader(d)), ok
		}
	}
	bank, err := sheet.Import(context.Background(), bytes.NewReader(b), int64(len(b)), m, ff)
	return bank, m, err
}

// TestTemplateExamples imports the instruction sheet's examples, copied to
// the questions sheet: every one is a question.
func TestTemplateExamples(t *testing.T) {
	var tpl bytes.Buffer
	if err := sheet.Template(&tpl); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(tpl.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.GetSheetList(); !reflect.DeepEqual(got, []string{sheet.QuestionSheet, sheet.StimulusSheet, sheet.InstructionSheet}) {
		t.Fatalf("sheets %v", got)
	}
	all, _ := f.GetRows(sheet.InstructionSheet)
	var rows []map[string]string
	var header []string
	for _, r := range all {
		if len(r) > 3 && r[0] == "id" {
			header = r
			continue
		}
		if len(r) > 0 && strings.HasPrefix(r[0], "Contoh baris lembar Stimulus") {
			break
		}
		if header != nil && len(r) > 2 {
			m := map[string]string{}
			for i, v := range r {
				m[header[i]] = v
			}
			rows = append(rows, m)
		}
	}
	if len(rows) != 10 {
		t.Fatalf("%d example rows", len(rows))
	}
	b := MustSheet(t, rows, [][]string{{"bacaan1", "Fotosintesis", "", "Tumbuhan membuat makanannya sendiri."}}, nil)
	bank, m, err := importBytes(t, b, map[string][]byte{"grafik.png": testkit.PNG(20, 10, 1)})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range bank.Items {
		if it.Status != qbank.Imported {
			t.Errorf("row %d %s: %+v", it.Position, it.Title, it)
		}
	}
	if len(bank.Questions) != 10 || len(bank.Stimuli) != 1 || len(m.files) != 1 {
		t.Fatalf("%d questions, %d stimuli, %d media", len(bank.Questions), len(bank.Stimuli), len(m.files))
	}
	q8 := bank.Questions[7]
	if strings.Contains(q8.Text, "grafik.png") || !strings.Contains(q8.Text, "](media:") {
		t.Errorf("media not resolved: %q", q8.Text)
	}
	if g := bank.Questions[5]; g.Type != exam.StatementGrid || !reflect.DeepEqual(g.Answer, []string{"s1=true", "s2=false"}) || g.Scoring != "partial" {
		t.Errorf("statement grid %+v", g)
	}
	if mq := bank.Questions[6]; len(mq.Responses) != 3 || !reflect.DeepEqual(mq.Answer, []string{"p1=r1", "p2=r2"}) {
		t.Errorf("matching %+v", mq)
	}
	if nq := bank.Questions[8]; nq.Type != exam.Numeric || !reflect.DeepEqual(nq.Answer, []string{"9.8"}) || nq.Tolerance != 0.1 {
		t.Errorf("numeric %+v", nq)
	}
	if cq := bank.Questions[9]; cq.Type != exam.Cloze || len(cq.Blanks) != 3 || cq.Points != 4 {
		t.Errorf("cloze %+v", cq)
	}
}

// TestImportRefusals: each row that cannot be a question is refused with
// its reason, at its row number; the others are imported.
func TestImportRefusals(t *testing.T) {
	rows := []map[string]string{
		{"id": "ok", "type": "single_choice", "text": "Pilih", "options": "a: satu\nb: dua", "answer": "a"},
		{"id": "hot", "type": "hotspot", "text": "Klik"},
		{"id": "key", "type": "single_choice", "text": "Pilih", "options": "a: satu\nb: dua", "answer": "c"},
		{"id": "img", "type": "essay", "format": "markdown", "text": "Lihat ![peta](peta.png)"},
		{"id": "tex", "type": "essay", "format": "markdown", "text": "Hitung $\\frac{1}{$ ini"},
		{"id": "ok", "type": "essay", "text": "Dua kali"},
		{"type": "short_answer", "text": "Tanpa kunci sama sekali, sebuah teks yang sangat panjang sekali untuk dipotong di judulnya"},
		{"id": "gridkey", "type": "statement_grid", "text": "BS", "statements": "s1: x", "answer": "s1=maybe"},
		{"id": "svg", "type": "essay", "text": "x", "media": "a.svg"},
		{"id": "st", "type": "essay", "text": "x", "stimulus": "nope"},
	}
	bank, _, err := importBytes(t, MustSheet(t, rows, nil, nil), map[string][]byte{"a.svg": []byte("<svg/>")})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		pos    int
		status qbank.Status
		code   string
	}{{2, qbank.Imported, ""}, {3, qbank.Refused, "UNSUPPORTED_TYPE"}, {4, qbank.Refused, "KEY_NOT_AN_OPTION"},
		{5, qbank.Refused, "MEDIA_NOT_FOUND"}, {6, qbank.Refused, "TEX_ERROR"}, {7, qbank.Refused, "DUPLICATE_ID"},
		{8, qbank.Refused, "INVALID_ITEM"}, {9, qbank.Refused, "KEY_NOT_AN_OPTION"}, {10, qbank.Refused, "UNSUPPORTED_MEDIA"},
		{11, qbank.Refused, "INVALID_ITEM"}}
	if len(bank.Items) != len(want) {
		t.Fatalf("%d items: %+v", len(bank.Items), bank.Items)
	}
	for i, w := range want {
		it := bank.Items[i]
		if it.Position != w.pos || it.Status != w.status || it.Code != w.code || (w.code != "" && it.Message == "") {
			t.Errorf("item %d: %+v, want %+v", i, it, w)
		}
	}
	if got := bank.Items[6].Title; !strings.HasPrefix(got, "Tanpa kunci") || !strings.HasSuffix(got, "…") {
		t.Errorf("title of a row without id: %q", got)
	}
	if imp, ch, ref := bank.Counts(); imp != 1 || ch != 0 || ref != 9 || len(bank.Questions) != 1 {
		t.Errorf("counts %d %d %d, %d questions", imp, ch, ref, len(bank.Questions))
	}
}

// TestImportMediaColumnAndPictures: files named in the media column and
// pictures pasted into the row's cells become the text's media.
func TestImportMediaColumnAndPictures(t *testing.T) {
	png := testkit.PNG(16, 16, 7)
	rows := []map[string]string{{"id": "m1", "type": "essay", "text": "Amati gambar.", "media": "foto.png"}}
	b := MustSheet(t, rows, nil, func(f *excelize.File) {
		if err := f.AddPictureFromBytes(sheet.QuestionSheet, "H2", &excelize.Picture{Extension: ".png", File: testkit.PNG(8, 8, 3),
			Format: &excelize.GraphicOptions{AltText: "Denah sekolah"}}); err != nil {
			t.Fatal(err)
		}
	})
	bank, m, err := importBytes(t, b, map[string][]byte{"foto.png": png})
	if err != nil {
		t.Fatal(err)
	}
	it := bank.Items[0]
	if it.Status != qbank.Changed || len(it.Changes) != 1 || !strings.Contains(it.Changes[0], "markdown") {
		t.Fatalf("report %+v", it)
	}
	q := bank.Questions[0]
	if q.Format != "markdown" || !strings.Contains(q.Text, "![foto](media:") || !strings.Contains(q.Text, "![Denah sekolah](media:") || len(m.files) != 2 {
		t.Fatalf("question %+v, %d media", q, len(m.files))
	}
}

// TestImportRefusesFiles: what is not a readable spreadsheet, or too big,
// is refused as a whole.
func TestImportRefusesFiles(t *testing.T) {
	for name, b := range map[string][]byte{"text": []byte("id,type,text\n"), "empty": nil} {
		if _, _, err := importBytes(t, b, nil); apperr.CodeOf(err) != "INVALID_BANK" {
			t.Errorf("%s: %v", name, err)
		}
	}
	m := &memMedia{}
	if _, err := sheet.Import(context.Background(), bytes.NewReader(nil), qbank.MaxFileSize+1, m, nil); err != qbank.ErrTooLarge {
		t.Errorf("too large: %v", err)
	}
	var rows []map[string]string
	for i := 0; i <= qbank.MaxItems; i++ {
		rows = append(rows, map[string]string{"type": "essay", "text": "x"})
	}
	if _, _, err := importBytes(t, MustSheet(t, rows, nil, nil), nil); err != qbank.ErrTooManyItems {
		t.Errorf("too many rows: %v", err)
	}
	noHeader := MustSheet(t, nil, nil, func(f *excelize.File) { f.SetCellStr(sheet.QuestionSheet, "B1", "jenis") })
	if _, _, err := importBytes(t, noHeader, nil); apperr.CodeOf(err) != "INVALID_BANK" {
		t.Errorf("no type column: %v", err)
	}
}

// TestRoundTrip: import(export(e)) gives e's questions and stimuli back,
// for exams of random questions of every type (seeded).
func TestRoundTrip(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for run := 0; run < 20; run++ {
		e := randomExam(rng)
		if err := exam.ValidateExam(&e); err != nil {
			t.Fatalf("seed %d run %d: the generated exam is invalid: %v", seed, run, err)
		}
		var buf bytes.Buffer
		if err := sheet.Export(context.Background(), &buf, e); err != nil {
			t.Fatal(err)
		}
		bank, _, err := importBytes(t, buf.Bytes(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range bank.Items {
			if it.Status != qbank.Imported {
				t.Fatalf("seed %d run %d: %+v", seed, run, it)
			}
		}
		if !reflect.DeepEqual(bank.Questions, e.Questions) {
			for i := range e.Questions {
				if i < len(bank.Questions) && !reflect.DeepEqual(bank.Questions[i], e.Questions[i]) {
					t.Fatalf("seed %d run %d question %d:\n got %#v\nwant %#v", seed, run, i, bank.Questions[i], e.Questions[i])
				}
			}
			t.Fatalf("seed %d run %d: %d questions, want %d", seed, run, len(bank.Questions), len(e.Questions))
		}
		if !reflect.DeepEqual(bank.Stimuli, e.Stimuli) {
			t.Fatalf("seed %d run %d: stimuli %#v, want %#v", seed, run, bank.Stimuli, e.Stimuli)
		}
	}
}

func randomText(rng *rand.Rand, markdown bool) string {
	words := []string{"air", "Bandung", "2 * 3 = 6", "<b>", "$5", "x=1,2", "dan", "«ç»", "عربي", "🙂", "a: b", "=SUM(A1)", "'kutip"}
	if markdown {
		words = words[:len(words)-1]
		words[4] = "\\$5"
		words = append(words, "$\\frac{1}{2}$", "**tebal**", "![peta](media:"+strings.Repeat("ab", 32)+")")
	}
	n := 1 + rng.IntN(8)
	var parts []string
	for i := 0; i < n; i++ {
		w := words[rng.IntN(len(words))]
		if i > 0 && rng.IntN(5) == 0 {
			w = "\n" + w
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, " ")
}

func randomOptions(rng *rand.Rand, prefix string, n int) []exam.Option {
	opts := make([]exam.Option, n)
	for i := range opts {
		opts[i] = exam.Option{ID: fmt.Sprintf("%s%d", prefix, i+1), Text: strings.ReplaceAll(randomText(rng, false), "\n", "")}
	}
	return opts
}

func randomExam(rng *rand.Rand) exam.Exam {
	e := exam.Exam{Title: "t", NPSNs: []string{"12345678"}, StartsAt: time.Unix(0, 0), EndsAt: time.Unix(7200, 0), DurationMinutes: 60}
	if rng.IntN(2) == 0 {
		e.Stimuli = []exam.Stimulus{{ID: "st1", Title: "Bacaan", Format: "markdown", Text: randomText(rng, true)}}
	}
	n := 1 + rng.IntN(12)
	for i := 0; i < n; i++ {
		md := rng.IntN(2) == 0
		q := exam.Question{ID: fmt.Sprintf("q-%d.%d", i, rng.IntN(100)), Text: randomText(rng, md), Points: float64(rng.IntN(20)) / 2,
			Category: []string{"", "Matematika/Aljabar", "IPA"}[rng.IntN(3)], Calibrated: qbanktest.Calibration(rng)}
		if md {
			q.Format = "markdown"
		}
		switch rng.IntN(9) {
		case 0:
			q.Type, q.Options = exam.SingleChoice, randomOptions(rng, "o", 2+rng.IntN(4))
			q.Answer = []string{q.Options[rng.IntN(len(q.Options))].ID}
		case 1:
			q.Type, q.Options = exam.MultipleChoice, randomOptions(rng, "", 2+rng.IntN(4))
			q.Answer = []string{q.Options[0].ID, q.Options[len(q.Options)-1].ID}
		case 2:
			q.Type, q.Answer = exam.TrueFalse, []string{[]string{"true", "false"}[rng.IntN(2)]}
		case 3:
			q.Type, q.Answer = exam.ShortAnswer, []string{"lima puluh, enam", "56"}
		case 4:
			q.Type, q.Rubric = exam.Essay, randomText(rng, false)
			if md && rng.IntN(2) == 0 {
				q.PlayLimit = 1 + rng.IntN(3)
			}
		case 5:
			q.Type, q.Statements = exam.StatementGrid, randomOptions(rng, "s", 1+rng.IntN(4))
			if rng.IntN(2) == 0 {
				q.Columns = []exam.Option{{ID: "ya", Text: "Ya"}, {ID: "tidak", Text: "Tidak"}, {ID: "ragu", Text: "Ragu"}}
			}
			cols := []string{"true", "false"}
			if q.Columns != nil {
				cols = []string{"ya", "tidak", "ragu"}
			}
			for _, s := range q.Statements {
				q.Answer = append(q.Answer, s.ID+"="+cols[rng.IntN(len(cols))])
			}
			if rng.IntN(2) == 0 {
				q.Scoring = exam.ScoringPartial
			}
		case 6:
			q.Type, q.Premises, q.Responses = exam.Matching, randomOptions(rng, "p", 2), randomOptions(rng, "r", 3)
			q.Answer = []string{"p1=r2", "p2=r2"}
			q.ReuseResponses = true
		case 7:
			q.Type, q.Answer, q.Tolerance = exam.Numeric, []string{"2.5", "-1234.125"}, float64(rng.IntN(3))/4
			if rng.IntN(2) == 0 {
				q.ToleranceMode = exam.ToleranceRelative
			}
		case 8:
			q = randomCloze(rng, q)
		}
		if e.Stimuli != nil && rng.IntN(2) == 0 {
			q.Stimulus = "st1"
		}
		e.Questions = append(e.Questions, q)
	}
	used := false
	for _, q := range e.Questions {
		used = used || q.Stimulus != ""
	}
	if !used {
		e.Stimuli = nil
	}
	return e
}

// TestExportRefusesLongCells: a text a cell cannot hold is refused, never cut.
func TestExportRefusesLongCells(t *testing.T) {
	e := exam.Exam{Questions: []exam.Question{{ID: "q1", Type: exam.Essay, Text: strings.Repeat("x", 40000)}}}
	if err := sheet.Export(context.Background(), io.Discard, e); apperr.CodeOf(err) != "EXPORT_REFUSED" {
		t.Fatalf("%v", err)
	}
}

// TestImportPositionsAreRows: blank rows are skipped, and every report is
// at its row's number; the columns are found by name in any order.
func TestImportPositionsAreRows(t *testing.T) {
	f := excelize.NewFile()
	f.SetSheetRow("Sheet1", "A1", &[]string{"Text", "TYPE", "answer"})
	f.SetSheetRow("Sheet1", "A4", &[]string{"Bumi bulat", "true_false", "benar"})
	f.SetSheetRow("Sheet1", "A9", &[]string{"Jelaskan", "essay"})
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	bank, _, err := importBytes(t, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(bank.Items) != 2 || bank.Items[0].Position != 4 || bank.Items[1].Position != 9 || bank.Questions[1].ID != "q8" ||
		bank.Questions[0].Answer[0] != "true" {
		t.Fatalf("%+v %+v", bank.Items, bank.Questions)
	}
}

// randomCloze makes q a cloze question with a blank of each kind, their
// answers holding the key's special characters.
func randomCloze(rng *rand.Rand, q exam.Question) exam.Question {
	q.Type, q.Format = exam.Cloze, "markdown"
	q.Text = strings.ReplaceAll(randomText(rng, true), "[", "(") + " [[b1]] dan [[x.2]] atau [[b_3]]."
	choices := randomOptions(rng, "o", 2+rng.IntN(3))
	choices[0].Text = "*bintang | pipa; titik koma \\ miring"
	q.Blanks = []exam.Blank{
		{ID: "b1", Kind: exam.BlankText, Answer: []string{"Jakarta", "a | b; c", "*x"}, Points: 1},
		{ID: "x.2", Kind: exam.BlankNumber, Answer: []string{"128.3", "-2"}, Tolerance: float64(rng.IntN(3)) / 2, Points: float64(1 + rng.IntN(3))},
		{ID: "b_3", Kind: exam.BlankChoice, Options: choices, Answer: []string{choices[rng.IntN(len(choices))].ID}, Points: 0.5},
	}
	if rng.IntN(2) == 0 {
		q.Blanks[1].ToleranceMode = exam.ToleranceRelative
	}
	return q
}

// TestImportMergedCells: a stimulus or points cell merged down over rows
// gives its value to every row it covers; a merge across columns fills no
// other column, and a merge over empty rows makes no item of them.
func TestImportMergedCells(t *testing.T) {
	rows := []map[string]string{
		{"type": "essay", "text": "Soal satu", "stimulus": "bacaan", "points": "5"},
		{"type": "essay", "text": "Soal dua"},
		{"type": "essay", "text": "Soal tiga"},
		{"type": "essay", "text": "Soal empat", "points": "2"},
	}
	col := func(f *excelize.File, name string) string {
		header, _ := f.GetRows(sheet.QuestionSheet)
		for j, h := range header[0] {
			if h == name {
				c, _ := excelize.ColumnNumberToName(j + 1)
				return c
			}
		}
		t.Fatalf("no column %s", name)
		return ""
	}
	b := MustSheet(t, rows, [][]string{{"bacaan", "Bacaan", "", "Teks bacaan bersama."}}, func(f *excelize.File) {
		for _, m := range [][2]string{
			{col(f, "stimulus") + "2", col(f, "stimulus") + "4"},
			{col(f, "points") + "2", col(f, "points") + "4"},
			{col(f, "rubric") + "5", col(f, "rubric") + "9"}, // down over empty rows
			{col(f, "text") + "5", col(f, "options") + "5"},  // across columns
		} {
			if err := f.MergeCell(sheet.QuestionSheet, m[0], m[1]); err != nil {
				t.Fatal(err)
			}
		}
		f.SetCellStr(sheet.QuestionSheet, col(f, "rubric")+"5", "Jawaban lengkap")
	})
	bank, _, err := importBytes(t, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(bank.Questions) != 4 || len(bank.Items) != 4 {
		t.Fatalf("items %+v", bank.Items)
	}
	for i, q := range bank.Questions {
		wantStim, wantPoints := "bacaan", 5.0
		if i == 3 {
			wantStim, wantPoints = "", 2
		}
		if q.Stimulus != wantStim || q.Points != wantPoints || len(q.Options) != 0 {
			t.Errorf("row %d: stimulus %q, points %v, options %v; want %q, %v", i+2, q.Stimulus, q.Points, q.Options, wantStim, wantPoints)
		}
	}
	if bank.Questions[3].Rubric != "Jawaban lengkap" {
		t.Errorf("rubric %q", bank.Questions[3].Rubric)
	}
}

// TestImportLetteredOptions: options written "A. Soekarno" or "a) 2", one
// per line with their letters in order, lose their labels and are a, b,
// …; a key "A", "B." or "c)" names them; "id: text" options keep a text
// that starts with a letter and a dot, and a label out of order is text.
func TestImportLetteredOptions(t *testing.T) {
	b := MustSheet(t, []map[string]string{
		{"id": "q1", "type": "single_choice", "text": "Presiden pertama?", "options": "A. Soekarno\nB. Hatta\nC. Habibie", "answer": "A"},
		{"id": "q2", "type": "multiple_choice", "text": "Bilangan prima?", "options": "a) 2\nb) 4\nc) 5", "answer": "a), C."},
		{"id": "q3", "type": "single_choice", "text": "Penulis?", "options": "a: J. K. Rowling\nb: A. Yani", "answer": "b"},
		{"id": "q4", "type": "single_choice", "text": "Alamat?", "options": "A. Jalan\nC. Wibowo dan teman\nB. Lain", "answer": "B. Lain"},
		{"id": "q5", "type": "single_choice", "text": "Satu?", "options": "A. Satu", "answer": "A"},
	}, nil, nil)
	bank, _, err := importBytes(t, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(bank.Questions) != 4 || bank.Items[4].Status != qbank.Refused {
		t.Fatalf("items %+v", bank.Items)
	}
	opts := func(q exam.Question) string {
		var s []string
		for _, o := range q.Options {
			s = append(s, o.ID+"="+o.Text)
		}
		return strings.Join(s, "|")
	}
	for i, want := range []struct{ opts, key string }{
		{"a=Soekarno|b=Hatta|c=Habibie", "a"},
		{"a=2|b=4|c=5", "a,c"},
		{"a=J. K. Rowling|b=A. Yani", "b"},
		{"a=Jalan\nC. Wibowo dan teman|b=Lain", "b"},
	} {
		q := bank.Questions[i]
		if opts(q) != want.opts || strings.Join(q.Answer, ",") != want.key {
			t.Errorf("%s: options %q key %v, want %q %s", q.ID, opts(q), q.Answer, want.opts, want.key)
		}
	}
}

// TestImportPlainTeX: TeX in a plain row is noted (changed): the row stays
// plain and the note says to write markdown; money is no formula.
func TestImportPlainTeX(t *testing.T) {
	b := MustSheet(t, []map[string]string{
		{"id": "q1", "type": "essay", "text": "Hitung $x^2$ untuk x = 3."},
		{"id": "q2", "type": "single_choice", "text": "Pilih.", "options": "a: \\(\\frac{1}{2}\\)\nb: 1", "answer": "a"},
		{"id": "q3", "type": "essay", "text": "Harga $5 dan $10."},
		{"id": "q4", "type": "essay", "format": "markdown", "text": "Hitung $x^2$."},
	}, nil, nil)
	bank, _, err := importBytes(t, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []qbank.Status{qbank.Changed, qbank.Changed, qbank.Imported, qbank.Imported} {
		it := bank.Items[i]
		if it.Status != want || want == qbank.Changed && !strings.Contains(strings.Join(it.Changes, " "), "write markdown in the format column") {
			t.Errorf("row %d: %+v, want %s", i+2, it, want)
		}
	}
	if bank.Questions[0].Format != "" || bank.Questions[0].Text != "Hitung $x^2$ untuk x = 3." {
		t.Errorf("q1 %+v", bank.Questions[0])
	}
}
