package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
)

// testCalibrations: the latest calibration of an exam and model and the
// run going on are kept apart for each model; a run keeps the result
// before it, a result clears the run; an unknown exam is ErrNotFound and
// deleting an exam deletes its records.
func testCalibrations(t *testing.T, s Store) {
	ctx := t.Context()
	e := newExam("exam-1", at(0), npsnA)
	MustCreateExam(t, s, e)
	_, err := s.GetCalibration(ctx, e.ID, "2pl")
	wantErr(t, "GetCalibration before any", err, exam.ErrNotFound)

	run := exam.CalibrationRun{StartedAt: at(time.Hour), UpdatedAt: at(time.Hour + 5*time.Second), Stage: "reading", Students: 120}
	mustOK(t, "SaveCalibrationRun", s.SaveCalibrationRun(ctx, e.ID, "2pl", &run))
	run.StartedAt, run.UpdatedAt = run.StartedAt.UTC(), run.UpdatedAt.UTC()
	got, err := s.GetCalibration(ctx, e.ID, "2pl")
	mustOK(t, "GetCalibration", err)
	check(t, "the first run", got, exam.CalibrationRecord{ExamID: e.ID, Model: "2pl", Run: &run})

	first := exam.CalibrationRecord{ExamID: e.ID, Model: "2pl", Result: []byte(`{"fit":1}`),
		StartedAt: at(time.Hour), FinishedAt: at(time.Hour + time.Minute)}
	mustOK(t, "SaveCalibration", s.SaveCalibration(ctx, first))
	first.StartedAt, first.FinishedAt = first.StartedAt.UTC(), first.FinishedAt.UTC()
	got, err = s.GetCalibration(ctx, e.ID, "2pl")
	mustOK(t, "GetCalibration", err)
	check(t, "the first result", got, first)

	// The next run keeps the result before it until it ends.
	run2 := exam.CalibrationRun{StartedAt: at(2 * time.Hour), UpdatedAt: at(2*time.Hour + time.Second), Stage: "fit", Students: 4000, Iteration: 7}
	mustOK(t, "SaveCalibrationRun", s.SaveCalibrationRun(ctx, e.ID, "2pl", &run2))
	run2.StartedAt, run2.UpdatedAt = run2.StartedAt.UTC(), run2.UpdatedAt.UTC()
	got, err = s.GetCalibration(ctx, e.ID, "2pl")
	mustOK(t, "GetCalibration", err)
	want := first
	want.Run = &run2
	check(t, "a result and a run", got, want)

	// A run that failed is cleared, the result kept.
	mustOK(t, "SaveCalibrationRun nil", s.SaveCalibrationRun(ctx, e.ID, "2pl", nil))
	got, err = s.GetCalibration(ctx, e.ID, "2pl")
	mustOK(t, "GetCalibration", err)
	check(t, "a failed run cleared", got, first)
	mustOK(t, "SaveCalibrationRun", s.SaveCalibrationRun(ctx, e.ID, "2pl", &run2))

	// The other model is apart.
	_, err = s.GetCalibration(ctx, e.ID, "rasch")
	wantErr(t, "GetCalibration of the other model", err, exam.ErrNotFound)
	rasch := exam.CalibrationRecord{ExamID: e.ID, Model: "rasch", Result: []byte(`{"fit":"rasch"}`),
		StartedAt: at(3 * time.Hour), FinishedAt: at(3*time.Hour + time.Second)}
	mustOK(t, "SaveCalibration rasch", s.SaveCalibration(ctx, rasch))

	second := exam.CalibrationRecord{ExamID: e.ID, Model: "2pl", Result: []byte(`{"fit":2}`),
		StartedAt: at(2 * time.Hour), FinishedAt: at(2*time.Hour + time.Minute)}
	mustOK(t, "SaveCalibration again", s.SaveCalibration(ctx, second))
	second.StartedAt, second.FinishedAt = second.StartedAt.UTC(), second.FinishedAt.UTC()
	got, err = s.GetCalibration(ctx, e.ID, "2pl")
	mustOK(t, "GetCalibration", err)
	check(t, "the second result, the run cleared", got, second)
	rasch.StartedAt, rasch.FinishedAt = rasch.StartedAt.UTC(), rasch.FinishedAt.UTC()
	got, err = s.GetCalibration(ctx, e.ID, "rasch")
	mustOK(t, "GetCalibration rasch", err)
	check(t, "the other model's result", got, rasch)

	wantErr(t, "SaveCalibrationRun of an unknown exam", s.SaveCalibrationRun(ctx, "exam-404", "2pl", &run), exam.ErrNotFound)
	first.ExamID = "exam-404"
	wantErr(t, "SaveCalibration of an unknown exam", s.SaveCalibration(ctx, first), exam.ErrNotFound)

	mustOK(t, "DeleteExam", s.DeleteExam(ctx, e.ID))
	MustCreateExam(t, s, e)
	for _, model := range []string{"2pl", "rasch"} {
		_, err = s.GetCalibration(ctx, e.ID, model)
		wantErr(t, "GetCalibration of a deleted exam's "+model, err, exam.ErrNotFound)
	}
}

// testLockCalibration: one holder at a time per exam and model; a waiter
// gets the lock when it is unlocked, or its context's error when that ends
// first; another exam or model is not held up.
func testLockCalibration(t *testing.T, s Store) {
	ctx := t.Context()
	unlock, err := s.LockCalibration(ctx, "exam-1", "2pl")
	mustOK(t, "LockCalibration", err)

	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = s.LockCalibration(short, "exam-1", "2pl")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("LockCalibration while held: %v, want the context's deadline", err)
	}
	for _, other := range [][2]string{{"exam-1", "rasch"}, {"exam-2", "2pl"}} {
		u, err := s.LockCalibration(ctx, other[0], other[1])
		mustOK(t, "LockCalibration of "+other[0]+" "+other[1], err)
		u()
	}

	got := make(chan error, 1)
	go func() {
		u, err := s.LockCalibration(ctx, "exam-1", "2pl")
		if err == nil {
			u()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("a waiter got the lock while it was held: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	unlock()
	select {
	case err := <-got:
		mustOK(t, "the waiter's LockCalibration", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not get the lock within 10 s of its unlock")
	}
}
