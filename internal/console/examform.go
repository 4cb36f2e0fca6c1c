package console

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/richtext"
	"github.com/seedhq/portal/pkg/labwire"
)

// The editor's time zones: Indonesia's three and UTC. Times are entered in
// one of them and stored in UTC.
var examZones = []struct {
	Name   string
	Offset int // hours east of UTC
}{{"WIB", 7}, {"WITA", 8}, {"WIT", 9}, {"UTC", 0}}

// maxExamFormSize bounds the editor's posts (question texts may embed
// images as data URIs).
const maxExamFormSize = 16 << 20

// maxFormQuestions and maxFormStimuli bound the questions and stimuli of
// one form; larger exams come through the API or "portal admin exam
// create".
const (
	maxFormQuestions = 200
	maxFormStimuli   = 50
)

// examForm is the exam editor's form, as the operator typed it.
type examForm struct {
	ID                    string // empty for a new exam
	Title, Subject, NPSNs string
	Starts, Ends, Zone    string // datetime-local values in Zone
	Duration              string
	Questions             []questionForm
	Stimuli               []stimulusForm
}

// stimulusForm is one stimulus of the editor: what questions share.
type stimulusForm struct {
	ID, Title, Format, Text string
	// Preview is set after "Preview" or a save with problems.
	Preview *stimulusPreview
}

// stimulusPreview is a stimulus's text rendered, with its problems.
type stimulusPreview struct {
	Text     template.HTML
	Problems []exam.ContentProblem
}

// StimulusChoices are the ids a question's stimulus may be chosen from:
// the form's stimuli, and cur when it names none of them (so that saving
// says so rather than dropping it).
func (f examForm) StimulusChoices(cur string) []string {
	var out []string
	for _, st := range f.Stimuli {
		out = append(out, st.ID)
	}
	if cur != "" && !slices.Contains(out, cur) {
		out = append(out, cur)
	}
	return out
}

// questionForm is one question of the editor. Options are one per line,
// "id: text"; Answer is the option ids (comma-separated), true or false,
// or the accepted answers (one per line), by Type.
type questionForm struct {
	ID, Type, Format, Text, Options, Answer, Points string
	// Statements and Columns are a statement grid's, Premises and
	// Responses a matching question's, one "id: text" a line; Reuse lets a
	// matching question's response go with several premises; Scoring is ""
	// or "partial".
	Statements, Columns, Premises, Responses, Scoring string
	Reuse                                             bool
	// Stimulus is the id of the exam's stimulus the question goes with.
	Stimulus string
	// PlayLimit bounds the plays of the question's audio ("" or "0": none).
	PlayLimit string
	// Rubric is an essay's note to its graders.
	Rubric string
	// Tolerance and ToleranceMode are a numeric question's; Blanks a cloze
	// question's (examform_cloze.go).
	Tolerance, ToleranceMode string
	Blanks                   []blankForm
	// Category is where the question is filed in its bank
	// ("Matematika/Aljabar"), kept through the editor.
	Category string
	// Calibrated is the question's kept item parameters in their one-line
	// form (exam.ItemParameters.String), "" for none: kept through the
	// editor, shown and not edited.
	Calibrated string
	// Preview is set after "Preview" or a save with problems: the texts as
	// a student's page shows them (the same renderer, the same allow-list),
	// and what renders otherwise than written.
	Preview *questionPreview
}

// questionPreview is a question's texts rendered.
type questionPreview struct {
	Text                         template.HTML
	Options, Statements, Columns []optionPreview
	Premises, Responses          []optionPreview
	Blanks                       []blankPreview
	Problems                     []exam.ContentProblem
}

// optionPreview is an option's text rendered.
type optionPreview struct {
	ID   string
	Text template.HTML
}

// examFormView is the editor page's data.
type examFormView struct {
	Form      examForm
	Zones     []string
	Types     []exam.QuestionType
	HasAnswer bool // the exam has stored answers and cannot be edited
	// Saved is set when the exam was saved but its texts have problems:
	// the editor stays open on them.
	Saved bool
}

// newExamForm is the editor of a new exam: starting tomorrow at 07:30 WIB,
// one question.
func newExamForm(now time.Time) examForm {
	day := now.In(zone("WIB")).AddDate(0, 0, 1)
	start := time.Date(day.Year(), day.Month(), day.Day(), 7, 30, 0, 0, zone("WIB"))
	return examForm{Zone: "WIB", Starts: start.Format(localLayout), Ends: start.Add(2 * time.Hour).Format(localLayout),
		Duration: "90", Questions: []questionForm{{ID: "q1", Type: string(exam.SingleChoice), Points: "1"}}}
}

// localLayout is the format of the editor's datetime-local inputs, with
// seconds (the inputs have step="1", so that a time with seconds is kept);
// a browser leaves out the seconds when they are zero (shortLocalLayout).
const (
	localLayout      = "2006-01-02T15:04:05"
	shortLocalLayout = "2006-01-02T15:04"
)

// parseLocal reads a datetime-local value, with or without seconds, in loc.
func parseLocal(value string, loc *time.Location) (time.Time, error) {
	t, err := time.ParseInLocation(localLayout, value, loc)
	if err != nil {
		t, err = time.ParseInLocation(shortLocalLayout, value, loc)
	}
	return t, err
}

// zone returns the editor's time zone called name (UTC when unknown).
func zone(name string) *time.Location {
	for _, z := range examZones {
		if z.Name == name {
			return time.FixedZone(z.Name, z.Offset*3600)
		}
	}
	return time.UTC
}

// formOfExam fills the editor with e, in WIB.
func formOfExam(e exam.Exam) examForm {
	f := examForm{ID: e.ID, Title: e.Title, Subject: e.Subject, NPSNs: strings.Join(e.NPSNs, " "), Zone: "WIB",
		Starts: e.StartsAt.In(zone("WIB")).Format(localLayout), Ends: e.EndsAt.In(zone("WIB")).Format(localLayout),
		Duration: strconv.Itoa(e.DurationMinutes)}
	for _, st := range e.Stimuli {
		f.Stimuli = append(f.Stimuli, stimulusForm{ID: st.ID, Title: st.Title, Format: st.Format, Text: st.Text})
	}
	for _, q := range e.Questions {
		qf := questionForm{ID: q.ID, Type: string(q.Type), Format: q.Format, Text: q.Text, Points: strconv.FormatFloat(q.Points, 'f', -1, 64),
			Stimulus: q.Stimulus, Rubric: q.Rubric, Category: q.Category}
		if q.Calibrated != nil {
			qf.Calibrated = q.Calibrated.String()
		}
		qf.Options, qf.Statements, qf.Scoring = optionLines(q.Options), optionLines(q.Statements), q.Scoring
		if q.PlayLimit > 0 {
			qf.PlayLimit = strconv.Itoa(q.PlayLimit)
		}
		if q.Type == exam.StatementGrid {
			qf.Columns = optionLines(q.Columns)
		}
		qf.Premises, qf.Responses, qf.Reuse = optionLines(q.Premises), optionLines(q.Responses), q.ReuseResponses
		qf.Tolerance, qf.ToleranceMode, qf.Blanks = formNumber(q.Tolerance), q.ToleranceMode, blankForms(q.Blanks)
		sep := ","
		if pairAnswered(q.Type) || q.Type == exam.ShortAnswer || q.Type == exam.Numeric {
			sep = "\n"
		}
		qf.Answer = strings.Join(q.Answer, sep)
		f.Questions = append(f.Questions, qf)
	}
	return f
}

// parseExamForm reads the editor's fields from r (questions q.N.field,
// N from 0).
func parseExamForm(r *http.Request) examForm {
	v := func(k string) string { return strings.TrimSpace(r.PostFormValue(k)) }
	f := examForm{ID: chi.URLParam(r, "id"), Title: v("title"), Subject: v("subject"), NPSNs: v("npsn"),
		Starts: v("starts"), Ends: v("ends"), Zone: v("zone"), Duration: v("duration")}
	for i := 0; i < maxFormQuestions; i++ {
		p := "q." + strconv.Itoa(i) + "."
		if _, ok := r.PostForm[p+"type"]; !ok {
			break
		}
		if r.PostFormValue(p+"remove") != "" {
			continue
		}
		f.Questions = append(f.Questions, questionForm{ID: v(p + "id"), Type: v(p + "type"), Format: v(p + "format"), Text: v(p + "text"),
			Options: v(p + "options"), Answer: v(p + "answer"), Points: v(p + "points"),
			Statements: v(p + "statements"), Columns: v(p + "columns"), Premises: v(p + "premises"), Responses: v(p + "responses"),
			Reuse: v(p+"reuse") != "", Scoring: v(p + "scoring"), Stimulus: v(p + "stimulus"), PlayLimit: v(p + "play_limit"), Rubric: v(p + "rubric"),
			Tolerance: v(p + "tolerance"), ToleranceMode: v(p + "tolerance_mode"), Blanks: parseBlanks(r, p),
			Category: v(p + "category"), Calibrated: v(p + "calibrated")})
		f.Questions[len(f.Questions)-1].Text = withoutRemovedBlanks(r, p, v(p+"text"))
	}
	for i := 0; i < maxFormStimuli; i++ {
		p := "s." + strconv.Itoa(i) + "."
		if _, ok := r.PostForm[p+"id"]; !ok {
			break
		}
		if r.PostFormValue(p+"remove") != "" {
			continue
		}
		f.Stimuli = append(f.Stimuli, stimulusForm{ID: v(p + "id"), Title: v(p + "title"), Format: v(p + "format"), Text: v(p + "text")})
	}
	return f
}

// errForm is a form whose field cannot be read; the message says which.
func errForm(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, "INVALID_FORM", format, args...)
}

// input turns the form into the exam service's input; the service checks
// the rest (one set of rules with the API).
func (f examForm) input() (exam.ExamInput, error) {
	in := exam.ExamInput{Title: f.Title, Subject: f.Subject, NPSNs: strings.FieldsFunc(f.NPSNs, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t'
	})}
	var err error
	loc := zone(f.Zone)
	if in.StartsAt, err = parseLocal(f.Starts, loc); err != nil {
		return in, errForm("the start is not a date and time")
	}
	if in.EndsAt, err = parseLocal(f.Ends, loc); err != nil {
		return in, errForm("the end is not a date and time")
	}
	if in.DurationMinutes, err = strconv.Atoi(f.Duration); err != nil {
		return in, errForm("the duration must be a whole number of minutes")
	}
	for _, sf := range f.Stimuli {
		in.Stimuli = append(in.Stimuli, sf.stimulus())
	}
	for i, qf := range f.Questions {
		q, err := qf.question(i)
		if err != nil {
			return in, err
		}
		if qf.Points != "" {
			if q.Points, err = strconv.ParseFloat(qf.Points, 64); err != nil {
				return in, errForm("question %d: the points must be a number", i+1)
			}
		}
		if qf.PlayLimit != "" {
			if q.PlayLimit, err = strconv.Atoi(qf.PlayLimit); err != nil {
				return in, errForm("question %d: the plays of its audio must be a whole number", i+1)
			}
		}
		switch {
		case q.Type == exam.ShortAnswer || q.Type == exam.Numeric:
			q.Answer = lines(qf.Answer)
		case pairAnswered(q.Type):
			q.Answer = lines(strings.ReplaceAll(qf.Answer, ",", "\n"))
		default:
			for _, a := range strings.Split(qf.Answer, ",") {
				if a = strings.TrimSpace(a); a != "" {
					q.Answer = append(q.Answer, a)
				}
			}
		}
		in.Questions = append(in.Questions, q)
	}
	return in, nil
}

// question is the question of the form's texts: its id, type, format, text
// and options (not yet validated); i numbers it in errors.
func (qf questionForm) question(i int) (exam.Question, error) {
	q := exam.Question{ID: qf.ID, Type: exam.QuestionType(qf.Type), Format: qf.Format, Text: qf.Text, Scoring: qf.Scoring,
		ReuseResponses: qf.Reuse, Stimulus: qf.Stimulus, Rubric: qf.Rubric, Category: qf.Category}
	if q.Format == string(richtext.Plain) {
		q.Format = ""
	}
	if strings.TrimSpace(qf.Calibrated) != "" {
		p, err := exam.ParseItemParameters(qf.Calibrated)
		if err != nil {
			return q, errForm("question %d: %v", i+1, err)
		}
		q.Calibrated = p
	}
	for _, part := range []struct {
		name  string
		lines string
		to    *[]exam.Option
	}{{"option", qf.Options, &q.Options}, {"statement", qf.Statements, &q.Statements}, {"column", qf.Columns, &q.Columns},
		{"premise", qf.Premises, &q.Premises}, {"response", qf.Responses, &q.Responses}} {
		for _, line := range lines(part.lines) {
			id, text, ok := strings.Cut(line, ":")
			if !ok {
				return q, errForm("question %d: write each %s as \"id: text\" (%q)", i+1, part.name, line)
			}
			*part.to = append(*part.to, exam.Option{ID: strings.TrimSpace(id), Text: strings.TrimSpace(text)})
		}
	}
	return q, qf.numberFields(&q, i)
}

// pairAnswered reports whether questions of type t are answered in
// pairs, their keys one "row=choice" a line in the editor.
func pairAnswered(t exam.QuestionType) bool { return t == exam.StatementGrid || t == exam.Matching }

// stimulus is the stimulus of the form's fields (not yet validated).
func (sf stimulusForm) stimulus() exam.Stimulus {
	st := exam.Stimulus{ID: sf.ID, Title: sf.Title, Format: sf.Format, Text: sf.Text}
	if st.Format == string(richtext.Plain) {
		st.Format = ""
	}
	return st
}

// optionLines is opts as the editor shows them, one "id: text" a line.
func optionLines(opts []exam.Option) string {
	var out []string
	for _, o := range opts {
		out = append(out, o.ID+": "+o.Text)
	}
	return strings.Join(out, "\n")
}

// preview renders every stimulus and every question of f whose texts can
// be read, as a student's page will show them, with their problems.
func (c *console) preview(ctx context.Context, f *examForm) error {
	for i := range f.Stimuli {
		sf := &f.Stimuli[i]
		st := sf.stimulus()
		if _, err := richtext.ParseFormat(st.Format); err != nil {
			continue // saving says what is wrong with it
		}
		ps, problems, err := c.exam.RenderStimulus(ctx, st)
		if err != nil {
			return err
		}
		sf.Preview = &stimulusPreview{Text: template.HTML(ps.HTML), Problems: problems} // sanitised by internal/richtext
	}
	for i := range f.Questions {
		qf := &f.Questions[i]
		q, err := qf.question(i)
		if err != nil {
			continue // the form says what is wrong with it
		}
		if _, err := richtext.ParseFormat(q.Format); err != nil {
			continue
		}
		pq, ps, err := c.exam.RenderQuestion(ctx, q)
		if err != nil {
			return err
		}
		p := &questionPreview{Text: template.HTML(pq.HTML), Problems: ps} // sanitised by internal/richtext
		for _, part := range []struct {
			from []labwire.PackageOption
			to   *[]optionPreview
		}{{pq.Options, &p.Options}, {pq.Statements, &p.Statements}, {pq.Columns, &p.Columns},
			{pq.Premises, &p.Premises}, {pq.Responses, &p.Responses}} {
			for _, o := range part.from {
				*part.to = append(*part.to, optionPreview{ID: o.ID, Text: template.HTML(o.HTML)})
			}
		}
		p.Blanks = blankPreviews(pq)
		qf.Preview = p
	}
	return nil
}

// lines returns the non-blank lines of s, trimmed.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// renderExamForm renders the editor with f; err, when set, is shown.
func (c *console) renderExamForm(w http.ResponseWriter, r *http.Request, status int, f examForm, hasAnswers bool, err error) {
	c.renderExamFormView(w, r, status, f, hasAnswers, false, err)
}

// renderExamFormSaved renders the editor of an exam just saved whose texts
// have problems.
func (c *console) renderExamFormSaved(w http.ResponseWriter, r *http.Request, f examForm, err error) {
	c.renderExamFormView(w, r, http.StatusOK, f, false, true, err)
}

func (c *console) renderExamFormView(w http.ResponseWriter, r *http.Request, status int, f examForm, hasAnswers, saved bool, err error) {
	v := c.examView(r)
	if err != nil {
		status = c.showError(&v, err)
	}
	fv := examFormView{Form: f, HasAnswer: hasAnswers, Saved: saved,
		Types: []exam.QuestionType{exam.SingleChoice, exam.MultipleChoice, exam.TrueFalse, exam.ShortAnswer, exam.Numeric, exam.Essay, exam.StatementGrid, exam.Matching, exam.Cloze}}
	for _, z := range examZones {
		fv.Zones = append(fv.Zones, z.Name)
	}
	v.Data = fv
	c.render(w, r, "examform", status, v)
}

// newExam serves GET /console/exams/new: the editor of a new exam.
func (c *console) newExam(w http.ResponseWriter, r *http.Request) {
	c.renderExamForm(w, r, http.StatusOK, newExamForm(time.Now()), false, nil)
}

// editExam serves GET /console/exams/{id}/edit: the editor with the exam.
func (c *console) editExam(w http.ResponseWriter, r *http.Request) {
	e, err := c.exam.GetExam(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		c.examsError(w, r, err)
		return
	}
	res, err := c.exam.Results(r.Context(), e.ID)
	c.renderExamForm(w, r, http.StatusOK, formOfExam(e), err == nil && res.AnswerRows > 0, err)
}

// saveExam serves POST /console/exams/new and /console/exams/{id}/edit:
// with action=add, the editor again with one more question; else the exam
// created or replaced through the exam service, then the list. A refused
// exam keeps the form and says why; nothing is stored.
func (c *console) saveExam(w http.ResponseWriter, r *http.Request) {
	f := parseExamForm(r)
	if r.PostFormValue("action") == "add" {
		if len(f.Questions) >= maxFormQuestions {
			c.renderExamForm(w, r, http.StatusOK, f, false, errForm("a form holds at most %d questions; larger exams come through the API", maxFormQuestions))
			return
		}
		f.Questions = append(f.Questions, questionForm{ID: "q" + strconv.Itoa(len(f.Questions)+1), Type: string(exam.SingleChoice), Points: "1"})
		c.renderExamForm(w, r, http.StatusOK, f, false, nil)
		return
	}
	if r.PostFormValue("action") == "add-stimulus" {
		if len(f.Stimuli) >= maxFormStimuli {
			c.renderExamForm(w, r, http.StatusOK, f, false, errForm("a form holds at most %d stimuli; larger exams come through the API", maxFormStimuli))
			return
		}
		f.Stimuli = append(f.Stimuli, stimulusForm{ID: "bacaan" + strconv.Itoa(len(f.Stimuli)+1), Format: "markdown"})
		c.renderExamForm(w, r, http.StatusOK, f, false, nil)
		return
	}
	if a, ok := strings.CutPrefix(r.PostFormValue("action"), addBlankAction); ok {
		i, err := strconv.Atoi(a)
		if err == nil {
			err = addBlank(&f, i)
		}
		c.renderExamForm(w, r, http.StatusOK, f, false, err)
		return
	}
	if r.PostFormValue("action") == "preview" {
		err := c.preview(r.Context(), &f)
		c.renderExamForm(w, r, http.StatusOK, f, false, err)
		return
	}
	in, err := f.input()
	var e exam.Exam
	if err == nil {
		if f.ID == "" {
			e, err = c.exam.CreateExam(r.Context(), in)
		} else {
			e, err = c.exam.UpdateExam(r.Context(), f.ID, in)
		}
	}
	if err != nil {
		c.renderExamForm(w, r, http.StatusBadRequest, f, errors.Is(err, exam.ErrExamHasAnswers), err)
		return
	}
	c.log.Info("console: exam saved", "exam", e.ID, "questions", e.QuestionCount, "problems", len(e.Problems), "by", operatorFrom(r).Username)
	if len(e.Problems) > 0 {
		// Saved, but a text renders otherwise than written: stay on the
		// editor, with the previews and the problems.
		f = formOfExam(e)
		err := c.preview(r.Context(), &f)
		c.renderExamFormSaved(w, r, f, err)
		return
	}
	http.Redirect(w, r, "/console/exams?saved="+url.QueryEscape(e.ID), http.StatusSeeOther)
}

// deleteExam serves POST /console/exams/{id}/delete: an exam without
// answers removed.
func (c *console) deleteExam(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	if err := c.exam.DeleteExam(r.Context(), id); err != nil {
		e, gerr := c.exam.GetExam(r.Context(), id)
		if gerr != nil {
			c.examsError(w, r, err)
			return
		}
		c.renderExamForm(w, r, http.StatusConflict, formOfExam(e), errors.Is(err, exam.ErrExamHasAnswers), err)
		return
	}
	c.log.Info("console: exam deleted", "exam", id, "by", operatorFrom(r).Username)
	http.Redirect(w, r, "/console/exams?deleted="+url.QueryEscape(id), http.StatusSeeOther)
}

// examsError shows err on the exams page (an unknown exam, mostly).
func (c *console) examsError(w http.ResponseWriter, r *http.Request, err error) {
	v := c.examView(r)
	status := c.showError(&v, err)
	v.Data = examsView{}
	c.render(w, r, "exams", status, v)
}
