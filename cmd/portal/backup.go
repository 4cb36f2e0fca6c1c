package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/internal/httpapi"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/pkg/client"
)

// backupOptions are the settings of "portal backup".
type backupOptions struct {
	adminOptions
	File        string // where the backup goes
	DataDir     string // set: copy <DataDir>/portal.db of a stopped portal
	DatabaseURL string // set: refused (pg_dump)
}

// errBackupPostgres refuses a backup of a PostgreSQL portal.
var errBackupPostgres = errors.New("this portal keeps its data in PostgreSQL, which portal backup does not copy: " +
	"use pg_dump -Fc (consistent while the portal runs) and pg_restore, as docs/operations.md says")

func newBackupCmd(s streams) *cobra.Command {
	o := &backupOptions{adminOptions: adminOptions{streams: s}}
	cmd := &cobra.Command{
		Use:   "backup --output FILE",
		Short: "Copy the embedded (bbolt) store to a file, while the portal runs or not",
		Long: `Write a consistent copy of the portal's bbolt store to FILE (mode 0600,
written to a temporary file, synced, then renamed), and print its size and
SHA-256.

While the portal runs, the copy is asked of it (GET /api/v1/admin/backup):
sign in as a SUPER_ADMIN as with "portal admin" (--url, --username,
PORTAL_ADMIN_PASSWORD or PORTAL_TOKEN). Writes go on during the copy; the
copy is the store as of one moment.

With --data-dir (or PORTAL_DATA_DIR) and no --url on the command line, the
file <data-dir>/portal.db of a stopped portal is copied directly; a running
portal holds the file's lock, and the command then says to use --url.

The copy holds every record and the portal's secrets; the exam packages are
built again from it. Restore by putting it in place as <data-dir>/portal.db of
a stopped portal. A portal on PostgreSQL (--database-url) is backed up with
pg_dump instead.`,
		Example: `  PORTAL_ADMIN_PASSWORD=... portal backup --url http://127.0.0.1:8080 --output /backup/portal-$(date +%F).db
  portal backup --data-dir /var/lib/portal --output portal.db.bak   # the portal is stopped`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.load(cmd); err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), o.Timeout)
			defer cancel()
			return o.run(ctx, cmd.Flags().Changed("url"))
		},
	}
	f := cmd.Flags()
	f.StringP("output", "o", "", "file to write the backup to (required)")
	f.String("url", "http://127.0.0.1:8080", "base URL of the running portal (env PORTAL_URL)")
	f.String("username", "admin", "operator username, a SUPER_ADMIN (env PORTAL_ADMIN_USERNAME)")
	f.String("password", "", "operator password (env PORTAL_ADMIN_PASSWORD; prefer the environment)")
	f.String("token", "", "operator token from 'portal admin login', instead of a password (env PORTAL_TOKEN)")
	f.Duration("timeout", time.Hour, "time limit of the backup")
	f.String("data-dir", "", "data directory of a stopped portal: copy its portal.db directly (env PORTAL_DATA_DIR)")
	f.String("database-url", "", "refused: a PostgreSQL portal is backed up with pg_dump (env PORTAL_DATABASE_URL)")
	mustSetKey(f, "username", "admin-username")
	mustSetKey(f, "password", "admin-password")
	mustSetKey(f, "output", "backup-output")
	return cmd
}

// load reads and validates the settings of "portal backup".
func (o *backupOptions) load(cmd *cobra.Command) error {
	r, err := loadConfig(cmd, adminDefaults)
	if err != nil {
		return err
	}
	o.File = r.String("backup-output")
	if u := r.URL("url", "http", "https"); u != nil {
		o.URL = u.String()
	}
	o.Username = r.String("admin-username")
	o.Password = r.Viper().GetString("admin-password")
	o.Token = r.String("token")
	o.Timeout = r.Duration("timeout", time.Second, 24*time.Hour)
	o.DataDir = r.String("data-dir")
	o.DatabaseURL = databaseURL(r, "database-url")
	if o.newClient == nil {
		o.newClient = o.signIn
	}
	if err := r.Err(); err != nil {
		return err
	}
	if o.File == "" {
		return &cmdutil.UsageError{Err: errors.New("portal backup needs --output FILE")}
	}
	return nil
}

// run takes the backup: from the running portal at o.URL, or from the file
// in o.DataDir when that is set and the URL was not given on the command
// line.
func (o *backupOptions) run(ctx context.Context, urlGiven bool) error {
	if o.DatabaseURL != "" {
		return errBackupPostgres
	}
	start := time.Now()
	var info *client.BackupInfo
	err := writeFileAtomic(o.File, func(w io.Writer) error {
		var err error
		if o.DataDir != "" && !urlGiven {
			info, err = backupFile(ctx, filepath.Join(o.DataDir, boltFileName), w)
		} else {
			info, err = o.backupRemote(ctx, w)
		}
		return err
	})
	if err != nil {
		return err
	}
	size := fmt.Sprintf("%d bytes", info.Size)
	if info.Size >= 1<<10 {
		size += " (" + humanSize(info.Size) + ")"
	}
	_, err = fmt.Fprintf(o.out, "backup written to %s: %s, sha256 %s, in %s\n",
		o.File, size, info.SHA256, time.Since(start).Round(time.Millisecond))
	return err
}

// humanSize formats n bytes in KiB, MiB or GiB with one decimal.
func humanSize(n int64) string {
	const unit = 1 << 10
	v, suffix := float64(n)/unit, "KiB"
	for _, next := range []string{"MiB", "GiB", "TiB"} {
		if v < unit {
			break
		}
		v, suffix = v/unit, next
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}

// backupRemote asks the running portal for the backup.
func (o *backupOptions) backupRemote(ctx context.Context, w io.Writer) (*client.BackupInfo, error) {
	c, err := o.newClient(ctx)
	if err != nil {
		return nil, err
	}
	info, _, err := c.Exam.Admin.Backup(ctx, w)
	var ce *client.Error
	if errors.As(err, &ce) && ce.Code == client.CodeBackupUnsupported {
		return nil, errBackupPostgres
	}
	if err != nil {
		return nil, fmt.Errorf("backup from %s: %w", o.URL, err)
	}
	return info, nil
}

// backupFile copies the bbolt file at path of a stopped portal.
func backupFile(ctx context.Context, path string, w io.Writer) (*client.BackupInfo, error) {
	h := sha256.New()
	var n int64
	err := bolt.BackupFile(ctx, path, time.Second, func(s bolt.Snapshot) error {
		var err error
		n, err = s.WriteTo(io.MultiWriter(w, h))
		return err
	})
	if errors.Is(err, bolt.ErrLocked) {
		return nil, fmt.Errorf("%w: a portal is running on this data directory; take the backup through it: portal backup --url http://<its address> --output FILE", err)
	}
	if err != nil {
		return nil, err
	}
	return &client.BackupInfo{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// writeFileAtomic writes path through fill: to a temporary file in the same
// directory (mode 0600), synced, then renamed over path and the directory
// synced. On any error path is left as it was.
func writeFileAtomic(path string, fill func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("create the backup file: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("restrict the backup file: %w", err)
	}
	if err := fill(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync the backup file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close the backup file: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("rename the backup file into place: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		defer d.Close()
		if err := d.Sync(); err != nil {
			return fmt.Errorf("sync the backup's directory: %w", err)
		}
	}
	return nil
}

// storeBackup returns the backup of st for the HTTP API: the bbolt store's
// snapshot; nil for a store that has none (PostgreSQL).
func storeBackup(st store) httpapi.Backup {
	bs, ok := st.(*bolt.Store)
	if !ok {
		return nil
	}
	return func(ctx context.Context, start func(int64), w io.Writer) error {
		return bs.Backup(ctx, func(s bolt.Snapshot) error {
			start(s.Size())
			_, err := s.WriteTo(w)
			return err
		})
	}
}
