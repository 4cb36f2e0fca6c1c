package exam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/seedhq/portal/internal/irt"
)

// The pace of a calibration's run record (CalibrationRun): its instance
// writes it every calibrationBeat, and a run whose record is older than
// calibrationRunStale is taken for one whose instance stopped.
const (
	calibrationBeat     = 2 * time.Second
	calibrationRunStale = 30 * time.Second
)

// StageReading is the first stage of a calibration run, reading the
// answers; the others are irt's stages (fit, errors, item-fit).
const StageReading = "reading"

// CalibrationState is what is known of an exam's calibrations with one
// model without fitting: the latest that finished and the run going on.
type CalibrationState struct {
	// Latest is the latest calibration that finished (nil when none has,
	// or when the questions it names are no longer the exam's).
	Latest *ItemCalibration
	// Run is the run going on, on this portal instance or another; nil
	// when none is.
	Run *CalibrationRun
}

// LatestCalibration returns the exam's latest calibration with model and
// the run going on, without fitting. ErrNotFound when there is no such
// exam.
func (s *Service) LatestCalibration(ctx context.Context, examID string, model irt.Model) (CalibrationState, error) {
	if model != irt.Rasch && model != irt.TwoPL {
		return CalibrationState{}, ErrUnknownModel
	}
	e, err := s.store.GetExam(ctx, examID)
	if err != nil {
		return CalibrationState{}, fmt.Errorf("latest calibration: %w", err)
	}
	rec, err := s.store.GetCalibration(ctx, examID, string(model))
	if errors.Is(err, ErrNotFound) {
		return CalibrationState{}, nil
	}
	if err != nil {
		return CalibrationState{}, fmt.Errorf("latest calibration: %w", err)
	}
	var st CalibrationState
	if rec.Result != nil {
		res, err := decodeCalibration(e, model, rec)
		if err != nil {
			s.log.Warn("exam: the latest calibration does not fit the exam; a new one will replace it",
				"exam", examID, "model", model, "err", err)
		} else {
			st.Latest = &res
		}
	}
	if rec.Run != nil && s.now().Sub(rec.Run.UpdatedAt) < calibrationRunStale {
		st.Run = rec.Run
	}
	return st, nil
}

// calibrateOnce is the run of Calibrate shared by its callers in this
// instance. It waits for one of the instance's calibration slots, then for
// the store's lock of the exam and model; when a
// run finished meanwhile (one going on, on another instance, when
// Calibrate was called) it returns that run's result, else it fits, keeps
// the result as the latest and returns it.
func (s *Service) calibrateOnce(ctx context.Context, examID string, model irt.Model) (ItemCalibration, error) {
	s.calibrationSlots <- struct{}{}
	defer func() { <-s.calibrationSlots }()
	before, err := s.store.GetCalibration(ctx, examID, string(model))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return ItemCalibration{}, fmt.Errorf("calibrate: %w", err)
	}
	unlock, err := s.store.LockCalibration(ctx, examID, string(model))
	if err != nil {
		return ItemCalibration{}, fmt.Errorf("calibrate: %w", err)
	}
	defer unlock()
	st, err := s.LatestCalibration(ctx, examID, model)
	if err != nil {
		return ItemCalibration{}, fmt.Errorf("calibrate: %w", err)
	}
	if st.Latest != nil && !st.Latest.FinishedAt.Equal(before.FinishedAt) {
		return *st.Latest, nil
	}

	run := &runProgress{run: CalibrationRun{StartedAt: s.now(), Stage: StageReading}}
	stop := s.beatRun(ctx, examID, model, run)
	res, err := s.calibrate(ctx, examID, model, run)
	stop()
	if err != nil {
		if err := s.store.SaveCalibrationRun(ctx, examID, string(model), nil); err != nil {
			s.log.Warn("exam: clear a failed calibration run", "exam", examID, "model", model, "err", err)
		}
		return ItemCalibration{}, err
	}
	res.StartedAt, res.FinishedAt = run.run.StartedAt, s.now()
	enc, err := encodeCalibration(res)
	if err == nil {
		err = s.store.SaveCalibration(ctx, CalibrationRecord{ExamID: examID, Model: string(model), Result: enc,
			StartedAt: res.StartedAt, FinishedAt: res.FinishedAt})
	}
	if err != nil {
		// The caller still gets the fit; the next call fits again.
		s.log.Error("exam: keep the latest calibration", "exam", examID, "model", model, "err", err)
	}
	return res, nil
}

// runProgress is how far a calibration run has got, written by the run
// and read by its beat.
type runProgress struct {
	mu  sync.Mutex
	run CalibrationRun
}

// student counts one more student read.
func (p *runProgress) student() {
	p.mu.Lock()
	p.run.Students++
	p.mu.Unlock()
}

// fit records the fit's stage and iteration (irt.Options.Progress).
func (p *runProgress) fit(f irt.Progress) {
	p.mu.Lock()
	p.run.Stage, p.run.Iteration = string(f.Stage), f.Iteration
	p.mu.Unlock()
}

// snapshot returns the run as it is now.
func (p *runProgress) snapshot() CalibrationRun {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.run
}

// beatRun writes the run's record at once and then every calibrationBeat
// until stop, which returns once the last write is done.
func (s *Service) beatRun(ctx context.Context, examID string, model irt.Model, run *runProgress) (stop func()) {
	write := func() {
		r := run.snapshot()
		r.UpdatedAt = s.now()
		if err := s.store.SaveCalibrationRun(ctx, examID, string(model), &r); err != nil {
			s.log.Warn("exam: write a calibration's progress", "exam", examID, "model", model, "err", err)
		}
	}
	write()
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(calibrationBeat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				write()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// storedCalibration is the encoding of a calibration kept as the latest:
// its questions by id, read back from the exam.
type storedCalibration struct {
	Students     int               `json:"students"`
	Calibration  *irt.Calibration  `json:"calibration,omitempty"`
	Note         string            `json:"note,omitempty"`
	NoteCode     string            `json:"note_code,omitempty"`
	NoteQuestion int               `json:"note_question,omitempty"`
	Questions    []string          `json:"questions"`
	Skipped      []SkippedQuestion `json:"skipped"`
}

// encodeCalibration encodes res for CalibrationRecord.Result.
func encodeCalibration(res ItemCalibration) ([]byte, error) {
	v := storedCalibration{Students: res.Students, Calibration: res.Calibration,
		Note: res.Note, NoteCode: res.NoteCode, NoteQuestion: res.NoteQuestion, Skipped: res.Skipped}
	for _, q := range res.Questions {
		v.Questions = append(v.Questions, q.Question.ID)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode calibration: %w", err)
	}
	return b, nil
}

// decodeCalibration reads back the calibration of e that rec keeps, its
// questions as e has them now (with the parameters kept since).
func decodeCalibration(e Exam, model irt.Model, rec CalibrationRecord) (ItemCalibration, error) {
	var v storedCalibration
	if err := json.Unmarshal(rec.Result, &v); err != nil {
		return ItemCalibration{}, fmt.Errorf("decode calibration: %w", err)
	}
	if v.Calibration != nil && (v.Calibration.Model != model || len(v.Calibration.Items) != len(v.Questions)) {
		return ItemCalibration{}, fmt.Errorf("decode calibration: a %s fit of %d questions for %d", v.Calibration.Model, len(v.Calibration.Items), len(v.Questions))
	}
	number := map[string]int{}
	for i, q := range e.Questions {
		number[q.ID] = i + 1
	}
	res := ItemCalibration{ExamID: e.ID, ExamTitle: e.Title, Model: model, Students: v.Students,
		Calibration: v.Calibration, Note: v.Note, NoteCode: v.NoteCode, NoteQuestion: v.NoteQuestion,
		Skipped: v.Skipped, StartedAt: rec.StartedAt, FinishedAt: rec.FinishedAt}
	for _, id := range v.Questions {
		n, ok := number[id]
		if !ok {
			return ItemCalibration{}, fmt.Errorf("decode calibration: question %q is no longer the exam's", id)
		}
		res.Questions = append(res.Questions, AnalysedQuestion{Number: n, Question: e.Questions[n-1]})
	}
	if res.Skipped == nil {
		res.Skipped = []SkippedQuestion{}
	}
	return res, nil
}
