package exam

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

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
	// StartedAt is when the calibration began reading the answers (it
	// holds those pushed before), FinishedAt when it ended.
	StartedAt, FinishedAt time.Time
}

// ItemParameters are a question's item response theory parameters from
// one calibration (docs/item-analysis.md), kept with the question.
type ItemParameters struct {
	// Model is the model of the calibration: rasch or 2pl.
	Model irt.Model `json:"model"`
	// Difficulty (b) and Discrimination (a) are on the scale of the
	// calibration, with their standard errors (nil when unknown, or for a
	// question that was itself anchored).
	Difficulty       float64  `json:"difficulty"`
	Discrimination   float64  `json:"discrimination"`
	DifficultySE     *float64 `json:"difficulty_se,omitempty"`
	DiscriminationSE *float64 `json:"discrimination_se,omitempty"`
	// Students is the number of students who answered the question in the
	// calibration.
	Students int `json:"students"`
	// ExamID is the exam whose answers calibrated it, CalibratedAt when.
	ExamID       string    `json:"exam_id"`
	CalibratedAt time.Time `json:"calibrated_at"`
}

// String is p in the one-line form the bank formats carry (a Moodle tag per
// field, the spreadsheet's irt column, a QTI outcome's default value):
// "2pl b=-0.7512 a=1.2034 b_se=0.0612 a_se=0.0701 n=812 exam=EXAM_ID
// at=2026-11-29T10:00:00Z", the standard errors only when known. Numbers
// and the time are written in full, so that the form reads back exactly.
func (p ItemParameters) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	parts := []string{string(p.Model), "b=" + f(p.Difficulty), "a=" + f(p.Discrimination)}
	if p.DifficultySE != nil {
		parts = append(parts, "b_se="+f(*p.DifficultySE))
	}
	if p.DiscriminationSE != nil {
		parts = append(parts, "a_se="+f(*p.DiscriminationSE))
	}
	parts = append(parts, "n="+strconv.Itoa(p.Students))
	if p.ExamID != "" {
		parts = append(parts, "exam="+p.ExamID)
	}
	if !p.CalibratedAt.IsZero() {
		parts = append(parts, "at="+p.CalibratedAt.UTC().Format(time.RFC3339Nano))
	}
	return strings.Join(parts, " ")
}

// ParseItemParameters reads the form String writes (fields in any order,
// separated by spaces or semicolons; the model is the one without a key),
// and checks the values.
func ParseItemParameters(s string) (*ItemParameters, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ';' || r == '\t' || r == '\n' })
	if len(fields) == 0 {
		return nil, fmt.Errorf("item parameters: empty")
	}
	p := &ItemParameters{}
	seen := map[string]bool{}
	num := func(k, v string) (float64, error) {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("item parameters: %s=%q is not a number", k, v)
		}
		return f, nil
	}
	for _, field := range fields {
		k, v, ok := strings.Cut(field, "=")
		if !ok {
			// The model, the one field without a key.
			k, v = "model", field
		}
		if seen[k] {
			return nil, fmt.Errorf("item parameters: %q repeats %s", field, k)
		}
		seen[k] = true
		var err error
		switch k {
		case "model":
			p.Model = irt.Model(strings.ToLower(v))
		case "b":
			p.Difficulty, err = num(k, v)
		case "a":
			p.Discrimination, err = num(k, v)
		case "b_se", "a_se":
			var f float64
			if f, err = num(k, v); err == nil && k == "b_se" {
				p.DifficultySE = &f
			} else if err == nil {
				p.DiscriminationSE = &f
			}
		case "n":
			if p.Students, err = strconv.Atoi(v); err != nil {
				err = fmt.Errorf("item parameters: n=%q is not a whole number", v)
			}
		case "exam":
			p.ExamID = v
		case "at":
			if p.CalibratedAt, err = time.Parse(time.RFC3339, v); err != nil {
				err = fmt.Errorf("item parameters: at=%q is not an RFC 3339 time", v)
			}
		default:
			err = fmt.Errorf("item parameters: unknown key %q", k)
		}
		if err != nil {
			return nil, err
		}
	}
	if !seen["b"] || !seen["a"] {
		return nil, fmt.Errorf("item parameters: b and a are required")
	}
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("item parameters: %w", err)
	}
	return p, nil
}

// The bounds of kept item parameters: a difficulty far outside the
// abilities' range, or a discrimination past what a calibration reports,
// is a typing error.
const (
	maxAbsDifficulty  = 50
	maxDiscrimination = 10
)

func (p *ItemParameters) validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	se := func(v *float64) bool { return v == nil || (finite(*v) && *v >= 0) }
	p.ExamID = strings.TrimSpace(p.ExamID)
	p.CalibratedAt = p.CalibratedAt.UTC()
	switch {
	case p.Model != irt.Rasch && p.Model != irt.TwoPL:
		return fmt.Errorf("model must be rasch or 2pl")
	case !finite(p.Difficulty) || math.Abs(p.Difficulty) > maxAbsDifficulty:
		return fmt.Errorf("difficulty must be a number between -%d and %d", maxAbsDifficulty, maxAbsDifficulty)
	case !finite(p.Discrimination) || p.Discrimination <= 0 || p.Discrimination > maxDiscrimination:
		return fmt.Errorf("discrimination must be above 0 and at most %d", maxDiscrimination)
	case !se(p.DifficultySE) || !se(p.DiscriminationSE):
		return fmt.Errorf("a standard error must be a number of at least 0")
	case p.Students < 0:
		return fmt.Errorf("students must be at least 0")
	case len(p.ExamID) > 100 || strings.ContainsAny(p.ExamID, "\r\n"):
		return fmt.Errorf("exam_id must be one line of at most 100 bytes")
	}
	return nil
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
// One calibration of an exam with a model runs at a time, across every
// portal instance sharing the store, and its result is kept as the latest
// (LatestCalibration). A call made while one runs gets that run's result:
// two operators asking at once cost one fit. The fit goes on when its
// caller leaves, for the others and for LatestCalibration; each caller
// stops waiting when its own ctx ends.
func (s *Service) Calibrate(ctx context.Context, examID string, model irt.Model) (ItemCalibration, error) {
	if model != irt.Rasch && model != irt.TwoPL {
		return ItemCalibration{}, ErrUnknownModel
	}
	ch := s.calibrations.DoChan(examID+"\x00"+string(model), func() (any, error) {
		return s.calibrateOnce(context.WithoutCancel(ctx), examID, model)
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

// anchors returns the anchors of a calibration of exam examID with model:
// the parameters kept with the questions by a calibration of another exam
// with the same model, so that this one reports on its scale. Parameters
// from this exam's own earlier calibration are not anchors: calibrating
// again refits them.
func anchors(examID string, model irt.Model, questions []AnalysedQuestion) []*irt.Anchor {
	var out []*irt.Anchor
	for i, q := range questions {
		p := q.Question.Calibrated
		if p == nil || p.Model != model || p.ExamID == examID {
			continue
		}
		if out == nil {
			out = make([]*irt.Anchor, len(questions))
		}
		out[i] = &irt.Anchor{Difficulty: p.Difficulty, Discrimination: p.Discrimination}
	}
	return out
}

// ErrNotCalibrated answers KeepCalibration when the answers give no fit;
// its message says why.
var ErrNotCalibrated = apperr.New(apperr.Conflict, "NOT_CALIBRATED", "the answers cannot be calibrated")

// KeepCalibration calibrates the exam with model, as Calibrate, and keeps
// the parameters with its questions (Question.Calibrated): each question
// the fit estimated gets its own, replacing what it had; anchored
// questions keep their anchors' and questions left out keep what they had.
// It returns the calibration and how many questions got parameters.
func (s *Service) KeepCalibration(ctx context.Context, examID string, model irt.Model) (ItemCalibration, int, error) {
	res, err := s.Calibrate(ctx, examID, model)
	if err != nil {
		return ItemCalibration{}, 0, err
	}
	if res.Calibration == nil {
		return ItemCalibration{}, 0, apperr.Errorf(apperr.Conflict, ErrNotCalibrated.Code, "%s: %s", ErrNotCalibrated.Message, res.Note)
	}
	at := s.now()
	params := map[string]ItemParameters{}
	for i, it := range res.Calibration.Items {
		if !it.Calibrated || it.Anchored {
			continue
		}
		params[res.Questions[i].Question.ID] = ItemParameters{Model: model, Difficulty: it.Difficulty,
			Discrimination: it.Discrimination, DifficultySE: it.DifficultySE, DiscriminationSE: it.DiscriminationSE,
			Students: int(it.Answered), ExamID: res.ExamID, CalibratedAt: at}
	}
	if err := s.store.SetItemParameters(ctx, examID, params); err != nil {
		return ItemCalibration{}, 0, fmt.Errorf("keep calibration: %w", err)
	}
	return res, len(params), nil
}

// calibrate is Calibrate's fit; it reports how far it has got to run.
func (s *Service) calibrate(ctx context.Context, examID string, model irt.Model, run *runProgress) (ItemCalibration, error) {
	e, sc, err := s.scorer(ctx, examID)
	if err != nil {
		return ItemCalibration{}, fmt.Errorf("calibrate: %w", err)
	}
	all := func(string) bool { return true }
	q := AnswerQuery{ExamID: examID}
	pending, err := s.pendingGrades(ctx, q, sc, all)
	if err != nil {
		return ItemCalibration{}, fmt.Errorf("calibrate: %w", err)
	}
	res := ItemCalibration{ExamID: e.ID, ExamTitle: e.Title, Model: model}
	var index map[string]int
	res.Questions, index, res.Skipped = questionsToAnalyse(e, pending)
	data := irt.NewResponses(len(res.Questions))
	var row []int8
	res.Students, err = s.walkStudents(ctx, q, all, index, func() {
		row = make([]int8, len(res.Questions))
		for i := range row {
			row[i] = irt.Missing
		}
	}, func(i int, a Answer) {
		row[i] = 0
		if sc.score(a).Points >= res.Questions[i].Question.Points {
			row[i] = 1
		}
	}, func() error {
		run.student()
		return data.Add(row, 1)
	})
	if err != nil {
		return ItemCalibration{}, fmt.Errorf("calibrate: %w", err)
	}
	c, err := irt.Calibrate(ctx, data, irt.Options{Model: model, Anchors: anchors(e.ID, model, res.Questions), Progress: run.fit})
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
