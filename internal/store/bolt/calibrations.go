package bolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/exam"
)

// calibrationRecord is a stored exam.CalibrationRecord.
type calibrationRecord struct {
	Result     []byte               `json:"result,omitempty"`
	StartedAt  time.Time            `json:"started_at"`
	FinishedAt time.Time            `json:"finished_at"`
	Run        *exam.CalibrationRun `json:"run,omitempty"`
}

// calibrationKey is the key of an exam's calibration with a model; with
// an empty model, the prefix of all the exam's.
func calibrationKey(examID, model string) []byte {
	return []byte(examID + "\x00" + model)
}

// LockCalibration waits for the calibration's lock and takes it. A bbolt
// file belongs to one process, so the lock is a slot of the Store.
func (s *Store) LockCalibration(ctx context.Context, examID, model string) (func(), error) {
	key := string(calibrationKey(examID, model))
	s.calibrationMu.Lock()
	if s.calibrationLocks == nil {
		s.calibrationLocks = map[string]chan struct{}{}
	}
	slot := s.calibrationLocks[key]
	if slot == nil {
		slot = make(chan struct{}, 1)
		s.calibrationLocks[key] = slot
	}
	s.calibrationMu.Unlock()
	select {
	case slot <- struct{}{}:
		return func() { <-slot }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("bolt: lock calibration: %w", ctx.Err())
	}
}

// GetCalibration returns the calibration record of the exam and model.
func (s *Store) GetCalibration(ctx context.Context, examID, model string) (exam.CalibrationRecord, error) {
	var rec calibrationRecord
	err := s.view(ctx, "get calibration", func(tx *bbolt.Tx) error {
		found, err := getJSON(tx.Bucket(bucketCalibrations), calibrationKey(examID, model), &rec)
		if err == nil && !found {
			err = exam.ErrNotFound
		}
		return err
	})
	if err != nil {
		return exam.CalibrationRecord{}, err
	}
	return exam.CalibrationRecord{ExamID: examID, Model: model, Result: rec.Result,
		StartedAt: rec.StartedAt, FinishedAt: rec.FinishedAt, Run: rec.Run}, nil
}

// SaveCalibrationRun writes the run going on.
func (s *Store) SaveCalibrationRun(ctx context.Context, examID, model string, run *exam.CalibrationRun) error {
	if run != nil {
		r := *run
		r.StartedAt, r.UpdatedAt = r.StartedAt.UTC(), r.UpdatedAt.UTC()
		run = &r
	}
	return s.updateCalibration(ctx, "save calibration run", examID, model, func(rec *calibrationRecord) {
		rec.Run = run
	})
}

// SaveCalibration writes r's result as the latest and clears the run.
func (s *Store) SaveCalibration(ctx context.Context, r exam.CalibrationRecord) error {
	if r.Result == nil {
		return errors.New("bolt: save calibration: no result")
	}
	return s.updateCalibration(ctx, "save calibration", r.ExamID, r.Model, func(rec *calibrationRecord) {
		*rec = calibrationRecord{Result: r.Result, StartedAt: r.StartedAt.UTC(), FinishedAt: r.FinishedAt.UTC()}
	})
}

// updateCalibration changes the calibration record of an existing exam.
func (s *Store) updateCalibration(ctx context.Context, op, examID, model string, change func(*calibrationRecord)) error {
	return s.update(ctx, op, func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketExams).Get([]byte(examID)) == nil {
			return exam.ErrNotFound
		}
		b, key := tx.Bucket(bucketCalibrations), calibrationKey(examID, model)
		var rec calibrationRecord
		if _, err := getJSON(b, key, &rec); err != nil {
			return err
		}
		change(&rec)
		return putJSON(b, key, rec)
	})
}

// deletePrefix deletes every key of b that starts with prefix.
func deletePrefix(b *bbolt.Bucket, prefix []byte) error {
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
