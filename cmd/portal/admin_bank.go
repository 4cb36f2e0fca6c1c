package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/pkg/client"
)

// examImportOptions are the flags of "admin exam import".
type examImportOptions struct {
	*adminOptions
	Format     string
	Create     bool
	Title      string
	Subject    string
	NPSN       []string
	Starts     string
	Ends       string
	Duration   int
	OnlyPassed bool
	// AllowMissingMedia keeps the items that would lose a figure.
	AllowMissingMedia bool
}

func newExamImportCmd(o *adminOptions) *cobra.Command {
	opts := &examImportOptions{adminOptions: o}
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Import a question bank (Moodle XML, QTI, the spreadsheet template): preview it or create an exam",
		Long: `Import a question bank: Moodle quiz XML (.xml), a QTI content package (.zip), or the
spreadsheet template (.xlsx, or a .zip holding the .xlsx and the media files its rows name;
"portal admin exam template" writes the template). The format is told by the file's bytes
unless --format names it or the extension does (.xml Moodle, .xlsx the spreadsheet; a .zip
is told by its content).

Without --create, prints the report of every item (imported, changed with what was dropped,
refused with why) and creates nothing. With --create, creates the exam of the items that
passed; when some were refused it creates nothing unless --only-passed. An item whose
image or audio cannot be found or stored is refused (MEDIA_NOT_FOUND) unless
--allow-missing-media keeps it, changed, without the figure.

  portal admin exam import bank.xlsx
  portal admin exam import bank.zip --create --title "IPA Kelas 8" --npsn 20100001 \
    --starts 2026-12-01T07:30:00+07:00 --ends 2026-12-01T09:30:00+07:00 --duration 90 --only-passed`,
		Args: cobra.ExactArgs(1),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			return runExamImport(ctx, c, opts, args[0])
		}),
	}
	f := cmd.Flags()
	f.StringVar(&opts.Format, "format", "", "moodle, qti or xlsx (default: .xml moodle, .xlsx xlsx, else told by the file's bytes)")
	f.BoolVar(&opts.Create, "create", false, "create the exam (default: preview only)")
	f.StringVar(&opts.Title, "title", "", "the exam's title (default: the bank's own)")
	f.StringVar(&opts.Subject, "subject", "", "the exam's subject")
	f.StringSliceVar(&opts.NPSN, "npsn", nil, "the schools the exam is assigned to (repeat or comma-separate)")
	f.StringVar(&opts.Starts, "starts", "", "start of the exam window, RFC 3339 (2026-12-01T07:30:00+07:00)")
	f.StringVar(&opts.Ends, "ends", "", "end of the exam window, RFC 3339")
	f.IntVar(&opts.Duration, "duration", 0, "minutes each student has")
	f.BoolVar(&opts.OnlyPassed, "only-passed", false, "create the exam from the items that passed even when some were refused")
	f.BoolVar(&opts.AllowMissingMedia, "allow-missing-media", false, "keep an item whose image or audio cannot be found or stored (changed, the figure dropped) instead of refusing it")
	return cmd
}

func runExamImport(ctx context.Context, c *client.Client, opts *examImportOptions, name string) error {
	imp := client.ExamImportOptions{Format: opts.Format, Create: opts.Create, OnlyPassed: opts.OnlyPassed, Title: opts.Title,
		Subject: opts.Subject, NPSN: opts.NPSN, DurationMinutes: opts.Duration, AllowMissingMedia: opts.AllowMissingMedia}
	if opts.Create {
		var err error
		if imp.StartsAt, err = time.Parse(time.RFC3339, opts.Starts); err != nil {
			return &cmdutil.UsageError{Err: errors.New("--starts must be a time such as 2026-12-01T07:30:00+07:00")}
		}
		if imp.EndsAt, err = time.Parse(time.RFC3339, opts.Ends); err != nil {
			return &cmdutil.UsageError{Err: errors.New("--ends must be a time such as 2026-12-01T09:30:00+07:00")}
		}
	}
	if imp.Format == "" {
		imp.Format = formatByExt(name)
	}
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	rep, _, err := c.Exam.Admin.ImportExam(ctx, f, imp)
	var refused *client.BankRefusedError
	if errors.As(err, &refused) {
		if refused.Report != nil {
			if perr := opts.printer().Print(refused.Report, func(t *table) { bankTable(t, refused.Report) }); perr != nil {
				return perr
			}
		}
		return err // its message says to send only the items that passed
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return opts.printer().Print(rep, func(t *table) { bankTable(t, rep) })
}

// formatByExt is the format a file's extension names: .xml Moodle, .xlsx
// the spreadsheet; "" (the portal tells by the bytes) for a .zip, which is
// a QTI package or a spreadsheet with its media.
func formatByExt(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".xml":
		return client.BankMoodle
	case ".xlsx":
		return client.BankSheet
	}
	return ""
}

// bankTable prints an import's report: one row an item.
func bankTable(t *table, rep *client.BankReport) {
	if rep.Exam != nil {
		t.Row("EXAM", rep.Exam.ID, rep.Exam.Title, fmt.Sprintf("%d questions", len(rep.Exam.Questions)))
		t.Row("")
	}
	t.Row("POSITION", "TITLE", "STATUS", "QUESTION", "WHY")
	for _, it := range rep.Items {
		why := strings.Join(it.Changes, "; ")
		if it.Status == client.BankItemRefused {
			why = it.Code + ": " + it.Message
		}
		t.Row(it.Position, oneLine(it.Title), it.Status, it.QuestionID, oneLine(why))
	}
	t.Row("")
	t.Row(fmt.Sprintf("%s: %d imported, %d changed, %d refused", rep.Format, rep.Imported, rep.Changed, rep.Refused))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// examFileOptions are the flags of "admin exam export" and "admin exam
// template".
type examFileOptions struct {
	*adminOptions
	Format string
	Out    string
}

func newExamExportCmd(o *adminOptions) *cobra.Command {
	opts := &examFileOptions{adminOptions: o}
	cmd := &cobra.Command{
		Use:   "export EXAM_ID --format moodle|qti|xlsx --out FILE",
		Short: "Write an exam as a question bank file (answer keys included)",
		Long: `Write an exam as a question bank file: Moodle XML and QTI carry the media inside; the
spreadsheet (xlsx) keeps media as their media:SHA256 references, which this portal resolves
when the sheet is imported again.`,
		Args: cobra.ExactArgs(1),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			return writeFileAtomically(opts.Out, func(f *os.File) error {
				_, err := c.Exam.Admin.ExportExam(ctx, args[0], opts.Format, f)
				return err
			})
		}),
	}
	cmd.Flags().StringVar(&opts.Format, "format", "", "moodle, qti or xlsx (required)")
	cmd.Flags().StringVarP(&opts.Out, "out", "o", "", "the file to write (required)")
	_ = cmd.MarkFlagRequired("format")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func newExamTemplateCmd(o *adminOptions) *cobra.Command {
	opts := &examFileOptions{adminOptions: o}
	cmd := &cobra.Command{
		Use:   "template --out FILE",
		Short: "Write the spreadsheet template of a question bank (.xlsx)",
		Args:  cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			return writeFileAtomically(opts.Out, func(f *os.File) error {
				_, err := c.Exam.Admin.ImportTemplate(ctx, f)
				return err
			})
		}),
	}
	cmd.Flags().StringVarP(&opts.Out, "out", "o", "", "the file to write (required)")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

// writeFileAtomically writes name through a temporary file beside it,
// renamed into place once write succeeded: a failed download leaves no
// half file.
func writeFileAtomically(name string, write func(*os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}
