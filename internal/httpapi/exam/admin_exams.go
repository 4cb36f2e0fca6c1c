package exam

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

type optionJSON struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// questionJSON is a question with its answer key, as operators send and read it.
type questionJSON struct {
	ID      string       `json:"id"`
	Type    string       `json:"type"`
	Format  string       `json:"format,omitempty"` // "" (plain) or "markdown": docs/exam-content.md
	Text    string       `json:"text"`
	Options []optionJSON `json:"options"`
	// Statements and Columns are a statement_grid's; Scoring a
	// statement_grid's or a matching question's.
	Statements []optionJSON `json:"statements,omitempty"`
	Columns    []optionJSON `json:"columns,omitempty"`
	// Premises, Responses and ReuseResponses are a matching question's.
	Premises       []optionJSON `json:"premises,omitempty"`
	Responses      []optionJSON `json:"responses,omitempty"`
	ReuseResponses bool         `json:"reuse_responses,omitempty"`
	// Stimulus is the id of the exam's stimulus the question goes with.
	Stimulus string `json:"stimulus,omitempty"`
	Scoring  string `json:"scoring,omitempty"`
	// PlayLimit bounds the plays of the question's audio per student.
	PlayLimit int      `json:"play_limit,omitempty"`
	Answer    []string `json:"answer"`
	// Tolerance and ToleranceMode are a numeric question's.
	Tolerance     float64 `json:"tolerance,omitempty"`
	ToleranceMode string  `json:"tolerance_mode,omitempty"`
	// Blanks are a cloze question's.
	Blanks []blankJSON `json:"blanks,omitempty"`
	Points float64     `json:"points"`
	// Rubric is an essay's note to its graders.
	Rubric string `json:"rubric,omitempty"`
	// Category is where the question is filed in its bank.
	Category string `json:"category,omitempty"`
	// Calibrated are the item parameters kept with the question.
	Calibrated *exam.ItemParameters `json:"calibrated,omitempty"`
}

// blankJSON is a cloze question's blank with its key.
type blankJSON struct {
	ID            string       `json:"id"`
	Kind          string       `json:"kind"`
	Options       []optionJSON `json:"options,omitempty"`
	Answer        []string     `json:"answer"`
	Tolerance     float64      `json:"tolerance,omitempty"`
	ToleranceMode string       `json:"tolerance_mode,omitempty"`
	Points        float64      `json:"points"`
}

// blanksJSON is a cloze question's blanks as operators read them.
func blanksJSON(bs []exam.Blank) []blankJSON {
	var out []blankJSON
	for _, b := range bs {
		out = append(out, blankJSON{ID: b.ID, Kind: string(b.Kind), Options: optionsJSON(b.Options), Answer: nonNil(b.Answer),
			Tolerance: b.Tolerance, ToleranceMode: b.ToleranceMode, Points: b.Points})
	}
	return out
}

// examBlanks is a cloze question's blanks as the exam service takes them.
func examBlanks(bs []blankJSON) []exam.Blank {
	var out []exam.Blank
	for _, b := range bs {
		out = append(out, exam.Blank{ID: b.ID, Kind: exam.BlankKind(b.Kind), Options: examOptions(b.Options), Answer: b.Answer,
			Tolerance: b.Tolerance, ToleranceMode: b.ToleranceMode, Points: b.Points})
	}
	return out
}

// optionsJSON is opts as operators read them.
func optionsJSON(opts []exam.Option) []optionJSON {
	out := make([]optionJSON, len(opts))
	for i, o := range opts {
		out[i] = optionJSON{ID: o.ID, Text: o.Text}
	}
	return out
}

// examOptions is opts as the exam service takes them.
func examOptions(opts []optionJSON) []exam.Option {
	var out []exam.Option
	for _, o := range opts {
		out = append(out, exam.Option{ID: o.ID, Text: o.Text})
	}
	return out
}

type createExamRequest struct {
	Title           string         `json:"title"`
	Subject         string         `json:"subject"`
	NPSN            []string       `json:"npsn"`
	StartsAt        time.Time      `json:"starts_at"`
	EndsAt          time.Time      `json:"ends_at"`
	DurationMinutes int            `json:"duration_minutes"`
	Questions       []questionJSON `json:"questions"`
	// Stimuli are what groups of the questions share.
	Stimuli []exam.Stimulus `json:"stimuli,omitempty"`
}

// examView is an exam as operators read it; Questions is left out of lists.
type examView struct {
	ID              string          `json:"id"`
	Title           string          `json:"title"`
	Subject         string          `json:"subject"`
	NPSN            []string        `json:"npsn"`
	StartsAt        time.Time       `json:"starts_at"`
	EndsAt          time.Time       `json:"ends_at"`
	DurationMinutes int             `json:"duration_minutes"`
	QuestionCount   int             `json:"question_count"` // (ext)
	CreatedAt       time.Time       `json:"created_at"`     // (ext)
	Questions       []questionJSON  `json:"questions,omitempty"`
	Stimuli         []exam.Stimulus `json:"stimuli,omitempty"`
	// Problems are what the texts show otherwise than written, in the
	// answers of a creation or an update (docs/exam-content.md).
	Problems []exam.ContentProblem `json:"problems,omitempty"`
}

func newExamView(e exam.Exam, withQuestions bool) examView {
	v := examView{
		ID: e.ID, Title: e.Title, Subject: e.Subject, NPSN: nonNil(e.NPSNs),
		StartsAt: e.StartsAt.UTC(), EndsAt: e.EndsAt.UTC(), DurationMinutes: e.DurationMinutes,
		QuestionCount: e.QuestionCount, CreatedAt: e.CreatedAt.UTC(), Problems: e.Problems,
	}
	if withQuestions {
		v.Questions = make([]questionJSON, len(e.Questions))
		for i, q := range e.Questions {
			v.Questions[i] = newQuestionJSON(q)
		}
		if v.QuestionCount == 0 {
			v.QuestionCount = len(e.Questions)
		}
		v.Stimuli = e.Stimuli
	}
	return v
}

// newQuestionJSON is q as operators read it, with its answer key.
func newQuestionJSON(q exam.Question) questionJSON {
	qj := questionJSON{ID: q.ID, Type: string(q.Type), Format: q.Format, Text: q.Text, Options: optionsJSON(q.Options),
		Scoring: q.Scoring, ReuseResponses: q.ReuseResponses, Stimulus: q.Stimulus, PlayLimit: q.PlayLimit,
		Answer: nonNil(q.Answer), Tolerance: q.Tolerance, ToleranceMode: q.ToleranceMode, Blanks: blanksJSON(q.Blanks),
		Points: q.Points, Rubric: q.Rubric, Category: q.Category, Calibrated: q.Calibrated}
	switch q.Type {
	case exam.StatementGrid:
		qj.Statements, qj.Columns = optionsJSON(q.Statements), optionsJSON(q.Columns)
	case exam.Matching:
		qj.Premises, qj.Responses = optionsJSON(q.Premises), optionsJSON(q.Responses)
	}
	return qj
}

// nonNil returns s, or an empty slice for nil, so that JSON shows [] not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// input returns the exam the request describes.
func (req createExamRequest) input() exam.ExamInput {
	in := exam.ExamInput{
		Title: req.Title, Subject: req.Subject, NPSNs: req.NPSN, StartsAt: req.StartsAt, EndsAt: req.EndsAt,
		DurationMinutes: req.DurationMinutes, Questions: make([]exam.Question, len(req.Questions)), Stimuli: req.Stimuli,
	}
	for i, q := range req.Questions {
		in.Questions[i] = exam.Question{ID: q.ID, Type: exam.QuestionType(q.Type), Format: q.Format, Text: q.Text,
			Options: examOptions(q.Options), Statements: examOptions(q.Statements), Columns: examOptions(q.Columns),
			Premises: examOptions(q.Premises), Responses: examOptions(q.Responses), ReuseResponses: q.ReuseResponses,
			Stimulus: q.Stimulus, Scoring: q.Scoring, PlayLimit: q.PlayLimit, Answer: q.Answer, Tolerance: q.Tolerance,
			ToleranceMode: q.ToleranceMode, Blanks: examBlanks(q.Blanks), Points: q.Points, Rubric: q.Rubric, Category: q.Category,
			Calibrated: q.Calibrated}
	}
	return in
}

// createExam handles POST /api/v1/admin/exams (body up to 256 MiB): a new
// exam with its questions and answer key, assigned to schools by npsn.
func (a *api) createExam(w http.ResponseWriter, r *http.Request) {
	var req createExamRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	e, err := a.svc.CreateExam(r.Context(), req.input())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusCreated, newExamView(e, true))
}

// updateExam handles PUT /api/v1/admin/exams/{id} (the body of POST): the
// exam replaced, while it has no answers yet (409 EXAM_HAS_ANSWERS
// otherwise).
func (a *api) updateExam(w http.ResponseWriter, r *http.Request) {
	var req createExamRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	e, err := a.svc.UpdateExam(r.Context(), chi.URLParam(r, "id"), req.input())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusOK, newExamView(e, true))
}

// listExams handles GET /api/v1/admin/exams?npsn=: exams without their questions.
func (a *api) listExams(w http.ResponseWriter, r *http.Request) {
	es, err := a.svc.ListExams(r.Context(), r.URL.Query().Get("npsn"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	views := make([]examView, len(es))
	for i, e := range es {
		views[i] = newExamView(e, false)
	}
	respond.Data(w, http.StatusOK, views)
}

// getExam handles GET /api/v1/admin/exams/{id}: one exam with its questions
// and answer key.
func (a *api) getExam(w http.ResponseWriter, r *http.Request) {
	e, err := a.svc.GetExam(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusOK, newExamView(e, true))
}

// deleteExam handles DELETE /api/v1/admin/exams/{id}: removes an exam that
// has no answers yet (409 EXAM_HAS_ANSWERS otherwise).
func (a *api) deleteExam(w http.ResponseWriter, r *http.Request) {
	if err := a.svc.DeleteExam(r.Context(), chi.URLParam(r, "id")); err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, respond.OK{Success: true, Message: "exam deleted"})
}

type memberResultView struct {
	MemberID string  `json:"member_id"`
	Nama     string  `json:"nama"`
	Username string  `json:"username"`
	Kelas    string  `json:"kelas"`
	Score    float64 `json:"score"`
	Answered int     `json:"answered"`
	Correct  int     `json:"correct"`
	// Graded is false while essay answers wait for their grades: Pending
	// counts them, PendingPoints is what they may still earn.
	Graded        bool    `json:"graded"`
	Pending       int     `json:"pending"`
	PendingPoints float64 `json:"pending_points"`
}

// examResults handles GET /api/v1/admin/exams/{id}/results: every student's
// score, computed from the pushed answers, the answer key and the essays'
// grades (an essay without one is pending, never zero).
func (a *api) examResults(w http.ResponseWriter, r *http.Request) {
	res, err := a.svc.Results(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	results := make([]memberResultView, len(res.Results))
	for i, m := range res.Results {
		results[i] = memberResultView{MemberID: m.MemberID, Nama: m.Nama, Username: m.Username,
			Kelas: m.Kelas, Score: m.Score, Answered: m.Answered, Correct: m.Correct,
			Graded: m.Pending == 0, Pending: m.Pending, PendingPoints: m.PendingPoints}
	}
	respond.Data(w, http.StatusOK, struct {
		ExamID     string             `json:"exam_id"`
		MaxScore   float64            `json:"max_score"`
		AnswerRows int                `json:"answer_rows"`
		Results    []memberResultView `json:"results"`
	}{res.ExamID, res.MaxScore, res.AnswerRows, results})
}
