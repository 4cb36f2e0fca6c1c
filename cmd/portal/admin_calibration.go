package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/pkg/client"
)

func newExamCalibrationCmd(o *adminOptions) *cobra.Command {
	var model string
	var keep bool
	cmd := &cobra.Command{
		Use:   "calibration EXAM_ID",
		Short: "Calibrate an exam's questions with item response theory (Rasch or 2PL) over every student who took it",
		Long: `Fit the Rasch model (--model rasch, the default) or the two-parameter
logistic model (--model 2pl) to the answers of every student who took the
exam, by marginal maximum likelihood, and show each question's difficulty
and discrimination with their standard errors, and its infit and outfit
mean squares (near 1 when the question fits). A question counts as right
when the student earned its full points; a blank or unreached one is
missing, not wrong. An essay with answers still to grade is listed as
pending. --output json adds the test information curve.

Questions whose parameters a calibration of another exam kept (--keep, or
a bank file that carried them) are anchors: fixed at those parameters,
so that this calibration is on their scale, with the students' mean and
SD on it. --keep keeps the parameters of the questions this calibration
estimates with them, for the exams that reuse them later.
docs/item-analysis.md gives the models, the estimator and its checks.`,
		Example: `  portal admin exam calibration EXAM_ID
  portal admin exam calibration EXAM_ID --model 2pl --output json
  portal admin exam calibration EXAM_ID --model 2pl --keep`,
		Args: exactArgs("EXAM_ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			var res *client.ExamCalibration
			var out any
			kept := -1
			if keep {
				k, _, err := c.Exam.Admin.KeepCalibration(ctx, args[0], model)
				if err != nil {
					return err
				}
				res, out, kept = &k.ExamCalibration, k, k.Kept
			} else {
				r, _, err := c.Exam.Admin.ExamCalibration(ctx, args[0], model)
				if err != nil {
					return err
				}
				res, out = r, r
			}
			return o.printer().Print(out, func(t *table) {
				t.Row("MODEL", "STUDENTS", "LOG-LIKELIHOOD", "ITERATIONS", "CONVERGED", "ANCHORED", "MEAN", "SD")
				t.Row(res.Model, res.Students, figure(res.LogLikelihood), res.Iterations, res.Converged, res.Anchored,
					figure(res.Mean), figure(res.SD))
				if res.Note != "" {
					t.Row()
					t.Row("NOTE: " + res.Note)
				}
				if kept >= 0 {
					t.Row()
					t.Row(fmt.Sprintf("KEPT: the parameters of %d questions, with the questions", kept))
				}
				t.Row()
				t.Row("NO", "QUESTION", "ANSWERED", "DIFFICULTY", "SE", "DISCRIMINATION", "SE", "INFIT", "OUTFIT", "NOTE")
				for _, it := range res.Items {
					note := dash(it.Reason)
					if it.Anchored {
						note = "anchored"
					}
					t.Row(it.Number, it.QuestionID, it.Answered, figure(it.Difficulty), figure(it.DifficultySE),
						figure(it.Discrimination), figure(it.DiscriminationSE), figure(it.Infit), figure(it.Outfit), note)
				}
				for _, s := range res.Skipped {
					t.Row(s.Number, s.QuestionID, "-", "-", "-", "-", "-", "-", "-", skipReason(s))
				}
			})
		}),
	}
	cmd.Flags().StringVar(&model, "model", client.ModelRasch, "the model: rasch or 2pl")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the parameters of the questions it estimates with them (anchors for later exams)")
	return cmd
}
