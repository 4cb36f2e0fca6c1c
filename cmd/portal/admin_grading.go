package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/pkg/client"
)

// newGraderCmd is "portal admin grader": grader accounts and the exams
// assigned to them.
func newGraderCmd(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "grader", Aliases: []string{"graders"}, Short: "Create and list grader accounts, assign them the exams whose essays they grade"}

	var req client.GraderRequest
	create := &cobra.Command{
		Use:   "create --account-username NAME --account-password PASSWORD",
		Short: "Create a grader account: it may only grade the essays of the exams assigned to it",
		Example: `  portal admin grader create --account-username bu.sari --name "Bu Sari" --account-password "$GRADER_PASSWORD"
  portal admin grader assign GRADER_ID EXAM_ID`,
		Args: cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			g, _, err := c.Exam.Admin.CreateGrader(ctx, req)
			if err != nil {
				return err
			}
			return o.printer().Print(g, func(t *table) { graderRows(t, []*client.Grader{g}) })
		}),
	}
	f := create.Flags()
	f.StringVar(&req.Username, "account-username", "", "the grader's username (required; --username is the operator's)")
	f.StringVar(&req.Name, "name", "", "the grader's name")
	f.StringVar(&req.Password, "account-password", "", "the grader's password, 8 to 72 characters (required; --password is the operator's)")
	_ = create.MarkFlagRequired("account-username")
	_ = create.MarkFlagRequired("account-password")

	list := &cobra.Command{
		Use:   "list",
		Short: "List grader accounts with their exams",
		Args:  cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			gs, _, err := c.Exam.Admin.ListGraders(ctx)
			if err != nil {
				return err
			}
			return o.printer().Print(nonNil(gs), func(t *table) { graderRows(t, gs) })
		}),
	}

	assign := &cobra.Command{
		Use:   "assign GRADER_ID [EXAM_ID...]",
		Short: "Make the listed exams the ones the grader may grade (none: it may grade nothing)",
		Args:  cobra.MinimumNArgs(1),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			g, _, err := c.Exam.Admin.SetGraderExams(ctx, args[0], args[1:])
			if err != nil {
				return err
			}
			return o.printer().Print(g, func(t *table) { graderRows(t, []*client.Grader{g}) })
		}),
	}
	cmd.AddCommand(create, list, assign)
	return cmd
}

// graderRows writes graders as a table.
func graderRows(t *table, gs []*client.Grader) {
	t.Row("ID", "USERNAME", "NAME", "EXAMS")
	for _, g := range gs {
		t.Row(g.ID, g.Username, g.Name, g.ExamIDs)
	}
}

// newExamGradeCmd is "portal admin exam grade": the grading of an exam's
// essays.
func newExamGradeCmd(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "grade",
		Short: "Grade essays: progress, answers to grade, one answer, save a grade",
		Long: `Grade the essays of an exam. Students appear as codes that are stable per exam,
not by name (--names shows them, for operators). A grade is points from 0 to
the question's points in hundredths at most, with an optional comment.

A save names the version of the grade it replaces (--version, 0 for an answer
without a grade, as "list" and "show" print it): when another grader saved
since, the save is refused with their grade and nothing is written.`,
		Example: `  portal admin exam grade progress EXAM_ID
  portal admin exam grade list EXAM_ID q5 --ungraded
  portal admin exam grade save EXAM_ID q5 K7QA-2MXB --points 7.5 --comment "rumus benar" --version 0`,
	}

	progress := &cobra.Command{
		Use:   "progress EXAM_ID",
		Short: "Show the exam's essays with how many answers are graded and to grade",
		Args:  exactArgs("EXAM_ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			p, _, err := c.Exam.Grading.Progress(ctx, args[0])
			if err != nil {
				return err
			}
			return o.printer().Print(p, func(t *table) {
				t.Row("QUESTION", "NUMBER", "POINTS", "ANSWERS", "GRADED", "TO GRADE")
				for _, q := range p.Questions {
					t.Row(q.QuestionID, q.Number, q.Points, q.Answers, q.Graded, q.ToGrade)
				}
				t.Row("all", "", "", p.Answers, p.Graded, p.ToGrade)
			})
		}),
	}

	var listOpts client.EssayListOptions
	list := &cobra.Command{
		Use:   "list EXAM_ID QUESTION_ID",
		Short: "List the answers to one essay with their grades",
		Args:  exactArgs("EXAM_ID", "QUESTION_ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			as, _, err := c.Exam.Grading.ListAnswers(ctx, args[0], args[1], &listOpts)
			if err != nil {
				return err
			}
			return o.printer().Print(nonNil(as), func(t *table) {
				t.Row("CODE", "NAMA", "POINTS", "VERSION", "GRADER", "ANSWER")
				for _, a := range as {
					points, grader := "ungraded", ""
					if a.Grade != nil {
						points, grader = fmt.Sprintf("%g/%g", a.Grade.Points, a.MaxPoints), a.Grade.GraderUsername
					}
					t.Row(a.Code, a.Nama, points, a.Version(), grader, abbreviate(a.Answer, 60))
				}
			})
		}),
	}
	list.Flags().BoolVar(&listOpts.Ungraded, "ungraded", false, "only the answers still to grade")
	list.Flags().BoolVar(&listOpts.Names, "names", false, "show the students' ids and names (operators only)")

	var names bool
	show := &cobra.Command{
		Use:   "show EXAM_ID QUESTION_ID CODE",
		Short: "Show one answer with its grade's history",
		Args:  exactArgs("EXAM_ID", "QUESTION_ID", "CODE"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			a, _, err := c.Exam.Grading.Answer(ctx, args[0], args[1], args[2], names)
			if err != nil {
				return err
			}
			return o.printer().Print(a, func(t *table) {
				t.Row("code", a.Code)
				if a.Nama != "" {
					t.Row("nama", a.Nama)
				}
				t.Row("answer", a.Answer)
				t.Row("version", a.Version())
				t.Row("")
				t.Row("VERSION", "POINTS", "GRADER", "GRADED AT", "COMMENT")
				for _, g := range a.History {
					t.Row(g.Version, g.Points, g.GraderUsername, g.GradedAt, g.Comment)
				}
			})
		}),
	}
	show.Flags().BoolVar(&names, "names", false, "show the student's name (operators only)")

	var save client.GradeRequest
	saveCmd := &cobra.Command{
		Use:   "save EXAM_ID QUESTION_ID CODE --points N --version V",
		Short: "Save a grade of one answer (refused when another grader saved since --version)",
		Args:  exactArgs("EXAM_ID", "QUESTION_ID", "CODE"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			g, _, err := c.Exam.Grading.SaveGrade(ctx, args[0], args[1], args[2], save)
			if err != nil { // a conflict prints the grade that won (humanError)
				return err
			}
			return o.done(g, "graded %s: %g points (version %d)", args[2], g.Points, g.Version)
		}),
	}
	f := saveCmd.Flags()
	f.Float64Var(&save.Points, "points", 0, "the points, from 0 to the question's (required)")
	f.StringVar(&save.Comment, "comment", "", "a comment for the student's record")
	f.IntVar(&save.Version, "version", 0, "the version of the grade you read, 0 when it had none (required)")
	_ = saveCmd.MarkFlagRequired("points")
	_ = saveCmd.MarkFlagRequired("version")

	cmd.AddCommand(progress, list, show, saveCmd)
	return cmd
}

// abbreviate cuts s to at most n characters, marking the cut.
func abbreviate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-3]) + "..."
}
