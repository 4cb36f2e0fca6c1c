package exam

import (
	"context"
	"errors"
	"fmt"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/irt"
)

// ItemCalibration is the item response theory calibration of an exam's
// questions over every student who took it (internal/irt,
// docs/item-analysis.md).
type ItemCalibration struct {
	ExamID, ExamTitle string
	Model             irt.Model
	// Students is the number of students with at least one answer.
	Students int
	// Calibration is the fit; nil when the answers cannot be calibrated,
	// and Note then says why (no answers yet, fewer than two students or
	// than two questions some got right and some wrong, or a question whose
	// discrimination has no finite estimate).
	Calibration *irt.Calibration
	Note        string
	// NoteCode names the note's case (one of the Note* codes), for a
	// caller that words it in another language; NoteQuestion is the
	// question's number for NoteUnbounded.
	NoteCode     string
	NoteQuestion int
	// Questions are the questions put to the model, one per
	// Calibration.Items entry.
	Questions []AnalysedQuestion
	// Skipped are the questions left out before the fit: essays with
	// answers still to grade, and questions worth no points.
	Skipped []SkippedQuestion
}

// Why a calibration has no fit (ItemCalibration.NoteCode).
const (
	NoteTooFewStudents = "too_few_students"
	NoteTooFewItems    = "too_few_items"
	NoteUnbounded      = "unbounded"
)

// ErrUnknownModel answers a calibration asked for with a model other than
// rasch or 2pl.
var ErrUnknownModel = apperr.New(apperr.Invalid, "UNKNOWN_MODEL", "model must be rasch or 2pl")

// Calibrate fits model to the answers of every student of the exam: a
// question is right when the student earned its full points, wrong when
// less, missing when left blank or not reached. The answers are read as
// one stream in (student, question) order, twice, and kept one byte per
// student and question. An exam without answers, or whose answers cannot
// be calibrated, gets a well-formed result with a note instead of a fit.
//
// Calls for the same exam and model while one runs share its result: two
// operators asking at once cost one fit. The fit goes on when its first
// caller leaves, for the others; each caller stops waiting when its own
// ctx ends.
func (s *Service) Calibrate(ctx context.Context, examID string, model irt.Model) (ItemCalibration, error) {
	if model != irt.Rasch && model != irt.TwoPL {
		return ItemCalibration{}, ErrUnknownModel
	}
	ch := s.calibrations.DoChan(examID+"\x00"+string(model), func() (any, error) {
		return s.calibrate(context.WithoutCancel(ctx), examID, model)
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return ItemCalibration{}, r.Err
		}
		return r.Val.(ItemCalibration), nil
	case <-ctx.Done():
		return ItemCalibration{}, ctx.Err()
	}
}

// calibrate is Calibrate's fit.
func (s *Service) calibrate(ctx context.Context, examID string, model irt.Model) (ItemCalibration, error) {
	e, sc, err := s.scorer(ctx, examID)
	if err != nil {
		return ItemCalibration{}, fmt.Errorf("calibrate: %w", err)
	}
	all := func(string) bool { return true }
	q := AnswerQuery{ExamID: examID}
	students, pending, err := s.countPending(ctx, q, sc, all)
	if err != nil {
		return ItemCalibration{}, fmt.Errorf("calibrate: %w", err)
	}
	res := ItemCalibration{ExamID: e.ID, ExamTitle: e.Title, Model: model, Students: students}
	var index map[string]int
	res.Questions, index, res.Skipped = questionsToAnalyse(e, pending)
	data := irt.NewResponses(len(res.Questions))
	var row []int8
	err = s.walkStudents(ctx, q, all, index, func() {
		row = make([]int8, len(res.Questions))
		for i := range row {
			row[i] = irt.Missing
		}
	}, func(i int, a Answer) {
		row[i] = 0
		if sc.score(a).Points >= res.Questions[i].Question.Points {
			row[i] = 1
		}
	}, func() error { return data.Add(row, 1) })
	if err != nil {
		return ItemCalibration{}, fmt.Errorf("calibrate: %w", err)
	}
	c, err := irt.Calibrate(ctx, data, irt.Options{Model: model})
	var unbounded *irt.UnboundedError
	switch {
	case errors.Is(err, irt.ErrTooFewStudents):
		res.Note, res.NoteCode = "fewer than two students have answered", NoteTooFewStudents
	case errors.Is(err, irt.ErrTooFewItems):
		res.Note, res.NoteCode = "fewer than two questions that some students got right and some wrong", NoteTooFewItems
	case errors.As(err, &unbounded):
		res.NoteCode, res.NoteQuestion = NoteUnbounded, res.Questions[unbounded.Item].Number
		res.Note = fmt.Sprintf("question %d splits the students perfectly by their other answers: its discrimination has no finite estimate under this model; try the Rasch model, or calibrate with more students",
			res.NoteQuestion)
	case err != nil:
		return ItemCalibration{}, fmt.Errorf("calibrate: %w", err)
	default:
		res.Calibration = c
	}
	return res, nil
}
