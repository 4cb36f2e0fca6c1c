package exam

import (
	"context"
	"fmt"
	"strings"
)

// Operators read every stored answer (docs/api/exam.md, "Stored answers").
// The store keeps one answer per (exam, member, question): the newest by
// answered_at, with the server and push that stored it. Earlier values are
// not kept; the sync log holds every push, so an audit reads which pushes
// carried a student's answers there.

// Limits of an answer page.
const (
	DefaultAnswersPerPage = 100
	MaxAnswersPerPage     = 1000
	// answerChunk is how many answers WalkAnswers reads from the store at
	// a time: memory stays bounded whatever the exam's size.
	answerChunk = 1000
)

// StoredAnswer is a stored answer as operators read it: whether it is
// correct and the points it earns, by the exam's answer key or, for an
// essay, by its grade.
type StoredAnswer struct {
	Answer
	Correct bool
	Points  float64
	// Graded is false for an essay answer still waiting for its grade:
	// Points is then 0 and PendingPoints the points it may still earn
	// (the question's). Every other answer is graded (scored by the key;
	// a blank essay, or one worth no points, earns nothing).
	Graded        bool
	PendingPoints float64
	// Grade is an essay answer's grade, nil while it has none.
	Grade *Grade
}

// AnswerPage is one page of an exam's stored answers.
type AnswerPage struct {
	Answers []StoredAnswer
	// Total counts the answers matching the filters; Rows every stored
	// answer row of the exam, so that an operator sees that a re-push
	// stored nothing twice.
	Total, Rows int
}

// answerKey scores the answers of one exam.
type answerKey map[string]Question

// anyGraded reports whether a grader scores any of the questions.
func (k answerKey) anyGraded() bool {
	for _, q := range k {
		if graded(q) {
			return true
		}
	}
	return false
}

// gradeKey names the grade of one answer of an exam: (member, question).
type gradeKey struct{ member, question string }

// scorer scores the answers of one exam: by its answer key, and essays by
// their latest grades (held in memory: one per graded essay answer).
type scorer struct {
	key    answerKey
	grades map[gradeKey]Grade
}

// score returns a with its correctness and points (an unknown question or
// an empty answer is not correct and needs no grade).
func (sc scorer) score(a Answer) StoredAnswer {
	out := StoredAnswer{Answer: a, Graded: true}
	q, ok := sc.key[a.QuestionID]
	if !ok || strings.TrimSpace(a.Answer) == "" {
		return out
	}
	if !graded(q) {
		out.Correct, out.Points = Score(q, a.Answer)
		return out
	}
	g, ok := sc.grades[gradeKey{a.MemberID, a.QuestionID}]
	if !ok {
		out.Graded, out.PendingPoints = false, q.Points
		return out
	}
	out.Grade, out.Points, out.Correct = &g, g.Points, g.Points >= q.Points
	return out
}

// scorer reads an exam, its answer key and the grades of its essays.
func (s *Service) scorer(ctx context.Context, examID string) (Exam, scorer, error) {
	e, err := s.store.GetExam(ctx, examID)
	if err != nil {
		return Exam{}, scorer{}, err
	}
	sc := scorer{key: make(answerKey, len(e.Questions)), grades: map[gradeKey]Grade{}}
	essays := false
	for _, q := range e.Questions {
		sc.key[q.ID] = q
		essays = essays || graded(q)
	}
	if !essays {
		return e, sc, nil
	}
	gs, err := s.store.ListGrades(ctx, examID, "")
	if err != nil {
		return Exam{}, scorer{}, err
	}
	for _, g := range gs {
		sc.grades[gradeKey{g.MemberID, g.QuestionID}] = g
	}
	return e, sc, nil
}

// ListStoredAnswers returns one page (q.Offset, q.Limit) of the stored
// answers of q.ExamID matching q's filters, scored; ErrNotFound when the
// exam does not exist.
func (s *Service) ListStoredAnswers(ctx context.Context, q AnswerQuery) (AnswerPage, error) {
	if q.Limit < 1 || q.Limit > MaxAnswersPerPage {
		return AnswerPage{}, invalid("per_page must be between 1 and %d", MaxAnswersPerPage)
	}
	_, sc, err := s.scorer(ctx, q.ExamID)
	if err != nil {
		return AnswerPage{}, fmt.Errorf("list answers: %w", err)
	}
	var page AnswerPage
	if page.Total, err = s.store.CountAnswers(ctx, q); err != nil {
		return AnswerPage{}, fmt.Errorf("list answers: %w", err)
	}
	if page.Rows, err = s.store.CountAnswers(ctx, AnswerQuery{ExamID: q.ExamID}); err != nil {
		return AnswerPage{}, fmt.Errorf("list answers: %w", err)
	}
	as, err := s.store.ListAnswers(ctx, q)
	if err != nil {
		return AnswerPage{}, fmt.Errorf("list answers: %w", err)
	}
	page.Answers = make([]StoredAnswer, len(as))
	for i, a := range as {
		page.Answers[i] = sc.score(a)
	}
	return page, nil
}

// WalkAnswers calls fn for every stored answer of q.ExamID matching q's
// filters, scored, in (member, question) order, reading the store a chunk
// at a time so that memory stays bounded; an error of fn ends the walk and
// is returned. q's paging is ignored. ErrNotFound when the exam does not
// exist.
func (s *Service) WalkAnswers(ctx context.Context, q AnswerQuery, fn func(StoredAnswer) error) error {
	_, sc, err := s.scorer(ctx, q.ExamID)
	if err != nil {
		return fmt.Errorf("walk answers: %w", err)
	}
	return s.walkAnswers(ctx, q, func(a Answer) error { return fn(sc.score(a)) })
}

// walkAnswers calls fn for every answer matching q's filters, a chunk at a
// time.
func (s *Service) walkAnswers(ctx context.Context, q AnswerQuery, fn func(Answer) error) error {
	q.Offset, q.Limit, q.AfterMember, q.AfterQuestion = 0, answerChunk, "", ""
	for {
		as, err := s.store.ListAnswers(ctx, q)
		if err != nil {
			return fmt.Errorf("walk answers: %w", err)
		}
		for _, a := range as {
			if err := fn(a); err != nil {
				return err
			}
		}
		if len(as) < answerChunk {
			return nil
		}
		last := as[len(as)-1]
		q.AfterMember, q.AfterQuestion = last.MemberID, last.QuestionID
	}
}

// SheetRow is one question of a student's answer sheet.
type SheetRow struct {
	Number   int
	Question Question      // with its answer key
	Answer   *StoredAnswer // nil: not answered
}

// AnswerSheet is one student's answers to an exam, question by question in
// the exam's order, scored, for appeals ("I answered B").
type AnswerSheet struct {
	ExamID, ExamTitle string
	Member            Member
	Score, MaxScore   float64
	Answered, Correct int
	// Pending counts the essay answers still waiting for their grades,
	// PendingPoints the points they may still earn.
	Pending       int
	PendingPoints float64
	Rows          []SheetRow
}

// AnswerSheet returns memberID's answer sheet of examID; ErrNotFound when
// the exam or the member does not exist.
func (s *Service) AnswerSheet(ctx context.Context, examID, memberID string) (AnswerSheet, error) {
	e, sc, err := s.scorer(ctx, examID)
	if err != nil {
		return AnswerSheet{}, fmt.Errorf("answer sheet: %w", err)
	}
	m, err := s.store.LookupMember(ctx, LookupID, memberID)
	if err != nil {
		return AnswerSheet{}, fmt.Errorf("answer sheet: %w", err)
	}
	as, err := s.store.ListAnswers(ctx, AnswerQuery{ExamID: examID, MemberID: memberID})
	if err != nil {
		return AnswerSheet{}, fmt.Errorf("answer sheet: %w", err)
	}
	byQuestion := make(map[string]StoredAnswer, len(as))
	for _, a := range as {
		byQuestion[a.QuestionID] = sc.score(a)
	}
	sheet := AnswerSheet{ExamID: e.ID, ExamTitle: e.Title, Member: m, Rows: make([]SheetRow, len(e.Questions))}
	for i, q := range e.Questions {
		sheet.MaxScore += q.Points
		sheet.Rows[i] = SheetRow{Number: i + 1, Question: q}
		if a, ok := byQuestion[q.ID]; ok {
			sheet.Rows[i].Answer = &a
			if strings.TrimSpace(a.Answer.Answer) != "" {
				sheet.Answered++
			}
			if a.Correct {
				sheet.Correct++
			}
			if !a.Graded {
				sheet.Pending++
				sheet.PendingPoints += a.PendingPoints
			}
			sheet.Score += a.Points
		}
	}
	return sheet, nil
}

// QuestionStat is how one question of an exam was answered.
type QuestionStat struct {
	Number     int // 1 for the exam's first question
	QuestionID string
	// Text and MaxPoints are the question's.
	Text      string
	MaxPoints float64
	Answered  int
	Correct   int // for an essay: graded with the question's full points
	// Points are those the scored answers earned, partial credit and
	// graded essays included.
	Points float64
	// Pending counts the essay answers still waiting for their grades.
	Pending int
}

// PointsRate is the share of the question's points the scored answers
// earned (a 9.5 of 10 essay counts 0.95, where it is not Correct), 0
// without any.
func (q QuestionStat) PointsRate() float64 {
	scored := q.Answered - q.Pending
	if scored <= 0 || q.MaxPoints <= 0 {
		return 0
	}
	return q.Points / (q.MaxPoints * float64(scored))
}

// CorrectRate is the share of the scored answers (answered, less those
// waiting for a grade) that were correct, 0 without any.
func (q QuestionStat) CorrectRate() float64 {
	scored := q.Answered - q.Pending
	if scored <= 0 {
		return 0
	}
	return float64(q.Correct) / float64(scored)
}

// QuestionStats returns, for every question of the exam in its order, how
// many stored answers it has and how many are correct, walking the answers
// a chunk at a time.
func (s *Service) QuestionStats(ctx context.Context, examID string) ([]QuestionStat, error) {
	e, err := s.GetExam(ctx, examID)
	if err != nil {
		return nil, err
	}
	stats := make([]QuestionStat, len(e.Questions))
	index := make(map[string]int, len(e.Questions))
	for i, q := range e.Questions {
		stats[i] = QuestionStat{Number: i + 1, QuestionID: q.ID, Text: q.Text, MaxPoints: q.Points}
		index[q.ID] = i
	}
	err = s.WalkAnswers(ctx, AnswerQuery{ExamID: examID}, func(a StoredAnswer) error {
		if i, ok := index[a.QuestionID]; ok {
			stats[i].Answered++
			if a.Correct {
				stats[i].Correct++
			}
			if !a.Graded {
				stats[i].Pending++
			}
			stats[i].Points += a.Points
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("question stats: %w", err)
	}
	return stats, nil
}
