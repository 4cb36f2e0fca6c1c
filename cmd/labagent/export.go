package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/config"
)

func newExportCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export --out FILE",
		Short: "Write the answers waiting for the portal to one encrypted file (for a USB stick)",
		Long: `Write every answer that has not reached the portal yet to FILE, for a lab
that stays offline past the deadline: the operator imports the file with
"portal admin import-answers FILE".

The file is encrypted with the school's package key and checksummed; only the
portal can read it, and a damaged or altered copy is refused. The answers stay
in this server's outbox: when the lab is back online its push of the same
batches is recognised as a duplicate, so every answer is stored exactly once
however it arrives (and importing a file twice is harmless too).

labagent run must be stopped first (it holds the state file); when the portal
is reachable, "labagent push --now" sends the answers without a file.`,
		Example: `  labagent export --data-dir /var/lib/labagent --out /media/usb/answers-LAB-01.enc`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			file, _ := cmd.Flags().GetString(config.FlagConfig)
			v, err := config.Load(cmd, envPrefix, file, nil)
			if err != nil {
				return err
			}
			r := config.NewReader(v, envPrefix)
			dataDir := r.Required("data-dir")
			if err := r.Err(); err != nil {
				return err
			}
			out, _ := cmd.Flags().GetString("out")
			if out == "" {
				return errors.New("name the file to write with --out, e.g. --out /media/usb/answers.enc")
			}
			cfg, err := agent.ReadConfig(dataDir)
			if err != nil {
				return err
			}
			dbPath := filepath.Join(dataDir, localdb.FileName)
			if _, err := os.Stat(dbPath); errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("there is no state file %s: labagent run has never saved an answer with this --data-dir, so there is nothing to export", dbPath)
			}
			db, err := localdb.Open(dbPath, localdb.Options{})
			if errors.Is(err, localdb.ErrLocked) {
				return fmt.Errorf("%s is in use by a running labagent: stop it first (e.g. systemctl stop labagent), "+
					"or, if the portal is reachable, send the answers with labagent push --now instead", dbPath)
			}
			if err != nil {
				return err
			}
			defer db.Close()

			var sum agent.ExportSummary
			err = writeFileAtomic(out, func(w io.Writer) error {
				var err error
				sum, err = agent.Export(cmd.Context(), db, cfg, w, time.Now())
				return err
			})
			if errors.Is(err, agent.ErrNothingToExport) {
				return fmt.Errorf("%w; no file written", err)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "exported %d answers in %d batches of %s (npsn %s) to %s\n", sum.Records, sum.Batches, cfg.ServerCode, cfg.NPSN, out)
			fmt.Fprintf(stdout, "checksum (sha256) %s\n", sum.ChecksumSHA256)
			fmt.Fprintln(stdout, "the answers stay queued here: a later push of the same batches is a duplicate, stored once")
			fmt.Fprintf(stdout, "next: take the file to the portal and run\n  portal admin import-answers %s\n", filepath.Base(out))
			return nil
		},
	}
	cmd.Flags().String("out", "", "the file to write (e.g. on a USB stick); replaced if it exists (required)")
	return cmd
}

// writeFileAtomic writes name through write: into a temporary file of the
// same directory (created with mode 0600, as os.CreateTemp does; no chmod,
// which FAT-formatted sticks refuse), synced, then renamed over name, so
// that name is either absent (or its old self) or complete, even if the
// stick is pulled out or the power cut. On error nothing is left behind.
func writeFileAtomic(name string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(name)
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := write(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(f.Name(), name); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
