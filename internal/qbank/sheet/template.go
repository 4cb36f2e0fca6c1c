// Package sheet reads and writes the spreadsheet template of a question
// bank (.xlsx, docs/question-banks.md): one row a question on the
// sheet "Soal", shared passages on the sheet "Stimulus", and the
// instructions with an example of every question type on "Petunjuk".
package sheet

import (
	"fmt"
	"io"

	"github.com/xuri/excelize/v2"

	"github.com/seedhq/portal/internal/exam"
)

// The sheets of the template.
const (
	QuestionSheet    = "Soal"
	StimulusSheet    = "Stimulus"
	InstructionSheet = "Petunjuk"
)

// column is one column of the questions sheet.
type column struct {
	name, note string
	width      float64
}

// Columns are the questions sheet's columns, in the template's order. An
// import finds them by their header's name, in any order.
var columns = []column{
	{"id", "Kode soal: huruf, angka, titik, minus, garis bawah (kosong: q1, q2, ... menurut baris).", 10},
	{"type", "single_choice, multiple_choice, true_false, short_answer, essay, statement_grid, matching, numeric (isian_angka), cloze (isian_rumpang).", 16},
	{"format", "plain (kosong) atau markdown (rumus $...$, tabel, gambar).", 10},
	{"text", "Teks soal. Gambar/audio: ![deskripsi](nama-file.png), file di zip di samping lembar ini.", 50},
	{"options", "Pilihan, satu per baris: \"a: teks\" (single_choice, multiple_choice).", 30},
	{"answer", "Kunci: id pilihan (a), beberapa per baris (multiple_choice), true/false, jawaban singkat satu per baris, \"s1=true\" (statement_grid), \"p1=r2\" (matching), angka satu per baris (numeric), satu baris per isian \"b1 = Jakarta | DKI Jakarta\", \"b2 = 128,3 ± 0,5\", \"b3 = *selatan | utara\" (cloze).", 16},
	{"points", "Skor (kosong: 1; esai kosong: 0).", 8},
	{"media", "Nama file gambar/audio, satu per baris, yang belum disebut di teks (ditambahkan di akhir teks).", 18},
	{"stimulus", "Id bacaan bersama dari lembar Stimulus.", 10},
	{"rubric", "Pedoman penskoran esai untuk penilai.", 30},
	{"play_limit", "Batas putar audio (soal listening, markdown), 0 atau kosong: bebas.", 10},
	{"scoring", "statement_grid/matching: kosong (semua benar) atau partial.", 10},
	{"statements", "statement_grid: pernyataan, satu per baris \"s1: teks\".", 30},
	{"columns", "statement_grid: kolom jawaban \"true: Benar\" (kosong: Benar/Salah).", 16},
	{"premises", "matching: premis, satu per baris \"p1: teks\".", 30},
	{"responses", "matching: jawaban, satu per baris \"r1: teks\" (boleh lebih banyak dari premis).", 30},
	{"reuse_responses", "matching: true jika satu jawaban boleh dipakai beberapa premis.", 10},
	{"tolerance", "numeric: selisih yang masih benar, 0,5 (mutlak) atau 5% (persen dari kunci); kosong: tepat.", 10},
	{"category", "Kategori soal di bank, misalnya Matematika/Aljabar (boleh kosong).", 20},
	{"irt", "Parameter kalibrasi IRT yang disimpan portal, misalnya \"2pl b=-0.7500 a=1.2000 n=812\" (boleh kosong; docs/item-analysis.md).", 30},
}

// stimulusColumns are the stimulus sheet's columns.
var stimulusColumns = []column{
	{"id", "Id bacaan, disebut di kolom stimulus soal.", 10},
	{"title", "Judul (boleh kosong).", 24},
	{"format", "plain (kosong) atau markdown.", 10},
	{"text", "Teks bacaan; gambar ![deskripsi](nama-file.png).", 80},
}

// types lists the question types, for the type column's list.
var types = []string{string(exam.SingleChoice), string(exam.MultipleChoice), string(exam.TrueFalse),
	string(exam.ShortAnswer), string(exam.Essay), string(exam.StatementGrid), string(exam.Matching),
	string(exam.Numeric), string(exam.Cloze)}

// examples is one example row per question type (the instruction sheet).
var examples = [][]string{
	{"q1", "single_choice", "", "Ibu kota Indonesia adalah ...", "a: Jakarta\nb: Bandung\nc: Surabaya", "a", "1", "", "", "", "", "", "", "", "", "", ""},
	{"q2", "multiple_choice", "markdown", "Manakah bilangan prima? $p > 1$", "a: 2\nb: 4\nc: 5", "a\nc", "2", "", "", "", "", "", "", "", "", "", ""},
	{"q3", "true_false", "", "Air mendidih pada 100 °C di permukaan laut.", "", "true", "1", "", "", "", "", "", "", "", "", "", ""},
	{"q4", "short_answer", "", "Hasil dari 7 × 8 adalah ...", "", "56\nlima puluh enam", "1", "", "", "", "", "", "", "", "", "", ""},
	{"q5", "essay", "", "Jelaskan proses fotosintesis.", "", "", "5", "", "bacaan1", "Menyebut cahaya, klorofil, CO2 dan air: 5.", "", "", "", "", "", "", ""},
	{"q6", "statement_grid", "", "Tentukan benar atau salah.", "", "s1=true\ns2=false", "2", "", "", "", "", "partial", "s1: 2 + 2 = 4\ns2: 3 × 3 = 6", "true: Benar\nfalse: Salah", "", "", ""},
	{"q7", "matching", "", "Jodohkan provinsi dengan ibu kotanya.", "", "p1=r1\np2=r2", "2", "", "", "", "", "", "", "", "p1: Jawa Barat\np2: Bali", "r1: Bandung\nr2: Denpasar\nr3: Medan", ""},
	{"q8", "single_choice", "markdown", "Perhatikan grafik berikut.\n\n![Grafik curah hujan](grafik.png)\n\nBulan dengan curah hujan tertinggi?", "a: Maret\nb: Juli", "a", "1", "grafik.png", "", "", "", "", "", "", "", "", ""},
	{"q9", "numeric", "", "Percepatan gravitasi bumi (m/s²) adalah ...", "", "9,8", "1", "", "", "", "", "", "", "", "", "", "", "0,1"},
	{"q10", "cloze", "", "Ibu kota Indonesia adalah [[b1]]. Panjang sisi [[b2]] cm, di sebelah [[b3]].", "", "b1 = Jakarta | DKI Jakarta\nb2 (2) = 128,3 ± 0,5\nb3 = *selatan | utara", "", "", "", "", "", "", "", "", "", "", ""},
}

// instructions are the instruction sheet's lines above the examples.
var instructions = []string{
	"Petunjuk pengisian bank soal",
	"1. Isi lembar \"Soal\": satu baris satu soal, mulai baris 2. Jangan mengubah nama kolom di baris 1 (urutan kolom boleh diubah).",
	"2. Pilihan, pernyataan, premis dan jawaban menjodohkan ditulis satu per baris (Alt+Enter di Excel): \"id: teks\". Baris yang tidak diawali \"id:\" menyambung baris sebelumnya. Pilihan bergaya \"A. Soekarno\" / \"B. Hatta\" (huruf berurutan) juga dibaca, dan kuncinya boleh \"A\".",
	"3. Kunci (answer): id pilihan; beberapa kunci satu per baris; true/false; jawaban singkat yang diterima satu per baris; statement_grid \"s1=true\"; matching \"p1=r2\".",
	"4. Gambar dan audio: tulis ![deskripsi](nama-file.png) di teks (format markdown) atau nama file di kolom media; kirim file .xlsx ini bersama file-filenya dalam satu .zip. Gambar yang ditempel di sel baris soal juga dibaca.",
	"5. Bacaan bersama (stimulus): isi lembar \"Stimulus\" (id, title, format, text) dan tulis id-nya di kolom stimulus soal.",
	"6. Rumus: format markdown, $\\frac{1}{2}$ atau $$...$$. Rumus yang salah membuat soal ditolak (TEX_ERROR).",
	"7. Sel yang digabung (merge) ke bawah, misalnya stimulus atau poin untuk tiga soal, berlaku untuk setiap baris yang dicakupnya; sel yang digabung ke samping hanya mengisi kolom pertamanya.",
	"8. Isian angka (numeric atau isian_angka): kunci angka satu per baris, koma atau titik desimal (2,5 = 2.5); kolom tolerance: 0,5 (selisih mutlak) atau 5% (persen dari kunci), kosong: harus tepat.",
	"9. Isian rumpang (cloze atau isian_rumpang): tandai isian di teks [[b1]], [[b2]], ...; kunci satu baris per isian (atau dipisah ;): \"b1 = Jakarta | DKI Jakarta\" (jawaban teks yang diterima, dipisah |), \"b2 = 128,3 ± 0,5\" (angka, ± atau +- lalu toleransi, 5% persen, ± 0 tepat), \"b3 = *selatan | utara | barat\" (pilihan, yang benar diberi *). Skor isian selain 1: \"b2 (2) = ...\"; tanpa itu, kolom points dibagi rata. Tanda | ; atau * yang termasuk jawaban ditulis \\| \\; \\*.",
	"Contoh satu baris per jenis soal:",
}

// Template writes the empty template a teacher fills in.
func Template(w io.Writer) error {
	f, err := newWorkbook()
	if err != nil {
		return err
	}
	defer f.Close()
	return write(f, w)
}

// newWorkbook builds the template: the questions sheet with its header,
// notes and lists, the stimulus sheet and the instructions.
func newWorkbook() (*excelize.File, error) {
	f := excelize.NewFile()
	if err := f.SetSheetName("Sheet1", QuestionSheet); err != nil {
		return nil, err
	}
	if _, err := f.NewSheet(StimulusSheet); err != nil {
		return nil, err
	}
	if _, err := f.NewSheet(InstructionSheet); err != nil {
		return nil, err
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true},
		Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"DDEBF7"}}})
	if err != nil {
		return nil, err
	}
	for _, sh := range []struct {
		name string
		cols []column
	}{{QuestionSheet, columns}, {StimulusSheet, stimulusColumns}} {
		for i, c := range sh.cols {
			cell, _ := excelize.CoordinatesToCellName(i+1, 1)
			colName, _ := excelize.ColumnNumberToName(i + 1)
			if err := f.SetCellValue(sh.name, cell, c.name); err != nil {
				return nil, err
			}
			if err := f.SetColWidth(sh.name, colName, colName, c.width); err != nil {
				return nil, err
			}
			if err := f.AddComment(sh.name, excelize.Comment{Author: "portal", Cell: cell, Text: c.note}); err != nil {
				return nil, err
			}
		}
		last, _ := excelize.CoordinatesToCellName(len(sh.cols), 1)
		if err := f.SetCellStyle(sh.name, "A1", last, bold); err != nil {
			return nil, err
		}
		if err := f.SetPanes(sh.name, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
			return nil, err
		}
	}
	for name, list := range map[string][]string{"type": types, "format": {"plain", "markdown"}, "scoring": {"partial"},
		"reuse_responses": {"true", "false"}} {
		dv := excelize.NewDataValidation(true)
		col, _ := excelize.ColumnNumberToName(columnIndex(name) + 1)
		dv.SetSqref(fmt.Sprintf("%s2:%s%d", col, col, 1+1000))
		if err := dv.SetDropList(list); err != nil {
			return nil, err
		}
		if err := f.AddDataValidation(QuestionSheet, dv); err != nil {
			return nil, err
		}
	}
	for i, line := range instructions {
		if err := f.SetCellValue(InstructionSheet, fmt.Sprintf("A%d", i+1), line); err != nil {
			return nil, err
		}
	}
	head := len(instructions) + 1
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i] = c.name
	}
	if err := f.SetSheetRow(InstructionSheet, fmt.Sprintf("A%d", head), &names); err != nil {
		return nil, err
	}
	for i, ex := range examples {
		if err := f.SetSheetRow(InstructionSheet, fmt.Sprintf("A%d", head+1+i), &ex); err != nil {
			return nil, err
		}
	}
	stim := []string{"bacaan1", "Fotosintesis", "", "Tumbuhan membuat makanannya sendiri dengan bantuan cahaya matahari."}
	if err := f.SetSheetRow(InstructionSheet, fmt.Sprintf("A%d", head+len(examples)+2), &[]string{"Contoh baris lembar Stimulus:"}); err != nil {
		return nil, err
	}
	if err := f.SetSheetRow(InstructionSheet, fmt.Sprintf("A%d", head+len(examples)+3), &stim); err != nil {
		return nil, err
	}
	if err := f.SetColWidth(InstructionSheet, "A", "A", 16); err != nil {
		return nil, err
	}
	return f, nil
}

// columnIndex returns the index of the questions sheet's column name.
func columnIndex(name string) int {
	for i, c := range columns {
		if c.name == name {
			return i
		}
	}
	panic("sheet: no column " + name)
}

func write(f *excelize.File, w io.Writer) error {
	if err := f.Write(w); err != nil {
		return fmt.Errorf("write spreadsheet: %w", err)
	}
	return nil
}
