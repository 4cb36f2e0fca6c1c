package exam_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/irt"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres/postgrestest"
)

// lsatExam creates an exam of five choice questions whose key is "a", for
// takeLSAT.
func lsatExam(t *testing.T, svc *exam.Service, title string) exam.Exam {
	t.Helper()
	start := time.Now().UTC().Add(time.Hour)
	opts := []exam.Option{{ID: "a", Text: "benar"}, {ID: "b", Text: "salah"}}
	var qs []exam.Question
	for j := range 5 {
		qs = append(qs, exam.Question{ID: fmt.Sprint("q", j+1), Type: exam.SingleChoice, Text: fmt.Sprint("Soal ", j+1), Options: opts, Answer: []string{"a"}, Points: 1})
	}
	e, err := svc.CreateExam(t.Context(), exam.ExamInput{Title: title, NPSNs: []string{"20100001"}, StartsAt: start,
		EndsAt: start.Add(time.Hour), DurationMinutes: 60, Questions: qs})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestLatestCalibration: a calibration is kept as the latest of its exam
// and model and reads back as it was returned, its questions as the exam
// has them; before any there is none; the next calibration replaces it.
func TestLatestCalibration(t *testing.T) {
	ctx := t.Context()
	svc, store := newBoltService(t)
	e := lsatExam(t, svc, "LSAT")
	if _, err := svc.LatestCalibration(ctx, "no-such-exam", irt.Rasch); !errors.Is(err, exam.ErrNotFound) {
		t.Fatalf("an unknown exam: %v", err)
	}
	if _, err := svc.LatestCalibration(ctx, e.ID, "3pl"); !errors.Is(err, exam.ErrUnknownModel) {
		t.Fatalf("3pl: %v", err)
	}
	if st, err := svc.LatestCalibration(ctx, e.ID, irt.Rasch); err != nil || st.Latest != nil || st.Run != nil {
		t.Fatalf("before any calibration: %+v, %v", st, err)
	}
	empty, err := svc.Calibrate(ctx, e.ID, irt.Rasch)
	if err != nil || empty.NoteCode != exam.NoteTooFewStudents || empty.StartedAt.IsZero() || empty.FinishedAt.Before(empty.StartedAt) {
		t.Fatalf("before any answer: %+v, %v", empty, err)
	}
	takeLSAT(t, store, e, 0, []string{"q1", "q2", "q3", "q4", "q5"}, nil)
	if st, err := svc.LatestCalibration(ctx, e.ID, irt.Rasch); err != nil || st.Latest == nil || st.Latest.NoteCode != exam.NoteTooFewStudents {
		t.Fatalf("the latest is the one before the answers: %+v, %v", st, err)
	}
	fit, err := svc.Calibrate(ctx, e.ID, irt.Rasch)
	if err != nil || fit.Calibration == nil || fit.Students != 1000 || !fit.StartedAt.After(empty.StartedAt) {
		t.Fatalf("with LSAT's answers: %+v, %v", fit, err)
	}
	st, err := svc.LatestCalibration(ctx, e.ID, irt.Rasch)
	if err != nil || st.Latest == nil || st.Run != nil {
		t.Fatalf("LatestCalibration: %+v, %v", st, err)
	}
	got := *st.Latest
	if !reflect.DeepEqual(got.Questions, fit.Questions) || !reflect.DeepEqual(got.Skipped, fit.Skipped) ||
		!got.StartedAt.Equal(fit.StartedAt) || !got.FinishedAt.Equal(fit.FinishedAt) || got.Students != 1000 || got.ExamTitle != "LSAT" {
		t.Fatalf("read back %+v\nreturned %+v", got, fit)
	}
	if !reflect.DeepEqual(got.Calibration.Items, fit.Calibration.Items) || got.Calibration.LogLik != fit.Calibration.LogLik ||
		!reflect.DeepEqual(got.Calibration.Information, fit.Calibration.Information) {
		t.Fatalf("read back %+v\nreturned %+v", got.Calibration, fit.Calibration)
	}
	row := []int8{1, 0, 1, 1, 0}
	if a, b := got.Calibration.EAP(row), fit.Calibration.EAP(row); a != b {
		t.Fatalf("EAP read back %+v, returned %+v", a, b)
	}
	if st, err := svc.LatestCalibration(ctx, e.ID, irt.TwoPL); err != nil || st.Latest != nil {
		t.Fatalf("the other model: %+v, %v", st, err)
	}
}

// TestCalibrationRunStale: the run record of a calibration is reported
// while its instance writes it, and taken for a stopped instance's once it
// is 30 s old.
func TestCalibrationRunStale(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	_, store := newBoltService(t)
	svc, err := exam.NewService(ctx, store, exam.Config{Now: func() time.Time { return now }}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	e := lsatExam(t, svc, "LSAT")
	run := exam.CalibrationRun{StartedAt: now.Add(-time.Minute), UpdatedAt: now.Add(-29 * time.Second), Stage: "fit", Students: 1000, Iteration: 4}
	if err := store.SaveCalibrationRun(ctx, e.ID, "2pl", &run); err != nil {
		t.Fatal(err)
	}
	if st, err := svc.LatestCalibration(ctx, e.ID, irt.TwoPL); err != nil || st.Run == nil || *st.Run != run {
		t.Fatalf("a run written 29 s ago: %+v, %v", st.Run, err)
	}
	now = now.Add(time.Second)
	if st, err := svc.LatestCalibration(ctx, e.ID, irt.TwoPL); err != nil || st.Run != nil {
		t.Fatalf("a run written 30 s ago: %+v, %v", st.Run, err)
	}
}

// TestCalibrateSharedAcrossPortals: two portal instances on one
// PostgreSQL database. While A calibrates, holding the advisory lock, B
// shows A's progress; B's call waits for A's run and gets its result
// without reading the answers; the run's record is gone once it ends; a
// later call on B fits again.
func TestCalibrateSharedAcrossPortals(t *testing.T) {
	ctx := t.Context()
	url := pgtest.NewDatabase(t)
	storeA, storeB := postgrestest.OpenURL(t, url), postgrestest.OpenURL(t, url)
	gateA := &gatedStore{Store: storeA, release: make(chan struct{})}
	countB := &gatedStore{Store: storeB, release: make(chan struct{})}
	close(countB.release)
	a, err := exam.NewService(ctx, gateA, exam.Config{Blobs: storeA.Blobs()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	b, err := exam.NewService(ctx, countB, exam.Config{Blobs: storeB.Blobs()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	e := lsatExam(t, b, "LSAT")
	close(gateA.release)
	takeLSAT(t, storeA, e, 0, []string{"q1", "q2", "q3", "q4", "q5"}, nil)
	gateA.release = make(chan struct{})
	gateA.calls.Store(0)
	// Released at the latest when the test ends, failed or not, before the
	// stores close: A's fit holds a connection until then.
	var once sync.Once
	releaseA := func() { once.Do(func() { close(gateA.release) }) }
	t.Cleanup(releaseA)

	type result struct {
		res exam.ItemCalibration
		err error
	}
	onA, onB := make(chan result, 1), make(chan result, 1)
	go func() {
		r, err := a.Calibrate(ctx, e.ID, irt.TwoPL)
		onA <- result{r, err}
	}()
	// A holds the lock and reads the answers; B sees its run.
	deadline := time.Now().Add(30 * time.Second)
	for gateA.calls.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("A never read the answers")
		}
		time.Sleep(10 * time.Millisecond)
	}
	st, err := b.LatestCalibration(ctx, e.ID, irt.TwoPL)
	if err != nil || st.Latest != nil || st.Run == nil || st.Run.Stage != exam.StageReading || st.Run.StartedAt.IsZero() {
		t.Fatalf("B's view of A's run: %+v, %v", st, err)
	}
	go func() {
		r, err := b.Calibrate(ctx, e.ID, irt.TwoPL)
		onB <- result{r, err}
	}()
	// B waits for the lock A holds.
	for countB.locks.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("B never asked for the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var held int
	// The locks on this test's database (other tests' are on theirs).
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&held); err != nil || held != 1 {
		t.Errorf("advisory locks held while A fits: %d, %v; want A's", held, err)
	}
	releaseA()
	ra, rb := <-onA, <-onB
	if ra.err != nil || rb.err != nil {
		t.Fatalf("A: %v; B: %v", ra.err, rb.err)
	}
	if ra.res.Calibration == nil || rb.res.Calibration == nil || !rb.res.FinishedAt.Equal(ra.res.FinishedAt) ||
		!reflect.DeepEqual(rb.res.Calibration.Items, ra.res.Calibration.Items) {
		t.Fatalf("B's result is not A's:\nA %+v\nB %+v", ra.res, rb.res)
	}
	if n := countB.calls.Load(); n != 0 {
		t.Fatalf("B read the answers %d times; it should have shared A's run", n)
	}
	st, err = b.LatestCalibration(ctx, e.ID, irt.TwoPL)
	if err != nil || st.Run != nil || st.Latest == nil || !st.Latest.FinishedAt.Equal(ra.res.FinishedAt) {
		t.Fatalf("after the run: %+v, %v", st, err)
	}

	// Nothing runs now: B's next call is a fit of its own.
	again, err := b.Calibrate(ctx, e.ID, irt.TwoPL)
	if err != nil || countB.calls.Load() == 0 || !again.FinishedAt.After(ra.res.FinishedAt) {
		t.Fatalf("a later call on B: %d reads, finished %v (A's %v), %v", countB.calls.Load(), again.FinishedAt, ra.res.FinishedAt, err)
	}
	if _, err := b.Calibrate(context.Background(), e.ID, "3pl"); !errors.Is(err, exam.ErrUnknownModel) {
		t.Fatalf("3pl: %v", err)
	}
}
