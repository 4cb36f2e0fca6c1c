package exam

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/itemanalysis"
)

// AnalysisFilter narrows an exam's item analysis to some of its students;
// empty fields match every student.
type AnalysisFilter struct {
	NPSN  string // the students of one school
	Kelas string // the students of one class (within NPSN when it is set)
	// AcademicYear is the students of one academic year, by name
	// ("2025/2026"), as the member directory records it.
	AcademicYear string
	// Region is the students of the schools in a region or any part of
	// it, by the region of their licences (License.Region, InRegion).
	Region string
}

// AnalysedQuestion is a question of an item analysis, in the report's
// order.
type AnalysedQuestion struct {
	Number   int // 1 for the exam's first question
	Question Question
}

// SkippedQuestion is a question an item analysis leaves out, and why.
type SkippedQuestion struct {
	Number     int
	QuestionID string
	// Pending counts the answers still waiting for a grader: the question
	// is analysed once every answer is graded. 0 for a question worth no
	// points.
	Pending int
}

// ItemAnalysis is the classical item analysis of an exam's answers
// (internal/itemanalysis, docs/item-analysis.md).
type ItemAnalysis struct {
	ExamID, ExamTitle string
	Filter            AnalysisFilter
	Report            itemanalysis.Report
	// Questions are the analysed questions, one per Report.Items entry.
	Questions []AnalysedQuestion
	// Skipped are the questions left out: essays with answers still to
	// grade (never counted as zero), and questions worth no points.
	Skipped []SkippedQuestion
}

// ErrUnknownSchool answers an analysis filtered by a school that no member
// belongs to.
var ErrUnknownSchool = apperr.New(apperr.NotFound, "UNKNOWN_SCHOOL", "no student belongs to this school")

// ErrUnknownAcademicYear answers an analysis filtered by an academic year
// that no member belongs to.
var ErrUnknownAcademicYear = apperr.New(apperr.NotFound, "UNKNOWN_ACADEMIC_YEAR", "no student belongs to this academic year")

// ErrUnknownRegion answers an analysis filtered by a region no licensed
// school is in.
var ErrUnknownRegion = apperr.New(apperr.NotFound, "UNKNOWN_REGION", "no licensed school is in this region")

// ItemAnalysis analyses the answers of the exam's students who match f:
// every student with at least one stored answer counts, a question they
// left blank or never reached earning nothing. The answers are read as one
// stream in (student, question) order, twice (the first time to find the
// questions still being graded), and never held. An exam without answers
// gets an empty, well-formed report.
func (s *Service) ItemAnalysis(ctx context.Context, examID string, f AnalysisFilter) (ItemAnalysis, error) {
	e, sc, err := s.scorer(ctx, examID)
	if err != nil {
		return ItemAnalysis{}, fmt.Errorf("item analysis: %w", err)
	}
	q := AnswerQuery{ExamID: examID, NPSN: f.NPSN}
	in, err := s.analysisMembers(ctx, f, &q)
	if err != nil {
		return ItemAnalysis{}, err
	}
	pending, err := s.pendingGrades(ctx, q, sc, in)
	if err != nil {
		return ItemAnalysis{}, fmt.Errorf("item analysis: %w", err)
	}

	res := ItemAnalysis{ExamID: e.ID, ExamTitle: e.Title, Filter: f}
	var index map[string]int
	res.Questions, index, res.Skipped = questionsToAnalyse(e, pending)
	items := make([]itemanalysis.Item, len(res.Questions))
	for i, qn := range res.Questions {
		items[i] = analysisItem(qn.Question)
	}
	if len(items) == 0 {
		students, err := s.walkStudents(ctx, q, in, index, func() {}, func(int, Answer) {}, func() error { return nil })
		if err != nil {
			return ItemAnalysis{}, fmt.Errorf("item analysis: %w", err)
		}
		res.Report = itemanalysis.Report{Students: students, Items: []itemanalysis.ItemReport{}, Scores: itemanalysis.Distribution{Histogram: []itemanalysis.Bin{}}}
		return res, nil
	}
	an, err := itemanalysis.New(items)
	if err != nil {
		return ItemAnalysis{}, fmt.Errorf("item analysis: %w", err)
	}
	var answers []itemanalysis.Answer
	_, err = s.walkStudents(ctx, q, in, index, func() {
		answers = make([]itemanalysis.Answer, len(items))
		for i := range answers {
			answers[i].Omitted = true
		}
	}, func(i int, a Answer) {
		answers[i] = itemanalysis.Answer{Points: sc.score(a).Points, Chosen: chosenOptions(items[i].Options, a.Answer)}
	}, func() error { return an.Add(answers) })
	if err != nil {
		return ItemAnalysis{}, fmt.Errorf("item analysis: %w", err)
	}
	res.Report = an.Report()
	return res, nil
}

// pendingGrades returns, per question, the answers of q of the students
// that in selects still waiting for a grader. It reads the answers only
// when the exam has a question a grader scores.
func (s *Service) pendingGrades(ctx context.Context, q AnswerQuery, sc scorer, in func(string) bool) (map[string]int, error) {
	pending := map[string]int{}
	if !sc.key.anyGraded() {
		return pending, nil
	}
	err := s.walkAnswers(ctx, q, func(a Answer) error {
		if in(a.MemberID) && strings.TrimSpace(a.Answer) != "" {
			if _, ok := sc.key[a.QuestionID]; ok && !sc.score(a).Graded {
				pending[a.QuestionID]++
			}
		}
		return nil
	})
	return pending, err
}

// questionsToAnalyse returns the questions of e an analysis or a
// calibration takes, in the exam's order, with their positions by id, and
// those it skips: worth no points, or with answers still to grade
// (pending, by question id).
func questionsToAnalyse(e Exam, pending map[string]int) (qs []AnalysedQuestion, index map[string]int, skipped []SkippedQuestion) {
	index, skipped = map[string]int{}, []SkippedQuestion{}
	for i, qn := range e.Questions {
		if qn.Points <= 0 || pending[qn.ID] > 0 {
			skipped = append(skipped, SkippedQuestion{Number: i + 1, QuestionID: qn.ID, Pending: pending[qn.ID]})
			continue
		}
		index[qn.ID] = len(qs)
		qs = append(qs, AnalysedQuestion{Number: i + 1, Question: qn})
	}
	return qs, index, skipped
}

// walkStudents walks the answers of q of the students that in selects, one
// student at a time (the answers come in (student, question) order):
// begin at a student's first answer, add for each answer that is not
// blank to a question of index (with its position), end after the
// student's last answer.
func (s *Service) walkStudents(ctx context.Context, q AnswerQuery, in func(string) bool, index map[string]int,
	begin func(), add func(i int, a Answer), end func() error) (students int, err error) {
	member := ""
	err = s.walkAnswers(ctx, q, func(a Answer) error {
		if !in(a.MemberID) {
			return nil
		}
		if a.MemberID != member {
			if member != "" {
				if err := end(); err != nil {
					return err
				}
			}
			member, students = a.MemberID, students+1
			begin()
		}
		if i, ok := index[a.QuestionID]; ok && strings.TrimSpace(a.Answer) != "" {
			add(i, a)
		}
		return nil
	})
	if err == nil && member != "" {
		err = end()
	}
	return students, err
}

// analysisMembers returns whether a member is among f's students. A school
// filter is applied by the answer query q itself, and so is a region's
// (q.NPSNs, its schools); a class or year filter needs the matching
// members of the school (or of every school, or of the region's schools).
func (s *Service) analysisMembers(ctx context.Context, f AnalysisFilter, q *AnswerQuery) (func(string) bool, error) {
	if f.NPSN != "" {
		_, n, err := s.store.ListMembers(ctx, MemberFilter{NPSN: f.NPSN, Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("item analysis: %w", err)
		}
		if n == 0 {
			return nil, ErrUnknownSchool
		}
	}
	if f.AcademicYear != "" {
		_, n, err := s.store.ListMembers(ctx, MemberFilter{AcademicYear: f.AcademicYear, Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("item analysis: %w", err)
		}
		if n == 0 {
			return nil, ErrUnknownAcademicYear
		}
	}
	all := func(string) bool { return true }
	schools := []string{f.NPSN}
	if f.Region != "" {
		var err error
		if schools, err = s.regionSchools(ctx, f.Region, f.NPSN); err != nil {
			return nil, err
		}
		q.NPSNs = schools
	}
	if f.Kelas == "" && f.AcademicYear == "" {
		return all, nil
	}
	set := map[string]bool{}
	for _, npsn := range schools {
		ms, _, err := s.store.ListMembers(ctx, MemberFilter{NPSN: npsn, Kelas: f.Kelas, AcademicYear: f.AcademicYear})
		if err != nil {
			return nil, fmt.Errorf("item analysis: %w", err)
		}
		for _, m := range ms {
			set[m.ID] = true
		}
	}
	return func(id string) bool { return set[id] }, nil
}

// regionSchools returns the schools (npsn) whose licences are in region,
// each once; with npsn set, that school alone when it is. A school's
// region is its newest licence's. ErrUnknownRegion when there is none.
func (s *Service) regionSchools(ctx context.Context, region, npsn string) ([]string, error) {
	ls, err := s.store.ListLicenses(ctx, LicenseFilter{NPSN: npsn})
	if err != nil {
		return nil, fmt.Errorf("item analysis: %w", err)
	}
	seen := map[string]bool{}
	var schools []string
	for _, l := range ls { // newest first
		if seen[l.NPSN] {
			continue
		}
		seen[l.NPSN] = true
		if InRegion(l.Region, region) {
			schools = append(schools, l.NPSN)
		}
	}
	if len(schools) == 0 {
		return nil, ErrUnknownRegion
	}
	return schools, nil
}

// analysisItem is q as the item analysis sees it: a choice question with
// its options and key, any other with its points alone.
func analysisItem(q Question) itemanalysis.Item {
	it := itemanalysis.Item{ID: q.ID, MaxPoints: q.Points}
	switch q.Type {
	case SingleChoice, MultipleChoice:
		for _, o := range q.Options {
			it.Options = append(it.Options, o.ID)
		}
		it.Key = slices.Clone(q.Answer)
	case TrueFalse:
		it.Options = []string{"true", "false"}
		it.Key = slices.Clone(q.Answer)
	}
	return it
}

// chosenOptions returns the options among options that answer chose (none
// for a question without options; an id the question lacks is ignored).
func chosenOptions(options []string, answer string) []string {
	if len(options) == 0 {
		return nil
	}
	var chosen []string
	for _, c := range strings.Split(answer, ",") {
		c = strings.TrimSpace(c)
		if slices.Contains(options, c) && !slices.Contains(chosen, c) {
			chosen = append(chosen, c)
		}
	}
	return chosen
}
