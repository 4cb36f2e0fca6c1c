package client

import (
	"context"
	"net/http"
	"net/url"
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
	// NoteCode is the note's case: "too_few_students", "too_few_items" or
	// "unbounded" (a question splits the students perfectly: try the
	// Rasch model); empty with a fit.
	NoteCode string `json:"note_code"`
	// LogLikelihood is the marginal log-likelihood at the estimates.
	LogLikelihood *float64         `json:"log_likelihood"`
	Iterations    int              `json:"iterations"`
	Converged     bool             `json:"converged"`
	Items         []CalibratedItem `json:"items"`
	// Information is the test information curve from -4 to 4 in steps of
	// 0.1.
	Information []InformationPoint `json:"information"`
	Skipped     []SkippedQuestion  `json:"skipped"`
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

// ExamCalibration calibrates an exam's questions with model, ModelRasch
// when empty (GET /api/v1/admin/exams/{id}/calibration). Another model is
// refused with CodeUnknownModel.
func (s *ExamAdminService) ExamCalibration(ctx context.Context, examID, model string) (*ExamCalibration, *Response, error) {
	id, err := segment("exam id", examID)
	if err != nil {
		return nil, nil, err
	}
	q := url.Values{}
	if model != "" {
		q.Set("model", model)
	}
	return examData[*ExamCalibration](ctx, s.client, http.MethodGet, "admin/exams/"+id+"/calibration", q, nil)
}
