package exam

import (
	"math"
	"net/http"
	"strings"
	"time"

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
	Anchored         bool              `json:"anchored"`
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

// calibrationView is a calibration as the API answers it.
type calibrationView struct {
	ExamID        string               `json:"exam_id"`
	ExamTitle     string               `json:"exam_title"`
	Model         irt.Model            `json:"model"`
	Students      int                  `json:"students"`
	Note          string               `json:"note"`
	NoteCode      string               `json:"note_code"`
	LogLikelihood *float64             `json:"log_likelihood"`
	Iterations    int                  `json:"iterations"`
	Converged     bool                 `json:"converged"`
	Anchored      int                  `json:"anchored"`
	Mean          *float64             `json:"population_mean"`
	SD            *float64             `json:"population_sd"`
	MeanSE        *float64             `json:"population_mean_se"`
	SDSE          *float64             `json:"population_sd_se"`
	Items         []calibratedItemView `json:"items"`
	Information   []infoPointView      `json:"information"`
	Skipped       []skippedView        `json:"skipped"`
	StartedAt     *time.Time           `json:"started_at"`
	FinishedAt    *time.Time           `json:"finished_at"`
	// Run is the calibration going on (latest=true only).
	Run *calibrationRunView `json:"run,omitempty"`
}

// calibrationRunView is a calibration going on.
type calibrationRunView struct {
	StartedAt time.Time `json:"started_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Stage     string    `json:"stage"`
	Students  int       `json:"students"`
	Iteration int       `json:"iteration"`
}

// newCalibrationView is res as the API answers it.
func newCalibrationView(res exam.ItemCalibration) calibrationView {
	v := calibrationView{ExamID: res.ExamID, ExamTitle: res.ExamTitle, Model: res.Model, Students: res.Students,
		Note: res.Note, NoteCode: res.NoteCode, Items: []calibratedItemView{}, Information: []infoPointView{},
		Skipped: make([]skippedView, len(res.Skipped))}
	if c := res.Calibration; c != nil {
		for i, it := range c.Items {
			q := res.Questions[i]
			iv := calibratedItemView{Number: q.Number, QuestionID: q.Question.ID, Type: q.Question.Type, Text: q.Question.Text,
				Calibrated: it.Calibrated, Anchored: it.Anchored, Reason: it.Reason, Answered: it.Answered,
				DifficultySE: finitePtr(it.DifficultySE), DiscriminationSE: finitePtr(it.DiscriminationSE),
				Infit: finitePtr(it.Infit), Outfit: finitePtr(it.Outfit)}
			if it.Calibrated {
				iv.Difficulty, iv.Discrimination = finite(it.Difficulty), finite(it.Discrimination)
			}
			v.Items = append(v.Items, iv)
		}
		for _, p := range c.Information {
			v.Information = append(v.Information, infoPointView{p.Theta, p.Information, finite(p.SE)})
		}
		v.LogLikelihood, v.Iterations, v.Converged = finite(c.LogLik), c.Iterations, c.Converged
		v.Anchored, v.Mean, v.SD = c.Anchored, finite(c.Mean), finite(c.SD)
		v.MeanSE, v.SDSE = finitePtr(c.MeanSE), finitePtr(c.SDSE)
	}
	for i, s := range res.Skipped {
		v.Skipped[i] = skippedView{Number: s.Number, QuestionID: s.QuestionID, Pending: s.Pending}
	}
	if !res.FinishedAt.IsZero() {
		v.StartedAt, v.FinishedAt = &res.StartedAt, &res.FinishedAt
	}
	return v
}

// noteNoneYet is the note code of latest=true before any calibration of
// the exam with the model has finished.
const noteNoneYet = "none_yet"

// newLatestView is st as the API answers latest=true.
func newLatestView(e exam.Exam, model irt.Model, st exam.CalibrationState) calibrationView {
	var v calibrationView
	if st.Latest != nil {
		v = newCalibrationView(*st.Latest)
	} else {
		v = newCalibrationView(exam.ItemCalibration{ExamID: e.ID, ExamTitle: e.Title, Model: model,
			Note: "no calibration with this model has finished yet", NoteCode: noteNoneYet})
	}
	if r := st.Run; r != nil {
		v.Run = &calibrationRunView{StartedAt: r.StartedAt, UpdatedAt: r.UpdatedAt, Stage: r.Stage, Students: r.Students, Iteration: r.Iteration}
	}
	return v
}

// calibrationModel is the model query parameter, rasch when absent.
func calibrationModel(r *http.Request) irt.Model {
	model := irt.Model(strings.ToLower(strings.TrimSpace(r.URL.Query().Get("model"))))
	if model == "" {
		model = irt.Rasch
	}
	return model
}

// examCalibration handles GET /api/v1/admin/exams/{id}/calibration: the
// item response theory calibration (model rasch, the default, or 2pl) of
// the questions over every student who took the exam
// (docs/item-analysis.md), on the scale of the parameters that other
// exams' calibrations kept with its questions, when it has any (anchors).
// With latest=true it fits nothing: the latest calibration that finished,
// on any portal instance, and the run going on, if any.
func (a *api) examCalibration(w http.ResponseWriter, r *http.Request) {
	id, model := chi.URLParam(r, "id"), calibrationModel(r)
	latest, err := respond.QueryBool(r, "latest")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if latest {
		a.latestCalibration(w, r, id, model)
		return
	}
	res, err := a.svc.Calibrate(r.Context(), id, model)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusOK, newCalibrationView(res))
}

// keepCalibration handles POST /api/v1/admin/exams/{id}/calibration: the
// calibration of GET, whose parameters are then kept with the questions
// that it estimated (exam.Service.KeepCalibration); kept says how many.
func (a *api) keepCalibration(w http.ResponseWriter, r *http.Request) {
	res, kept, err := a.svc.KeepCalibration(r.Context(), chi.URLParam(r, "id"), calibrationModel(r))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusOK, struct {
		calibrationView
		Kept int `json:"kept"`
	}{newCalibrationView(res), kept})
}

// latestCalibration answers GET .../calibration?latest=true.
func (a *api) latestCalibration(w http.ResponseWriter, r *http.Request, id string, model irt.Model) {
	st, err := a.svc.LatestCalibration(r.Context(), id, model)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	e, err := a.svc.GetExam(r.Context(), id)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusOK, newLatestView(e, model, st))
}
