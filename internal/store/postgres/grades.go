package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
)

// Grades (migration 0015): one row per version of an answer's grade.

const gradeColumns = `exam_id, member_id, question_id, version, points, comment, grader_id, graded_at`

func scanGrades(rows pgx.Rows) ([]exam.Grade, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (exam.Grade, error) {
		var g exam.Grade
		err := row.Scan(&g.ExamID, &g.MemberID, &g.QuestionID, &g.Version, &g.Points, &g.Comment, &g.GraderID, &g.GradedAt)
		g.GradedAt = g.GradedAt.UTC()
		return g, err
	})
}

// SaveGrade stores g as version g.Version when the latest stored version
// is g.Version-1; exam.ErrGradeConflict otherwise. Two concurrent saves of
// one version both pass the check, and the primary key refuses the second.
func (s *Store) SaveGrade(ctx context.Context, g exam.Grade) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var latest int
		err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM grades
			WHERE exam_id = $1 AND member_id = $2 AND question_id = $3`, g.ExamID, g.MemberID, g.QuestionID).Scan(&latest)
		if err != nil {
			return err
		}
		if g.Version != latest+1 {
			return fmt.Errorf("grade version %d over %d: %w", g.Version, latest, exam.ErrGradeConflict)
		}
		_, err = tx.Exec(ctx, `INSERT INTO grades (`+gradeColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			g.ExamID, g.MemberID, g.QuestionID, g.Version, g.Points, g.Comment, g.GraderID, g.GradedAt)
		if c, ok := uniqueViolation(err); ok && c == "grades_pkey" {
			return fmt.Errorf("grade version %d saved meanwhile: %w", g.Version, exam.ErrGradeConflict)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: save grade: %w", err)
	}
	return nil
}

// GetGrade returns the latest version of the grade of one answer.
func (s *Store) GetGrade(ctx context.Context, examID, memberID, questionID string) (exam.Grade, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+gradeColumns+` FROM grades
		WHERE exam_id = $1 AND member_id = $2 AND question_id = $3 ORDER BY version DESC LIMIT 1`,
		examID, memberID, questionID)
	gs, err := scanGrades(rows)
	if err == nil && len(gs) == 0 {
		err = exam.ErrNotFound
	}
	if err != nil {
		return exam.Grade{}, fmt.Errorf("postgres: get grade: %w", err)
	}
	return gs[0], nil
}

// ListGrades returns the latest version of every grade of the exam (of one
// question when questionID is set), by member then question.
func (s *Store) ListGrades(ctx context.Context, examID, questionID string) ([]exam.Grade, error) {
	rows, _ := s.pool.Query(ctx, `SELECT DISTINCT ON (member_id, question_id) `+gradeColumns+` FROM grades
		WHERE exam_id = $1 AND ($2 = '' OR question_id = $2)
		ORDER BY member_id, question_id, version DESC`, examID, questionID)
	gs, err := scanGrades(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: list grades: %w", err)
	}
	return gs, nil
}

// GradeHistory returns every version of the grade of one answer, oldest
// first.
func (s *Store) GradeHistory(ctx context.Context, examID, memberID, questionID string) ([]exam.Grade, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+gradeColumns+` FROM grades
		WHERE exam_id = $1 AND member_id = $2 AND question_id = $3 ORDER BY version`, examID, memberID, questionID)
	gs, err := scanGrades(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: grade history: %w", err)
	}
	return gs, nil
}

// SetGraderExams replaces the exams assigned to the grader.
func (s *Store) SetGraderExams(ctx context.Context, graderID string, examIDs []string) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM grader_exams WHERE grader_id = $1`, graderID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO grader_exams (grader_id, exam_id)
			SELECT $1, e FROM unnest($2::text[]) AS e ON CONFLICT DO NOTHING`, graderID, examIDs)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: set grader exams: %w", err)
	}
	return nil
}

// GraderExams returns the ids of the exams assigned to the grader, sorted.
func (s *Store) GraderExams(ctx context.Context, graderID string) ([]string, error) {
	rows, _ := s.pool.Query(ctx, `SELECT exam_id FROM grader_exams WHERE grader_id = $1 ORDER BY exam_id`, graderID)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres: grader exams: %w", err)
	}
	return ids, nil
}
