package sheet

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/xuri/excelize/v2"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
)

// Export writes e's questions and stimuli into the template, so that
// Import reads the same questions back. Media stay the media: references
// the texts hold: importing the sheet on a portal that holds them (this
// one) shows them; the Moodle and QTI exports carry the files themselves.
// A text longer than a cell holds (32,767 characters) is refused.
func Export(ctx context.Context, w io.Writer, e exam.Exam) error {
	f, err := newWorkbook()
	if err != nil {
		return err
	}
	defer f.Close()
	for i, q := range e.Questions {
		if err := ctx.Err(); err != nil {
			return err
		}
		row := questionRow(q)
		if err := setRow(f, QuestionSheet, i+2, row); err != nil {
			return apperr.Errorf(apperr.Unprocessable, "EXPORT_REFUSED", "question %s: %v", q.ID, err)
		}
	}
	for i, st := range e.Stimuli {
		row := []string{st.ID, st.Title, st.Format, st.Text}
		if err := setRow(f, StimulusSheet, i+2, row); err != nil {
			return apperr.Errorf(apperr.Unprocessable, "EXPORT_REFUSED", "stimulus %s: %v", st.ID, err)
		}
	}
	return write(f, w)
}

// setRow writes the cells of one row as text.
func setRow(f *excelize.File, sheet string, n int, cells []string) error {
	for i, v := range cells {
		if v == "" {
			continue
		}
		if n := len(utf16.Encode([]rune(v))); n > excelize.TotalCellChars {
			return fmt.Errorf("a cell holds at most %d characters; this one has %d", excelize.TotalCellChars, n)
		}
		cell, _ := excelize.CoordinatesToCellName(i+1, n)
		if err := f.SetCellStr(sheet, cell, v); err != nil {
			return err
		}
	}
	return nil
}

// questionRow is q's row of the questions sheet, in the columns' order.
func questionRow(q exam.Question) []string {
	cells := make([]string, len(columns))
	set := func(name, v string) { cells[columnIndex(name)] = v }
	set("id", q.ID)
	set("type", string(q.Type))
	set("format", q.Format)
	set("text", q.Text)
	set("options", optionLines(q.Options))
	set("answer", strings.Join(q.Answer, "\n"))
	set("points", strconv.FormatFloat(q.Points, 'f', -1, 64))
	set("stimulus", q.Stimulus)
	set("rubric", q.Rubric)
	set("category", q.Category)
	if q.Calibrated != nil {
		set("irt", q.Calibrated.String())
	}
	if q.PlayLimit > 0 {
		set("play_limit", strconv.Itoa(q.PlayLimit))
	}
	set("scoring", q.Scoring)
	set("statements", optionLines(q.Statements))
	set("columns", optionLines(q.Columns))
	set("premises", optionLines(q.Premises))
	set("responses", optionLines(q.Responses))
	if q.ReuseResponses {
		set("reuse_responses", "true")
	}
	switch q.Type {
	case exam.Numeric:
		if q.Tolerance != 0 || q.ToleranceMode != exam.ToleranceAbsolute {
			set("tolerance", formatTolerance(q.Tolerance, q.ToleranceMode))
		}
	case exam.Cloze:
		set("answer", clozeKey(q))
	}
	return cells
}

func optionLines(opts []exam.Option) string {
	lines := make([]string, len(opts))
	for i, o := range opts {
		lines[i] = o.ID + ": " + o.Text
	}
	return strings.Join(lines, "\n")
}
