package bolt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Backups. A backup is a copy of the bbolt file taken in one read
// transaction (bbolt's Tx.WriteTo): a consistent snapshot, while writes go
// on. It holds every record and the portal's secrets, but not the package
// blobs, which are files next to it: a restored file whose blobs are missing
// has those package records dropped at Open, and each school's package is
// built again at its next pull (packages are derived from the exams,
// members and keys the file holds).

// Snapshot is a consistent copy of a bbolt file being written: Size bytes,
// written to w by WriteTo.
type Snapshot interface {
	io.WriterTo
	// Size is the number of bytes WriteTo writes.
	Size() int64
}

// Backup calls fn with a consistent snapshot of the whole store, in one read
// transaction that stays open until fn returns. Writes go on meanwhile.
func (s *Store) Backup(ctx context.Context, fn func(Snapshot) error) error {
	return s.view(ctx, "backup", func(tx *bbolt.Tx) error { return fn(tx) })
}

// ErrLocked is returned by BackupFile when another process (a running
// portal) holds the file.
var ErrLocked = errors.New("the file is locked by another process")

// BackupFile calls fn with a consistent snapshot of the bbolt file at path,
// opened read-only, for a portal that is not running. It waits up to
// timeout for the file's lock, then fails with ErrLocked: a running portal
// holds it for as long as it runs.
func BackupFile(ctx context.Context, path string, timeout time.Duration, fn func(Snapshot) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("bolt: backup %s: %w", path, err)
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("bolt: backup: %w", err)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: timeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return fmt.Errorf("bolt: backup %s: %w", path, ErrLocked)
	}
	if err != nil {
		return fmt.Errorf("bolt: backup %s: %w", path, err)
	}
	defer db.Close()
	if err := db.View(func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketMeta) == nil {
			return errors.New("not a portal store (no meta bucket)")
		}
		return fn(tx)
	}); err != nil {
		return fmt.Errorf("bolt: backup %s: %w", path, err)
	}
	return nil
}

// dropMissingPackages removes the package records whose blob is missing
// (a restored backup, a lost packages directory), so that the package is
// built again at the school's next pull instead of failing to open.
func (s *Store) dropMissingPackages() error {
	return s.db.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketPackages)
		var missing [][]byte
		err := b.ForEach(func(k, v []byte) error {
			var rec packageRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return err
			}
			if !validChecksum(rec.Checksum) {
				return nil
			}
			if _, err := os.Stat(s.blobPath(rec.Checksum)); errors.Is(err, fs.ErrNotExist) {
				missing = append(missing, append([]byte(nil), k...))
			} else if err != nil {
				return fmt.Errorf("package blob of %s: %w", k, err)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("drop packages without blobs: %w", err)
		}
		for _, k := range missing {
			if err := b.Delete(k); err != nil {
				return fmt.Errorf("drop package record %s: %w", k, err)
			}
		}
		return nil
	})
}
