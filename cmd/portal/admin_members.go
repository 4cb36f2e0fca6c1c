package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/pkg/client"
)

func newMembersCmd(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "members", Short: "Import members (students, teachers) into the directory"}
	cmd.AddCommand(newMembersImportCmd(o))
	return cmd
}

// membersImportOptions are the arguments of "admin members import".
type membersImportOptions struct {
	*adminOptions
	File string
	NPSN string
}

// errRowsRejected is returned when an import rejected some rows.
var errRowsRejected = errors.New("rows rejected")

func newMembersImportCmd(o *adminOptions) *cobra.Command {
	opts := &membersImportOptions{adminOptions: o}
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Create or update members from a .csv or .json file",
		Long: `Create or update members from FILE:

  .csv   a header row naming the columns (npsn, nama, role, dapodik_id, nisn,
         nip, nik, username, email, kelas, academic_year_name, google_email;
         nama required), then one member per row;
  .json  {"members": [{"nama": ..., ...}]} or a plain array of members.

Members are matched by username (else nisn, nip, nik or email); existing
ones are updated. --npsn is the school of rows that name none. Rejected rows
are listed with their reason and the command exits with status 1.`,
		Example: `  portal admin members import students.csv --npsn 20100001`,
		Args:    exactArgs("FILE"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			opts.File = args[0]
			return runMembersImport(ctx, c, opts)
		}),
	}
	cmd.Flags().StringVar(&opts.NPSN, "npsn", "", "school NPSN of rows without one")
	return cmd
}

// runMembersImport uploads the file and reports each rejected row.
func runMembersImport(ctx context.Context, c *client.Client, opts *membersImportOptions) error {
	io := &client.ImportOptions{NPSN: opts.NPSN}
	var (
		rep *client.ImportReport
		err error
	)
	switch ext := strings.ToLower(filepath.Ext(opts.File)); ext {
	case ".csv":
		f, ferr := os.Open(opts.File)
		if ferr != nil {
			return ferr
		}
		defer f.Close()
		rep, _, err = c.Exam.Admin.ImportMembersCSV(ctx, f, io)
	case ".json":
		members, ferr := readMembersJSON(opts.File)
		if ferr != nil {
			return ferr
		}
		rep, _, err = c.Exam.Admin.ImportMembers(ctx, members, io)
	default:
		return &cmdutil.UsageError{Err: fmt.Errorf("%s: want a .csv or .json file, got %q", opts.File, ext)}
	}
	if err != nil {
		return err
	}
	if rep.Rows == nil {
		rep.Rows = []client.ImportRow{}
	}
	p := opts.printer()
	if err := p.Print(rep, func(t *table) {
		t.Row("created", rep.Created)
		t.Row("updated", rep.Updated)
		t.Row("rejected", rep.Rejected)
		if rep.Rejected == 0 {
			return
		}
		t.Row("")
		t.Row("ROW", "CODE", "MESSAGE")
		for _, r := range rep.Rows {
			if r.Action == "rejected" {
				t.Row(r.Row, r.Code, r.Message)
			}
		}
	}); err != nil {
		return err
	}
	if rep.Rejected > 0 {
		return fmt.Errorf("%w: %d of %d rows were not imported", errRowsRejected, rep.Rejected, rep.Created+rep.Updated+rep.Rejected)
	}
	return nil
}

// readMembersJSON reads {"members": [...]} or a plain array of members.
func readMembersJSON(name string) ([]client.MemberInput, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var members []client.MemberInput
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '[' {
		err = readJSONFile(name, nil, &members)
	} else {
		var body struct {
			Members []client.MemberInput `json:"members"`
		}
		err = readJSONFile(name, nil, &body)
		members = body.Members
	}
	if err != nil {
		return nil, err
	}
	if len(members) == 0 {
		return nil, fmt.Errorf("%s: no members", name)
	}
	return members, nil
}

func newMemberCmd(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "member", Short: "Tasks on one member"}
	cmd.AddCommand(&cobra.Command{
		Use:   "reset-password MEMBER_ID",
		Short: "Give a student a new exam password (shipped in the school's next package)",
		Args:  exactArgs("MEMBER_ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			pw, _, err := c.Exam.Admin.ResetExamPassword(ctx, args[0])
			if err != nil {
				return err
			}
			return o.printer().Print(pw, func(t *table) {
				t.Row("member_id", pw.MemberID)
				t.Row("username", pw.Username)
				t.Row("exam_password", pw.ExamPassword)
			})
		}),
	})
	return cmd
}

// loginCardsOptions are the flags of "admin login-cards".
type loginCardsOptions struct {
	*adminOptions
	NPSN   string
	Format string
	Out    string
}

func newLoginCardsCmd(o *adminOptions) *cobra.Command {
	opts := &loginCardsOptions{adminOptions: o}
	cmd := &cobra.Command{
		Use:   "login-cards --npsn NPSN",
		Short: "Print or save the exam logins (username, exam password) of a school's students",
		Long: `Print or save the exam logins of a school's students: CSV with the columns
npsn,kelas,nama,username,nisn,exam_password, or JSON. They hold passwords:
a file written with -o is readable by its owner only.`,
		Example: `  portal admin login-cards --npsn 20100001 -o cards.csv`,
		Args:    cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			return runLoginCards(ctx, c, opts)
		}),
	}
	cmd.Flags().StringVar(&opts.NPSN, "npsn", "", "school NPSN (required)")
	cmd.Flags().StringVar(&opts.Format, "format", "", "csv or json (default csv, json with --output json)")
	cmd.Flags().StringVarP(&opts.Out, "out", "o", "", "write to this file (mode 0600) instead of standard output")
	_ = cmd.MarkFlagRequired("npsn")
	return cmd
}

// runLoginCards fetches the cards in the chosen format.
func runLoginCards(ctx context.Context, c *client.Client, opts *loginCardsOptions) (err error) {
	switch {
	case opts.Format == "" && opts.Output == outputJSON:
		opts.Format = "json"
	case opts.Format == "":
		opts.Format = "csv"
	case opts.Format != "csv" && opts.Format != "json":
		return &cmdutil.UsageError{Err: fmt.Errorf("--format: %q is not csv or json", opts.Format)}
	case opts.Format == "csv" && opts.Output == outputJSON:
		return &cmdutil.UsageError{Err: errors.New("--format csv contradicts --output json: give one of them")}
	}
	var w io.Writer = opts.out
	var buf bytes.Buffer
	if opts.Out != "" {
		w = &buf // written to the file only when the whole answer arrived
	}
	if opts.Format == "csv" {
		if _, err := c.Exam.Admin.LoginCardsCSV(ctx, opts.NPSN, w); err != nil {
			return err
		}
	} else {
		cards, _, err := c.Exam.Admin.LoginCards(ctx, opts.NPSN)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(nonNil(cards)); err != nil {
			return err
		}
	}
	if opts.Out == "" {
		return nil
	}
	if err := writeSecretFile(opts.Out, buf.String()); err != nil {
		return err
	}
	_, err = fmt.Fprintf(opts.errOut, "login cards written to %s\n", opts.Out)
	return err
}
