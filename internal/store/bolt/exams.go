package bolt

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/jsonx"
)

// examRecord is an exam without its questions and stimuli, which are kept
// apart (in bucketExamQuestions and bucketExamStimuli) so that listing
// exams does not decode them.
type examRecord struct {
	ID              string    `json:"id"`
	Title           string    `json:"title"`
	Subject         string    `json:"subject"`
	NPSNs           []string  `json:"npsn"`
	StartsAt        time.Time `json:"starts_at"`
	EndsAt          time.Time `json:"ends_at"`
	DurationMinutes int       `json:"duration_minutes"`
	QuestionCount   int       `json:"question_count"`
	CreatedAt       time.Time `json:"created_at"`
}

func (r examRecord) exam() exam.Exam {
	return exam.Exam{ID: r.ID, Title: r.Title, Subject: r.Subject, NPSNs: r.NPSNs, StartsAt: utc(r.StartsAt),
		EndsAt: utc(r.EndsAt), DurationMinutes: r.DurationMinutes, QuestionCount: r.QuestionCount,
		CreatedAt: utc(r.CreatedAt)}
}

// CreateExam stores e with its questions and bumps the content revision.
func (s *Store) CreateExam(ctx context.Context, e exam.Exam) error {
	return s.update(ctx, "create exam", func(tx *bbolt.Tx) error {
		if e.ID == "" || tx.Bucket(bucketExams).Get([]byte(e.ID)) != nil {
			return fmt.Errorf("exam id %q is empty or taken", e.ID)
		}
		return putExam(tx, e)
	})
}

// UpdateExam replaces the exam of e.ID (but its CreatedAt) and its
// questions and bumps the content revision; refused once answers are
// stored.
func (s *Store) UpdateExam(ctx context.Context, e exam.Exam) error {
	return s.update(ctx, "update exam", func(tx *bbolt.Tx) error {
		var old examRecord
		if err := examWithoutAnswers(tx, e.ID, &old); err != nil {
			return err
		}
		e.CreatedAt = old.CreatedAt
		return putExam(tx, e)
	})
}

// putExam writes e and its questions and bumps the content revision.
func putExam(tx *bbolt.Tx, e exam.Exam) error {
	rec := examRecord{ID: e.ID, Title: e.Title, Subject: e.Subject, NPSNs: e.NPSNs, StartsAt: ts(e.StartsAt),
		EndsAt: ts(e.EndsAt), DurationMinutes: e.DurationMinutes, QuestionCount: len(e.Questions),
		CreatedAt: ts(e.CreatedAt)}
	if err := putJSON(tx.Bucket(bucketExams), []byte(e.ID), rec); err != nil {
		return err
	}
	questions := e.Questions
	if questions == nil {
		questions = []exam.Question{}
	}
	if err := putJSON(tx.Bucket(bucketExamQuestions), []byte(e.ID), questions); err != nil {
		return err
	}
	stimuli := tx.Bucket(bucketExamStimuli)
	if len(e.Stimuli) == 0 {
		if err := stimuli.Delete([]byte(e.ID)); err != nil {
			return err
		}
	} else if err := putJSON(stimuli, []byte(e.ID), e.Stimuli); err != nil {
		return err
	}
	return bumpRevision(tx)
}

// examWithoutAnswers reads the exam of id into rec: exam.ErrNotFound when
// there is none, exam.ErrExamHasAnswers when answers are stored for it.
func examWithoutAnswers(tx *bbolt.Tx, id string, rec *examRecord) error {
	found, err := getJSON(tx.Bucket(bucketExams), []byte(id), rec)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("exam %q: %w", id, exam.ErrNotFound)
	}
	prefix := tuple(id)
	if k, _ := tx.Bucket(bucketAnswers).Cursor().Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) {
		return fmt.Errorf("exam %q: %w", id, exam.ErrExamHasAnswers)
	}
	return nil
}

// GetExam returns the exam with its questions and answer key.
func (s *Store) GetExam(ctx context.Context, id string) (exam.Exam, error) {
	var e exam.Exam
	err := s.view(ctx, "get exam", func(tx *bbolt.Tx) error {
		var rec examRecord
		found, err := getJSON(tx.Bucket(bucketExams), []byte(id), &rec)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("exam %q: %w", id, exam.ErrNotFound)
		}
		e = rec.exam()
		if data := tx.Bucket(bucketExamQuestions).Get([]byte(id)); data != nil {
			if err := jsonx.Unmarshal(data, &e.Questions); err != nil {
				return fmt.Errorf("decode questions of exam %q: %w", id, err)
			}
		}
		if e.Questions == nil {
			e.Questions = []exam.Question{}
		}
		if data := tx.Bucket(bucketExamStimuli).Get([]byte(id)); data != nil {
			if err := jsonx.Unmarshal(data, &e.Stimuli); err != nil {
				return fmt.Errorf("decode stimuli of exam %q: %w", id, err)
			}
		}
		return nil
	})
	return e, err
}

// ListExams returns matching exams ordered by StartsAt then ID, with
// Questions nil and QuestionCount set.
func (s *Store) ListExams(ctx context.Context, f exam.ExamFilter) ([]exam.Exam, error) {
	var out []exam.Exam
	err := s.view(ctx, "list exams", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketExams).ForEach(func(k, v []byte) error {
			var rec examRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return err
			}
			if f.NPSN == "" || slices.Contains(rec.NPSNs, f.NPSN) {
				out = append(out, rec.exam())
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b exam.Exam) int {
		return cmp.Or(a.StartsAt.Compare(b.StartsAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// DeleteExam removes the exam and bumps the content revision;
// exam.ErrExamHasAnswers when answers were pushed for it.
func (s *Store) DeleteExam(ctx context.Context, id string) error {
	return s.update(ctx, "delete exam", func(tx *bbolt.Tx) error {
		if err := examWithoutAnswers(tx, id, &examRecord{}); err != nil {
			return err
		}
		if err := tx.Bucket(bucketExams).Delete([]byte(id)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketExamQuestions).Delete([]byte(id)); err != nil {
			return err
		}
		if err := tx.Bucket(bucketExamStimuli).Delete([]byte(id)); err != nil {
			return err
		}
		if err := deletePrefix(tx.Bucket(bucketCalibrations), calibrationKey(id, "")); err != nil {
			return err
		}
		return bumpRevision(tx)
	})
}

// SetItemParameters sets the Calibrated parameters of the exam's questions
// named in params; exam.ErrNotFound when there is no such exam. The content
// revision stays: lab servers' packages do not carry them.
func (s *Store) SetItemParameters(ctx context.Context, examID string, params map[string]exam.ItemParameters) error {
	return s.update(ctx, "set item parameters", func(tx *bbolt.Tx) error {
		var rec examRecord
		found, err := getJSON(tx.Bucket(bucketExams), []byte(examID), &rec)
		if err != nil {
			return err
		}
		if !found {
			return exam.ErrNotFound
		}
		var questions []exam.Question
		if _, err := getJSON(tx.Bucket(bucketExamQuestions), []byte(examID), &questions); err != nil {
			return err
		}
		for i, q := range questions {
			if p, ok := params[q.ID]; ok {
				p.CalibratedAt = p.CalibratedAt.UTC()
				questions[i].Calibrated = &p
			}
		}
		return putJSON(tx.Bucket(bucketExamQuestions), []byte(examID), questions)
	})
}
