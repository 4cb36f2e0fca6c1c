package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cliout"
	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/pkg/client"
)

func newExamCalibrationCmd(o *adminOptions) *cobra.Command {
	var model string
	var keep, latest bool
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
docs/item-analysis.md gives the models, the estimator and its checks.

One calibration of an exam with a model runs at a time across the
portal's instances; a national exam's takes a minute or two, and on a
terminal its progress is shown on stderr. --latest fits nothing: it shows
the latest calibration that finished, and the one going on, if any.`,
		Example: `  portal admin exam calibration EXAM_ID
  portal admin exam calibration EXAM_ID --model 2pl --output json
  portal admin exam calibration EXAM_ID --model 2pl --keep
  portal admin exam calibration EXAM_ID --model 2pl --latest`,
		Args: exactArgs("EXAM_ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			if keep && latest {
				return &cmdutil.UsageError{Err: errors.New("--keep and --latest cannot be used together")}
			}
			var res *client.ExamCalibration
			var out any
			kept := -1
			if cliout.IsTerminal(o.errOut) && !latest {
				stop := showCalibrationProgress(ctx, o.errOut, c, args[0], model)
				defer stop()
			}
			switch {
			case latest:
				r, _, err := c.Exam.Admin.LatestExamCalibration(ctx, args[0], model)
				if err != nil {
					return err
				}
				res, out = r, r
			case keep:
				k, _, err := c.Exam.Admin.KeepCalibration(ctx, args[0], model)
				if err != nil {
					return err
				}
				res, out, kept = &k.ExamCalibration, k, k.Kept
			default:
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
				if res.FinishedAt != nil {
					t.Row()
					t.Row("CALIBRATED: " + calibratedAt(*res.StartedAt, *res.FinishedAt))
				}
				if res.Note != "" {
					t.Row()
					t.Row("NOTE: " + res.Note)
				}
				if res.Run != nil {
					t.Row()
					t.Row("RUNNING: " + runProgress(*res.Run))
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
	cmd.Flags().BoolVar(&latest, "latest", false, "show the latest calibration and the one going on, without fitting")
	return cmd
}

// calibratedAt says when a calibration read the answers and how long it
// took.
func calibratedAt(started, finished time.Time) string {
	return fmt.Sprintf("%s, from the answers pushed before it (took %s)",
		finished.UTC().Format(time.RFC3339), finished.Sub(started).Round(100*time.Millisecond))
}

// runProgress says how far a calibration going on has got.
func runProgress(r client.CalibrationRun) string {
	switch r.Stage {
	case client.StageReading:
		return fmt.Sprintf("reading the answers: %d students so far", r.Students)
	case client.StageFit:
		return fmt.Sprintf("fitting %d students: iteration %d", r.Students, r.Iteration)
	case client.StageErrors:
		return fmt.Sprintf("standard errors, after %d iterations", r.Iteration)
	case client.StageItemFit:
		return "infit and outfit of every question"
	}
	return r.Stage
}

// showCalibrationProgress prints, every 2 s until stop, how far the
// calibration going on has got, on one line of w (a terminal).
func showCalibrationProgress(ctx context.Context, w io.Writer, c *client.Client, examID, model string) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		shown := false
		for {
			select {
			case <-ctx.Done():
				if shown {
					fmt.Fprint(w, "\r\033[K")
				}
				return
			case <-t.C:
				if r, _, err := c.Exam.Admin.LatestExamCalibration(ctx, examID, model); err == nil && r.Run != nil {
					fmt.Fprintf(w, "\r\033[Kcalibrating: %s", runProgress(*r.Run))
					shown = true
				}
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
