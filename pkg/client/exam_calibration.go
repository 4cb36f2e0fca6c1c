package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// The item response models ExamCalibration fits.
const (
	ModelRasch = "rasch"
	ModelTwoPL = "2pl"
)

// ExamCalibration is the item response theory calibration of an exam's
// questions over every student who took it (docs/item-analysis.md: the
// models, the estimator and how the figures were checked). When the answers
// cannot be calibrated, Note says why and Items and Information are empty.
type ExamCalibration struct {
	ExamID    string `json:"exam_id"`
	ExamTitle string `json:"exam_title"`
	// Model is ModelRasch or ModelTwoPL.
	Model    string `json:"model"`
	Students int    `json:"students"`
	Note     string `json:"note"`
	// NoteCode is the note's case: "too_few_students", "too_few_items",
	// "unbounded" (a question splits the students perfectly: try the
	// Rasch model) or, from LatestExamCalibration before any calibration
	// finished, "none_yet"; empty with a fit.
	NoteCode string `json:"note_code"`
	// StartedAt is when the calibration began reading the answers (it
	// holds those pushed before), FinishedAt when it ended; nil for
	// "none_yet".
	StartedAt  *time.Time `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
	// Run is, from LatestExamCalibration, the calibration going on, on any
	// portal instance; nil when none is.
	Run *CalibrationRun `json:"run,omitempty"`
	// LogLikelihood is the marginal log-likelihood at the estimates.
	LogLikelihood *float64 `json:"log_likelihood"`
	Iterations    int      `json:"iterations"`
	Converged     bool     `json:"converged"`
	// Anchored is the number of questions fixed at the parameters that a
	// calibration of another exam kept with them, so that this one reports
	// on that scale; the population's mean and SD on it are then
	// estimated (0 and 1, with nil standard errors, when nothing is
	// anchored).
	Anchored int              `json:"anchored"`
	Mean     *float64         `json:"population_mean"`
	SD       *float64         `json:"population_sd"`
	MeanSE   *float64         `json:"population_mean_se"`
	SDSE     *float64         `json:"population_sd_se"`
	Items    []CalibratedItem `json:"items"`
	// Information is the test information curve from -4 to 4 in steps of
	// 0.1.
	Information []InformationPoint `json:"information"`
	Skipped     []SkippedQuestion  `json:"skipped"`
}

// The stages of a calibration going on (CalibrationRun.Stage).
const (
	StageReading = "reading"  // reading the answers
	StageFit     = "fit"      // the fit's iterations
	StageErrors  = "errors"   // the standard errors
	StageItemFit = "item-fit" // every question's infit and outfit
)

// CalibrationRun is how far a calibration going on has got.
type CalibrationRun struct {
	StartedAt time.Time `json:"started_at"`
	// UpdatedAt is when the portal instance running it last wrote this,
	// every 2 s.
	UpdatedAt time.Time `json:"updated_at"`
	// Stage is one of the Stage* constants.
	Stage string `json:"stage"`
	// Students is the number of students read so far, Iteration the
	// fit's iterations done.
	Students  int `json:"students"`
	Iteration int `json:"iteration"`
}

// CalibratedItem is one question of a calibration. A question nobody
// answered, everybody got right or everybody got wrong is not calibrated:
// Reason says which and its figures are nil.
type CalibratedItem struct {
	Number     int     `json:"number"`
	QuestionID string  `json:"question_id"`
	Type       string  `json:"type"`
	Text       string  `json:"text"`
	Calibrated bool    `json:"calibrated"`
	Anchored   bool    `json:"anchored"`
	Reason     string  `json:"reason"`
	Answered   float64 `json:"answered"`
	// Difficulty is the ability at which a student has an even chance,
	// Discrimination how sharply that chance rises there.
	Difficulty       *float64 `json:"difficulty"`
	Discrimination   *float64 `json:"discrimination"`
	DifficultySE     *float64 `json:"difficulty_se"`
	DiscriminationSE *float64 `json:"discrimination_se"`
	// Infit and Outfit are the mean squares of the standardized residuals:
	// near 1 when the question fits the model.
	Infit  *float64 `json:"infit"`
	Outfit *float64 `json:"outfit"`
}

// InformationPoint is one point of the test information curve; SE is the
// standard error of an ability measured at Theta, nil where the
// information is 0.
type InformationPoint struct {
	Theta       float64  `json:"theta"`
	Information float64  `json:"information"`
	SE          *float64 `json:"se"`
}

// ItemParameters are a question's item parameters from one calibration,
// kept with the question.
type ItemParameters struct {
	// Model is ModelRasch or ModelTwoPL.
	Model            string   `json:"model"`
	Difficulty       float64  `json:"difficulty"`
	Discrimination   float64  `json:"discrimination"`
	DifficultySE     *float64 `json:"difficulty_se,omitempty"`
	DiscriminationSE *float64 `json:"discrimination_se,omitempty"`
	// Students is the number of students who answered the question in the
	// calibration, ExamID the exam calibrated and CalibratedAt when.
	Students     int       `json:"students"`
	ExamID       string    `json:"exam_id"`
	CalibratedAt time.Time `json:"calibrated_at"`
}

// KeptCalibration is the answer of KeepCalibration: the calibration and
// the number of questions whose parameters were kept.
type KeptCalibration struct {
	ExamCalibration
	Kept int `json:"kept"`
}

// ExamCalibration calibrates an exam's questions with model, ModelRasch
// when empty (GET /api/v1/admin/exams/{id}/calibration). Another model is
// refused with CodeUnknownModel. One calibration of an exam with a model
// runs at a time across the portal's instances: a call made while one
// runs waits for it and gets its result. A national exam's takes a minute
// or two; LatestExamCalibration follows it.
func (s *ExamAdminService) ExamCalibration(ctx context.Context, examID, model string) (*ExamCalibration, *Response, error) {
	id, q, err := calibrationPath(examID, model)
	if err != nil {
		return nil, nil, err
	}
	return examData[*ExamCalibration](ctx, s.client, http.MethodGet, "admin/exams/"+id+"/calibration", q, nil)
}

// LatestExamCalibration returns the exam's latest calibration with model
// that finished, on any portal instance, and the calibration going on, if
// any, without fitting (GET /api/v1/admin/exams/{id}/calibration?latest=true):
// poll it to follow a long calibration. Before any finished, NoteCode is
// "none_yet".
func (s *ExamAdminService) LatestExamCalibration(ctx context.Context, examID, model string) (*ExamCalibration, *Response, error) {
	id, q, err := calibrationPath(examID, model)
	if err != nil {
		return nil, nil, err
	}
	q.Set("latest", "true")
	return examData[*ExamCalibration](ctx, s.client, http.MethodGet, "admin/exams/"+id+"/calibration", q, nil)
}

// KeepCalibration calibrates an exam's questions as ExamCalibration does
// and keeps each estimated question's parameters with it (POST
// /api/v1/admin/exams/{id}/calibration): a later exam that reuses the
// question, through the API or a bank file, is then calibrated on their
// scale. Answers that cannot be calibrated are refused with
// CodeNotCalibrated.
func (s *ExamAdminService) KeepCalibration(ctx context.Context, examID, model string) (*KeptCalibration, *Response, error) {
	id, q, err := calibrationPath(examID, model)
	if err != nil {
		return nil, nil, err
	}
	return examData[*KeptCalibration](ctx, s.client, http.MethodPost, "admin/exams/"+id+"/calibration", q, nil)
}

// calibrationPath returns the exam id as a path segment and the query of
// a calibration with model.
func calibrationPath(examID, model string) (string, url.Values, error) {
	id, err := segment("exam id", examID)
	if err != nil {
		return "", nil, err
	}
	q := url.Values{}
	if model != "" {
		q.Set("model", model)
	}
	return id, q, nil
}
