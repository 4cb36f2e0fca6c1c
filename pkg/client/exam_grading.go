package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"
)

// Graders and the grading of essays (docs/api/exam.md, "Grading essays").

// Grader is a grader account: it may only grade the essays of ExamIDs.
type Grader struct {
	ID        string    `json:"id"`
	Username  string    `json:"username"`
	Name      string    `json:"name"`
	Role      string    `json:"role"`
	ExamIDs   []string  `json:"exam_ids"`
	CreatedAt time.Time `json:"created_at"`
}

// GraderRequest is the body of a grader's creation.
type GraderRequest struct {
	Username string `json:"username"`
	Name     string `json:"name,omitempty"`
	// Password is 8 to 72 characters.
	Password string `json:"password"`
}

// CreateGrader creates a grader account (POST /api/v1/admin/graders); it
// may grade nothing until SetGraderExams.
func (s *ExamAdminService) CreateGrader(ctx context.Context, req GraderRequest) (*Grader, *Response, error) {
	return examData[*Grader](creating(ctx), s.client, http.MethodPost, "admin/graders", nil, req)
}

// ListGraders returns every grader with its exams, by username (GET
// /api/v1/admin/graders).
func (s *ExamAdminService) ListGraders(ctx context.Context) ([]*Grader, *Response, error) {
	return examData[[]*Grader](ctx, s.client, http.MethodGet, "admin/graders", nil, nil)
}

// SetGraderExams makes examIDs the exams the grader may grade (PUT
// /api/v1/admin/graders/{id}/exams); an empty list takes every exam away.
func (s *ExamAdminService) SetGraderExams(ctx context.Context, graderID string, examIDs []string) (*Grader, *Response, error) {
	id, err := segment("grader id", graderID)
	if err != nil {
		return nil, nil, err
	}
	if examIDs == nil {
		examIDs = []string{}
	}
	body := struct {
		ExamIDs []string `json:"exam_ids"`
	}{examIDs}
	return examData[*Grader](ctx, s.client, http.MethodPut, "admin/graders/"+id+"/exams", nil, body)
}

// Grade is one version of the grade of an essay answer.
type Grade struct {
	// Points is from 0 to the question's points, in hundredths at most.
	Points         float64   `json:"points"`
	Comment        string    `json:"comment"`
	GraderID       string    `json:"grader_id"`
	GraderUsername string    `json:"grader_username"`
	GradedAt       time.Time `json:"graded_at"`
	// Version is 1 for the first grade and one more with each change.
	Version int `json:"version"`
}

// EssayAnswer is one student's answer to an essay, as graders read it.
type EssayAnswer struct {
	// Code stands for the student in this exam's grading, stable.
	Code string `json:"code"`
	// MemberID and Nama are set only when an operator asks for names.
	MemberID   string    `json:"member_id,omitempty"`
	Nama       string    `json:"nama,omitempty"`
	QuestionID string    `json:"question_id"`
	Answer     string    `json:"answer"`
	AnsweredAt time.Time `json:"answered_at"`
	MaxPoints  float64   `json:"max_points"`
	Graded     bool      `json:"graded"`
	// Grade is the latest grade, nil while there is none.
	Grade *Grade `json:"grade"`
	// History is every version of the grade, oldest first (EssayAnswer
	// only).
	History []Grade `json:"history,omitempty"`
}

// Version is the version of the answer's grade (0 while it has none): the
// version to pass to SaveGrade to replace it.
func (a *EssayAnswer) Version() int {
	if a.Grade == nil {
		return 0
	}
	return a.Grade.Version
}

// GradingQuestion is an essay of an exam with its grading progress.
type GradingQuestion struct {
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

// GradingProgress is how far the grading of an exam's essays is.
type GradingProgress struct {
	ExamID    string            `json:"exam_id"`
	Title     string            `json:"title"`
	Answers   int               `json:"answers"`
	Graded    int               `json:"graded"`
	ToGrade   int               `json:"to_grade"`
	Questions []GradingQuestion `json:"questions"`
}

// EssayListOptions selects the answers of ListAnswers.
type EssayListOptions struct {
	// Ungraded keeps only the answers without a grade.
	Ungraded bool
	// Names asks for the students' ids and names (operators only).
	Names bool
}

// Exams returns the exams the caller may grade: a grader's assigned
// exams, every exam for an operator (GET /api/v1/grading/exams).
func (s *ExamGradingService) Exams(ctx context.Context) ([]*Exam, *Response, error) {
	return examData[[]*Exam](ctx, s.client, http.MethodGet, "grading/exams", nil, nil)
}

// Progress returns an exam's essays with their rubrics and how many
// answers are graded and to grade (GET /api/v1/grading/exams/{id}).
func (s *ExamGradingService) Progress(ctx context.Context, examID string) (*GradingProgress, *Response, error) {
	id, err := segment("exam id", examID)
	if err != nil {
		return nil, nil, err
	}
	return examData[*GradingProgress](ctx, s.client, http.MethodGet, "grading/exams/"+id, nil, nil)
}

// answersPath returns the path of an essay's answers.
func answersPath(examID, questionID string) (string, error) {
	id, err := segment("exam id", examID)
	if err != nil {
		return "", err
	}
	qid, err := segment("question id", questionID)
	if err != nil {
		return "", err
	}
	return "grading/exams/" + id + "/questions/" + qid + "/answers", nil
}

func namesQuery(names bool) url.Values {
	if !names {
		return nil
	}
	return url.Values{"names": {"true"}}
}

// ListAnswers returns the answers to one essay, ordered by code, with their
// grades (GET /api/v1/grading/exams/{id}/questions/{question_id}/answers).
// opts may be nil.
func (s *ExamGradingService) ListAnswers(ctx context.Context, examID, questionID string, opts *EssayListOptions) ([]*EssayAnswer, *Response, error) {
	path, err := answersPath(examID, questionID)
	if err != nil {
		return nil, nil, err
	}
	var q url.Values
	if opts != nil {
		q = namesQuery(opts.Names)
		if opts.Ungraded {
			if q == nil {
				q = url.Values{}
			}
			q.Set("status", "ungraded")
		}
	}
	return examData[[]*EssayAnswer](ctx, s.client, http.MethodGet, path, q, nil)
}

// Answer returns one answer by its code, with its grade's history (GET
// /api/v1/grading/exams/{id}/questions/{question_id}/answers/{code}).
func (s *ExamGradingService) Answer(ctx context.Context, examID, questionID, code string, names bool) (*EssayAnswer, *Response, error) {
	path, err := answersPath(examID, questionID)
	if err != nil {
		return nil, nil, err
	}
	c, err := segment("code", code)
	if err != nil {
		return nil, nil, err
	}
	return examData[*EssayAnswer](ctx, s.client, http.MethodGet, path+"/"+c, namesQuery(names), nil)
}

// GradeRequest is a grade to save.
type GradeRequest struct {
	Points  float64 `json:"points"`
	Comment string  `json:"comment,omitempty"`
	// Version is the version of the grade read (EssayAnswer.Version; 0
	// when it had none): the save is refused when another grader saved
	// since.
	Version int `json:"version"`
}

// GradeConflictError is the error of a SaveGrade refused because another
// grader saved the answer's grade first (409 GRADE_CONFLICT): Current is
// that grade. errors.Is(err, ErrConflict) holds, and errors.As finds the
// *Error.
type GradeConflictError struct {
	Current *Grade
	Err     *Error
}

// Error implements error.
func (e *GradeConflictError) Error() string { return e.Err.Error() }

// Unwrap returns the *Error.
func (e *GradeConflictError) Unwrap() error { return e.Err }

// SaveGrade saves a grade of one answer as a new version (PUT
// /api/v1/grading/exams/{id}/questions/{question_id}/answers/{code}/grade).
// When another grader saved since req.Version, it returns a
// *GradeConflictError with their grade and nothing is written.
func (s *ExamGradingService) SaveGrade(ctx context.Context, examID, questionID, code string, req GradeRequest) (*Grade, *Response, error) {
	path, err := answersPath(examID, questionID)
	if err != nil {
		return nil, nil, err
	}
	c, err := segment("code", code)
	if err != nil {
		return nil, nil, err
	}
	var current *Grade
	decode := func(e *Error, body []byte) bool {
		if !decodeExamError(e, body) {
			return false
		}
		if e.Code == CodeGradeConflict {
			var env struct {
				Current *Grade `json:"current"`
			}
			if json.Unmarshal(body, &env) == nil {
				current = env.Current
			}
		}
		return true
	}
	var out dataBody[*Grade]
	resp, err := s.client.call(ctx, http.MethodPut, examPrefix+path+"/"+c+"/grade", nil, req, &out, credBearer, decode)
	var apiErr *Error
	if errors.As(err, &apiErr) && apiErr.Code == CodeGradeConflict {
		return nil, resp, &GradeConflictError{Current: current, Err: apiErr}
	}
	if err != nil {
		return nil, resp, err
	}
	return out.Data, resp, nil
}
