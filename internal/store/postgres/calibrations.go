package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/exam"
)

// calibrationLockPoll is how often LockCalibration tries the lock while
// another session holds it.
const calibrationLockPoll = 250 * time.Millisecond

// LockCalibration takes the calibration's lock, a session-level advisory
// lock held on a connection of its own until unlock; when the connection
// breaks (the portal instance died), PostgreSQL releases it. While another
// session holds it, it tries again every calibrationLockPoll without
// keeping a connection: a wait of minutes must not hold one of the pool's.
func (s *Store) LockCalibration(ctx context.Context, examID, model string) (func(), error) {
	key := examID + "/" + model
	for {
		unlock, ok, err := s.tryAdvisoryLock(ctx, "lock calibration", `$1, hashtext($2)`, calibrationLockNamespace, key)
		if err != nil || ok {
			return unlock, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("postgres: lock calibration: %w", ctx.Err())
		case <-time.After(calibrationLockPoll):
		}
	}
}

// GetCalibration returns the calibration record of the exam and model.
func (s *Store) GetCalibration(ctx context.Context, examID, model string) (exam.CalibrationRecord, error) {
	r := exam.CalibrationRecord{ExamID: examID, Model: model}
	var started, finished, runStarted, runUpdated *time.Time
	var run exam.CalibrationRun
	err := s.pool.QueryRow(ctx, `SELECT result, started_at, finished_at, run_started_at, run_updated_at,
		run_stage, run_students, run_iteration FROM calibrations WHERE exam_id = $1 AND model = $2`, examID, model).
		Scan(&r.Result, &started, &finished, &runStarted, &runUpdated, &run.Stage, &run.Students, &run.Iteration)
	if err != nil {
		return exam.CalibrationRecord{}, fmt.Errorf("postgres: get calibration: %w", notFound(err))
	}
	if started != nil && finished != nil {
		r.StartedAt, r.FinishedAt = started.UTC(), finished.UTC()
	}
	if runStarted != nil && runUpdated != nil {
		run.StartedAt, run.UpdatedAt = runStarted.UTC(), runUpdated.UTC()
		r.Run = &run
	}
	return r, nil
}

// SaveCalibrationRun writes the run going on.
func (s *Store) SaveCalibrationRun(ctx context.Context, examID, model string, run *exam.CalibrationRun) error {
	var started, updated *time.Time
	var r exam.CalibrationRun
	if run != nil {
		r, started, updated = *run, &run.StartedAt, &run.UpdatedAt
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO calibrations (exam_id, model, run_started_at, run_updated_at,
		run_stage, run_students, run_iteration) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (exam_id, model) DO UPDATE SET run_started_at = EXCLUDED.run_started_at,
		run_updated_at = EXCLUDED.run_updated_at, run_stage = EXCLUDED.run_stage,
		run_students = EXCLUDED.run_students, run_iteration = EXCLUDED.run_iteration`,
		examID, model, started, updated, r.Stage, r.Students, r.Iteration)
	if err != nil {
		return fmt.Errorf("postgres: save calibration run: %w", examForeignKey(err))
	}
	return nil
}

// SaveCalibration writes r's result as the latest and clears the run.
func (s *Store) SaveCalibration(ctx context.Context, r exam.CalibrationRecord) error {
	if r.Result == nil {
		return errors.New("postgres: save calibration: no result")
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO calibrations (exam_id, model, result, started_at, finished_at)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (exam_id, model) DO UPDATE SET result = EXCLUDED.result, started_at = EXCLUDED.started_at,
		finished_at = EXCLUDED.finished_at, run_started_at = NULL, run_updated_at = NULL, run_stage = '',
		run_students = 0, run_iteration = 0`,
		r.ExamID, r.Model, r.Result, r.StartedAt, r.FinishedAt)
	if err != nil {
		return fmt.Errorf("postgres: save calibration: %w", examForeignKey(err))
	}
	return nil
}

// examForeignKey maps the violation of the record's exam_id foreign key
// (no such exam) to exam.ErrNotFound.
func examForeignKey(err error) error {
	if c, ok := foreignKeyViolation(err); ok && strings.HasSuffix(c, "_exam_id_fkey") {
		return exam.ErrNotFound
	}
	return err
}
