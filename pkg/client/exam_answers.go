package client

import (
	"context"
	"io"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// StoredAnswer is an answer as the portal stores it: the newest per
// student and question, with the push that stored it and whether it is
// correct by the exam's answer key.
type StoredAnswer struct {
	MemberID   string    `json:"member_id"`
	QuestionID string    `json:"question_id"`
	Answer     string    `json:"answer"`
	AnsweredAt time.Time `json:"answered_at"`
	ServerCode string    `json:"server_code"`
	SyncID     string    `json:"sync_id"`
	Correct    bool      `json:"correct"`
	Points     float64   `json:"points"`
	// Graded is false for an essay answer waiting for its grade: Points
	// is then 0 and PendingPoints what it may still earn. Grade is an
	// essay's grade.
	Graded        bool    `json:"graded"`
	PendingPoints float64 `json:"pending_points"`
	Grade         *Grade  `json:"grade,omitempty"`
}

// AnswerListOptions selects stored answers of an exam.
type AnswerListOptions struct {
	ListOptions
	// MemberID keeps one student's answers; NPSN the answers of one
	// school's students.
	MemberID string
	NPSN     string
}

func (o *AnswerListOptions) values() url.Values {
	q := url.Values{}
	if o != nil {
		setIf(q, "member_id", o.MemberID)
		setIf(q, "npsn", o.NPSN)
		o.ListOptions.values(q)
	}
	return q
}

// ListAnswers returns one page of the stored answers of an exam, ordered by
// student then question (GET /api/v1/admin/exams/{id}/answers). resp
// carries the paging (Page, PerPage, Total, TotalPages, NextPage) and
// AnswerRows, every stored answer row of the exam. opts may be nil.
func (s *ExamAdminService) ListAnswers(ctx context.Context, examID string, opts *AnswerListOptions) ([]*StoredAnswer, *Response, error) {
	id, err := segment("exam id", examID)
	if err != nil {
		return nil, nil, err
	}
	var out struct {
		Data []*StoredAnswer `json:"data"`
		Meta struct {
			Total      int `json:"total"`
			Page       int `json:"page"`
			PerPage    int `json:"per_page"`
			TotalPages int `json:"total_pages"`
			AnswerRows int `json:"answer_rows"`
		} `json:"meta"`
	}
	resp, err := s.client.exam(ctx, http.MethodGet, "admin/exams/"+id+"/answers", opts.values(), nil, &out, credBearer)
	if err != nil {
		return nil, resp, err
	}
	resp.setPaging(out.Meta.Page, out.Meta.PerPage, out.Meta.Total, out.Meta.TotalPages)
	resp.AnswerRows = out.Meta.AnswerRows
	return out.Data, resp, nil
}

// AllAnswers walks every page of an exam's stored answers from opts.Page
// (the first when 0), yielding each answer; an error is yielded once, with
// a nil answer, and ends the walk. opts may be nil and is not modified.
func (s *ExamAdminService) AllAnswers(ctx context.Context, examID string, opts *AnswerListOptions) iter.Seq2[*StoredAnswer, error] {
	var o AnswerListOptions
	if opts != nil {
		o = *opts
	}
	return allPages(o.Page, func(page int) ([]*StoredAnswer, *Response, error) {
		o.Page = page
		return s.ListAnswers(ctx, examID, &o)
	})
}

// AnswersCSV copies the stored answers of an exam selected by opts (its
// paging is ignored: the whole selection) as CSV to w, streamed (GET
// /api/v1/admin/exams/{id}/answers?format=csv): a header row
// exam_id,member_id,question_id,answer,answered_at,server_code,sync_id,correct,points,
// then one row per answer. A cut stream is an error.
func (s *ExamAdminService) AnswersCSV(ctx context.Context, examID string, opts *AnswerListOptions, w io.Writer) (*Response, error) {
	if w == nil {
		return nil, errorf("answers CSV: nil writer")
	}
	id, err := segment("exam id", examID)
	if err != nil {
		return nil, err
	}
	q := opts.values()
	q.Del("page")
	q.Del("per_page")
	q.Set("format", "csv")
	req, err := s.client.newRequest(ctx, http.MethodGet, examPrefix+"admin/exams/"+id+"/answers", q, nil, credBearer)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/csv")
	return s.client.do(ctx, req, w, decodeExamError)
}

// AnswerSheet is one student's answers to an exam, question by question.
type AnswerSheet struct {
	ExamID    string  `json:"exam_id"`
	ExamTitle string  `json:"exam_title"`
	MemberID  string  `json:"member_id"`
	Nama      string  `json:"nama"`
	Username  string  `json:"username"`
	Kelas     string  `json:"kelas"`
	NPSN      string  `json:"npsn"`
	Score     float64 `json:"score"`
	MaxScore  float64 `json:"max_score"`
	Answered  int     `json:"answered"`
	Correct   int     `json:"correct"`
	// Graded is false while essay answers wait for their grades.
	Graded        bool             `json:"graded"`
	Pending       int              `json:"pending"`
	PendingPoints float64          `json:"pending_points"`
	Questions     []AnswerSheetRow `json:"questions"`
}

// AnswerSheetRow is one question of an answer sheet, with its answer key
// and the student's answer (nil: not answered).
type AnswerSheetRow struct {
	Number   int           `json:"number"`
	Question Question      `json:"question"`
	Answer   *StoredAnswer `json:"answer"`
}

// AnswerSheet returns a student's answer sheet of an exam (GET
// /api/v1/admin/exams/{id}/results/{member_id}).
func (s *ExamAdminService) AnswerSheet(ctx context.Context, examID, memberID string) (*AnswerSheet, *Response, error) {
	id, err := segment("exam id", examID)
	if err != nil {
		return nil, nil, err
	}
	mid, err := segment("member id", memberID)
	if err != nil {
		return nil, nil, err
	}
	return examData[*AnswerSheet](ctx, s.client, http.MethodGet, "admin/exams/"+id+"/results/"+mid, nil, nil)
}

// allPages walks the pages of a list from page (the first when below 1),
// yielding each item; an error is yielded once, with a nil item, and ends
// the walk; so does breaking out of the loop.
func allPages[T any](page int, list func(page int) ([]*T, *Response, error)) iter.Seq2[*T, error] {
	if page < 1 {
		page = 1
	}
	return func(yield func(*T, error) bool) {
		for p := page; ; {
			items, resp, err := list(p)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if len(items) == 0 || resp.NextPage <= p {
				return
			}
			p = resp.NextPage
		}
	}
}
