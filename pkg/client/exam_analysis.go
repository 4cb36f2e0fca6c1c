package client

import (
	"context"
	"io"
	"net/http"
	"net/url"
)

// AnalysisOptions narrow an item analysis; empty fields match every student.
type AnalysisOptions struct {
	NPSN         string // one school's students
	Kelas        string // one class's students (within NPSN when set)
	AcademicYear string // one academic year's students ("2025/2026")
	// Region is the students of the schools in a region or any part of it,
	// by their licences' region ("Jawa Barat" takes in "Jawa Barat/Kota
	// Bandung"); none is CodeUnknownRegion.
	Region string
}

// query returns o as the analysis's query parameters, added to q.
func (o AnalysisOptions) query(q url.Values) url.Values {
	for k, v := range map[string]string{"npsn": o.NPSN, "kelas": o.Kelas, "academic_year": o.AcademicYear, "region": o.Region} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// ExamAnalysis is the classical item analysis of an exam's answers
// (docs/item-analysis.md gives every formula and threshold). A figure the
// data leave undefined (one student, every total the same) is nil.
type ExamAnalysis struct {
	ExamID       string            `json:"exam_id"`
	ExamTitle    string            `json:"exam_title"`
	NPSN         string            `json:"npsn"`
	Kelas        string            `json:"kelas"`
	AcademicYear string            `json:"academic_year"`
	Region       string            `json:"region"`
	Students     int               `json:"students"`
	MaxScore     float64           `json:"max_score"`
	Scores       ScoreDistribution `json:"scores"`
	// KR20 is given when every item was scored right or wrong; it then
	// equals Alpha.
	KR20  *float64 `json:"kr20"`
	Alpha *float64 `json:"alpha"`
	// SEM is the standard error of measurement, in points.
	SEM   *float64       `json:"sem"`
	Items []AnalysedItem `json:"items"`
	// Skipped are the questions left out: essays with answers still to
	// grade (Pending), questions worth no points (Pending 0).
	Skipped []SkippedQuestion `json:"skipped"`
}

// ScoreDistribution describes the students' total scores; the quartiles
// are R's type 7 (a spreadsheet's PERCENTILE.INC).
type ScoreDistribution struct {
	Mean      *float64       `json:"mean"`
	SD        *float64       `json:"sd"`
	Min       *float64       `json:"min"`
	Q1        *float64       `json:"q1"`
	Median    *float64       `json:"median"`
	Q3        *float64       `json:"q3"`
	Max       *float64       `json:"max"`
	Histogram []HistogramBin `json:"histogram"`
}

// HistogramBin is one bar of the score histogram: the totals from From up
// to, not including, To, or the one whole score From when From equals To.
type HistogramBin struct {
	From     float64 `json:"from"`
	To       float64 `json:"to"`
	Students int     `json:"students"`
}

// AnalysedItem is the analysis of one question.
type AnalysedItem struct {
	Number     int      `json:"number"`
	Type       string   `json:"type"`
	Text       string   `json:"text"`
	ID         string   `json:"id"`
	MaxPoints  float64  `json:"max_points"`
	MeanPoints *float64 `json:"mean_points"`
	// Facility is the proportion correct, or the mean share of the
	// maximum for partial credit; Difficulty its band (very_hard ...
	// very_easy).
	Facility   *float64 `json:"facility"`
	Difficulty string   `json:"difficulty,omitempty"`
	// Upper and Lower are the mean shares of the maximum in the top and
	// bottom 27 %; UpperLower is their difference, the index D, and
	// Discrimination its band (negative, poor, fair, good, excellent).
	Upper          *float64 `json:"upper"`
	Lower          *float64 `json:"lower"`
	UpperLower     *float64 `json:"upper_lower"`
	Discrimination string   `json:"discrimination,omitempty"`
	// ItemRest is the corrected item-total correlation.
	ItemRest *float64         `json:"item_rest"`
	Options  []AnalysisOption `json:"options,omitempty"`
	Omitted  *AnalysisOption  `json:"omitted,omitempty"`
	// Flags: key_doubtful, negative_discrimination, unchosen_distractor,
	// all_correct.
	Flags []string `json:"flags"`
}

// AnalysisOption is one row of a choice question's option table.
type AnalysisOption struct {
	Option string   `json:"option"`
	Key    bool     `json:"key"`
	Share  *float64 `json:"share"`
	Upper  *float64 `json:"upper"`
	Lower  *float64 `json:"lower"`
}

// SkippedQuestion is a question an analysis leaves out.
type SkippedQuestion struct {
	Number     int    `json:"number"`
	QuestionID string `json:"question_id"`
	Pending    int    `json:"pending"`
}

// ExamAnalysis returns the item analysis of an exam's answers (GET
// /api/v1/admin/exams/{id}/analysis).
func (s *ExamAdminService) ExamAnalysis(ctx context.Context, examID string, opts AnalysisOptions) (*ExamAnalysis, *Response, error) {
	id, err := segment("exam id", examID)
	if err != nil {
		return nil, nil, err
	}
	return examData[*ExamAnalysis](ctx, s.client, http.MethodGet, "admin/exams/"+id+"/analysis", opts.query(url.Values{}), nil)
}

// ExamAnalysisTable writes the item analysis as the table teachers paste
// into their reports to w: format "csv" or "xlsx" (a summary sheet and a
// questions sheet), lang "id" (the default) or "en" for its headings (GET
// /api/v1/admin/exams/{id}/analysis?format=).
func (s *ExamAdminService) ExamAnalysisTable(ctx context.Context, examID string, opts AnalysisOptions, format, lang string, w io.Writer) (*Response, error) {
	id, err := segment("exam id", examID)
	if err != nil {
		return nil, err
	}
	q := opts.query(url.Values{"format": {format}})
	if lang != "" {
		q.Set("lang", lang)
	}
	return s.download(ctx, "admin/exams/"+id+"/analysis", q, w)
}
