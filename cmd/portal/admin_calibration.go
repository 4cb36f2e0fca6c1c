package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/pkg/client"
)

func newExamCalibrationCmd(o *adminOptions) *cobra.Command {
	var model string
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
docs/item-analysis.md gives the models, the estimator and its checks.`,
		Example: `  portal admin exam calibration EXAM_ID
  portal admin exam calibration EXAM_ID --model 2pl --output json`,
		Args: exactArgs("EXAM_ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			res, _, err := c.Exam.Admin.ExamCalibration(ctx, args[0], model)
			if err != nil {
				return err
			}
			return o.printer().Print(res, func(t *table) {
				t.Row("MODEL", "STUDENTS", "LOG-LIKELIHOOD", "ITERATIONS", "CONVERGED")
				t.Row(res.Model, res.Students, figure(res.LogLikelihood), res.Iterations, res.Converged)
				if res.Note != "" {
					t.Row()
					t.Row("NOTE: " + res.Note)
				}
				t.Row()
				t.Row("NO", "QUESTION", "ANSWERED", "DIFFICULTY", "SE", "DISCRIMINATION", "SE", "INFIT", "OUTFIT", "NOTE")
				for _, it := range res.Items {
					t.Row(it.Number, it.QuestionID, it.Answered, figure(it.Difficulty), figure(it.DifficultySE),
						figure(it.Discrimination), figure(it.DiscriminationSE), figure(it.Infit), figure(it.Outfit), dash(it.Reason))
				}
				for _, s := range res.Skipped {
					t.Row(s.Number, s.QuestionID, "-", "-", "-", "-", "-", "-", "-", skipReason(s))
				}
			})
		}),
	}
	cmd.Flags().StringVar(&model, "model", client.ModelRasch, "the model: rasch or 2pl")
	return cmd
}
