package sheet

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/richtext"
)

// Limits of the spreadsheet reader, besides qbank's.
const (
	// unzipLimit bounds what excelize unpacks from the .xlsx, all parts
	// together (it holds them in memory).
	unzipLimit = qbank.MaxFileSize
	// unzipXMLLimit is the size of a worksheet's XML above which excelize
	// spools it to a temporary file instead of memory.
	unzipXMLLimit = 16 << 20
	// titleRunes is how much of a question's text titles its report when
	// it has no id.
	titleRunes = 60
)

// FileFunc opens a media file a row names, from the .zip the sheet came in
// (false: no such file).
type FileFunc func(name string) (io.ReadCloser, bool)

// Import reads a question bank from the .xlsx in ra (size bytes): the rows
// of the sheet "Soal" (else the first sheet), one question a row, and the
// passages of the sheet "Stimulus". The media a row names come from files
// (nil: none) or are pictures embedded in the row's cells; they are stored
// in media and their names in the texts become media: references. Every
// row has its report, at its row number; a row that cannot be a question
// is refused there. A file that is not a readable spreadsheet, or holds
// more than qbank.MaxItems rows, is refused as a whole.
func Import(ctx context.Context, ra io.ReaderAt, size int64, media qbank.MediaStore, files FileFunc) (*qbank.Bank, error) {
	if size > qbank.MaxFileSize {
		return nil, qbank.ErrTooLarge
	}
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, qbank.Invalid("the file is not an .xlsx spreadsheet")
	}
	if len(zr.File) > qbank.MaxArchiveEntries {
		return nil, qbank.Invalid("the spreadsheet holds more than %d parts", qbank.MaxArchiveEntries)
	}
	f, err := excelize.OpenReader(io.NewSectionReader(ra, 0, size),
		excelize.Options{UnzipSizeLimit: unzipLimit, UnzipXMLSizeLimit: unzipXMLLimit})
	if err != nil {
		if strings.Contains(err.Error(), "unzip size exceeds") {
			return nil, qbank.ErrTooLarge
		}
		return nil, qbank.Invalid("the spreadsheet cannot be read: %v", err)
	}
	defer f.Close()
	im := &importer{ctx: ctx, f: f, media: media, files: files, uploaded: map[string]exam.Media{}}
	return im.run()
}

// importer is one import's state.
type importer struct {
	ctx      context.Context
	f        *excelize.File
	media    qbank.MediaStore
	files    FileFunc
	uploaded map[string]exam.Media // by file name
	stimuli  map[string]*stimulusRow
	order    []string // stimulus ids in the sheet's order
	bank     qbank.Bank
}

// stimulusRow is one row of the stimulus sheet, its media resolved.
type stimulusRow struct {
	st      exam.Stimulus
	refusal *refusal // why it cannot be shown, nil when it can
	used    bool
}

// refusal is why a row is refused.
type refusal struct{ code, message string }

func (r *refusal) Error() string { return r.code + ": " + r.message }

func refuse(code, format string, args ...any) *refusal {
	return &refusal{code, fmt.Sprintf(format, args...)}
}

func (im *importer) run() (*qbank.Bank, error) {
	sheets := im.f.GetSheetList()
	if len(sheets) == 0 {
		return nil, qbank.Invalid("the spreadsheet has no sheets")
	}
	qsheet := sheets[0]
	for _, s := range sheets {
		if strings.EqualFold(s, QuestionSheet) {
			qsheet = s
		}
		if strings.EqualFold(s, StimulusSheet) {
			if err := im.readStimuli(s); err != nil {
				return nil, err
			}
		}
	}
	pictures, err := im.pictureCells(qsheet)
	if err != nil {
		return nil, err
	}
	merged, err := im.mergedDown(qsheet)
	if err != nil {
		return nil, err
	}
	rows, err := im.f.Rows(qsheet)
	if err != nil {
		return nil, qbank.Invalid("the sheet %q cannot be read: %v", qsheet, err)
	}
	defer rows.Close()
	var header map[string]int
	headerRow := 0
	seen := map[string]bool{}
	items := 0
	for n := 1; rows.Next(); n++ {
		if err := im.ctx.Err(); err != nil {
			return nil, err
		}
		cells, err := rows.Columns()
		if err != nil {
			return nil, qbank.Invalid("row %d cannot be read: %v", n, err)
		}
		if header == nil {
			if blank(cells) {
				continue
			}
			header, headerRow = map[string]int{}, n
			for i, c := range cells {
				if k := strings.ToLower(strings.TrimSpace(c)); k != "" {
					if _, dup := header[k]; !dup { // the first of two same names
						header[k] = i
					}
				}
			}
			if _, ok := header["type"]; !ok {
				return nil, qbank.Invalid("the first row of the sheet %q names no column type (use the template)", qsheet)
			}
			if _, ok := header["text"]; !ok {
				return nil, qbank.Invalid("the first row of the sheet %q names no column text (use the template)", qsheet)
			}
			continue
		}
		if blank(cells) && len(pictures[n]) == 0 {
			continue
		}
		for _, m := range merged[n] {
			if m.from <= headerRow {
				continue
			}
			for len(cells) <= m.col {
				cells = append(cells, "")
			}
			if cells[m.col] == "" {
				cells[m.col] = m.value
			}
		}
		if items++; items > qbank.MaxItems {
			return nil, qbank.ErrTooManyItems
		}
		get := func(name string) string {
			i, ok := header[name]
			if !ok || i >= len(cells) {
				return ""
			}
			return strings.ReplaceAll(cells[i], "\r\n", "\n")
		}
		rep, q, err := im.row(n, get, pictures[n])
		if err != nil {
			return nil, err
		}
		if rep.Status != qbank.Refused && seen[q.ID] {
			rep.Status, rep.Code, rep.Message, rep.Changes = qbank.Refused, "DUPLICATE_ID",
				fmt.Sprintf("another row has the id %q", q.ID), nil
		}
		if rep.Status != qbank.Refused {
			seen[q.ID] = true
			im.bank.Questions = append(im.bank.Questions, q)
			if q.Stimulus != "" {
				im.stimuli[q.Stimulus].used = true
			}
		}
		im.bank.Items = append(im.bank.Items, rep)
	}
	if err := rows.Error(); err != nil {
		return nil, qbank.Invalid("the sheet %q cannot be read: %v", qsheet, err)
	}
	if header == nil {
		return nil, qbank.Invalid("the sheet %q is empty", qsheet)
	}
	for _, id := range im.order {
		if sr := im.stimuli[id]; sr.used {
			im.bank.Stimuli = append(im.bank.Stimuli, sr.st)
		}
	}
	return &im.bank, nil
}

// mergedCell is a cell under the first of a range merged down: the
// range's value, from its first row.
type mergedCell struct {
	col   int // from 0
	from  int // the range's first row
	value string
}

// mergedDown maps each row of sheet to its cells that a range merged over
// several rows covers below its first (excelize's GetMergeCells): such a
// cell holds the range's value, so that a stimulus or points merged over
// three questions applies to each. A range over several columns gives
// its value to its first column only.
func (im *importer) mergedDown(sheet string) (map[int][]mergedCell, error) {
	ranges, err := im.f.GetMergeCells(sheet)
	if err != nil {
		return nil, qbank.Invalid("the merged cells of the sheet %q cannot be read: %v", sheet, err)
	}
	out := map[int][]mergedCell{}
	for _, m := range ranges {
		col, from, err1 := excelize.CellNameToCoordinates(m.GetStartAxis())
		_, to, err2 := excelize.CellNameToCoordinates(m.GetEndAxis())
		if err1 != nil || err2 != nil || to <= from {
			continue
		}
		to = min(to, from+qbank.MaxItems) // a merge down the whole sheet fills no more rows than a bank holds
		for r := from + 1; r <= to; r++ {
			out[r] = append(out[r], mergedCell{col: col - 1, from: from, value: m.GetCellValue()})
		}
	}
	return out, nil
}

// pictureCells maps each row of sheet to its cells holding pictures.
func (im *importer) pictureCells(sheet string) (map[int][]string, error) {
	cells, err := im.f.GetPictureCells(sheet)
	if err != nil {
		return nil, qbank.Invalid("the pictures of the sheet %q cannot be read: %v", sheet, err)
	}
	out := map[int][]string{}
	for _, c := range cells {
		_, row, err := excelize.CellNameToCoordinates(c)
		if err != nil {
			continue
		}
		out[row] = append(out[row], c)
	}
	return out, nil
}

func blank(cells []string) bool {
	for _, c := range cells {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// readStimuli reads the stimulus sheet.
func (im *importer) readStimuli(sheet string) error {
	im.stimuli = map[string]*stimulusRow{}
	rows, err := im.f.Rows(sheet)
	if err != nil {
		return qbank.Invalid("the sheet %q cannot be read: %v", sheet, err)
	}
	defer rows.Close()
	var header map[string]int
	for n := 1; rows.Next(); n++ {
		cells, err := rows.Columns()
		if err != nil {
			return qbank.Invalid("the sheet %q, row %d cannot be read: %v", sheet, n, err)
		}
		if blank(cells) {
			continue
		}
		if header == nil {
			header = map[string]int{}
			for i, c := range cells {
				if k := strings.ToLower(strings.TrimSpace(c)); k != "" {
					if _, dup := header[k]; !dup { // the first of two same names
						header[k] = i
					}
				}
			}
			continue
		}
		if len(im.order) >= qbank.MaxItems {
			return qbank.ErrTooManyItems
		}
		get := func(name string) string {
			i, ok := header[name]
			if !ok || i >= len(cells) {
				return ""
			}
			return strings.ReplaceAll(cells[i], "\r\n", "\n")
		}
		id := strings.TrimSpace(get("id"))
		if id == "" || im.stimuli[id] != nil {
			continue // a question naming it is refused: no such stimulus
		}
		sr := &stimulusRow{st: exam.Stimulus{ID: id, Title: strings.TrimSpace(get("title")), Text: get("text")}}
		format, ferr := parseFormat(get("format"))
		if ferr != nil {
			sr.refusal = ferr
		} else {
			sr.st.Format = format
			var changes []string
			sr.refusal = im.resolveTexts(format, []*string{&sr.st.Text}, &changes)
			if sr.refusal == nil {
				sr.refusal = checkTeX(format, "text", sr.st.Text)
			}
		}
		im.stimuli[id] = sr
		im.order = append(im.order, id)
	}
	return rows.Error()
}

// row reads one row of the questions sheet into a question and its report.
// Only a failure of the store is an error; a row that cannot be a question
// is a refused report.
func (im *importer) row(n int, get func(string) string, pictureCells []string) (qbank.ItemReport, exam.Question, error) {
	q := exam.Question{ID: strings.TrimSpace(get("id")), Text: get("text"), Stimulus: strings.TrimSpace(get("stimulus")),
		Rubric: get("rubric"), Scoring: strings.ToLower(strings.TrimSpace(get("scoring"))), Category: strings.TrimSpace(get("category"))}
	rep := qbank.ItemReport{Position: n, Title: q.ID, Kind: strings.TrimSpace(get("type")), Category: q.Category}
	if rep.Title == "" {
		rep.Title = titleOf(q.Text)
	}
	if q.ID == "" {
		q.ID = fmt.Sprintf("q%d", n-1)
	}
	rep.QuestionID = q.ID
	var changes []string
	ref, err := im.fill(&q, get, pictureCells, &changes)
	if err != nil {
		return rep, q, err
	}
	if ref != nil {
		rep.Status, rep.Code, rep.Message = qbank.Refused, ref.code, ref.message
		return rep, q, nil
	}
	rep.Status = qbank.Imported
	if len(changes) > 0 {
		rep.Status, rep.Changes = qbank.Changed, changes
	}
	return rep, q, nil
}

// fill reads the row's cells into q, stores its media and checks it.
func (im *importer) fill(q *exam.Question, get func(string) string, pictureCells []string, changes *[]string) (*refusal, error) {
	typ := exam.QuestionType(strings.ToLower(strings.TrimSpace(get("type"))))
	if alias, ok := typeAliases[string(typ)]; ok {
		typ = alias
	}
	switch {
	case typ == "":
		return refuse("INVALID_ITEM", "the type is empty"), nil
	case !isType(typ):
		return refuse("UNSUPPORTED_TYPE", "the type %q is not one of %s", typ, strings.Join(types, ", ")), nil
	}
	q.Type = typ
	format, ref := parseFormat(get("format"))
	if ref != nil {
		return ref, nil
	}
	q.Format = format
	for _, part := range []struct {
		col string
		dst *[]exam.Option
	}{{"options", &q.Options}, {"statements", &q.Statements}, {"columns", &q.Columns},
		{"premises", &q.Premises}, {"responses", &q.Responses}} {
		opts, ok := letteredOptions(get(part.col))
		if !ok || part.col != "options" || q.Type != exam.SingleChoice && q.Type != exam.MultipleChoice {
			var ref *refusal
			if opts, ref = parseOptions(part.col, get(part.col)); ref != nil {
				return ref, nil
			}
		}
		*part.dst = opts
	}
	q.Answer = parseAnswer(q.Type, get("answer"))
	if q.Type == exam.SingleChoice || q.Type == exam.MultipleChoice {
		for i, a := range q.Answer {
			q.Answer[i] = letterKey(a, q.Options)
		}
	}
	if p := strings.TrimSpace(get("points")); p != "" {
		v, err := strconv.ParseFloat(strings.Replace(p, ",", ".", 1), 64)
		if err != nil {
			return refuse("INVALID_ITEM", "points %q is not a number", p), nil
		}
		q.Points = v
	}
	if p := strings.TrimSpace(get("play_limit")); p != "" {
		v, err := strconv.Atoi(p)
		if err != nil {
			return refuse("INVALID_ITEM", "play_limit %q is not a whole number", p), nil
		}
		q.PlayLimit = v
	}
	if v := strings.TrimSpace(get("irt")); v != "" {
		p, err := exam.ParseItemParameters(v)
		if err != nil {
			return refuse("INVALID_ITEM", "irt: %v", err), nil
		}
		q.Calibrated = p
	}
	switch v := strings.ToLower(strings.TrimSpace(get("reuse_responses"))); v {
	case "", "false", "0", "no", "tidak":
	case "true", "1", "yes", "ya":
		q.ReuseResponses = true
	default:
		return refuse("INVALID_ITEM", "reuse_responses %q is neither true nor false", v), nil
	}
	if ref := readTolerance(q, get("tolerance")); ref != nil {
		return ref, nil
	}
	if q.Type == exam.Cloze {
		if ref := readCloze(q, get("answer"), changes); ref != nil {
			return ref, nil
		}
	}
	if ref := checkKey(*q); ref != nil {
		return ref, nil
	}

	// Media: the names in the texts, the media column, the pictures.
	var extra []string // markdown images to append to the text
	for _, name := range splitLines(get("media")) {
		m, ref, err := im.upload(name)
		if err != nil || ref != nil {
			return ref, err
		}
		if !strings.Contains(q.Text, "]("+name+")") {
			extra = append(extra, fmt.Sprintf("![%s](media:%s)", altOf(name), m.SHA256))
		}
	}
	if len(pictureCells) > 0 {
		pics, ref, err := im.pictures(pictureCells, changes)
		if err != nil || ref != nil {
			return ref, err
		}
		extra = append(extra, pics...)
	}
	if len(extra) > 0 {
		if q.Format == "" {
			q.Format = "markdown"
			*changes = append(*changes, "the format became markdown, to show the media")
		}
		q.Text = strings.TrimRight(q.Text, "\n ") + "\n\n" + strings.Join(extra, "\n\n")
	}
	texts := []*string{&q.Text}
	parts := [][]exam.Option{q.Options, q.Statements, q.Columns, q.Premises, q.Responses}
	for _, b := range q.Blanks {
		parts = append(parts, b.Options)
	}
	for _, opts := range parts {
		for i := range opts {
			texts = append(texts, &opts[i].Text)
		}
	}
	if q.Format == "" {
		for _, t := range texts {
			if tex := plainTeX(*t); tex != "" {
				*changes = append(*changes, fmt.Sprintf("the format is plain, so the formula %s shows as typed, not as a formula: write markdown in the format column to show it", tex))
				break
			}
		}
	}
	if ref := im.resolveTexts(q.Format, texts, changes); ref != nil {
		return ref, nil
	}
	var stimuli []exam.Stimulus
	if q.Stimulus != "" {
		sr := im.stimuli[q.Stimulus]
		if sr == nil {
			return refuse("INVALID_ITEM", "the sheet %s has no stimulus %q", StimulusSheet, q.Stimulus), nil
		}
		if sr.refusal != nil {
			return refuse(sr.refusal.code, "stimulus %s: %s", q.Stimulus, sr.refusal.message), nil
		}
		stimuli = []exam.Stimulus{sr.st}
	}

	// The exam's own rules, on an exam of this one question.
	e := exam.Exam{Title: "import", NPSNs: []string{"00000000"}, StartsAt: time.Unix(0, 0), EndsAt: time.Unix(86400, 0),
		DurationMinutes: 60, Questions: []exam.Question{*q}, Stimuli: stimuli}
	if err := exam.ValidateExam(&e); err != nil {
		msg := err.Error()
		if ae := apperr.From(err); ae != nil {
			msg = ae.Message
		}
		return refuse("INVALID_ITEM", "%s", strings.TrimPrefix(msg, "questions[0]: ")), nil
	}
	*q = e.Questions[0]
	for _, t := range questionTexts(*q) {
		if ref := checkTeX(q.Format, t.field, t.text); ref != nil {
			return ref, nil
		}
	}
	return nil, nil
}

// pictures stores the pictures embedded in the row's cells and returns
// their markdown.
func (im *importer) pictures(cells []string, changes *[]string) ([]string, *refusal, error) {
	var out []string
	sheet := im.questionSheet()
	for _, cell := range cells {
		pics, err := im.f.GetPictures(sheet, cell)
		if err != nil {
			return nil, refuse("INVALID_ITEM", "the picture in %s cannot be read: %v", cell, err), nil
		}
		for i, p := range pics {
			name := fmt.Sprintf("%s-%d%s", cell, i+1, p.Extension)
			m, err := im.media.UploadMedia(im.ctx, name, bytes.NewReader(p.File))
			if err != nil {
				if ae := apperr.From(err); ae != nil && ae.Kind != apperr.Internal {
					return nil, refuse(ae.Code, "the picture in %s: %s", cell, ae.Message), nil
				}
				return nil, nil, err
			}
			alt := ""
			if p.Format != nil {
				alt = strings.TrimSpace(p.Format.AltText)
			}
			if alt == "" {
				alt = "Gambar"
				*changes = append(*changes, fmt.Sprintf("the picture in %s has no description (alt text): it was described as %q", cell, alt))
			}
			out = append(out, fmt.Sprintf("![%s](media:%s)", escapeAlt(alt), m.SHA256))
		}
	}
	return out, nil, nil
}

// questionSheet is the name of the sheet the questions are read from.
func (im *importer) questionSheet() string {
	sheets := im.f.GetSheetList()
	for _, s := range sheets {
		if strings.EqualFold(s, QuestionSheet) {
			return s
		}
	}
	return sheets[0]
}

// mediaRef is a markdown image or audio: ![alt](target).
var mediaRef = regexp.MustCompile(`!\[([^\]\n]*)\]\(\s*<?([^)<>\s]+)>?\s*\)`)

// resolveTexts stores the files the markdown texts name and writes their
// media: references instead of the names. Remote addresses and media:
// references are left as they are (the portal reports the former).
func (im *importer) resolveTexts(format string, texts []*string, _ *[]string) *refusal {
	if format != "markdown" {
		return nil
	}
	for _, t := range texts {
		var ref *refusal
		var fail error
		*t = mediaRef.ReplaceAllStringFunc(*t, func(s string) string {
			if ref != nil || fail != nil {
				return s
			}
			sub := mediaRef.FindStringSubmatch(s)
			target := sub[2]
			if strings.HasPrefix(target, "media:") || strings.Contains(target, "://") {
				return s
			}
			m, r, err := im.upload(target)
			if err != nil || r != nil {
				ref, fail = r, err
				return s
			}
			return "![" + sub[1] + "](media:" + m.SHA256 + ")"
		})
		if fail != nil {
			return refuse("MEDIA_NOT_FOUND", "%v", fail)
		}
		if ref != nil {
			return ref
		}
	}
	return nil
}

// upload stores the file name from the files beside the sheet, once.
func (im *importer) upload(name string) (exam.Media, *refusal, error) {
	if m, ok := im.uploaded[name]; ok {
		return m, nil, nil
	}
	if im.files == nil {
		return exam.Media{}, refuse("MEDIA_NOT_FOUND", "%q is not beside the sheet (send the .xlsx and its media in one .zip)", name), nil
	}
	rc, ok := im.files(name)
	if !ok {
		return exam.Media{}, refuse("MEDIA_NOT_FOUND", "the .zip holds no file %q", name), nil
	}
	defer rc.Close()
	m, err := im.media.UploadMedia(im.ctx, path.Base(name), rc)
	if err != nil {
		if ae := apperr.From(err); ae != nil && ae.Kind != apperr.Internal {
			return exam.Media{}, refuse(ae.Code, "%s: %s", name, ae.Message), nil
		}
		return exam.Media{}, nil, err
	}
	im.uploaded[name] = m
	return m, nil, nil
}

// checkTeX refuses a markdown text whose formulas do not convert.
func checkTeX(format, field, text string) *refusal {
	if format != "markdown" {
		return nil
	}
	res, err := richtext.Render(richtext.Markdown, text, richtext.Options{
		Media: func(sha string) (richtext.Media, bool) { return richtext.Media{URL: "media/" + sha}, true },
	})
	if err != nil {
		return refuse("INVALID_ITEM", "%s: %v", field, err)
	}
	for _, p := range res.Problems {
		if p.Code == "TEX_ERROR" {
			return refuse("TEX_ERROR", "%s: %s in %q", field, p.Message, p.Source)
		}
	}
	return nil
}

// questionTexts lists q's texts with where they are.
func questionTexts(q exam.Question) []struct{ field, text string } {
	out := []struct{ field, text string }{{"text", q.Text}}
	for _, part := range []struct {
		name string
		opts []exam.Option
	}{{"options", q.Options}, {"statements", q.Statements}, {"columns", q.Columns},
		{"premises", q.Premises}, {"responses", q.Responses}} {
		for _, o := range part.opts {
			out = append(out, struct{ field, text string }{part.name + "[" + o.ID + "]", o.Text})
		}
	}
	for _, b := range q.Blanks {
		for _, o := range b.Options {
			out = append(out, struct{ field, text string }{"answer[" + b.ID + "][" + o.ID + "]", o.Text})
		}
	}
	return out
}

func isType(t exam.QuestionType) bool {
	for _, s := range types {
		if string(t) == s {
			return true
		}
	}
	return false
}

func parseFormat(s string) (string, *refusal) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "plain":
		return "", nil
	case "markdown", "md":
		return "markdown", nil
	}
	return "", refuse("INVALID_ITEM", "the format %q is neither plain nor markdown", s)
}

// optionLine is the start of an option: "id: text".
var optionLine = regexp.MustCompile(`^\s*([A-Za-z0-9._-]{1,64})\s*:\s?(.*)$`)

// texInPlain finds what reads as TeX in a plain text: \(…\), \[…\],
// $$…$$, or $…$ holding a TeX command, ^, _ or a brace ("$5 dan $10"
// is money, not a formula).
var texInPlain = regexp.MustCompile(`\\\(.+?\\\)|\\\[.+?\\\]|\$\$.+?\$\$|\$[^$\n]*[\\^_{][^$\n]*\$`)

// plainTeX is the first formula of a plain text, shortened, "" when none.
func plainTeX(s string) string {
	return titleOf(texInPlain.FindString(s))
}

// letterLabel is an option's letter label: "A. Soekarno", "b) Hatta".
var letterLabel = regexp.MustCompile(`^\s*([A-Za-z])[.)]\s+(.*)$`)

// letteredOptions reads a cell of choices written with letter labels, one
// per line: "A. Soekarno", "B. Hatta" (or "a)", "b)"). It is such a cell
// when its first line is labelled A (or a) and at least two lines carry
// the next letters in order, all in the same case; the options' ids are
// the letters in lower case, their texts without the labels. A line that
// is not the next letter's label (a text that merely starts "C. " out of
// order) continues the option before it.
func letteredOptions(cell string) ([]exam.Option, bool) {
	var out []exam.Option
	upper := false
	for _, line := range strings.Split(cell, "\n") {
		m := letterLabel.FindStringSubmatch(line)
		if m != nil && len(out) == 0 && (m[1] == "A" || m[1] == "a") {
			upper = m[1] == "A"
		}
		next := string(rune('a' + len(out)))
		if upper {
			next = strings.ToUpper(next)
		}
		switch {
		case m != nil && m[1] == next && len(out) < 26:
			out = append(out, exam.Option{ID: strings.ToLower(m[1]), Text: m[2]})
		case len(out) == 0:
			if strings.TrimSpace(line) != "" {
				return nil, false
			}
		default:
			out[len(out)-1].Text += "\n" + line
		}
	}
	for i := range out {
		out[i].Text = strings.TrimSpace(out[i].Text)
	}
	return out, len(out) >= 2
}

// letterKey is a choice key as an option's id: a key that is no id but a
// letter label ("A", "B.", "c)", "A. Soekarno") names the option of that
// letter.
func letterKey(key string, opts []exam.Option) string {
	for _, o := range opts {
		if o.ID == key {
			return key
		}
	}
	k := strings.TrimSpace(key)
	if m := letterLabel.FindStringSubmatch(k); m != nil {
		k = m[1]
	}
	k = strings.TrimRight(k, ".)")
	for _, o := range opts {
		if len(k) == 1 && strings.EqualFold(o.ID, k) {
			return o.ID
		}
	}
	return key
}

// parseOptions reads a cell of options, one per line "id: text"; a line
// that starts no option continues the one before.
func parseOptions(col, cell string) ([]exam.Option, *refusal) {
	if strings.TrimSpace(cell) == "" {
		return nil, nil
	}
	var out []exam.Option
	for _, line := range strings.Split(cell, "\n") {
		if m := optionLine.FindStringSubmatch(line); m != nil {
			out = append(out, exam.Option{ID: m[1], Text: strings.TrimSpace(m[2])})
			continue
		}
		if len(out) == 0 {
			if strings.TrimSpace(line) == "" {
				continue
			}
			return nil, refuse("INVALID_ITEM", `%s: the line %q is not "id: text"`, col, titleOf(line))
		}
		out[len(out)-1].Text += "\n" + line
	}
	for i := range out {
		out[i].Text = strings.TrimSpace(out[i].Text)
	}
	return out, nil
}

// parseAnswer reads the answer cell: one key a line (choice keys and
// pairs may also be separated by commas), true_false's in Indonesian too.
func parseAnswer(t exam.QuestionType, cell string) []string {
	var out []string
	switch t {
	case exam.ShortAnswer, exam.Numeric:
		return splitLines(cell)
	case exam.Essay:
		return nil
	case exam.TrueFalse:
		switch strings.ToLower(strings.TrimSpace(cell)) {
		case "true", "benar", "b", "ya":
			return []string{"true"}
		case "false", "salah", "s", "tidak":
			return []string{"false"}
		}
	}
	for _, line := range splitLines(cell) {
		for _, part := range strings.Split(line, ",") {
			if p := strings.TrimSpace(part); p != "" {
				if t == exam.StatementGrid || t == exam.Matching {
					if l, r, ok := strings.Cut(p, "="); ok {
						p = strings.TrimSpace(l) + "=" + strings.TrimSpace(r)
					}
				}
				out = append(out, p)
			}
		}
	}
	return out
}

// checkKey refuses a key naming no option (statement, column, premise,
// response) of the question.
func checkKey(q exam.Question) *refusal {
	ids := func(opts []exam.Option) map[string]bool {
		m := map[string]bool{}
		for _, o := range opts {
			m[o.ID] = true
		}
		return m
	}
	switch q.Type {
	case exam.SingleChoice, exam.MultipleChoice:
		opts := ids(q.Options)
		for _, a := range q.Answer {
			if !opts[a] {
				return refuse("KEY_NOT_AN_OPTION", "the key %q is not an option (options: %s)", a, idList(q.Options))
			}
		}
	case exam.StatementGrid, exam.Matching:
		rows, choices := ids(q.Statements), ids(q.Columns)
		if len(q.Columns) == 0 {
			choices = map[string]bool{"true": true, "false": true}
		}
		if q.Type == exam.Matching {
			rows, choices = ids(q.Premises), ids(q.Responses)
		}
		for _, a := range q.Answer {
			l, r, ok := strings.Cut(a, "=")
			if !ok {
				return refuse("INVALID_ITEM", `the key %q is not "row=choice"`, a)
			}
			if !rows[l] || !choices[r] {
				return refuse("KEY_NOT_AN_OPTION", "the key %q names no %s", a, map[bool]string{true: "premise and response", false: "statement and column"}[q.Type == exam.Matching])
			}
		}
	}
	return nil
}

func idList(opts []exam.Option) string {
	var ids []string
	for _, o := range opts {
		ids = append(ids, o.ID)
	}
	return strings.Join(ids, ", ")
}

func splitLines(cell string) []string {
	var out []string
	for _, l := range strings.Split(cell, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// titleOf is the start of a text, to title a row without an id.
func titleOf(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= titleRunes {
		return text
	}
	r := []rune(text)
	return string(r[:titleRunes]) + "…"
}

// altOf is a file's name as its description: its base without extension.
func altOf(name string) string {
	base := path.Base(name)
	return escapeAlt(strings.TrimSuffix(base, path.Ext(base)))
}

func escapeAlt(s string) string {
	return strings.NewReplacer("[", "(", "]", ")", "\n", " ").Replace(s)
}
