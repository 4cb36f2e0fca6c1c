// Package analysissheet writes an exam's item analysis as the table
// teachers paste into their reports ("analisis butir soal"): one row per
// question in the paper's order, as CSV or as an xlsx workbook (a summary
// sheet and a questions sheet), in Indonesian or English. It also holds
// the names of the bands and flags, which the console shows too.
package analysissheet

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/itemanalysis"
)

// Format is a file format of the table.
type Format string

// The formats.
const (
	CSV  Format = "csv"
	XLSX Format = "xlsx"
)

// Download writes a's table in format f and language lang as the answer
// to a download: the whole file, its media type, and a file name
// (FileName) as an attachment, not kept by caches. On an error nothing is
// written, so the caller can answer with it.
func Download(w http.ResponseWriter, a exam.ItemAnalysis, f Format, lang string) error {
	var buf bytes.Buffer
	if err := Write(&buf, a, f, lang); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", contentType(f))
	h.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", FileName(a, f)))
	h.Set("Cache-Control", "no-store")
	_, err := w.Write(buf.Bytes())
	return err
}

// contentType returns the media type of format.
func contentType(f Format) string {
	if f == XLSX {
		return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	}
	return "text/csv; charset=utf-8"
}

// FileName returns the name a download of a's table takes.
func FileName(a exam.ItemAnalysis, f Format) string {
	name := "analisis-" + a.ExamID
	if a.Filter.NPSN != "" {
		name += "-" + a.Filter.NPSN
	}
	return name + "." + string(f)
}

// labels are the names of the bands and flags, and the table's headings,
// by language ("id" or "en") and key.
var labels = map[string]map[string]string{
	"en": {
		"difficulty.very_easy": "very easy", "difficulty.easy": "easy", "difficulty.medium": "medium",
		"difficulty.hard": "hard", "difficulty.very_hard": "very hard",
		"discrimination.negative": "negative", "discrimination.poor": "poor", "discrimination.fair": "fair",
		"discrimination.good": "good", "discrimination.excellent": "excellent",
		"flag.key_doubtful": "key probably wrong", "flag.negative_discrimination": "weaker students did better",
		"flag.unchosen_distractor": "an option nobody chose", "flag.all_correct": "everybody right",
		"omitted": "blank", "pending": "not analysed: answers to grade", "no_points": "not analysed: worth no points",
		"h.no": "No", "h.id": "Question id", "h.text": "Question", "h.key": "Key", "h.max": "Max points",
		"h.mean": "Mean points", "h.p": "Facility (P)", "h.difficulty": "Difficulty", "h.upper": "Upper 27 %",
		"h.lower": "Lower 27 %", "h.d": "Discrimination (D)", "h.discrimination": "Discrimination band",
		"h.rit": "Item-rest correlation", "h.options": "Answers chosen", "h.notes": "Notes",
		"sheet.summary": "Summary", "sheet.items": "Questions",
		"s.exam": "Exam", "s.npsn": "School (NPSN)", "s.kelas": "Class", "s.year": "Academic year", "s.region": "Region", "s.students": "Students",
		"s.max": "Max score", "s.mean": "Mean", "s.sd": "SD", "s.min": "Min", "s.q1": "Q1", "s.median": "Median",
		"s.q3": "Q3", "s.maxscore": "Highest score", "s.kr20": "KR-20", "s.alpha": "Cronbach's alpha", "s.sem": "SEM",
		"all": "all",
	},
	"id": {
		"difficulty.very_easy": "sangat mudah", "difficulty.easy": "mudah", "difficulty.medium": "sedang",
		"difficulty.hard": "sukar", "difficulty.very_hard": "sangat sukar",
		"discrimination.negative": "negatif", "discrimination.poor": "jelek", "discrimination.fair": "cukup",
		"discrimination.good": "baik", "discrimination.excellent": "baik sekali",
		"flag.key_doubtful": "kunci mungkin salah", "flag.negative_discrimination": "siswa lemah lebih baik",
		"flag.unchosen_distractor": "pengecoh tidak dipilih", "flag.all_correct": "semua menjawab benar",
		"omitted": "kosong", "pending": "tidak dianalisis: jawaban belum dinilai", "no_points": "tidak dianalisis: tanpa skor",
		"h.no": "No", "h.id": "ID soal", "h.text": "Soal", "h.key": "Kunci", "h.max": "Skor maks",
		"h.mean": "Rata-rata skor", "h.p": "Tingkat kesukaran (P)", "h.difficulty": "Kategori kesukaran",
		"h.upper": "Kelompok atas 27 %", "h.lower": "Kelompok bawah 27 %", "h.d": "Daya pembeda (D)",
		"h.discrimination": "Kategori daya pembeda", "h.rit": "Korelasi butir-sisa", "h.options": "Sebaran jawaban",
		"h.notes":       "Catatan",
		"sheet.summary": "Ringkasan", "sheet.items": "Butir soal",
		"s.exam": "Ujian", "s.npsn": "Sekolah (NPSN)", "s.kelas": "Kelas", "s.year": "Tahun ajaran", "s.region": "Wilayah", "s.students": "Jumlah siswa",
		"s.max": "Skor maksimum", "s.mean": "Rata-rata", "s.sd": "Simpangan baku", "s.min": "Terendah", "s.q1": "Kuartil 1",
		"s.median": "Median", "s.q3": "Kuartil 3", "s.maxscore": "Tertinggi", "s.kr20": "KR-20", "s.alpha": "Alpha Cronbach",
		"s.sem": "SEM", "all": "semua",
	},
}

// Label returns the name of key in lang ("id", else English): a band
// ("difficulty.hard", "discrimination.good"), a flag ("flag.all_correct")
// or a heading.
func Label(lang, key string) string {
	if lang != "id" {
		lang = "en"
	}
	if s, ok := labels[lang][key]; ok {
		return s
	}
	return key
}

// cell is one value of the table: a text, or a number (nil for a figure
// the data leave undefined, an empty cell).
type cell struct {
	text   string
	number *float64
	isNum  bool
}

func text(s string) cell   { return cell{text: s} }
func num(v *float64) cell  { return cell{number: v, isNum: true} }
func value(v float64) cell { return num(&v) }
func (c cell) csv() string {
	if !c.isNum {
		// A text a spreadsheet would read as a formula (a question
		// starting with "=") is kept as text by a leading apostrophe,
		// as OWASP advises against CSV injection.
		if c.text != "" && strings.ContainsRune("=+-@\t\r", rune(c.text[0])) {
			return "'" + c.text
		}
		return c.text
	}
	if c.number == nil {
		return ""
	}
	return strconv.FormatFloat(math.Round(*c.number*1e4)/1e4, 'f', -1, 64)
}

// headings are the questions table's column keys.
var headings = []string{"h.no", "h.id", "h.text", "h.key", "h.max", "h.mean", "h.p", "h.difficulty", "h.upper", "h.lower",
	"h.d", "h.discrimination", "h.rit", "h.options", "h.notes"}

// rows returns the questions table, its headings first: the analysed and
// the skipped questions in the paper's order.
func rows(a exam.ItemAnalysis, lang string) [][]cell {
	head := make([]cell, len(headings))
	for i, h := range headings {
		head[i] = text(Label(lang, h))
	}
	type numbered struct {
		n   int
		row []cell
	}
	var body []numbered
	for i, it := range a.Report.Items {
		q := a.Questions[i]
		key := ""
		switch q.Question.Type {
		case exam.SingleChoice, exam.MultipleChoice, exam.TrueFalse:
			key = strings.Join(q.Question.Answer, ", ")
		}
		band := func(prefix, v string) cell {
			if v == "" {
				return text("")
			}
			return text(Label(lang, prefix+v))
		}
		notes := make([]string, len(it.Flags))
		for k, f := range it.Flags {
			notes[k] = Label(lang, "flag."+string(f))
		}
		body = append(body, numbered{q.Number, []cell{value(float64(q.Number)), text(q.Question.ID), text(q.Question.Text), text(key),
			value(it.MaxPoints), num(it.MeanPoints), num(it.Facility), band("difficulty.", string(it.Difficulty)), num(it.Upper), num(it.Lower),
			num(it.UpperLower), band("discrimination.", string(it.Discrimination)), num(it.ItemRest), text(options(it, lang)),
			text(strings.Join(notes, "; "))}})
	}
	for _, s := range a.Skipped {
		why := Label(lang, "no_points")
		if s.Pending > 0 {
			why = fmt.Sprintf("%s (%d)", Label(lang, "pending"), s.Pending)
		}
		r := make([]cell, len(headings))
		for k := range r {
			r[k] = text("")
		}
		r[0], r[1], r[len(r)-1] = value(float64(s.Number)), text(s.QuestionID), text(why)
		body = append(body, numbered{s.Number, r})
	}
	slices.SortStableFunc(body, func(x, y numbered) int { return cmp.Compare(x.n, y.n) })
	out := [][]cell{head}
	for _, b := range body {
		out = append(out, b.row)
	}
	return out
}

// options describes a choice question's answers: "a 12 % · b ✓ 60 % ·
// blank 8 %"; empty for other questions.
func options(it itemanalysis.ItemReport, lang string) string {
	if len(it.Options) == 0 {
		return ""
	}
	var parts []string
	add := func(label string, o itemanalysis.OptionReport) {
		if o.Key {
			label += " ✓"
		}
		share := "–"
		if o.Share != nil {
			share = strconv.FormatFloat(100**o.Share, 'f', 0, 64) + " %"
		}
		parts = append(parts, label+" "+share)
	}
	for _, o := range it.Options {
		add(o.Option, o)
	}
	if it.Omitted != nil {
		add(Label(lang, "omitted"), *it.Omitted)
	}
	return strings.Join(parts, " · ")
}

// Write writes a's table to w in format, with lang's headings and names.
func Write(w io.Writer, a exam.ItemAnalysis, f Format, lang string) error {
	table := rows(a, lang)
	if f == CSV {
		cw := csv.NewWriter(w)
		for _, r := range table {
			rec := make([]string, len(r))
			for i, c := range r {
				rec[i] = c.csv()
			}
			if err := cw.Write(rec); err != nil {
				return fmt.Errorf("analysis csv: %w", err)
			}
		}
		cw.Flush()
		return cw.Error()
	}
	return writeXLSX(w, a, table, lang)
}

// writeXLSX writes the workbook: the summary, then the questions, numbers
// as numbers (two decimals shown).
func writeXLSX(w io.Writer, a exam.ItemAnalysis, table [][]cell, lang string) error {
	x := excelize.NewFile()
	defer x.Close()
	summary, items := Label(lang, "sheet.summary"), Label(lang, "sheet.items")
	if err := x.SetSheetName("Sheet1", summary); err != nil {
		return fmt.Errorf("analysis xlsx: %w", err)
	}
	if _, err := x.NewSheet(items); err != nil {
		return fmt.Errorf("analysis xlsx: %w", err)
	}
	decimals, err := x.NewStyle(&excelize.Style{NumFmt: 2}) // 0.00
	if err != nil {
		return fmt.Errorf("analysis xlsx: %w", err)
	}
	bold, err := x.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return fmt.Errorf("analysis xlsx: %w", err)
	}
	orAll := func(s string) string {
		if s == "" {
			return Label(lang, "all")
		}
		return s
	}
	rep := a.Report
	sc := rep.Scores
	reliability := []cell{num(rep.KR20), num(rep.Alpha), num(rep.SEM)}
	sum := [][]cell{
		{text(Label(lang, "s.exam")), text(a.ExamTitle)},
		{text(Label(lang, "s.npsn")), text(orAll(a.Filter.NPSN))},
		{text(Label(lang, "s.kelas")), text(orAll(a.Filter.Kelas))},
		{text(Label(lang, "s.year")), text(orAll(a.Filter.AcademicYear))},
		{text(Label(lang, "s.region")), text(orAll(a.Filter.Region))},
		{text(Label(lang, "s.students")), value(float64(rep.Students))},
		{text(Label(lang, "s.max")), value(rep.MaxScore)},
		{text(Label(lang, "s.mean")), num(sc.Mean)}, {text(Label(lang, "s.sd")), num(sc.SD)},
		{text(Label(lang, "s.min")), num(sc.Min)}, {text(Label(lang, "s.q1")), num(sc.Q1)},
		{text(Label(lang, "s.median")), num(sc.Median)}, {text(Label(lang, "s.q3")), num(sc.Q3)},
		{text(Label(lang, "s.maxscore")), num(sc.Max)},
		{text(Label(lang, "s.kr20")), reliability[0]}, {text(Label(lang, "s.alpha")), reliability[1]},
		{text(Label(lang, "s.sem")), reliability[2]},
	}
	if err := fill(x, summary, sum, decimals, bold, false); err != nil {
		return err
	}
	if err := fill(x, items, table, decimals, bold, true); err != nil {
		return err
	}
	x.SetColWidth(summary, "A", "A", 22)
	x.SetColWidth(summary, "B", "B", 40)
	x.SetColWidth(items, "C", "C", 50)
	x.SetColWidth(items, "N", "O", 36)
	if err := x.Write(w); err != nil {
		return fmt.Errorf("analysis xlsx: %w", err)
	}
	return nil
}

// fill writes table into sheet from A1: numbers as numbers with two
// decimals, undefined ones as empty cells; the first column (summary) or
// the first row (questions) bold.
func fill(x *excelize.File, sheet string, table [][]cell, decimals, bold int, headRow bool) error {
	for r, row := range table {
		for c, v := range row {
			ref, err := excelize.CoordinatesToCellName(c+1, r+1)
			if err != nil {
				return fmt.Errorf("analysis xlsx: %w", err)
			}
			switch {
			case !v.isNum:
				err = x.SetCellStr(sheet, ref, v.text)
			case v.number != nil:
				err = x.SetCellFloat(sheet, ref, *v.number, -1, 64)
				if err == nil && *v.number != math.Trunc(*v.number) {
					err = x.SetCellStyle(sheet, ref, ref, decimals)
				}
			}
			if err == nil && ((headRow && r == 0) || (!headRow && c == 0)) {
				err = x.SetCellStyle(sheet, ref, ref, bold)
			}
			if err != nil {
				return fmt.Errorf("analysis xlsx: %w", err)
			}
		}
	}
	return nil
}
