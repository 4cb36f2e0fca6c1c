package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/itemanalysis"
	"github.com/seedhq/portal/pkg/client"
)

func newExamAnalysisCmd(o *adminOptions) *cobra.Command {
	var (
		opts      client.AnalysisOptions
		out, lang string
	)
	cmd := &cobra.Command{
		Use:   "analysis EXAM_ID",
		Short: "Show the item analysis of an exam: reliability, and each question's facility, discrimination and flags",
		Long: `Show the classical item analysis of an exam's answers (analisis butir soal):
the students' scores, the paper's reliability (KR-20 or Cronbach's alpha) and
standard error of measurement, and for each question its facility P, the
upper-lower 27 % index D, the corrected item-total correlation, their bands
and the flags to look at. --output json adds every choice question's option
table. An essay with answers still to grade is listed as pending. A figure
the data leave undefined is "-" (null in JSON). docs/item-analysis.md gives
every formula and threshold. --out FILE.xlsx or FILE.csv writes instead the
table teachers paste into their reports, one row per question (--lang id,
the default, or en).`,
		Example: `  portal admin exam analysis EXAM_ID
  portal admin exam analysis EXAM_ID --npsn 20100001 --kelas "XII IPA 1"
  portal admin exam analysis EXAM_ID --npsn 20100001 --out analisis.xlsx`,
		Args: exactArgs("EXAM_ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			if out != "" {
				format := strings.TrimPrefix(strings.ToLower(filepath.Ext(out)), ".")
				if format != "csv" && format != "xlsx" {
					return fmt.Errorf("--out %s: the file must end in .xlsx or .csv", out)
				}
				return writeFileAtomically(out, func(f *os.File) error {
					_, err := c.Exam.Admin.ExamAnalysisTable(ctx, args[0], opts, format, lang, f)
					return err
				})
			}
			res, _, err := c.Exam.Admin.ExamAnalysis(ctx, args[0], opts)
			if err != nil {
				return err
			}
			return o.printer().Print(res, func(t *table) {
				t.Row("STUDENTS", "MEAN", "SD", "MEDIAN", "KR-20", "ALPHA", "SEM")
				t.Row(res.Students, figure(res.Scores.Mean), figure(res.Scores.SD), figure(res.Scores.Median),
					figure(res.KR20), figure(res.Alpha), figure(res.SEM))
				t.Row()
				t.Row("NO", "QUESTION", "P", "DIFFICULTY", "D", "DISCRIMINATION", "ITEM-REST", "FLAGS")
				for _, it := range res.Items {
					t.Row(it.Number, it.ID, figure(it.Facility), dash(it.Difficulty), figure(it.UpperLower),
						dash(it.Discrimination), figure(it.ItemRest), dash(strings.Join(it.Flags, ",")))
				}
				for _, s := range res.Skipped {
					t.Row(s.Number, s.QuestionID, "-", "-", "-", "-", "-", skipReason(s))
				}
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&opts.NPSN, "npsn", "", "only this school's students")
	f.StringVar(&opts.Kelas, "kelas", "", "only this class's students (within --npsn when given)")
	f.StringVar(&opts.AcademicYear, "academic-year", "", "only this academic year's students (2025/2026)")
	f.StringVar(&opts.Region, "region", "", "only the students of the schools in this region or any part of it, by their licences (\"Jawa Barat\")")
	f.StringVarP(&out, "out", "o", "", "write the table to this .xlsx or .csv file instead")
	f.StringVar(&lang, "lang", "id", "the table's language: id or en")
	return cmd
}

// skipReason says why an analysis or a calibration left a question out.
func skipReason(s client.SkippedQuestion) string {
	if s.Pending > 0 {
		return fmt.Sprintf("pending: %d answers to grade", s.Pending)
	}
	return "worth no points"
}

// figure prints a statistic (itemanalysis.Figure), "-" when undefined.
func figure(v *float64) string { return itemanalysis.Figure(v, "-") }

// dash prints s, "-" when empty.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
