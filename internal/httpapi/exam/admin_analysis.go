package exam

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/exam/analysissheet"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/itemanalysis"
)

// analysedItemView is one item of the analysis with the question it is.
type analysedItemView struct {
	Number int               `json:"number"`
	Type   exam.QuestionType `json:"type"`
	Text   string            `json:"text"`
	itemanalysis.ItemReport
}

// skippedView is a question the analysis leaves out.
type skippedView struct {
	Number     int    `json:"number"`
	QuestionID string `json:"question_id"`
	Pending    int    `json:"pending"`
}

// examAnalysis handles GET /api/v1/admin/exams/{id}/analysis: the
// classical item analysis of the exam's answers (docs/item-analysis.md),
// of every student, or of one school (npsn) or class (kelas).
//
// format=csv or xlsx answers the table teachers paste into their reports
// (internal/exam/analysissheet), with lang=id (the default) or en headings.
func (a *api) examAnalysis(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	format := analysissheet.Format(q.Get("format"))
	if format != "" && format != "json" && format != analysissheet.CSV && format != analysissheet.XLSX {
		a.writeError(w, r, respond.InvalidQuery("format must be json, csv or xlsx"))
		return
	}
	lang := q.Get("lang")
	if lang != "" && lang != "id" && lang != "en" {
		a.writeError(w, r, respond.InvalidQuery("lang must be id or en"))
		return
	}
	f := exam.AnalysisFilter{NPSN: strings.TrimSpace(q.Get("npsn")), Kelas: strings.TrimSpace(q.Get("kelas")),
		AcademicYear: strings.TrimSpace(q.Get("academic_year")), Region: strings.TrimSpace(q.Get("region"))}
	res, err := a.svc.ItemAnalysis(r.Context(), chi.URLParam(r, "id"), f)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if format == analysissheet.CSV || format == analysissheet.XLSX {
		if lang == "" {
			lang = "id"
		}
		if err := analysissheet.Download(w, res, format, lang); err != nil {
			a.writeError(w, r, err)
		}
		return
	}
	items := make([]analysedItemView, len(res.Report.Items))
	for i, it := range res.Report.Items {
		q := res.Questions[i]
		items[i] = analysedItemView{Number: q.Number, Type: q.Question.Type, Text: q.Question.Text, ItemReport: it}
	}
	skipped := make([]skippedView, len(res.Skipped))
	for i, s := range res.Skipped {
		skipped[i] = skippedView{Number: s.Number, QuestionID: s.QuestionID, Pending: s.Pending}
	}
	rep := res.Report
	respond.Data(w, http.StatusOK, struct {
		ExamID    string                    `json:"exam_id"`
		ExamTitle string                    `json:"exam_title"`
		NPSN      string                    `json:"npsn"`
		Kelas     string                    `json:"kelas"`
		Year      string                    `json:"academic_year"`
		Region    string                    `json:"region"`
		Students  int                       `json:"students"`
		MaxScore  float64                   `json:"max_score"`
		Scores    itemanalysis.Distribution `json:"scores"`
		KR20      *float64                  `json:"kr20"`
		Alpha     *float64                  `json:"alpha"`
		SEM       *float64                  `json:"sem"`
		Items     []analysedItemView        `json:"items"`
		Skipped   []skippedView             `json:"skipped"`
	}{res.ExamID, res.ExamTitle, f.NPSN, f.Kelas, f.AcademicYear, f.Region, rep.Students, rep.MaxScore, rep.Scores, rep.KR20, rep.Alpha, rep.SEM, items, skipped})
}
