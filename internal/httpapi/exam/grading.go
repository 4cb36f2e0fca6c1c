package exam

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/operator"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/identity"
)

// Graders and the grading of essays (docs/api/exam.md, "Grading essays").

// graderView is a grader account with its exams.
type graderView struct {
	userView
	ExamIDs   []string  `json:"exam_ids"`
	CreatedAt time.Time `json:"created_at"`
}

func newGraderView(g exam.Grader) graderView {
	return graderView{userView: newUserView(g.User), ExamIDs: nonNil(g.ExamIDs), CreatedAt: g.CreatedAt.UTC()}
}

type createGraderRequest struct {
	Username string `json:"username"`
	Name     string `json:"name"`
	Password string `json:"password"`
}

// createGrader handles POST /api/v1/admin/graders: a grader account, which
// may only grade the exams assigned to it.
func (a *api) createGrader(w http.ResponseWriter, r *http.Request) {
	var req createGraderRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	u, err := a.ids.CreateOperator(r.Context(), identity.OperatorInput{Username: req.Username, Name: req.Name, Password: req.Password, Role: identity.RoleGrader})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.log.InfoContext(r.Context(), "grader created", "grader", u.ID, "by", operator.From(r.Context()).ID)
	respond.Data(w, http.StatusCreated, newGraderView(exam.Grader{User: u}))
}

// listGraders handles GET /api/v1/admin/graders: every grader with its exams.
func (a *api) listGraders(w http.ResponseWriter, r *http.Request) {
	gs, err := a.svc.Graders(r.Context())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	views := make([]graderView, len(gs))
	for i, g := range gs {
		views[i] = newGraderView(g)
	}
	respond.Data(w, http.StatusOK, views)
}

type graderExamsRequest struct {
	ExamIDs []string `json:"exam_ids"`
}

// setGraderExams handles PUT /api/v1/admin/graders/{id}/exams: the exams the
// grader may grade, replaced.
func (a *api) setGraderExams(w http.ResponseWriter, r *http.Request) {
	var req graderExamsRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	if req.ExamIDs == nil {
		a.writeError(w, r, respond.InvalidJSON("exam_ids is required (an empty list removes every exam)"))
		return
	}
	g, err := a.svc.AssignGraderExams(r.Context(), chi.URLParam(r, "id"), req.ExamIDs)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusOK, newGraderView(g))
}

// gradeView is one version of an answer's grade.
type gradeView struct {
	Points     float64   `json:"points"`
	Comment    string    `json:"comment"`
	GraderID   string    `json:"grader_id"`
	GraderName string    `json:"grader_username"`
	GradedAt   time.Time `json:"graded_at"`
	Version    int       `json:"version"`
}

func newGradeView(g *exam.Grade) *gradeView {
	if g == nil {
		return nil
	}
	return &gradeView{Points: g.Points, Comment: g.Comment, GraderID: g.GraderID, GraderName: g.GraderName,
		GradedAt: g.GradedAt.UTC(), Version: g.Version}
}

// essayAnswerView is an answer to grade.
type essayAnswerView struct {
	Code       string     `json:"code"`
	MemberID   string     `json:"member_id,omitempty"`
	Nama       string     `json:"nama,omitempty"`
	QuestionID string     `json:"question_id"`
	Answer     string     `json:"answer"`
	AnsweredAt time.Time  `json:"answered_at"`
	MaxPoints  float64    `json:"max_points"`
	Graded     bool       `json:"graded"`
	Grade      *gradeView `json:"grade"`
}

func newEssayAnswerView(a exam.EssayAnswer) essayAnswerView {
	return essayAnswerView{Code: a.Code, MemberID: a.MemberID, Nama: a.Nama, QuestionID: a.QuestionID, Answer: a.Answer,
		AnsweredAt: a.AnsweredAt.UTC(), MaxPoints: a.MaxPoints, Graded: a.Grade != nil, Grade: newGradeView(a.Grade)}
}

// gradingQuestionView is an essay question as graders read it, with its
// progress.
type gradingQuestionView struct {
	Number     int     `json:"number"`
	QuestionID string  `json:"question_id"`
	Format     string  `json:"format,omitempty"`
	Text       string  `json:"text"`
	Rubric     string  `json:"rubric"`
	Points     float64 `json:"points"`
	Answers    int     `json:"answers"`
	Graded     int     `json:"graded"`
	ToGrade    int     `json:"to_grade"`
}

func newGradingQuestionView(q exam.GradingQuestion) gradingQuestionView {
	return gradingQuestionView{Number: q.Number, QuestionID: q.Question.ID, Format: q.Question.Format, Text: q.Question.Text,
		Rubric: q.Question.Rubric, Points: q.Question.Points, Answers: q.Answers, Graded: q.Graded, ToGrade: q.ToGrade()}
}

// gradingExams handles GET /api/v1/grading/exams: the exams the caller may
// grade (a grader: those assigned to it; an operator: all).
func (a *api) gradingExams(w http.ResponseWriter, r *http.Request) {
	es, err := a.svc.GradingExams(r.Context(), operator.From(r.Context()))
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

// gradingProgress handles GET /api/v1/grading/exams/{id}: the exam's essay
// questions with their rubrics and how many answers are graded and to grade.
func (a *api) gradingProgress(w http.ResponseWriter, r *http.Request) {
	p, err := a.svc.GradingProgress(r.Context(), operator.From(r.Context()), chi.URLParam(r, "id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	qs := make([]gradingQuestionView, len(p.Questions))
	for i, q := range p.Questions {
		qs[i] = newGradingQuestionView(q)
	}
	respond.Data(w, http.StatusOK, struct {
		ExamID    string                `json:"exam_id"`
		Title     string                `json:"title"`
		Answers   int                   `json:"answers"`
		Graded    int                   `json:"graded"`
		ToGrade   int                   `json:"to_grade"`
		Questions []gradingQuestionView `json:"questions"`
	}{p.Exam.ID, p.Exam.Title, p.Answers, p.Graded, p.ToGrade(), qs})
}

// essayQuery reads the exam and question of the path and ?names= (true for
// the students' ids and names, operators only).
func essayQuery(r *http.Request) (exam.EssayQuery, error) {
	q := exam.EssayQuery{ExamID: chi.URLParam(r, "id"), QuestionID: chi.URLParam(r, "question_id")}
	switch v := r.URL.Query().Get("names"); v {
	case "", "false":
	case "true":
		q.Names = true
	default:
		return q, respond.InvalidQuery("names must be true or false")
	}
	return q, nil
}

// essayAnswers handles GET
// /api/v1/grading/exams/{id}/questions/{question_id}/answers?status=&names=:
// the answers to one essay, by code, with their grades; status=ungraded
// keeps those still to grade.
func (a *api) essayAnswers(w http.ResponseWriter, r *http.Request) {
	q, err := essayQuery(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	switch r.URL.Query().Get("status") {
	case "", "all":
	case "ungraded":
		q.Ungraded = true
	default:
		a.writeError(w, r, respond.InvalidQuery("status must be all or ungraded"))
		return
	}
	as, err := a.svc.EssayAnswers(r.Context(), operator.From(r.Context()), q)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	views := make([]essayAnswerView, len(as))
	graded := 0
	for i, a := range as {
		views[i] = newEssayAnswerView(a)
		if a.Grade != nil {
			graded++
		}
	}
	type meta struct {
		Total   int `json:"total"`
		Graded  int `json:"graded"`
		ToGrade int `json:"to_grade"`
	}
	respond.JSON(w, http.StatusOK, struct {
		Success bool              `json:"success"`
		Data    []essayAnswerView `json:"data"`
		Meta    meta              `json:"meta"`
	}{true, views, meta{Total: len(as), Graded: graded, ToGrade: len(as) - graded}})
}

// essayAnswer handles GET
// /api/v1/grading/exams/{id}/questions/{question_id}/answers/{code}: one
// answer with its grade's history; ETag is the grade's version ("0" while
// it has none), for If-Match on the save.
func (a *api) essayAnswer(w http.ResponseWriter, r *http.Request) {
	q, err := essayQuery(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	ans, hist, err := a.svc.EssayAnswer(r.Context(), operator.From(r.Context()), q, chi.URLParam(r, "code"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	history := make([]*gradeView, len(hist))
	for i := range hist {
		history[i] = newGradeView(&hist[i])
	}
	version := 0
	if ans.Grade != nil {
		version = ans.Grade.Version
	}
	w.Header().Set("ETag", strconv.Quote(strconv.Itoa(version)))
	respond.Data(w, http.StatusOK, struct {
		essayAnswerView
		History []*gradeView `json:"history"`
	}{newEssayAnswerView(ans), history})
}

type saveGradeRequest struct {
	Points  *float64 `json:"points"`
	Comment string   `json:"comment"`
	// Version is the version of the grade read (0: none); If-Match may
	// carry it instead.
	Version *int `json:"version"`
}

// saveGrade handles PUT
// /api/v1/grading/exams/{id}/questions/{question_id}/answers/{code}/grade:
// a new version of the answer's grade, when the body's version (or
// If-Match) is the latest; 409 GRADE_CONFLICT with the current grade
// otherwise.
func (a *api) saveGrade(w http.ResponseWriter, r *http.Request) {
	var req saveGradeRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	version, err := gradeVersion(r, req.Version)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if req.Points == nil {
		a.writeError(w, r, apperr.New(apperr.Invalid, "VALIDATION_FAILED", "points is required"))
		return
	}
	g, err := a.svc.SaveGrade(r.Context(), operator.From(r.Context()), exam.GradeInput{ExamID: chi.URLParam(r, "id"),
		QuestionID: chi.URLParam(r, "question_id"), Code: chi.URLParam(r, "code"), Points: *req.Points,
		Comment: req.Comment, Version: version})
	var conflict *exam.GradeConflictError
	if errors.As(err, &conflict) {
		respond.JSON(w, http.StatusConflict, struct {
			Success bool       `json:"success"`
			Error   string     `json:"error"`
			Code    string     `json:"code"`
			Current *gradeView `json:"current"`
		}{false, exam.ErrGradeConflict.Message, exam.ErrGradeConflict.Code, newGradeView(&conflict.Current)})
		return
	}
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("ETag", strconv.Quote(strconv.Itoa(g.Version)))
	respond.Data(w, http.StatusOK, newGradeView(&g))
}

// gradeVersion returns the version a save replaces: the body's version or
// If-Match (a quoted or bare integer); one of them is required, and they
// must agree when both are given.
func gradeVersion(r *http.Request, body *int) (int, error) {
	h := strings.TrimSpace(r.Header.Get("If-Match"))
	if h == "" {
		if body == nil {
			return 0, apperr.New(apperr.Invalid, "VALIDATION_FAILED",
				"version is required: the version of the grade you read, 0 when it had none (or send it as If-Match)")
		}
		return *body, nil
	}
	v, err := strconv.Atoi(strings.Trim(h, `"`))
	if err != nil || v < 0 {
		return 0, apperr.New(apperr.Invalid, "VALIDATION_FAILED", `If-Match must be the grade's ETag, such as "2"`)
	}
	if body != nil && *body != v {
		return 0, apperr.New(apperr.Invalid, "VALIDATION_FAILED", "version and If-Match disagree")
	}
	return v, nil
}
