package exam

import (
	"math"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/irt"
)

// calibratedItemView is one question of a calibration.
type calibratedItemView struct {
	Number           int               `json:"number"`
	QuestionID       string            `json:"question_id"`
	Type             exam.QuestionType `json:"type"`
	Text             string            `json:"text"`
	Calibrated       bool              `json:"calibrated"`
	Reason           string            `json:"reason"`
	Answered         float64           `json:"answered"`
	Difficulty       *float64          `json:"difficulty"`
	Discrimination   *float64          `json:"discrimination"`
	DifficultySE     *float64          `json:"difficulty_se"`
	DiscriminationSE *float64          `json:"discrimination_se"`
	Infit            *float64          `json:"infit"`
	Outfit           *float64          `json:"outfit"`
}

// infoPointView is a point of the test information curve.
type infoPointView struct {
	Theta       float64  `json:"theta"`
	Information float64  `json:"information"`
	SE          *float64 `json:"se"`
}

// finite returns v, or nil when it is not a finite number (JSON has none):
// a standard error where the information is 0, a difficulty whose
// discrimination is 0.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// finitePtr is finite of *v, nil for nil.
func finitePtr(v *float64) *float64 {
	if v == nil {
		return nil
	}
	return finite(*v)
}

// examCalibration handles GET /api/v1/admin/exams/{id}/calibration: the
// item response theory calibration (model rasch, the default, or 2pl) of
// the questions over every student who took the exam
// (docs/item-analysis.md).
func (a *api) examCalibration(w http.ResponseWriter, r *http.Request) {
	model := irt.Model(strings.ToLower(strings.TrimSpace(r.URL.Query().Get("model"))))
	if model == "" {
		model = irt.Rasch
	}
	res, err := a.svc.Calibrate(r.Context(), chi.URLParam(r, "id"), model)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	items := []calibratedItemView{}
	var info []infoPointView
	var logLik *float64
	iterations, converged := 0, false
	if c := res.Calibration; c != nil {
		for i, it := range c.Items {
			q := res.Questions[i]
			v := calibratedItemView{Number: q.Number, QuestionID: q.Question.ID, Type: q.Question.Type, Text: q.Question.Text,
				Calibrated: it.Calibrated, Reason: it.Reason, Answered: it.Answered,
				DifficultySE: finitePtr(it.DifficultySE), DiscriminationSE: finitePtr(it.DiscriminationSE),
				Infit: finitePtr(it.Infit), Outfit: finitePtr(it.Outfit)}
			if it.Calibrated {
				v.Difficulty, v.Discrimination = finite(it.Difficulty), finite(it.Discrimination)
			}
			items = append(items, v)
		}
		for _, p := range c.Information {
			info = append(info, infoPointView{p.Theta, p.Information, finite(p.SE)})
		}
		logLik, iterations, converged = finite(c.LogLik), c.Iterations, c.Converged
	}
	if info == nil {
		info = []infoPointView{}
	}
	skipped := make([]skippedView, len(res.Skipped))
	for i, s := range res.Skipped {
		skipped[i] = skippedView{Number: s.Number, QuestionID: s.QuestionID, Pending: s.Pending}
	}
	respond.Data(w, http.StatusOK, struct {
		ExamID        string               `json:"exam_id"`
		ExamTitle     string               `json:"exam_title"`
		Model         irt.Model            `json:"model"`
		Students      int                  `json:"students"`
		Note          string               `json:"note"`
		NoteCode      string               `json:"note_code"`
		LogLikelihood *float64             `json:"log_likelihood"`
		Iterations    int                  `json:"iterations"`
		Converged     bool                 `json:"converged"`
		Items         []calibratedItemView `json:"items"`
		Information   []infoPointView      `json:"information"`
		Skipped       []skippedView        `json:"skipped"`
	}{res.ExamID, res.ExamTitle, res.Model, res.Students, res.Note, res.NoteCode, logLik, iterations, converged, items, info, skipped})
}
