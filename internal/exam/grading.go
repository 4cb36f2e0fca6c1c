package exam

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/identity"
)

// Essays are graded by teachers (docs/api/exam.md, "Grading essays"):
//
//   - A grader (identity.RoleGrader) grades the essays of the exams an operator
//     assigned to it and nothing else; operators grade any exam's.
//   - Graders see each student as a code, stable per exam (an HMAC of the
//     exam and member under a secret of the portal), never the name; an
//     operator may ask for names.
//   - A grade is points from 0 to the question's points, in hundredths,
//     with an optional comment. Each save is a new version of the
//     answer's grade, kept as its history; a save names the version it
//     replaces, so that of two graders saving over the same version one
//     is refused (GradeConflictError, with the grade that won) and no
//     grade is ever lost silently.

// Grade is a grader's points for one student's answer to an essay.
type Grade struct {
	ExamID     string
	MemberID   string
	QuestionID string
	Points     float64
	Comment    string
	GraderID   string
	GradedAt   time.Time
	// Version is 1 for an answer's first grade and grows by one with each
	// change.
	Version int
	// GraderName is the grader's username, filled by the Service for its
	// readers; the stores keep none.
	GraderName string
}

// Limits of grading.
const (
	maxGradeComment  = 4000 // characters
	maxGraderExams   = 1000
	gradePointsScale = 100 // points are kept in hundredths
)

// Errors of grading.
var (
	ErrNamesForbidden = apperr.New(apperr.Forbidden, "GRADER_FORBIDDEN",
		"graders see students' codes, not their names")
	ErrNotEssay = apperr.New(apperr.Invalid, "NOT_AN_ESSAY", "only essay questions worth points are graded by hand")
	errNoAnswer = apperr.New(apperr.NotFound, "NOT_FOUND", "no answer to grade with this code for this question")
)

// GradeConflictError refuses a save whose version is not the latest: Current
// is the grade another grader saved meanwhile. It is ErrGradeConflict for
// errors.Is and apperr.
type GradeConflictError struct {
	Current Grade
}

// Error implements error.
func (e *GradeConflictError) Error() string { return ErrGradeConflict.Error() }

// Unwrap returns ErrGradeConflict.
func (e *GradeConflictError) Unwrap() error { return ErrGradeConflict }

// answerCode returns the code that stands for memberID in examID's grading:
// 8 base32 characters of an HMAC, shown as "ABCD-EFGH".
func (s *Service) answerCode(examID, memberID string) string {
	m := hmac.New(sha256.New, s.codeSecret)
	m.Write([]byte(examID))
	m.Write([]byte{0})
	m.Write([]byte(memberID))
	c := base32.StdEncoding.EncodeToString(m.Sum(nil)[:5])
	return c[:4] + "-" + c[4:]
}

// Grader is a grader account with the exams assigned to it.
type Grader struct {
	identity.User
	ExamIDs []string
}

// Graders returns every grader account with its exams, by username.
func (s *Service) Graders(ctx context.Context) ([]Grader, error) {
	us, err := s.store.ListUsers(ctx)
	if err != nil {
		return nil, fmt.Errorf("list graders: %w", err)
	}
	var out []Grader
	for _, u := range us {
		if u.Role != identity.RoleGrader {
			continue
		}
		ids, err := s.store.GraderExams(ctx, u.ID)
		if err != nil {
			return nil, fmt.Errorf("list graders: %w", err)
		}
		out = append(out, Grader{User: u, ExamIDs: ids})
	}
	return out, nil
}

// AssignGraderExams makes examIDs the exams the grader may grade and returns
// the grader. NOT_FOUND when graderID is not a grader's account;
// VALIDATION_FAILED, writing nothing, when an exam does not exist.
func (s *Service) AssignGraderExams(ctx context.Context, graderID string, examIDs []string) (Grader, error) {
	u, err := s.store.GetUser(ctx, graderID)
	if errors.Is(err, ErrNotFound) || err == nil && u.Role != identity.RoleGrader {
		return Grader{}, apperr.New(apperr.NotFound, "NOT_FOUND", "no grader account with this id")
	}
	if err != nil {
		return Grader{}, fmt.Errorf("assign grader: %w", err)
	}
	ids := slices.Clone(examIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) > maxGraderExams {
		return Grader{}, invalid("a grader is assigned at most %d exams", maxGraderExams)
	}
	for _, id := range ids {
		if _, err := s.store.GetExam(ctx, id); errors.Is(err, ErrNotFound) {
			return Grader{}, invalid("exam %q does not exist", id)
		} else if err != nil {
			return Grader{}, fmt.Errorf("assign grader: %w", err)
		}
	}
	if err := s.store.SetGraderExams(ctx, graderID, ids); err != nil {
		return Grader{}, fmt.Errorf("assign grader: %w", err)
	}
	s.log.InfoContext(ctx, "grader exams assigned", "grader", graderID, "exams", len(ids))
	return Grader{User: u, ExamIDs: ids}, nil
}

// gradableExam returns examID when u may grade it: an operator any exam, a
// grader the exams assigned to it. Another exam is ErrNotFound for a
// grader, as one that does not exist.
func (s *Service) gradableExam(ctx context.Context, u identity.User, examID string) (Exam, scorer, error) {
	if !u.Role.Operates() {
		ids, err := s.store.GraderExams(ctx, u.ID)
		if err != nil {
			return Exam{}, scorer{}, err
		}
		if _, ok := slices.BinarySearch(ids, examID); !ok {
			return Exam{}, scorer{}, fmt.Errorf("exam %q is not assigned to the grader: %w", examID, ErrNotFound)
		}
	}
	return s.scorer(ctx, examID)
}

// GradingExams returns the exams u may grade (without questions): every
// exam for an operator, the assigned ones for a grader.
func (s *Service) GradingExams(ctx context.Context, u identity.User) ([]Exam, error) {
	es, err := s.store.ListExams(ctx, ExamFilter{})
	if err != nil {
		return nil, fmt.Errorf("grading exams: %w", err)
	}
	if u.Role.Operates() {
		return es, nil
	}
	ids, err := s.store.GraderExams(ctx, u.ID)
	if err != nil {
		return nil, fmt.Errorf("grading exams: %w", err)
	}
	return slices.DeleteFunc(es, func(e Exam) bool {
		_, ok := slices.BinarySearch(ids, e.ID)
		return !ok
	}), nil
}

// graded reports whether q's answers are graded by hand: an essay worth
// points (one worth none earns nothing, whatever is written).
func graded(q Question) bool { return q.Type == Essay && q.Points > 0 }

// GradingQuestion is the grading progress of one essay question.
type GradingQuestion struct {
	Number   int // the question's place in the exam, from 1
	Question Question
	// Answers counts the non-blank answers to grade, Graded those graded.
	Answers, Graded int
}

// ToGrade counts the answers still waiting for a grade.
func (q GradingQuestion) ToGrade() int { return q.Answers - q.Graded }

// GradingProgress is how far the grading of an exam's essays is.
type GradingProgress struct {
	Exam      Exam
	Questions []GradingQuestion // the essays, in the exam's order
	// Answers and Graded sum the questions'.
	Answers, Graded int
}

// ToGrade counts the answers still waiting for a grade.
func (p GradingProgress) ToGrade() int { return p.Answers - p.Graded }

// GradingProgress returns the progress of the grading of examID's essays.
func (s *Service) GradingProgress(ctx context.Context, u identity.User, examID string) (GradingProgress, error) {
	e, sc, err := s.gradableExam(ctx, u, examID)
	if err != nil {
		return GradingProgress{}, fmt.Errorf("grading progress: %w", err)
	}
	p := GradingProgress{Exam: e}
	index := map[string]int{}
	for i, q := range e.Questions {
		if graded(q) {
			index[q.ID] = len(p.Questions)
			p.Questions = append(p.Questions, GradingQuestion{Number: i + 1, Question: q})
		}
	}
	if len(p.Questions) == 0 {
		return p, nil
	}
	err = s.walkAnswers(ctx, AnswerQuery{ExamID: examID}, func(a Answer) error {
		i, ok := index[a.QuestionID]
		if !ok || strings.TrimSpace(a.Answer) == "" {
			return nil
		}
		p.Questions[i].Answers++
		p.Answers++
		if sc.score(a).Graded {
			p.Questions[i].Graded++
			p.Graded++
		}
		return nil
	})
	if err != nil {
		return GradingProgress{}, fmt.Errorf("grading progress: %w", err)
	}
	return p, nil
}

// EssayAnswer is one student's answer to an essay, as graders read it.
type EssayAnswer struct {
	// Code stands for the student in this exam's grading.
	Code string
	// MemberID and Nama are set only when an operator asks for names.
	MemberID, Nama string
	QuestionID     string
	Answer         string
	AnsweredAt     time.Time
	// Grade is the latest grade, nil while the answer has none.
	Grade *Grade
	// MaxPoints is the question's points.
	MaxPoints float64
}

// EssayQuery selects the answers of one essay question to grade.
type EssayQuery struct {
	ExamID, QuestionID string
	// Names asks for the students' ids and names (operators only).
	Names bool
	// Ungraded keeps only the answers without a grade.
	Ungraded bool
}

// EssayAnswers returns the non-blank answers to q's essay, ordered by code
// (an order that says nothing of the students), with their grades.
func (s *Service) EssayAnswers(ctx context.Context, u identity.User, q EssayQuery) ([]EssayAnswer, error) {
	_, sc, err := s.essay(ctx, u, q)
	if err != nil {
		return nil, fmt.Errorf("essay answers: %w", err)
	}
	var out []EssayAnswer
	err = s.walkEssay(ctx, sc, q, func(ea EssayAnswer) error {
		if !q.Ungraded || ea.Grade == nil {
			out = append(out, ea)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("essay answers: %w", err)
	}
	slices.SortFunc(out, func(a, b EssayAnswer) int { return strings.Compare(a.Code, b.Code) })
	grades := make([]*Grade, len(out))
	for i := range out {
		grades[i] = out[i].Grade
	}
	s.graderNames(ctx, grades...)
	if q.Names {
		for i := range out {
			if m, err := s.store.LookupMember(ctx, LookupID, out[i].MemberID); err == nil {
				out[i].Nama = m.Nama
			}
		}
	}
	return out, nil
}

// EssayAnswer returns the answer of code to q's essay with its grade's
// history, oldest first.
func (s *Service) EssayAnswer(ctx context.Context, u identity.User, q EssayQuery, code string) (EssayAnswer, []Grade, error) {
	_, sc, err := s.essay(ctx, u, q)
	if err != nil {
		return EssayAnswer{}, nil, fmt.Errorf("essay answer: %w", err)
	}
	ea, err := s.findEssay(ctx, sc, q, code)
	if err != nil {
		return EssayAnswer{}, nil, fmt.Errorf("essay answer: %w", err)
	}
	hist, err := s.store.GradeHistory(ctx, q.ExamID, ea.MemberID, q.QuestionID)
	if err != nil {
		return EssayAnswer{}, nil, fmt.Errorf("essay answer: %w", err)
	}
	if q.Names {
		if m, err := s.store.LookupMember(ctx, LookupID, ea.MemberID); err == nil {
			ea.Nama = m.Nama
		}
	} else {
		ea.MemberID = ""
	}
	grades := []*Grade{ea.Grade}
	for i := range hist {
		grades = append(grades, &hist[i])
	}
	s.graderNames(ctx, grades...)
	return ea, hist, nil
}

// GradeInput is a grade as a grader saves it.
type GradeInput struct {
	ExamID, QuestionID string
	Code               string // the student's code
	Points             float64
	Comment            string
	// Version is the version of the grade the grader read (0: it read no
	// grade); the save is refused when the latest version is another.
	Version int
}

// SaveGrade stores u's grade of one answer as a new version, when in.Version
// is the latest (GradeConflictError otherwise, with the current grade).
// Bad input (points outside 0 to the question's points or finer than
// hundredths, a comment too long) is VALIDATION_FAILED and writes nothing.
func (s *Service) SaveGrade(ctx context.Context, u identity.User, in GradeInput) (Grade, error) {
	q := EssayQuery{ExamID: in.ExamID, QuestionID: in.QuestionID}
	question, sc, err := s.essay(ctx, u, q)
	if err != nil {
		return Grade{}, fmt.Errorf("save grade: %w", err)
	}
	comment := strings.TrimSpace(in.Comment)
	switch {
	case math.IsNaN(in.Points) || in.Points < 0 || in.Points > question.Points:
		return Grade{}, invalid("points must be between 0 and %s", FormatPoints(question.Points))
	case math.Abs(in.Points*gradePointsScale-math.Round(in.Points*gradePointsScale)) > 1e-6:
		return Grade{}, invalid("points are given in hundredths at most (such as 7.5 or 3.25)")
	case in.Version < 0:
		return Grade{}, invalid("version must be 0 (no grade read) or the version of the grade read")
	case !utf8.ValidString(comment) || utf8.RuneCountInString(comment) > maxGradeComment:
		return Grade{}, invalid("comment must be UTF-8 text of at most %d characters", maxGradeComment)
	}
	ea, err := s.findEssay(ctx, sc, q, in.Code)
	if err != nil {
		return Grade{}, fmt.Errorf("save grade: %w", err)
	}
	g := Grade{ExamID: in.ExamID, MemberID: ea.MemberID, QuestionID: in.QuestionID,
		Points: math.Round(in.Points*gradePointsScale) / gradePointsScale, Comment: comment,
		GraderID: u.ID, GradedAt: s.now(), Version: in.Version + 1}
	err = s.store.SaveGrade(ctx, g)
	if errors.Is(err, ErrGradeConflict) {
		cur, gerr := s.store.GetGrade(ctx, g.ExamID, g.MemberID, g.QuestionID)
		if gerr != nil {
			return Grade{}, fmt.Errorf("save grade: read the current grade: %w", gerr)
		}
		s.graderNames(ctx, &cur)
		return Grade{}, &GradeConflictError{Current: cur}
	}
	if err != nil {
		return Grade{}, fmt.Errorf("save grade: %w", err)
	}
	s.log.InfoContext(ctx, "grade saved", "exam", g.ExamID, "question", g.QuestionID, "grader", u.ID, "version", g.Version)
	g.GraderName = u.Username
	return g, nil
}

// essay checks that u may grade q's exam and that q.QuestionID is one of
// its essays (NOT_FOUND, NOT_AN_ESSAY), and that only an operator asks for
// names.
func (s *Service) essay(ctx context.Context, u identity.User, q EssayQuery) (Question, scorer, error) {
	if q.Names && !u.Role.Operates() {
		return Question{}, scorer{}, ErrNamesForbidden
	}
	_, sc, err := s.gradableExam(ctx, u, q.ExamID)
	if err != nil {
		return Question{}, scorer{}, err
	}
	question, ok := sc.key[q.QuestionID]
	if !ok {
		return Question{}, scorer{}, apperr.Errorf(apperr.NotFound, "NOT_FOUND", "the exam has no question %q", q.QuestionID)
	}
	if !graded(question) {
		return Question{}, scorer{}, ErrNotEssay
	}
	return question, sc, nil
}

// walkEssay calls fn for every non-blank answer to q's essay, with its code
// and grade (and member id, which callers clear for graders).
func (s *Service) walkEssay(ctx context.Context, sc scorer, q EssayQuery, fn func(EssayAnswer) error) error {
	maxPoints := sc.key[q.QuestionID].Points
	return s.walkAnswers(ctx, AnswerQuery{ExamID: q.ExamID}, func(a Answer) error {
		if a.QuestionID != q.QuestionID || strings.TrimSpace(a.Answer) == "" {
			return nil
		}
		ea := EssayAnswer{Code: s.answerCode(q.ExamID, a.MemberID), QuestionID: a.QuestionID,
			Answer: a.Answer, AnsweredAt: a.AnsweredAt, MaxPoints: maxPoints, Grade: sc.score(a).Grade}
		if q.Names {
			ea.MemberID = a.MemberID
		}
		return fn(ea)
	})
}

// findEssay returns the answer of code to q's essay, with its member id.
func (s *Service) findEssay(ctx context.Context, sc scorer, q EssayQuery, code string) (EssayAnswer, error) {
	code = strings.ToUpper(strings.TrimSpace(code))
	errFound := errors.New("found")
	var out EssayAnswer
	q.Names = true // the member id is needed; callers clear it
	err := s.walkEssay(ctx, sc, q, func(ea EssayAnswer) error {
		if hmac.Equal([]byte(ea.Code), []byte(code)) {
			out = ea
			return errFound
		}
		return nil
	})
	switch {
	case errors.Is(err, errFound):
		return out, nil
	case err != nil:
		return EssayAnswer{}, err
	}
	return EssayAnswer{}, errNoAnswer
}

// graderNames fills the GraderName of grades, reading each account once.
func (s *Service) graderNames(ctx context.Context, grades ...*Grade) {
	names := map[string]string{}
	for _, g := range grades {
		if g == nil {
			continue
		}
		name, ok := names[g.GraderID]
		if !ok {
			if u, err := s.store.GetUser(ctx, g.GraderID); err == nil {
				name = u.Username
			}
			names[g.GraderID] = name
		}
		g.GraderName = name
	}
}

// FormatPoints writes points as the API and the console show them: no
// trailing zeros ("7.5", "10").
func FormatPoints(p float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", p), "0"), ".")
}
