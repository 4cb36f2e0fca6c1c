package console

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/identity"
)

// The grading of essays (docs/console.md, "Grading essays"): graders and
// operators grade one essay question at a time, answer by answer, with the
// keyboard; students show as their codes unless an operator asks for names.

// gradingExamsView is the data of the list of exams to grade.
type gradingExamsView struct {
	Exams []exam.Exam
}

// gradingExams serves GET /console/grading: the exams the account may
// grade.
func (c *console) gradingExams(w http.ResponseWriter, r *http.Request) {
	v := c.examView(r)
	es, err := c.exam.GradingExams(r.Context(), *operatorFrom(r))
	status := http.StatusOK
	if err != nil {
		status = c.showError(&v, err)
	}
	v.Data = gradingExamsView{Exams: es}
	c.render(w, r, "grading_exams", status, v)
}

// gradingExam serves GET /console/grading/{id}: the exam's essays with
// their progress.
func (c *console) gradingExam(w http.ResponseWriter, r *http.Request) {
	v := c.examView(r)
	p, err := c.exam.GradingProgress(r.Context(), *operatorFrom(r), chi.URLParam(r, "id"))
	if err != nil {
		c.render(w, r, "grading_exam", c.showError(&v, err), v)
		return
	}
	v.Data = p
	c.render(w, r, "grading_exam", http.StatusOK, v)
}

// gradeForm is the grading form as the grader typed it.
type gradeForm struct {
	Points, Comment string
	Version         int
}

// gradeView is the grading page's data: one essay question, its answers
// (the list beside the page) and the current one with its form.
type gradeView struct {
	Exam     exam.Exam
	Question exam.GradingQuestion
	Text     template.HTML // the question as students see it, sanitised
	Answers  []exam.EssayAnswer
	Current  *exam.EssayAnswer
	// Prev and Next are the codes around the current one (empty at the
	// ends); Graded counts the graded answers.
	Prev, Next string
	Graded     int
	// Names is set when an operator shows the students' names; CanNames
	// when the account may.
	Names, CanNames bool
	Form            gradeForm
	// Conflict is the grade another grader saved meanwhile, when the save
	// was refused for it.
	Conflict *exam.Grade
	// Saved is set after a save; Done when no answer is left to grade.
	Saved, Done bool
}

// ToGrade counts the answers still to grade.
func (g gradeView) ToGrade() int { return len(g.Answers) - g.Graded }

// URL returns the page's address for the answer of code, keeping the names
// choice.
func (g gradeView) URL(code string) string {
	q := url.Values{"code": {code}}
	if g.Names {
		q.Set("names", "1")
	}
	return "/console/grading/" + url.PathEscape(g.Exam.ID) + "/" + url.PathEscape(g.Question.Question.ID) + "?" + q.Encode()
}

// loadGradeView reads the question and its answers and places the current
// answer at code (the first to grade when empty; with advance, the next to
// grade after code).
func (c *console) loadGradeView(r *http.Request, code string, advance bool) (gradeView, error) {
	u := *operatorFrom(r)
	examID, qid := chi.URLParam(r, "id"), chi.URLParam(r, "qid")
	gv := gradeView{CanNames: u.Role.Operates()}
	gv.Names = gv.CanNames && r.URL.Query().Get("names") == "1"
	as, err := c.exam.EssayAnswers(r.Context(), u, exam.EssayQuery{ExamID: examID, QuestionID: qid, Names: gv.Names})
	if err != nil {
		return gv, err // the exam is not the account's, or qid is not one of its essays
	}
	p, err := c.exam.GradingProgress(r.Context(), u, examID)
	if err != nil {
		return gv, err
	}
	gv.Exam, gv.Answers = p.Exam, as
	for _, q := range p.Questions {
		if q.Question.ID == qid {
			gv.Question = q
		}
	}
	pq, _, err := c.exam.RenderQuestion(r.Context(), gv.Question.Question)
	if err != nil {
		return gv, err
	}
	gv.Text = template.HTML(pq.HTML) // sanitised by internal/richtext
	at := -1
	for j, a := range as {
		if a.Grade != nil {
			gv.Graded++
		}
		if strings.EqualFold(a.Code, code) {
			at = j
		}
	}
	gv.Done = gv.Graded == len(as)
	switch {
	case len(as) == 0:
		return gv, nil
	case at < 0 || advance:
		at = nextToGrade(as, at)
	}
	gv.Current = &gv.Answers[at]
	if at > 0 {
		gv.Prev = as[at-1].Code
	}
	if at+1 < len(as) {
		gv.Next = as[at+1].Code
	}
	if g := gv.Current.Grade; g != nil {
		gv.Form = gradeForm{Points: exam.FormatPoints(g.Points), Comment: g.Comment, Version: g.Version}
	}
	return gv, nil
}

// nextToGrade returns the index of the first answer without a grade after
// from (wrapping around), or from itself (0 when from is -1) when every
// answer is graded.
func nextToGrade(as []exam.EssayAnswer, from int) int {
	for k := 1; k <= len(as); k++ {
		if j := (from + k) % len(as); as[j].Grade == nil {
			return j
		}
	}
	return max(from, 0)
}

// gradePage serves GET /console/grading/{id}/{qid}?code=&names=: one
// answer to grade, with the question, its rubric and the list of answers.
func (c *console) gradePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := c.examView(r)
	gv, err := c.loadGradeView(r, q.Get("code"), q.Get("advance") == "1")
	if err != nil {
		c.render(w, r, "grading", c.showError(&v, err), v)
		return
	}
	gv.Saved = q.Get("saved") == "1"
	v.Data = gv
	c.render(w, r, "grading", http.StatusOK, v)
}

// saveGrade serves POST /console/grading/{id}/{qid} (code, points,
// comment, version): the grade saved through the exam service, then the
// next answer to grade. A refused grade keeps what was typed and says why;
// a stale one shows the grade another grader saved meanwhile, and the form
// then saves over it knowingly.
func (c *console) saveGrade(w http.ResponseWriter, r *http.Request) {
	code := r.PostFormValue("code")
	form := gradeForm{Points: strings.TrimSpace(r.PostFormValue("points")), Comment: r.PostFormValue("comment")}
	var err error
	form.Version, err = strconv.Atoi(r.PostFormValue("version"))
	if err != nil {
		err = errForm("the form's version is missing: reload the page")
	}
	var points float64
	if err == nil {
		if points, err = strconv.ParseFloat(strings.Replace(form.Points, ",", ".", 1), 64); err != nil {
			err = errForm("the points must be a number, such as 7 or 7.5")
		}
	}
	var g exam.Grade
	if err == nil {
		g, err = c.exam.SaveGrade(r.Context(), *operatorFrom(r), exam.GradeInput{ExamID: chi.URLParam(r, "id"),
			QuestionID: chi.URLParam(r, "qid"), Code: code, Points: points, Comment: form.Comment, Version: form.Version})
	}
	if err == nil {
		c.log.Info("console: grade saved", "exam", g.ExamID, "question", g.QuestionID, "version", g.Version, "by", operatorFrom(r).Username)
		u := r.URL.Path + "?" + url.Values{"code": {code}, "advance": {"1"}, "saved": {"1"}}.Encode()
		if r.URL.Query().Get("names") == "1" {
			u += "&names=1"
		}
		http.Redirect(w, r, u, http.StatusSeeOther)
		return
	}
	v := c.examView(r)
	gv, lerr := c.loadGradeView(r, code, false)
	if lerr != nil {
		c.render(w, r, "grading", c.showError(&v, lerr), v)
		return
	}
	status := c.showError(&v, err)
	var conflict *exam.GradeConflictError
	if errors.As(err, &conflict) {
		gv.Conflict = &conflict.Current
		form.Version = conflict.Current.Version // saving again replaces it, knowingly
	}
	gv.Form = form
	v.Data = gv
	c.render(w, r, "grading", status, v)
}

// gradersView is the graders page's data.
type gradersView struct {
	Graders []exam.Grader
	Exams   []exam.Exam
	Created string // the username just created
}

// Assigned reports whether g may grade the exam of id.
func (gradersView) Assigned(g exam.Grader, id string) bool {
	for _, e := range g.ExamIDs {
		if e == id {
			return true
		}
	}
	return false
}

// graders serves GET /console/graders: the grader accounts, the exams
// assigned to each, and the form of a new one.
func (c *console) graders(w http.ResponseWriter, r *http.Request) {
	c.renderGraders(w, r, http.StatusOK, r.URL.Query().Get("created"), nil)
}

func (c *console) renderGraders(w http.ResponseWriter, r *http.Request, status int, created string, err error) {
	v := c.examView(r)
	if err != nil {
		status = c.showError(&v, err)
	}
	gv := gradersView{Created: created}
	var lerr error
	if gv.Graders, lerr = c.exam.Graders(r.Context()); lerr == nil {
		gv.Exams, lerr = c.exam.ListExams(r.Context(), "")
	}
	if lerr != nil {
		status = c.showError(&v, lerr)
	}
	v.Data = gv
	c.render(w, r, "graders", status, v)
}

// createGrader serves POST /console/graders (username, name, password).
func (c *console) createGrader(w http.ResponseWriter, r *http.Request) {
	u, err := c.ids.CreateOperator(r.Context(), identity.OperatorInput{Username: r.PostFormValue("username"),
		Name: r.PostFormValue("name"), Password: r.PostFormValue("password"), Role: identity.RoleGrader})
	if err != nil {
		c.renderGraders(w, r, http.StatusBadRequest, "", err)
		return
	}
	c.log.Info("console: grader created", "grader", u.ID, "by", operatorFrom(r).Username)
	http.Redirect(w, r, "/console/graders?created="+url.QueryEscape(u.Username), http.StatusSeeOther)
}

// assignGrader serves POST /console/graders/{id}/exams (exam, repeated):
// the exams the grader may grade, replaced.
func (c *console) assignGrader(w http.ResponseWriter, r *http.Request) {
	if _, err := c.exam.AssignGraderExams(r.Context(), chi.URLParam(r, "id"), r.PostForm["exam"]); err != nil {
		c.renderGraders(w, r, http.StatusBadRequest, "", err)
		return
	}
	http.Redirect(w, r, "/console/graders", http.StatusSeeOther)
}
