package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/pkg/client"
)

// errBatchesRejected is returned when an answer import rejected some batches.
var errBatchesRejected = errors.New("batches rejected")

func newImportAnswersCmd(o *adminOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "import-answers FILE",
		Short: "Import an answer export file written by labagent export (USB stick)",
		Long: `Import the answers of a lab server that stayed offline, from the file that
"labagent export" wrote (FILE, or - for standard input).

The portal checks the file's checksum (a damaged copy is refused with
CHECKSUM_MISMATCH: copy it again), that its server is bound to its school,
and that it decrypts under the school's package key (EXPORT_CORRUPT when it
was altered); a refused file stores nothing. Then each batch is stored as the
lab's push of it would be, with the same idempotency key: a batch the portal
already has (pushed, or imported before) is a duplicate and stores nothing,
so importing a file twice, or the lab pushing the same batches when it is
back online, is safe.

One line per batch is printed. Rejected batches (e.g. UNKNOWN_EXAM) do not
stop the others; the command then exits with status 1.`,
		Example: `  portal admin import-answers /media/usb/answers-LAB-01.enc`,
		Args:    exactArgs("FILE"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			return runImportAnswers(ctx, c, o, args[0])
		}),
	}
}

// runImportAnswers uploads the file and prints the outcome of each batch.
func runImportAnswers(ctx context.Context, c *client.Client, o *adminOptions, name string) error {
	var r io.Reader = o.in
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	res, _, err := c.Exam.Admin.ImportAnswers(ctx, r)
	if err != nil {
		return err
	}
	if res.Batches == nil {
		res.Batches = []client.BatchImportResult{}
	}
	if err := o.printer().Print(res, func(t *table) {
		t.Row("server", res.ServerCode+" (npsn "+res.NPSN+")")
		t.Row("exported at", res.ExportedAt)
		t.Row("checksum", res.ChecksumSHA256)
		t.Row("records", res.Records)
		t.Row("batches", fmt.Sprintf("%d accepted, %d duplicate, %d rejected", res.Accepted, res.Duplicates, res.Rejected))
		t.Row("")
		t.Row("IDEMPOTENCY KEY", "RECORDS", "OUTCOME", "SYNC ID", "CODE", "MESSAGE")
		for _, b := range res.Batches {
			t.Row(b.IdempotencyKey, b.Records, b.Outcome, b.SyncID, b.Code, b.Message)
		}
	}); err != nil {
		return err
	}
	if res.Rejected > 0 {
		return fmt.Errorf("%w: %d of %d batches were not imported", errBatchesRejected, res.Rejected, len(res.Batches))
	}
	return nil
}
