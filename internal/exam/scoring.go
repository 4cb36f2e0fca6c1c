package exam

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// MemberResult is one student's score on an exam.
type MemberResult struct {
	MemberID string
	Nama     string
	Username string
	Kelas    string
	Score    float64
	Answered int
	Correct  int
	// Pending counts the student's essay answers still waiting for their
	// grades, PendingPoints the points they may still earn: Score is final
	// only when Pending is 0.
	Pending       int
	PendingPoints float64
}

// ExamResults are the scores of every student who answered an exam.
type ExamResults struct {
	ExamID   string
	MaxScore float64
	Results  []MemberResult
	// AnswerRows counts the stored answer rows of the exam (one per
	// student and question): a re-push stores nothing twice.
	AnswerRows int
}

// Score reports whether answer is correct for q and the points it earns: all
// of them when correct, a share of them for a statement grid or a
// matching question scored "partial", each right blank's of a cloze
// question, none otherwise. Essays are never
// auto-scored: graders grade them (grading.go).
func Score(q Question, answer string) (correct bool, points float64) {
	switch q.Type {
	case SingleChoice, TrueFalse:
		correct = len(q.Answer) == 1 && strings.TrimSpace(answer) == q.Answer[0]
	case MultipleChoice:
		given := strings.Split(answer, ",")
		for i := range given {
			given[i] = strings.TrimSpace(given[i])
		}
		slices.Sort(given)
		correct = slices.Equal(slices.Compact(given), q.Answer)
	case ShortAnswer:
		correct = textMatches(q.Answer, answer)
	case Numeric:
		correct = q.numberKey().Matches(answer)
	case StatementGrid, Matching:
		return scorePairs(q, answer)
	case Cloze:
		return scoreCloze(q, answer)
	}
	if correct {
		points = q.Points
	}
	return correct, points
}

func normaliseText(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// textMatches reports whether answer is one of the accepted texts, compared
// without case and runs of spaces, or, where both are numbers
// (NumberReadings), the same number: a key typed 2.5 accepts 2,5.
func textMatches(accepted []string, answer string) bool {
	norm := normaliseText(answer)
	return slices.ContainsFunc(accepted, func(a string) bool {
		return normaliseText(a) == norm || NumberKey{Values: []string{a}}.Matches(answer)
	})
}

// Results scores every pushed answer of an exam with the answer key, which
// never leaves the portal, and the essays with their grades (an essay
// answer without one is counted pending, never as zero).
func (s *Service) Results(ctx context.Context, examID string) (ExamResults, error) {
	e, sc, err := s.scorer(ctx, examID)
	if err != nil {
		return ExamResults{}, fmt.Errorf("results: %w", err)
	}
	res := ExamResults{ExamID: e.ID}
	for _, q := range e.Questions {
		res.MaxScore += q.Points
	}
	byMember := map[string]*MemberResult{}
	err = s.walkAnswers(ctx, AnswerQuery{ExamID: examID}, func(a Answer) error {
		res.AnswerRows++
		m, ok := byMember[a.MemberID]
		if !ok {
			m = &MemberResult{MemberID: a.MemberID}
			byMember[a.MemberID] = m
		}
		if _, ok := sc.key[a.QuestionID]; !ok || strings.TrimSpace(a.Answer) == "" {
			return nil // a cleared answer is no answer
		}
		m.Answered++
		sa := sc.score(a)
		if sa.Correct {
			m.Correct++
		}
		if !sa.Graded {
			m.Pending++
			m.PendingPoints += sa.PendingPoints
		}
		m.Score += sa.Points // partial credit counts without the whole being correct
		return nil
	})
	if err != nil {
		return ExamResults{}, fmt.Errorf("results: %w", err)
	}
	for _, m := range byMember {
		if mem, err := s.store.LookupMember(ctx, LookupID, m.MemberID); err == nil {
			m.Nama, m.Username, m.Kelas = mem.Nama, mem.Username, mem.Kelas
		}
		res.Results = append(res.Results, *m)
	}
	slices.SortFunc(res.Results, func(a, b MemberResult) int {
		return strings.Compare(a.Nama+"\x00"+a.MemberID, b.Nama+"\x00"+b.MemberID)
	})
	return res, nil
}
