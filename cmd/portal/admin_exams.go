package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/pkg/client"
)

func newExamCmd(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "exam", Aliases: []string{"exams"}, Short: "Create, edit, list, show and delete exams; read their results; grade their essays"}
	cmd.AddCommand(newExamCreateCmd(o), newExamUpdateCmd(o), newExamListCmd(o), newExamGetCmd(o), newExamDeleteCmd(o), newExamResultsCmd(o), newExamAnalysisCmd(o), newExamCalibrationCmd(o), newExamAnswersCmd(o),
		newExamMediaCmd(o), newExamGradeCmd(o), newExamImportCmd(o), newExamExportCmd(o), newExamTemplateCmd(o))
	return cmd
}

// examCreateOptions are the flags of "admin exam create" and "admin exam
// update".
type examCreateOptions struct {
	*adminOptions
	File string
}

func newExamCreateCmd(o *adminOptions) *cobra.Command {
	opts := &examCreateOptions{adminOptions: o}
	cmd := &cobra.Command{
		Use:   "create --file exam.json",
		Short: "Create an exam from a JSON file (the body of POST /api/v1/admin/exams)",
		Long: `Create an exam from a JSON file shaped as the body of POST /api/v1/admin/exams:

  {"title": "Matematika", "subject": "MTK", "npsn": ["20100001"],
   "starts_at": "2026-12-01T07:00:00Z", "ends_at": "2026-12-01T09:00:00Z",
   "duration_minutes": 90,
   "questions": [{"id": "q1", "type": "single_choice", "text": "2+2?",
                  "options": [{"id": "a", "text": "3"}, {"id": "b", "text": "4"}],
                  "answer": ["b"], "points": 10}]}

--file - reads standard input.`,
		Args: cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			return runExamCreate(ctx, c, opts)
		}),
	}
	cmd.Flags().StringVarP(&opts.File, "file", "f", "", "exam JSON file, - for standard input (required)")
	_ = cmd.MarkFlagRequired("file")
	return cmd
}

func newExamUpdateCmd(o *adminOptions) *cobra.Command {
	opts := &examCreateOptions{adminOptions: o}
	cmd := &cobra.Command{
		Use:   "update EXAM_ID --file exam.json",
		Short: "Replace an exam that has no answers yet (its questions, schedule and schools)",
		Long: `Replace an exam with a JSON file shaped as for "portal admin exam create". Only an exam
with no stored answers can be edited; lab servers pull the new version at their next sync.

--file - reads standard input.`,
		Args: cobra.ExactArgs(1),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			var req client.ExamRequest
			if err := readJSONFile(opts.File, opts.in, &req); err != nil {
				return err
			}
			e, _, err := c.Exam.Admin.UpdateExam(ctx, args[0], &req)
			if err != nil {
				return err
			}
			return opts.printer().Print(e, func(t *table) { examDetail(t, e, false) })
		}),
	}
	cmd.Flags().StringVarP(&opts.File, "file", "f", "", "exam JSON file, - for standard input (required)")
	_ = cmd.MarkFlagRequired("file")
	return cmd
}

// runExamCreate reads the exam file and creates the exam.
func runExamCreate(ctx context.Context, c *client.Client, opts *examCreateOptions) error {
	var req client.ExamRequest
	if err := readJSONFile(opts.File, opts.in, &req); err != nil {
		return err
	}
	e, _, err := c.Exam.Admin.CreateExam(ctx, &req)
	if err != nil {
		return err
	}
	return opts.printer().Print(e, func(t *table) { examDetail(t, e, false) })
}

// readJSONFile decodes the JSON file name (or in, for "-") into v, refusing
// unknown fields and trailing data, with the file name in errors.
func readJSONFile(name string, in io.Reader, v any) error {
	var data []byte
	var err error
	if name == "-" {
		name = "standard input"
		data, err = io.ReadAll(in)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := bytes.Count(data[:se.Offset], []byte("\n")) + 1
			return fmt.Errorf("%s: line %d: %v", name, line, err)
		}
		return fmt.Errorf("%s: %v", name, err)
	}
	if dec.More() {
		return fmt.Errorf("%s: unexpected data after the JSON value", name)
	}
	return nil
}

// examDetail writes one exam as key/value rows, and its questions when
// withQuestions is set.
func examDetail(t *table, e *client.Exam, withQuestions bool) {
	t.Row("id", e.ID)
	t.Row("title", e.Title)
	t.Row("subject", e.Subject)
	t.Row("npsn", e.NPSN)
	t.Row("starts_at", e.StartsAt)
	t.Row("ends_at", e.EndsAt)
	t.Row("duration_minutes", e.DurationMinutes)
	n := e.QuestionCount
	if n == 0 {
		n = len(e.Questions)
	}
	t.Row("questions", n)
	if len(e.Problems) > 0 {
		t.Row("")
		t.Row("PROBLEM", "QUESTION", "FIELD", "SOURCE", "MESSAGE")
		for _, p := range e.Problems {
			t.Row(p.Code, p.QuestionID, p.Field, p.Source, p.Message)
		}
	}
	if !withQuestions || len(e.Questions) == 0 {
		return
	}
	t.Row("")
	t.Row("QUESTION", "TYPE", "POINTS", "ANSWER", "TEXT")
	for _, q := range e.Questions {
		text := q.Text
		if len(text) > 60 {
			text = text[:57] + "..."
		}
		t.Row(q.ID, q.Type, q.Points, q.Answer, text)
	}
}

func newExamListCmd(o *adminOptions) *cobra.Command {
	var npsn string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List exams",
		Args:  cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			list, _, err := c.Exam.Admin.ListExams(ctx, &client.ExamListOptions{NPSN: npsn})
			if err != nil {
				return err
			}
			return o.printer().Print(nonNil(list), func(t *table) {
				t.Row("ID", "TITLE", "SUBJECT", "SCHOOLS", "STARTS", "ENDS", "MINUTES", "QUESTIONS")
				for _, e := range list {
					t.Row(e.ID, e.Title, e.Subject, e.NPSN, e.StartsAt, e.EndsAt, e.DurationMinutes, e.QuestionCount)
				}
			})
		}),
	}
	cmd.Flags().StringVar(&npsn, "npsn", "", "only exams assigned to this school")
	return cmd
}

func newExamGetCmd(o *adminOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "get EXAM_ID",
		Short: "Show an exam with its questions and answer key",
		Args:  exactArgs("EXAM_ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			e, _, err := c.Exam.Admin.GetExam(ctx, args[0])
			if err != nil {
				return err
			}
			return o.printer().Print(e, func(t *table) { examDetail(t, e, true) })
		}),
	}
}

func newExamDeleteCmd(o *adminOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "delete EXAM_ID",
		Short: "Delete an exam that has no answers yet",
		Args:  exactArgs("EXAM_ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			if _, err := c.Exam.Admin.DeleteExam(ctx, args[0]); err != nil {
				return err
			}
			return o.done(map[string]any{"exam_id": args[0], "deleted": true}, "exam %s deleted", args[0])
		}),
	}
}

func newExamResultsCmd(o *adminOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "results EXAM_ID",
		Short: "Show every student's score in an exam",
		Args:  exactArgs("EXAM_ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			res, _, err := c.Exam.Admin.ExamResults(ctx, args[0])
			if err != nil {
				return err
			}
			if res.Results == nil {
				res.Results = []client.MemberResult{}
			}
			return o.printer().Print(res, func(t *table) {
				t.Row("MEMBER ID", "NAMA", "USERNAME", "KELAS", "SCORE", "ANSWERED", "CORRECT", "TO GRADE")
				for _, r := range res.Results {
					t.Row(r.MemberID, r.Nama, r.Username, r.Kelas, fmt.Sprintf("%g/%g", r.Score, res.MaxScore), r.Answered, r.Correct, r.Pending)
				}
			})
		}),
	}
}

func newExamAnswersCmd(o *adminOptions) *cobra.Command {
	var opts client.AnswerListOptions
	cmd := &cobra.Command{
		Use:   "answers EXAM_ID",
		Short: "Show every stored answer of an exam: per student and question, with the push that stored it",
		Long: `Show every stored answer of an exam, one per student and question: the answer,
when it was given, the lab server and push (sync id) that stored it, and
whether it is correct. --output csv streams the whole selection as CSV.`,
		Example: `  portal admin exam answers EXAM_ID --member MEMBER_ID
  portal admin exam answers EXAM_ID --npsn 20100001 --output csv > answers.csv`,
		Args:        exactArgs("EXAM_ID"),
		Annotations: map[string]string{csvOutput: "yes"},
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			if o.Output == outputCSV {
				_, err := c.Exam.Admin.AnswersCSV(ctx, args[0], &opts, o.out)
				return err
			}
			all := []*client.StoredAnswer{}
			for a, err := range c.Exam.Admin.AllAnswers(ctx, args[0], &opts) {
				if err != nil {
					return err
				}
				all = append(all, a)
			}
			return o.printer().Print(all, func(t *table) {
				t.Row("MEMBER ID", "QUESTION", "ANSWER", "CORRECT", "POINTS", "ANSWERED AT", "SERVER", "SYNC ID")
				for _, a := range all {
					var points any = a.Points
					if !a.Graded {
						points = "ungraded"
					}
					t.Row(a.MemberID, a.QuestionID, a.Answer, a.Correct, points, a.AnsweredAt, a.ServerCode, a.SyncID)
				}
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&opts.MemberID, "member", "", "only this student's answers (member id)")
	f.StringVar(&opts.NPSN, "npsn", "", "only the answers of this school's students")
	opts.PerPage = 1000
	return cmd
}
