package console

import (
	"cmp"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/richtext"
	"github.com/seedhq/portal/pkg/labwire"
)

// maxFormBlanks bounds the blanks the editor reads of one cloze question.
const maxFormBlanks = 50

// blankForm is one blank of a cloze question in the editor. Answer is the
// accepted texts or numbers one a line, or the right option's id; Options
// are a choice blank's, one "id: text" a line.
type blankForm struct {
	ID, Kind, Answer, Options, Tolerance, ToleranceMode, Points string
}

// blankPreview is a blank as the preview lists it: its options rendered.
type blankPreview struct {
	ID, Kind string
	Points   float64
	Options  []optionPreview
}

// blankKinds are the kinds the editor offers, in its order.
var blankKinds = []exam.BlankKind{exam.BlankText, exam.BlankNumber, exam.BlankChoice}

// blankRow is what the template of one blank's fields is given: the
// question's and the blank's index (Index is "__M__" in the row the
// editor's script copies), the blank and the page's language.
type blankRow struct {
	Q     int
	Index string
	Blank blankForm
	Lang  string
}

// T translates key into the row's language.
func (b blankRow) T(key string) string { return translate(b.Lang, key) }

// Kinds are the kinds of blank the row's list offers.
func (blankRow) Kinds() []exam.BlankKind { return blankKinds }

// clozeFields is what the templates of a question's numeric and cloze
// fields and of its blanks' preview are given.
type clozeFields struct {
	Q        int
	Question questionForm
	Lang     string
}

// ClozeFields are question q's numeric and cloze fields, in language lang.
func (v examFormView) ClozeFields(q int, lang string) clozeFields {
	return clozeFields{Q: q, Question: v.Form.Questions[q], Lang: lang}
}

// T translates key into the page's language.
func (c clozeFields) T(key string) string { return translate(c.Lang, key) }

// BlankRows are the rows of the question's blanks.
func (c clozeFields) BlankRows() []blankRow {
	var out []blankRow
	for j, b := range c.Question.Blanks {
		out = append(out, blankRow{Q: c.Q, Index: strconv.Itoa(j), Blank: b, Lang: c.Lang})
	}
	return out
}

// NewBlankRow is the empty row of the question's blanks that the editor's
// script copies when a blank is inserted.
func (c clozeFields) NewBlankRow() blankRow {
	return blankRow{Q: c.Q, Index: "__M__", Blank: blankForm{Kind: string(exam.BlankText), Points: "1"}, Lang: c.Lang}
}

// formNumber is n as the editor shows it ("" for 0): a plain decimal, or
// with an exponent where that would be long (parseFormNumber reads either).
func formNumber(n float64) string {
	if n == 0 {
		return ""
	}
	if s := strconv.FormatFloat(n, 'f', -1, 64); len(s) <= 24 {
		return s
	}
	return strconv.FormatFloat(n, 'g', -1, 64)
}

// blankForms are a cloze question's blanks as the editor shows them.
func blankForms(bs []exam.Blank) []blankForm {
	var out []blankForm
	for _, b := range bs {
		out = append(out, blankForm{ID: b.ID, Kind: string(b.Kind), Answer: strings.Join(b.Answer, "\n"), Options: optionLines(b.Options),
			Tolerance: formNumber(b.Tolerance), ToleranceMode: b.ToleranceMode, Points: formNumber(b.Points)})
	}
	return out
}

// parseBlanks reads the blanks of the question whose fields start with p
// (p + "b.M.field", M from 0; those marked removed left out).
func parseBlanks(r *http.Request, p string) []blankForm {
	v := func(k string) string { return strings.TrimSpace(r.PostFormValue(k)) }
	var out []blankForm
	for j := 0; j < maxFormBlanks; j++ {
		b := p + "b." + strconv.Itoa(j) + "."
		if _, ok := r.PostForm[b+"kind"]; !ok {
			break
		}
		if v(b+"remove") != "" {
			continue
		}
		out = append(out, blankForm{ID: v(b + "id"), Kind: v(b + "kind"), Answer: v(b + "answer"), Options: v(b + "options"),
			Tolerance: v(b + "tolerance"), ToleranceMode: v(b + "tolerance_mode"), Points: v(b + "points")})
	}
	return out
}

// withoutRemovedBlanks is text without the markers of the blanks marked
// removed of the question whose fields start with p.
func withoutRemovedBlanks(r *http.Request, p, text string) string {
	for j := 0; j < maxFormBlanks; j++ {
		b := p + "b." + strconv.Itoa(j) + "."
		if _, ok := r.PostForm[b+"kind"]; !ok {
			break
		}
		if id := strings.TrimSpace(r.PostFormValue(b + "id")); id != "" && r.PostFormValue(b+"remove") != "" {
			text = strings.ReplaceAll(text, "[["+id+"]]", "")
		}
	}
	return text
}

// parseFormNumber reads a number the operator typed, with either decimal
// separator (exam.ParseNumber); "" is 0.
func parseFormNumber(s string) (float64, bool) {
	if s == "" {
		return 0, true
	}
	r, ok := exam.ParseNumber(s)
	if !ok {
		return 0, false
	}
	f, _ := r.Float64()
	return f, true
}

// numberFields sets a numeric question's tolerance and a cloze question's
// blanks from the form (not yet validated), the blanks in the order the
// text marks them (those it does not mark last, for the validation to
// name); i numbers the question in errors.
func (qf questionForm) numberFields(q *exam.Question, i int) error {
	var ok bool
	if q.Tolerance, ok = parseFormNumber(qf.Tolerance); !ok {
		return errForm("question %d: the tolerance must be a number", i+1)
	}
	q.ToleranceMode = qf.ToleranceMode
	for j, bf := range qf.Blanks {
		b := exam.Blank{ID: bf.ID, Kind: exam.BlankKind(bf.Kind), Answer: lines(bf.Answer), ToleranceMode: bf.ToleranceMode}
		if b.Tolerance, ok = parseFormNumber(bf.Tolerance); !ok {
			return errForm("question %d, blank %d: the tolerance must be a number", i+1, j+1)
		}
		if b.Points, ok = parseFormNumber(bf.Points); !ok {
			return errForm("question %d, blank %d: the points must be a number", i+1, j+1)
		}
		for _, line := range lines(bf.Options) {
			id, text, ok := strings.Cut(line, ":")
			if !ok {
				return errForm("question %d, blank %d: write each option as \"id: text\" (%q)", i+1, j+1, line)
			}
			b.Options = append(b.Options, exam.Option{ID: strings.TrimSpace(id), Text: strings.TrimSpace(text)})
		}
		q.Blanks = append(q.Blanks, b)
	}
	if len(q.Blanks) > 1 {
		marked := richtext.Blanks(q.Text)
		at := func(id string) int {
			if k := slices.Index(marked, id); k >= 0 {
				return k
			}
			return len(marked)
		}
		slices.SortStableFunc(q.Blanks, func(a, b exam.Blank) int { return cmp.Compare(at(a.ID), at(b.ID)) })
	}
	return nil
}

// blankPreviews are pq's blanks as the preview lists them.
func blankPreviews(pq labwire.PackageQuestion) []blankPreview {
	var out []blankPreview
	for _, b := range pq.Blanks {
		bp := blankPreview{ID: b.ID, Kind: string(b.Kind), Points: b.Points}
		for _, o := range b.Options {
			bp.Options = append(bp.Options, optionPreview{ID: o.ID, Text: template.HTML(o.HTML)}) // sanitised by internal/richtext
		}
		out = append(out, bp)
	}
	return out
}

// addBlankAction is the action of the editor's "Insert a blank" button
// of question N, "add-blank:N", which the editor's script does in place.
const addBlankAction = "add-blank:"

// addBlank adds a text blank to question i of f, with the first id "bK"
// the question does not have, and its marker at the end of the text, which
// becomes Markdown.
func addBlank(f *examForm, i int) error {
	if i < 0 || i >= len(f.Questions) {
		return errForm("there is no question %d", i+1)
	}
	qf := &f.Questions[i]
	if len(qf.Blanks) >= maxFormBlanks {
		return errForm("question %d: a question has at most %d blanks", i+1, maxFormBlanks)
	}
	id := ""
	for k := len(qf.Blanks) + 1; id == ""; k++ {
		c := fmt.Sprintf("b%d", k)
		if !slices.ContainsFunc(qf.Blanks, func(b blankForm) bool { return b.ID == c }) && !strings.Contains(qf.Text, "[["+c+"]]") {
			id = c
		}
	}
	qf.Blanks = append(qf.Blanks, blankForm{ID: id, Kind: string(exam.BlankText), Points: "1"})
	if qf.Text != "" && !strings.HasSuffix(qf.Text, " ") && !strings.HasSuffix(qf.Text, "\n") {
		qf.Text += " "
	}
	qf.Text += "[[" + id + "]]"
	qf.Type, qf.Format = string(exam.Cloze), string(richtext.Markdown)
	return nil
}
