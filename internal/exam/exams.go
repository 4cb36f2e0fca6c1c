package exam

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/richtext"
	"github.com/seedhq/portal/internal/sortid"
	"github.com/seedhq/portal/pkg/labwire"
)

// ExamInput is the body of POST /api/v1/admin/exams.
type ExamInput struct {
	Title           string
	Subject         string
	NPSNs           []string
	StartsAt        time.Time
	EndsAt          time.Time
	DurationMinutes int
	Questions       []Question
	Stimuli         []Stimulus
}

// Limits of exam content.
const (
	maxQuestions     = 1000
	maxOptions       = 26
	maxQuestionBytes = 8 << 20 // a question may embed images as data URIs
	maxPlayLimit     = 10
	maxRubricBytes   = 8 << 10
)

// CreateExam validates in and stores a new exam.
func (s *Service) CreateExam(ctx context.Context, in ExamInput) (Exam, error) {
	e := in.exam(sortid.New())
	e.CreatedAt = s.now()
	if err := ValidateExam(&e); err != nil {
		return Exam{}, err
	}
	rep, err := s.checkExamContent(ctx, e)
	if err != nil {
		return Exam{}, fmt.Errorf("create exam: %w", err)
	}
	if err := s.store.CreateExam(ctx, e); err != nil {
		return Exam{}, fmt.Errorf("create exam: %w", err)
	}
	e.Problems = rep.Problems
	return e, nil
}

// exam returns the exam of id that in describes, not yet validated.
func (in ExamInput) exam(id string) Exam {
	return Exam{
		ID:              id,
		Title:           strings.TrimSpace(in.Title),
		Subject:         strings.TrimSpace(in.Subject),
		NPSNs:           in.NPSNs,
		StartsAt:        in.StartsAt.UTC().Truncate(time.Second),
		EndsAt:          in.EndsAt.UTC().Truncate(time.Second),
		DurationMinutes: in.DurationMinutes,
		Questions:       in.Questions,
		QuestionCount:   len(in.Questions),
		Stimuli:         in.Stimuli,
	}
}

// UpdateExam validates in and replaces the exam of id with it (its
// questions, schedule and schools; the id and creation time stay). Lab
// servers pull the new version at their next sync. An exam is edited only
// while no answers are stored for it (ErrExamHasAnswers), since stored
// answers were given to its questions as they were.
func (s *Service) UpdateExam(ctx context.Context, id string, in ExamInput) (Exam, error) {
	e := in.exam(id)
	if err := ValidateExam(&e); err != nil {
		return Exam{}, err
	}
	if _, err := s.checkExamContent(ctx, e); err != nil {
		return Exam{}, fmt.Errorf("update exam: %w", err)
	}
	if err := s.store.UpdateExam(ctx, e); err != nil {
		return Exam{}, fmt.Errorf("update exam: %w", err)
	}
	s.examKeys.Delete(id)
	got, err := s.GetExam(ctx, id)
	if err != nil {
		return Exam{}, err
	}
	rep, err := s.checkContent(ctx, got.Questions, got.Stimuli)
	if err != nil {
		return Exam{}, fmt.Errorf("update exam: %w", err)
	}
	got.Problems = rep.Problems
	return got, nil
}

// ValidateExam checks an exam's fields, questions and stimuli and normalises them
// (sorted, de-duplicated npsn list; trimmed texts; sorted answer keys).
func ValidateExam(e *Exam) error {
	switch {
	case e.Title == "" || len(e.Title) > 200:
		return invalid("title is required (at most 200 characters)")
	case len(e.Subject) > 100:
		return invalid("subject must be at most 100 characters")
	case len(e.NPSNs) == 0:
		return invalid("npsn must list at least one school")
	case e.StartsAt.IsZero() || e.EndsAt.IsZero() || !e.EndsAt.After(e.StartsAt):
		return invalid("starts_at and ends_at are required and ends_at must be after starts_at")
	case e.DurationMinutes < 1 || e.DurationMinutes > 24*60:
		return invalid("duration_minutes must be between 1 and 1440")
	case time.Duration(e.DurationMinutes)*time.Minute > e.EndsAt.Sub(e.StartsAt):
		return invalid("duration_minutes does not fit between starts_at and ends_at")
	case len(e.Questions) == 0 || len(e.Questions) > maxQuestions:
		return invalid("an exam needs 1 to %d questions", maxQuestions)
	}
	for _, n := range e.NPSNs {
		if !labwire.ValidNPSN(n) {
			return invalid("npsn %q must be 8 digits", n)
		}
	}
	slices.Sort(e.NPSNs)
	e.NPSNs = slices.Compact(e.NPSNs)
	seen := map[string]bool{}
	for i := range e.Questions {
		q := &e.Questions[i]
		if err := validateQuestion(q); err != nil {
			return invalid("questions[%d]: %v", i, err)
		}
		if seen[q.ID] {
			return invalid("questions[%d]: duplicate id %q", i, q.ID)
		}
		seen[q.ID] = true
	}
	e.QuestionCount = len(e.Questions)
	return validateStimuli(e)
}

// maxCategoryBytes bounds a question's category path.
const maxCategoryBytes = 200

func validateQuestion(q *Question) error {
	q.ID = strings.TrimSpace(q.ID)
	q.Text = strings.TrimSpace(q.Text)
	q.Rubric = strings.TrimSpace(q.Rubric)
	q.Category = strings.Trim(strings.TrimSpace(q.Category), "/")
	format, err := richtext.ParseFormat(q.Format)
	if err != nil {
		return err
	}
	if format == richtext.Plain {
		q.Format = "" // the default, as every exam written before the formats
	}
	switch {
	case !labwire.ValidServerCode(q.ID):
		return fmt.Errorf("id must be 1 to 64 letters, digits, dots, dashes or underscores")
	case q.Text == "" || len(q.Text) > maxQuestionBytes:
		return fmt.Errorf("text is required (at most 8 MiB)")
	case format == richtext.Markdown && len(q.Text) > richtext.MaxSource:
		return fmt.Errorf("a markdown text is at most %d KiB", richtext.MaxSource>>10)
	case q.Points < 0 || q.Points > 1000:
		return fmt.Errorf("points must be between 0 and 1000")
	case q.PlayLimit < 0 || q.PlayLimit > maxPlayLimit:
		return fmt.Errorf("play_limit must be between 0 (no limit) and %d", maxPlayLimit)
	case q.PlayLimit > 0 && format != richtext.Markdown:
		return fmt.Errorf("play_limit needs a markdown question, whose text shows an audio")
	case q.Rubric != "" && q.Type != Essay:
		return fmt.Errorf("only an essay has a rubric")
	case len(q.Rubric) > maxRubricBytes:
		return fmt.Errorf("rubric must be at most %d bytes", maxRubricBytes)
	case len(q.Category) > maxCategoryBytes || strings.ContainsAny(q.Category, "\r\n"):
		return fmt.Errorf("category must be one line of at most %d bytes", maxCategoryBytes)
	}
	if q.Calibrated != nil {
		if err := q.Calibrated.validate(); err != nil {
			return fmt.Errorf("calibrated: %w", err)
		}
	}
	if q.Points == 0 && q.Type != Essay {
		q.Points = 1
	}
	if err := checkTypeFields(*q); err != nil {
		return err
	}
	optionIDs := map[string]bool{}
	for _, o := range q.Options {
		if !labwire.ValidServerCode(o.ID) || strings.Contains(o.ID, ",") {
			return fmt.Errorf("option id %q must be 1 to 64 letters, digits, dots, dashes or underscores", o.ID)
		}
		if strings.TrimSpace(o.Text) == "" {
			return fmt.Errorf("option %q needs a text", o.ID)
		}
		if optionIDs[o.ID] {
			return fmt.Errorf("duplicate option id %q", o.ID)
		}
		optionIDs[o.ID] = true
	}
	inOptions := func() error {
		for _, a := range q.Answer {
			if !optionIDs[a] {
				return fmt.Errorf("answer %q is not an option id", a)
			}
		}
		return nil
	}
	switch q.Type {
	case SingleChoice:
		if len(q.Options) < 2 || len(q.Options) > maxOptions || len(q.Answer) != 1 {
			return fmt.Errorf("single_choice needs 2 to %d options and exactly one answer", maxOptions)
		}
		return inOptions()
	case MultipleChoice:
		if len(q.Options) < 2 || len(q.Options) > maxOptions || len(q.Answer) < 1 {
			return fmt.Errorf("multiple_choice needs 2 to %d options and at least one answer", maxOptions)
		}
		slices.Sort(q.Answer)
		q.Answer = slices.Compact(q.Answer)
		return inOptions()
	case TrueFalse:
		if len(q.Options) != 0 || len(q.Answer) != 1 || (q.Answer[0] != "true" && q.Answer[0] != "false") {
			return fmt.Errorf(`true_false takes no options and one answer, "true" or "false"`)
		}
	case ShortAnswer:
		if len(q.Options) != 0 || len(q.Answer) == 0 {
			return fmt.Errorf("short_answer takes no options and at least one accepted answer")
		}
	case Essay:
		if len(q.Options) != 0 || len(q.Answer) != 0 {
			return fmt.Errorf("essay takes no options and no answer key")
		}
	case StatementGrid:
		return validateStatementGrid(q)
	case Matching:
		return validateMatching(q)
	case Numeric:
		if len(q.Options) != 0 {
			return fmt.Errorf("numeric takes no options")
		}
		k := q.numberKey()
		return k.validate()
	case Cloze:
		return validateCloze(q)
	default:
		return fmt.Errorf("type must be single_choice, multiple_choice, true_false, short_answer, numeric, essay, statement_grid, matching or cloze")
	}
	return nil
}

// checkTypeFields refuses the fields of another question type: statements
// and columns belong to a statement_grid, premises, responses and
// reuse_responses to a matching question, a scoring to either, a tolerance
// to a numeric question, blanks to a cloze question.
func checkTypeFields(q Question) error {
	switch {
	case q.Type != Numeric && (q.Tolerance != 0 || q.ToleranceMode != ""):
		return fmt.Errorf("only a numeric question has a tolerance (a cloze question's number blanks have their own)")
	case q.Type != Cloze && len(q.Blanks) != 0:
		return fmt.Errorf("only a cloze question has blanks")
	case q.Type != StatementGrid && (len(q.Statements) != 0 || len(q.Columns) != 0):
		return fmt.Errorf("only a statement_grid has statements and columns")
	case q.Type != Matching && (len(q.Premises) != 0 || len(q.Responses) != 0 || q.ReuseResponses):
		return fmt.Errorf("only a matching question has premises, responses and reuse_responses")
	case q.Type != StatementGrid && q.Type != Matching && q.Scoring != ScoringAll:
		return fmt.Errorf("only a statement_grid or a matching question has a scoring")
	}
	return nil
}

// GetExam returns an exam with its questions and answer key.
func (s *Service) GetExam(ctx context.Context, id string) (Exam, error) {
	e, err := s.store.GetExam(ctx, id)
	if err != nil {
		return Exam{}, fmt.Errorf("get exam: %w", err)
	}
	return e, nil
}

// ListExams returns the exams assigned to a school (all when npsn is empty), without questions.
func (s *Service) ListExams(ctx context.Context, npsn string) ([]Exam, error) {
	es, err := s.store.ListExams(ctx, ExamFilter{NPSN: npsn})
	if err != nil {
		return nil, fmt.Errorf("list exams: %w", err)
	}
	return es, nil
}

// DeleteExam deletes an exam that has no answers yet.
func (s *Service) DeleteExam(ctx context.Context, id string) error {
	if err := s.store.DeleteExam(ctx, id); err != nil {
		return fmt.Errorf("delete exam: %w", err)
	}
	s.examKeys.Delete(id)
	return nil
}
