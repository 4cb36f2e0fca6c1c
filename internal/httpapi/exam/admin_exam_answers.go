package exam

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

// storedAnswerView is a stored answer as operators read it.
type storedAnswerView struct {
	MemberID   string    `json:"member_id"`
	QuestionID string    `json:"question_id"`
	Answer     string    `json:"answer"`
	AnsweredAt time.Time `json:"answered_at"`
	ServerCode string    `json:"server_code"`
	SyncID     string    `json:"sync_id"`
	Correct    bool      `json:"correct"`
	Points     float64   `json:"points"`
	// Graded is false for an essay answer waiting for its grade (points
	// 0, pending_points what it may earn); Grade is an essay's grade.
	Graded        bool       `json:"graded"`
	PendingPoints float64    `json:"pending_points"`
	Grade         *gradeView `json:"grade,omitempty"`
}

func newStoredAnswerView(a exam.StoredAnswer) storedAnswerView {
	return storedAnswerView{MemberID: a.MemberID, QuestionID: a.QuestionID, Answer: a.Answer.Answer,
		AnsweredAt: a.AnsweredAt.UTC(), ServerCode: a.ServerCode, SyncID: a.SyncID, Correct: a.Correct, Points: a.Points,
		Graded: a.Graded, PendingPoints: a.PendingPoints, Grade: newGradeView(a.Grade)}
}

// answersCSVHeader is the header row of the answers' CSV export. An essay
// answer waiting for its grade has "ungraded" in points and correct, and
// graded false.
var answersCSVHeader = []string{"exam_id", "member_id", "question_id", "answer", "answered_at", "server_code", "sync_id",
	"correct", "points", "graded", "grade_comment"}

// ungradedCSV marks an essay answer waiting for its grade in the CSV.
const ungradedCSV = "ungraded"

// examAnswers handles GET /api/v1/admin/exams/{id}/answers?member_id=&npsn=&page=&per_page=&format=:
// the stored answers of an exam, one per (member, question), scored, with
// the push that stored each; paged like the member directory, or with
// format=csv the whole selection streamed as CSV.
func (a *api) examAnswers(w http.ResponseWriter, r *http.Request) {
	qv := r.URL.Query()
	q := exam.AnswerQuery{ExamID: chi.URLParam(r, "id"), MemberID: qv.Get("member_id"), NPSN: qv.Get("npsn")}
	switch qv.Get("format") {
	case "csv":
		a.examAnswersCSV(w, r, q)
		return
	case "", "json":
	default:
		a.writeError(w, r, respond.InvalidQuery("format must be json or csv"))
		return
	}
	page, err := intParam(qv.Get("page"), 1, 1, 1<<30)
	if err != nil {
		a.writeError(w, r, respond.InvalidQuery("page must be an integer of at least 1"))
		return
	}
	perPage, err := intParam(qv.Get("per_page"), exam.DefaultAnswersPerPage, 1, exam.MaxAnswersPerPage)
	if err != nil {
		a.writeError(w, r, respond.InvalidQuery("per_page must be an integer between 1 and %d", exam.MaxAnswersPerPage))
		return
	}
	q.Offset, q.Limit = (page-1)*perPage, perPage
	res, err := a.svc.ListStoredAnswers(r.Context(), q)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	views := make([]storedAnswerView, len(res.Answers))
	for i, a := range res.Answers {
		views[i] = newStoredAnswerView(a)
	}
	type meta struct {
		Total      int `json:"total"`
		Page       int `json:"page"`
		PerPage    int `json:"per_page"`
		TotalPages int `json:"total_pages"`
		AnswerRows int `json:"answer_rows"`
	}
	respond.JSON(w, http.StatusOK, struct {
		Success bool               `json:"success"`
		Data    []storedAnswerView `json:"data"`
		Meta    meta               `json:"meta"`
	}{true, views, meta{Total: res.Total, Page: page, PerPage: perPage, TotalPages: (res.Total + perPage - 1) / perPage, AnswerRows: res.Rows}})
}

// examAnswersCSV streams the selected answers as CSV, reading the store a
// chunk at a time. The exam is checked before the first byte, so that an
// unknown exam is a 404; a failure later can only cut the stream (logged).
func (a *api) examAnswersCSV(w http.ResponseWriter, r *http.Request, q exam.AnswerQuery) {
	if _, err := a.svc.GetExam(r.Context(), q.ExamID); err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="exam-`+q.ExamID+`-answers.csv"`)
	w.WriteHeader(http.StatusOK)
	cw := csv.NewWriter(w)
	if err := cw.Write(answersCSVHeader); err != nil {
		return
	}
	row := make([]string, len(answersCSVHeader))
	err := a.svc.WalkAnswers(r.Context(), q, func(a exam.StoredAnswer) error {
		row[0], row[1], row[2], row[3] = a.ExamID, a.MemberID, a.QuestionID, a.Answer.Answer
		row[4], row[5], row[6] = a.AnsweredAt.UTC().Format(time.RFC3339Nano), a.ServerCode, a.SyncID
		row[7], row[8] = strconv.FormatBool(a.Correct), strconv.FormatFloat(a.Points, 'f', -1, 64)
		if !a.Graded {
			row[7], row[8] = ungradedCSV, ungradedCSV
		}
		row[9], row[10] = strconv.FormatBool(a.Graded), ""
		if a.Grade != nil {
			row[10] = a.Grade.Comment
		}
		if err := cw.Write(row); err != nil {
			return err
		}
		return cw.Error()
	})
	cw.Flush()
	if err == nil {
		err = cw.Error()
	}
	if err != nil {
		a.log.ErrorContext(r.Context(), "answers CSV cut short", "exam", q.ExamID, "err", err)
		panic(http.ErrAbortHandler) // the client must not take a cut file for a whole one
	}
}

// sheetRowView is one question of an answer sheet.
type sheetRowView struct {
	Number   int               `json:"number"`
	Question questionJSON      `json:"question"`
	Answer   *storedAnswerView `json:"answer"` // null: not answered
}

// answerSheet handles GET /api/v1/admin/exams/{id}/results/{member_id}: one
// student's answer sheet, question by question in the exam's order, with
// the answer key, the student's answer, whether it is correct and the push
// that stored it (for appeals).
func (a *api) answerSheet(w http.ResponseWriter, r *http.Request) {
	sh, err := a.svc.AnswerSheet(r.Context(), chi.URLParam(r, "id"), chi.URLParam(r, "member_id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	rows := make([]sheetRowView, len(sh.Rows))
	for i, row := range sh.Rows {
		rows[i] = sheetRowView{Number: row.Number, Question: newQuestionJSON(row.Question)}
		if row.Answer != nil {
			v := newStoredAnswerView(*row.Answer)
			rows[i].Answer = &v
		}
	}
	respond.Data(w, http.StatusOK, struct {
		ExamID    string         `json:"exam_id"`
		ExamTitle string         `json:"exam_title"`
		MemberID  string         `json:"member_id"`
		Nama      string         `json:"nama"`
		Username  string         `json:"username"`
		Kelas     string         `json:"kelas"`
		NPSN      string         `json:"npsn"`
		Score     float64        `json:"score"`
		MaxScore  float64        `json:"max_score"`
		Answered  int            `json:"answered"`
		Correct   int            `json:"correct"`
		Graded    bool           `json:"graded"`
		Pending   int            `json:"pending"`
		PendingPt float64        `json:"pending_points"`
		Questions []sheetRowView `json:"questions"`
	}{sh.ExamID, sh.ExamTitle, sh.Member.ID, sh.Member.Nama, sh.Member.Username, sh.Member.Kelas, sh.Member.NPSN,
		sh.Score, sh.MaxScore, sh.Answered, sh.Correct, sh.Pending == 0, sh.Pending, sh.PendingPoints, rows})
}
