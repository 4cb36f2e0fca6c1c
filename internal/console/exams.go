package console

import (
	"encoding/csv"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
)

// exams serves GET /console/exams: every exam with its schools, schedule
// and number of questions.
func (c *console) exams(w http.ResponseWriter, r *http.Request) {
	v := c.examView(r)
	es, err := c.exam.ListExams(r.Context(), "")
	status := http.StatusOK
	if err != nil {
		status = c.showError(&v, err)
	}
	q := r.URL.Query()
	v.Data = examsView{Exams: es, Saved: q.Get("saved") != "", Deleted: q.Get("deleted") != ""}
	c.render(w, r, "exams", status, v)
}

// examsView is the exams page's data; Saved and Deleted say what the last
// form did.
type examsView struct {
	Exams          []exam.Exam
	Saved, Deleted bool
}

// resultsView is the results page's data.
type resultsView struct {
	Exam      exam.Exam
	Results   exam.ExamResults
	Questions []exam.QuestionStat
}

// results serves GET /console/exams/{id}/results: the students' scores and
// each question's rate of correct answers.
func (c *console) results(w http.ResponseWriter, r *http.Request) {
	v := c.examView(r)
	id := chi.URLParam(r, "id")
	var rv resultsView
	var err error
	if rv.Exam, err = c.exam.GetExam(r.Context(), id); err == nil {
		if rv.Results, err = c.exam.Results(r.Context(), id); err == nil {
			rv.Questions, err = c.exam.QuestionStats(r.Context(), id)
		}
	}
	if err != nil {
		c.render(w, r, "results", c.showError(&v, err), v)
		return
	}
	v.Data = rv
	c.render(w, r, "results", http.StatusOK, v)
}

// resultsCSV serves GET /console/exams/{id}/results.csv: the scores as CSV;
// a student whose essays wait for their grades has graded false, and
// to_grade and pending_points say how many and for how many points.
func (c *console) resultsCSV(w http.ResponseWriter, r *http.Request) {
	res, err := c.exam.Results(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		v := c.examView(r)
		c.render(w, r, "results", c.showError(&v, err), v)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="results-`+res.ExamID+`.csv"`)
	cw := csv.NewWriter(w)
	cw.Write([]string{"member_id", "nama", "username", "kelas", "score", "answered", "correct", "graded", "to_grade", "pending_points"})
	for _, m := range res.Results {
		cw.Write([]string{m.MemberID, m.Nama, m.Username, m.Kelas, strconv.FormatFloat(m.Score, 'f', -1, 64),
			strconv.Itoa(m.Answered), strconv.Itoa(m.Correct), strconv.FormatBool(m.Pending == 0), strconv.Itoa(m.Pending),
			strconv.FormatFloat(m.PendingPoints, 'f', -1, 64)})
	}
	cw.Flush()
}
