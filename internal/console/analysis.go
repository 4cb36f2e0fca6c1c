package console

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/exam/analysissheet"
	"github.com/seedhq/portal/internal/irt"
	"github.com/seedhq/portal/internal/itemanalysis"
)

// analysisView is the analysis page's data: the classical analysis of the
// exam (of every student, or of a school or class), and the IRT
// calibration when one was asked for. Charts are drawn here as SVG
// geometry; the template writes it, escaping every text.
type analysisView struct {
	Exam      exam.Exam
	Filter    exam.AnalysisFilter
	Analysis  exam.ItemAnalysis
	Rows      []analysisRow
	Histogram []histBar
	// HistMax is the tallest bar's count, the chart's scale.
	HistMax int
	// Model is the calibration asked for ("" for none).
	Model       string
	Calibration *calibrationView
}

// analysisRow is one question of the item table with its distractor bars.
type analysisRow struct {
	Number int
	Text   string
	Type   exam.QuestionType
	itemanalysis.ItemReport
	Bars []optionBar
}

// optionBar is one bar of a question's distractor chart: the share of the
// students who chose the option, overall, in the upper and lower groups.
type optionBar struct {
	Label          string
	Key            bool
	Y              int
	Share          float64 // 0 to 1
	Width          float64 // of 200
	Upper, Lower   string  // "72 %" or "–"
	UpperW, LowerW float64
}

// histBar is one bar of the score histogram, in a 600×200 chart.
type histBar struct {
	From, To   string
	Students   int
	X, Y, W, H float64
}

// calibrationView is the calibration section: its table and the test
// information curve as an SVG polyline in a 600×200 chart.
type calibrationView struct {
	Result exam.ItemCalibration
	Rows   []calibrationRow
	// Curve is the polyline's points; Peak the information's largest value.
	Curve string
	Peak  string
	// Kept is the number of questions whose parameters were just kept
	// with them (0 for none).
	Kept int
	// Run is the calibration going on (nil when none is): the page then
	// shows its progress instead of a result and refreshes itself.
	Run *exam.CalibrationRun
}

// calibrationWait is how long a console request waits for a calibration
// it starts before showing its progress instead; the fit goes on.
const calibrationWait = 3 * time.Second

// calibrationRow is one question of the calibration table.
type calibrationRow struct {
	Number int
	ID     string
	Text   string
	irt.Item
}

// flagOrder ranks the flags, the one to act on first.
var flagOrder = map[itemanalysis.Flag]int{
	itemanalysis.KeyDoubtful: 0, itemanalysis.NegativeDiscrimination: 1,
	itemanalysis.UnchosenDistractor: 2, itemanalysis.AllCorrect: 3,
}

// analysis serves GET /console/exams/{id}/analysis[?npsn=&kelas=&model=]:
// the item analysis, its table sorted with the flagged questions first,
// and the calibration when model is rasch or 2pl.
func (c *console) analysis(w http.ResponseWriter, r *http.Request) {
	v := c.examView(r)
	id := chi.URLParam(r, "id")
	q := r.URL.Query()
	av := analysisView{Filter: analysisFilter(r), Model: strings.TrimSpace(q.Get("model"))}
	var err error
	if av.Exam, err = c.exam.GetExam(r.Context(), id); err == nil {
		av.Analysis, err = c.exam.ItemAnalysis(r.Context(), id, av.Filter)
	}
	if err == nil && av.Model != "" {
		if av.Calibration, err = c.calibration(r, id, irt.Model(av.Model), q.Get("running") == ""); err == nil {
			av.Calibration.Kept, _ = strconv.Atoi(q.Get("kept"))
			if av.Calibration.Run != nil {
				w.Header().Set("Refresh", "3; url="+calibrationURL(id, av.Model, true))
			}
		}
	}
	if err != nil {
		v.Data = av
		c.render(w, r, "analysis", c.showError(&v, err), v)
		return
	}
	for i, it := range av.Analysis.Report.Items {
		qn := av.Analysis.Questions[i]
		av.Rows = append(av.Rows, analysisRow{Number: qn.Number, Text: qn.Question.Text, Type: qn.Question.Type,
			ItemReport: it, Bars: optionBars(it)})
	}
	slices.SortStableFunc(av.Rows, func(a, b analysisRow) int {
		return cmp.Or(cmp.Compare(flagRank(a.Flags), flagRank(b.Flags)), cmp.Compare(a.Number, b.Number))
	})
	av.Histogram, av.HistMax = histogram(av.Analysis.Report.Scores.Histogram)
	v.Data = av
	c.render(w, r, "analysis", http.StatusOK, v)
}

// calibration returns the calibration section of the analysis page: the
// calibration going on, or else the latest that finished, or else (when
// start is true) a new one, waited for calibrationWait and then shown as
// going on.
func (c *console) calibration(r *http.Request, id string, model irt.Model, start bool) (*calibrationView, error) {
	st, err := c.exam.LatestCalibration(r.Context(), id, model)
	switch {
	case err != nil:
		return nil, err
	case st.Run != nil:
		return &calibrationView{Result: exam.ItemCalibration{Model: model}, Run: st.Run}, nil
	case st.Latest != nil:
		return newCalibrationView(*st.Latest), nil
	case !start:
		return nil, nil
	}
	return c.startCalibration(r, id, model)
}

// startCalibration calibrates the exam, waiting calibrationWait for the
// result; past that the fit goes on and the view shows its progress.
func (c *console) startCalibration(r *http.Request, id string, model irt.Model) (*calibrationView, error) {
	ctx, cancel := context.WithTimeout(r.Context(), calibrationWait)
	defer cancel()
	res, err := c.exam.Calibrate(ctx, id, model)
	if errors.Is(err, context.DeadlineExceeded) && r.Context().Err() == nil {
		st, err := c.exam.LatestCalibration(r.Context(), id, model)
		if err != nil {
			return nil, err
		}
		run := st.Run
		if run == nil { // the run has not written its progress yet
			run = &exam.CalibrationRun{Stage: exam.StageReading}
		}
		return &calibrationView{Result: exam.ItemCalibration{Model: model}, Run: run}, nil
	}
	if err != nil {
		return nil, err
	}
	return newCalibrationView(res), nil
}

// calibrationURL is the analysis page showing the calibration with model;
// running, that page only shows a calibration, it starts none.
func calibrationURL(id, model string, running bool) string {
	u := fmt.Sprintf("/console/exams/%s/analysis?model=%s", url.PathEscape(id), url.QueryEscape(model))
	if running {
		u += "&running=1"
	}
	return u + "#calibration"
}

// recalibrate serves POST /console/exams/{id}/calibration/run (model): a
// new calibration, waited for calibrationWait, then the analysis page
// with it or its progress.
func (c *console) recalibrate(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	model := strings.TrimSpace(r.PostFormValue("model"))
	if _, err := c.startCalibration(r, id, irt.Model(model)); err != nil {
		v := c.examView(r)
		v.Data = analysisView{Model: model}
		c.render(w, r, "analysis", c.showError(&v, err), v)
		return
	}
	c.log.Info("console: calibration run", "exam", id, "model", model, "by", operatorFrom(r).Username)
	http.Redirect(w, r, calibrationURL(id, model, true), http.StatusSeeOther)
}

// keepCalibration serves POST /console/exams/{id}/calibration (model):
// the calibration's parameters kept with the questions
// (exam.Service.KeepCalibration), then the analysis page with that
// calibration and how many questions kept parameters.
func (c *console) keepCalibration(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	model := strings.TrimSpace(r.PostFormValue("model"))
	_, kept, err := c.exam.KeepCalibration(r.Context(), id, irt.Model(model))
	if err != nil {
		v := c.examView(r)
		v.Data = analysisView{Model: model}
		c.render(w, r, "analysis", c.showError(&v, err), v)
		return
	}
	c.log.Info("console: calibration kept", "exam", id, "model", model, "questions", kept, "by", operatorFrom(r).Username)
	http.Redirect(w, r, fmt.Sprintf("/console/exams/%s/analysis?model=%s&kept=%d#calibration", url.PathEscape(id), url.QueryEscape(model), kept), http.StatusSeeOther)
}

// analysisFile serves GET /console/exams/{id}/analysis.csv|xlsx[?npsn=&kelas=&lang=]:
// the analysis as the table teachers paste into their reports.
func (c *console) analysisFile(w http.ResponseWriter, r *http.Request) {
	format := analysissheet.Format(chi.URLParam(r, "format"))
	res, err := c.exam.ItemAnalysis(r.Context(), chi.URLParam(r, "id"), analysisFilter(r))
	if err == nil {
		err = analysissheet.Download(w, res, format, language(r))
	}
	if err != nil {
		v := c.examView(r)
		c.render(w, r, "analysis", c.showError(&v, err), v)
	}
}

// analysisFilter reads the page's filter: npsn, kelas, academic_year and
// region.
func analysisFilter(r *http.Request) exam.AnalysisFilter {
	q := r.URL.Query()
	return exam.AnalysisFilter{NPSN: strings.TrimSpace(q.Get("npsn")), Kelas: strings.TrimSpace(q.Get("kelas")),
		AcademicYear: strings.TrimSpace(q.Get("academic_year")), Region: strings.TrimSpace(q.Get("region"))}
}

// flagRank is the rank of a question's most urgent flag; unflagged last.
func flagRank(flags []itemanalysis.Flag) int {
	r := len(flagOrder)
	for _, f := range flags {
		r = min(r, flagOrder[f])
	}
	return r
}

// optionBars lays out a choice question's distractor chart: a row of 24
// pixels per option, then one for the omitted.
func optionBars(it itemanalysis.ItemReport) []optionBar {
	opts := it.Options
	if len(opts) == 0 {
		return nil
	}
	if it.Omitted != nil {
		opts = append(slices.Clone(opts), *it.Omitted)
	}
	bars := make([]optionBar, len(opts))
	for i, o := range opts {
		b := optionBar{Label: o.Option, Key: o.Key, Y: 24 * i, Upper: share(o.Upper), Lower: share(o.Lower)}
		if o.Share != nil {
			b.Share, b.Width = *o.Share, 160**o.Share
		}
		if o.Upper != nil {
			b.UpperW = 160 * *o.Upper
		}
		if o.Lower != nil {
			b.LowerW = 160 * *o.Lower
		}
		bars[i] = b
	}
	return bars
}

// figure prints a statistic (itemanalysis.Figure), "–" when undefined.
func figure(v *float64) string { return itemanalysis.Figure(v, "–") }

// number prints v as figure does.
func number(v float64) string { return figure(&v) }

// share prints a proportion as a whole percentage, "–" when undefined.
func share(v *float64) string {
	if v == nil {
		return "–"
	}
	return strconv.FormatFloat(100**v, 'f', 0, 64) + " %"
}

// histogram lays the score histogram's bins out in a 600×200 chart, bars
// from the bottom, and returns them with the tallest count.
func histogram(bins []itemanalysis.Bin) ([]histBar, int) {
	top := 0
	for _, b := range bins {
		top = max(top, b.Students)
	}
	if len(bins) == 0 || top == 0 {
		return nil, 0
	}
	w := 600 / float64(len(bins))
	bars := make([]histBar, len(bins))
	for i, b := range bins {
		h := 180 * float64(b.Students) / float64(top)
		bars[i] = histBar{From: exam.FormatPoints(b.From), To: exam.FormatPoints(b.To), Students: b.Students,
			X: float64(i)*w + 1, W: w - 2, Y: 200 - h, H: h}
	}
	return bars, top
}

// newCalibrationView lays out a calibration: its table in the exam's order
// and the information curve from θ = -4 to 4 across 600 pixels.
func newCalibrationView(res exam.ItemCalibration) *calibrationView {
	cv := &calibrationView{Result: res}
	c := res.Calibration
	if c == nil {
		return cv
	}
	for i, it := range c.Items {
		qn := res.Questions[i]
		cv.Rows = append(cv.Rows, calibrationRow{Number: qn.Number, ID: qn.Question.ID, Text: qn.Question.Text, Item: it})
	}
	peak := 0.0
	for _, p := range c.Information {
		peak = max(peak, p.Information)
	}
	if peak == 0 {
		return cv
	}
	pts := make([]string, len(c.Information))
	for i, p := range c.Information {
		pts[i] = fmt.Sprintf("%.1f,%.1f", (p.Theta+4)*75, 200-190*p.Information/peak)
	}
	cv.Curve, cv.Peak = strings.Join(pts, " "), strconv.FormatFloat(peak, 'f', 2, 64)
	return cv
}
