package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
)

// examLockNamespace is the first key of the two-key advisory locks that
// guard one exam against deletion while answers are being pushed for it
// (the second key is hashtext(exam id)).
const examLockNamespace int32 = 0x65786d73 // "exms"

// CreateExam stores e with its questions and bumps the content revision.
// QuestionCount is stored as len(e.Questions).
func (s *Store) CreateExam(ctx context.Context, e exam.Exam) error {
	questions, stimuli, err := encodeExamContent(e)
	if err != nil {
		return fmt.Errorf("postgres: create exam: %w", err)
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO exams (id, title, subject, npsns, starts_at, ends_at,
			duration_minutes, questions, question_count, created_at, stimuli)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			e.ID, e.Title, e.Subject, nonNilStrings(e.NPSNs), e.StartsAt, e.EndsAt, e.DurationMinutes, questions,
			len(e.Questions), e.CreatedAt, stimuli); err != nil {
			return err
		}
		return bumpRevision(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("postgres: create exam: %w", err)
	}
	return nil
}

// encodeExamContent is the JSON of e's questions and stimuli, as the
// columns questions and stimuli keep them.
func encodeExamContent(e exam.Exam) (questions, stimuli []byte, err error) {
	if questions, err = json.Marshal(e.Questions); err != nil {
		return nil, nil, fmt.Errorf("encode questions: %w", err)
	}
	st := e.Stimuli
	if st == nil {
		st = []exam.Stimulus{}
	}
	if stimuli, err = json.Marshal(st); err != nil {
		return nil, nil, fmt.Errorf("encode stimuli: %w", err)
	}
	return questions, stimuli, nil
}

const examListColumns = `id, title, subject, npsns, starts_at, ends_at, duration_minutes, question_count, created_at`

func scanExamSummary(row pgx.Row) (exam.Exam, error) {
	var e exam.Exam
	err := row.Scan(&e.ID, &e.Title, &e.Subject, &e.NPSNs, &e.StartsAt, &e.EndsAt, &e.DurationMinutes,
		&e.QuestionCount, &e.CreatedAt)
	return e, err
}

// GetExam returns the exam with its questions and answer key.
func (s *Store) GetExam(ctx context.Context, id string) (exam.Exam, error) {
	var e exam.Exam
	var questions, stimuli []byte
	err := s.pool.QueryRow(ctx, `SELECT `+examListColumns+`, questions, stimuli FROM exams WHERE id = $1`, id).Scan(
		&e.ID, &e.Title, &e.Subject, &e.NPSNs, &e.StartsAt, &e.EndsAt, &e.DurationMinutes,
		&e.QuestionCount, &e.CreatedAt, &questions, &stimuli)
	if err != nil {
		return exam.Exam{}, fmt.Errorf("postgres: get exam: %w", notFound(err))
	}
	if err := json.Unmarshal(questions, &e.Questions); err != nil {
		return exam.Exam{}, fmt.Errorf("postgres: get exam %s: decode questions: %w", id, err)
	}
	if err := json.Unmarshal(stimuli, &e.Stimuli); err != nil {
		return exam.Exam{}, fmt.Errorf("postgres: get exam %s: decode stimuli: %w", id, err)
	}
	if len(e.Stimuli) == 0 {
		e.Stimuli = nil // none, as the embedded store answers
	}
	return e, nil
}

// ListExams returns matching exams ordered by StartsAt then ID, with
// Questions nil and QuestionCount set.
func (s *Store) ListExams(ctx context.Context, f exam.ExamFilter) ([]exam.Exam, error) {
	q := `SELECT ` + examListColumns + ` FROM exams`
	var args []any
	if f.NPSN != "" {
		q += ` WHERE npsns @> ARRAY[$1::text]`
		args = append(args, f.NPSN)
	}
	q += ` ORDER BY starts_at, id`
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list exams: %w", err)
	}
	es, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (exam.Exam, error) { return scanExamSummary(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list exams: %w", err)
	}
	return es, nil
}

// UpdateExam replaces the exam of e.ID and its questions and bumps the
// content revision, under the exam's advisory lock as DeleteExam: it waits
// for pushes in progress and is refused once answers are stored.
func (s *Store) UpdateExam(ctx context.Context, e exam.Exam) error {
	questions, stimuli, err := encodeExamContent(e)
	if err != nil {
		return fmt.Errorf("postgres: update exam: %w", err)
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockExamWithoutAnswers(ctx, tx, e.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE exams SET title = $2, subject = $3, npsns = $4, starts_at = $5,
			ends_at = $6, duration_minutes = $7, questions = $8, question_count = $9, stimuli = $10 WHERE id = $1`,
			e.ID, e.Title, e.Subject, nonNilStrings(e.NPSNs), e.StartsAt, e.EndsAt, e.DurationMinutes, questions,
			len(e.Questions), stimuli); err != nil {
			return err
		}
		return bumpRevision(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("postgres: update exam: %w", err)
	}
	return nil
}

// lockExamWithoutAnswers takes the exam's advisory lock exclusively (so
// that pushes in progress for it finish first and their answers are seen)
// and checks that the exam exists and has no answers.
func lockExamWithoutAnswers(ctx context.Context, tx pgx.Tx, id string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, examLockNamespace, id); err != nil {
		return err
	}
	var exists, hasAnswers bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM exams WHERE id = $1),
		EXISTS (SELECT 1 FROM answers WHERE exam_id = $1)`, id).Scan(&exists, &hasAnswers); err != nil {
		return err
	}
	switch {
	case !exists:
		return exam.ErrNotFound
	case hasAnswers:
		return exam.ErrExamHasAnswers
	}
	return nil
}

// nonNilStrings returns s, or an empty slice for nil (a NOT NULL array).
func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// DeleteExam removes the exam and bumps the content revision;
// exam.ErrExamHasAnswers when answers were pushed for it, exam.ErrNotFound
// when there is no such exam. It takes the exam's advisory lock exclusively,
// so that it waits for pushes in progress for the exam and then sees their
// answers.
func (s *Store) DeleteExam(ctx context.Context, id string) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockExamWithoutAnswers(ctx, tx, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM exams WHERE id = $1`, id); err != nil {
			return err
		}
		return bumpRevision(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("postgres: delete exam: %w", err)
	}
	return nil
}

// SetItemParameters sets the Calibrated parameters of the exam's questions
// named in params; exam.ErrNotFound when there is no such exam. The row is
// locked between reading and writing the questions, so that two portals
// keeping calibrations at once each write over the other's whole result,
// never a mix.
func (s *Store) SetItemParameters(ctx context.Context, examID string, params map[string]exam.ItemParameters) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var raw []byte
		if err := tx.QueryRow(ctx, `SELECT questions FROM exams WHERE id = $1 FOR UPDATE`, examID).Scan(&raw); err != nil {
			return notFound(err)
		}
		var questions []exam.Question
		if err := json.Unmarshal(raw, &questions); err != nil {
			return fmt.Errorf("decode questions: %w", err)
		}
		for i, q := range questions {
			if p, ok := params[q.ID]; ok {
				p.CalibratedAt = p.CalibratedAt.UTC()
				questions[i].Calibrated = &p
			}
		}
		raw, err := json.Marshal(questions)
		if err != nil {
			return fmt.Errorf("encode questions: %w", err)
		}
		_, err = tx.Exec(ctx, `UPDATE exams SET questions = $2 WHERE id = $1`, examID, raw)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: set item parameters: %w", err)
	}
	return nil
}
