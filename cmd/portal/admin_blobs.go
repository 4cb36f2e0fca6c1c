package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/pkg/client"
)

func newBlobsCmd(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "blobs",
		Short: "The blob store: garbage collection of blobs nothing refers to",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newBlobsGCCmd(o))
	return cmd
}

// blobsGCOptions are the flags of "portal admin blobs gc".
type blobsGCOptions struct {
	DryRun bool
}

func newBlobsGCCmd(o *adminOptions) *cobra.Command {
	var opts blobsGCOptions
	cmd := &cobra.Command{
		Use:   "gc [--dry-run]",
		Short: "Collect the blobs nothing refers to now, or show what would be collected",
		Long: `Run a garbage collection of blobs on the portal now (a SUPER_ADMIN's
credentials), as the portal does every blob-gc-interval: blobs that nothing
refers to are marked, those unreferenced for the whole blob-retention are
deleted, and referenced blobs missing from the blob store are reported and
their packages rebuilt. It prints each blob deleted and each one missing,
then a summary.

With --dry-run nothing is changed: it prints the blobs that would be deleted.`,
		Example: `  portal admin blobs gc --dry-run
  portal admin blobs gc --output json`,
		Args: cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			return runBlobsGC(ctx, o, c, opts)
		}),
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "change nothing: show what would be deleted")
	return cmd
}

// runBlobsGC runs a collection through c and prints its report.
func runBlobsGC(ctx context.Context, o *adminOptions, c *client.Client, opts blobsGCOptions) error {
	rep, _, err := c.Exam.Admin.CollectBlobs(ctx, opts.DryRun)
	if err != nil {
		return err
	}
	p := o.printer()
	if err := p.Print(rep, func(t *table) {
		verb := "deleted"
		if rep.DryRun {
			verb = "would delete"
		}
		t.Row("ACTION", "KEY", "SIZE", "UNREFERENCED SINCE / REFERRED TO BY")
		for _, d := range rep.Deleted {
			t.Row(verb, d.Key, d.Size, d.UnreferencedSince)
		}
		for _, m := range rep.Missing {
			t.Row("missing", m.Key, "", m.ReferredToBy)
		}
	}); err != nil {
		return err
	}
	if p.JSON() {
		return nil
	}
	what := "deleted"
	if rep.DryRun {
		what = "would delete (dry run, nothing changed)"
	}
	_, err = fmt.Fprintf(o.out, "listed %d, referenced %d, newly unreferenced %d, waiting %d, %s %d (%d bytes), missing %d, errors %d\n",
		rep.Listed, rep.Referenced, rep.Marked, rep.Waiting, what, len(rep.Deleted), rep.BytesFreed, len(rep.Missing), rep.Errors)
	return err
}
