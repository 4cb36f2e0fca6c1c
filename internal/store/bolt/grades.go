package bolt

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/exam"
)

// Grades are kept one record per version under (exam, member, question,
// version), the version written as ten digits so that the keys of one
// answer sort oldest first and the latest is the last.

type gradeRecord struct {
	ExamID     string    `json:"exam_id"`
	MemberID   string    `json:"member_id"`
	QuestionID string    `json:"question_id"`
	Points     float64   `json:"points"`
	Comment    string    `json:"comment,omitempty"`
	GraderID   string    `json:"grader_id"`
	GradedAt   time.Time `json:"graded_at"`
	Version    int       `json:"version"`
}

func (r gradeRecord) grade() exam.Grade {
	return exam.Grade{ExamID: r.ExamID, MemberID: r.MemberID, QuestionID: r.QuestionID, Points: r.Points,
		Comment: r.Comment, GraderID: r.GraderID, GradedAt: utc(r.GradedAt), Version: r.Version}
}

func gradeKey(examID, memberID, questionID string, version int) []byte {
	return tuple(examID, memberID, questionID, fmt.Sprintf("%010d", version))
}

// latestGrade returns the latest version of an answer's grade; false when
// it has none.
func latestGrade(tx *bbolt.Tx, examID, memberID, questionID string) (exam.Grade, bool, error) {
	prefix := tuple(examID, memberID, questionID)
	var out exam.Grade
	found := false
	err := scanPrefix(tx.Bucket(bucketGrades), prefix, func(k, v []byte) (bool, error) {
		var rec gradeRecord
		if err := decodeJSON(k, v, &rec); err != nil {
			return false, err
		}
		out, found = rec.grade(), true
		return true, nil
	})
	return out, found, err
}

// SaveGrade stores g as version g.Version when the latest stored version
// is g.Version-1; exam.ErrGradeConflict otherwise. Write transactions are
// serialised, so two saves of one version never both succeed.
func (s *Store) SaveGrade(ctx context.Context, g exam.Grade) error {
	return s.update(ctx, "save grade", func(tx *bbolt.Tx) error {
		cur, _, err := latestGrade(tx, g.ExamID, g.MemberID, g.QuestionID) // none: version 0
		if err != nil {
			return err
		}
		if g.Version != cur.Version+1 {
			return fmt.Errorf("grade version %d over %d: %w", g.Version, cur.Version, exam.ErrGradeConflict)
		}
		rec := gradeRecord{ExamID: g.ExamID, MemberID: g.MemberID, QuestionID: g.QuestionID, Points: g.Points,
			Comment: g.Comment, GraderID: g.GraderID, GradedAt: ts(g.GradedAt), Version: g.Version}
		return putJSON(tx.Bucket(bucketGrades), gradeKey(g.ExamID, g.MemberID, g.QuestionID, g.Version), rec)
	})
}

// GetGrade returns the latest version of the grade of one answer.
func (s *Store) GetGrade(ctx context.Context, examID, memberID, questionID string) (exam.Grade, error) {
	var g exam.Grade
	err := s.view(ctx, "get grade", func(tx *bbolt.Tx) error {
		var found bool
		var err error
		g, found, err = latestGrade(tx, examID, memberID, questionID)
		if err == nil && !found {
			err = fmt.Errorf("grade of %s/%s/%s: %w", examID, memberID, questionID, exam.ErrNotFound)
		}
		return err
	})
	return g, err
}

// ListGrades returns the latest version of every grade of the exam (of one
// question when questionID is set), by member then question.
func (s *Store) ListGrades(ctx context.Context, examID, questionID string) ([]exam.Grade, error) {
	var out []exam.Grade
	err := s.view(ctx, "list grades", func(tx *bbolt.Tx) error {
		return scanPrefix(tx.Bucket(bucketGrades), tuple(examID), func(k, v []byte) (bool, error) {
			var rec gradeRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return false, err
			}
			if questionID != "" && rec.QuestionID != questionID {
				return true, nil
			}
			if n := len(out); n > 0 && out[n-1].MemberID == rec.MemberID && out[n-1].QuestionID == rec.QuestionID {
				out[n-1] = rec.grade() // a later version of the same answer's grade
			} else {
				out = append(out, rec.grade())
			}
			return true, nil
		})
	})
	return out, err
}

// GradeHistory returns every version of the grade of one answer, oldest
// first.
func (s *Store) GradeHistory(ctx context.Context, examID, memberID, questionID string) ([]exam.Grade, error) {
	var out []exam.Grade
	err := s.view(ctx, "grade history", func(tx *bbolt.Tx) error {
		return scanPrefix(tx.Bucket(bucketGrades), tuple(examID, memberID, questionID), func(k, v []byte) (bool, error) {
			var rec gradeRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return false, err
			}
			out = append(out, rec.grade())
			return true, nil
		})
	})
	return out, err
}

// SetGraderExams replaces the exams assigned to the grader.
func (s *Store) SetGraderExams(ctx context.Context, graderID string, examIDs []string) error {
	return s.update(ctx, "set grader exams", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketGraderExams)
		var old [][]byte
		err := scanPrefix(b, tuple(graderID), func(k, _ []byte) (bool, error) {
			old = append(old, slices.Clone(k))
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, k := range old {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		for _, id := range examIDs {
			if err := b.Put(tuple(graderID, id), []byte{}); err != nil {
				return err
			}
		}
		return nil
	})
}

// GraderExams returns the ids of the exams assigned to the grader, sorted.
func (s *Store) GraderExams(ctx context.Context, graderID string) ([]string, error) {
	var out []string
	err := s.view(ctx, "grader exams", func(tx *bbolt.Tx) error {
		return scanPrefix(tx.Bucket(bucketGraderExams), tuple(graderID), func(k, _ []byte) (bool, error) {
			id, err := lastPart(k)
			out = append(out, id)
			return err == nil, err
		})
	})
	return out, err
}
