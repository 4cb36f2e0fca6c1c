package localdb

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// PackageMeta describes the exam package labagent holds.
type PackageMeta struct {
	ChecksumSHA256 string    `json:"checksum_sha256"` // of the encrypted bytes, as the portal announced it
	Version        string    `json:"version"`         // the portal's package version
	Size           int64     `json:"size"`
	PulledAt       time.Time `json:"pulled_at"`
}

// ErrNoPackage means no package has been pulled yet.
var ErrNoPackage = errors.New("localdb: no exam package yet")

var (
	keyPackageData = []byte("data")
	keyPackageMeta = []byte("meta")
	keyDownload    = []byte("meta")
)

// Package returns the package held (still encrypted, as pulled) and its
// metadata, or ErrNoPackage.
func (d *DB) Package() (PackageMeta, []byte, error) {
	var meta PackageMeta
	var data []byte
	err := d.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketPackage)
		found, err := getJSON(b, keyPackageMeta, &meta)
		if err != nil {
			return err
		}
		if !found {
			return ErrNoPackage
		}
		data = bytes.Clone(b.Get(keyPackageData))
		return nil
	})
	return meta, data, err
}

// PackageInfo returns the metadata of the package held, or ErrNoPackage.
func (d *DB) PackageInfo() (PackageMeta, error) {
	var meta PackageMeta
	err := d.view(func(tx *bbolt.Tx) error {
		found, err := getJSON(tx.Bucket(bucketPackage), keyPackageMeta, &meta)
		if err == nil && !found {
			err = ErrNoPackage
		}
		return err
	})
	return meta, err
}

// ErrPackageChecksum means the bytes given to SwapPackage do not match the
// size or SHA-256 of their metadata.
var ErrPackageChecksum = errors.New("localdb: package size or SHA-256 does not match")

// SwapPackage replaces the package held with data, in one transaction, after
// checking data against meta's size and SHA-256; on a mismatch the old
// package stays. The download in progress, if any, is dropped.
func (d *DB) SwapPackage(ctx context.Context, meta PackageMeta, data []byte) error {
	sum := sha256.Sum256(data)
	if int64(len(data)) != meta.Size || hex.EncodeToString(sum[:]) != meta.ChecksumSHA256 {
		return fmt.Errorf("%w: %d bytes with SHA-256 %x, want %d bytes with %s", ErrPackageChecksum,
			len(data), sum, meta.Size, meta.ChecksumSHA256)
	}
	return d.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketPackage)
		if err := b.Put(keyPackageData, data); err != nil {
			return err
		}
		if err := putJSON(b, keyPackageMeta, meta); err != nil {
			return err
		}
		return resetDownload(tx)
	})
}

// Download is a package download in progress: the bytes received so far are
// kept so that a cut download, even across a restart, resumes with Range.
type Download struct {
	ETag           string `json:"etag"`
	ChecksumSHA256 string `json:"checksum_sha256"`
	Version        string `json:"version"`
	Size           int64  `json:"size"`
	Received       int64  `json:"received"`
}

// Download returns the download in progress, if any.
func (d *DB) Download() (Download, bool, error) {
	var dl Download
	var found bool
	err := d.view(func(tx *bbolt.Tx) (err error) {
		found, err = getJSON(tx.Bucket(bucketDownload), keyDownload, &dl)
		return err
	})
	return dl, found, err
}

// StartDownload drops any download in progress and records a new one.
func (d *DB) StartDownload(ctx context.Context, dl Download) error {
	dl.Received = 0
	return d.update(ctx, func(tx *bbolt.Tx) error {
		if err := resetDownload(tx); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bucketDownload), keyDownload, dl)
	})
}

// AppendDownload stores chunk as the bytes at offset of the download in
// progress; offset must be what was received so far.
func (d *DB) AppendDownload(ctx context.Context, offset int64, chunk []byte) error {
	if len(chunk) == 0 {
		return nil
	}
	chunk = bytes.Clone(chunk)
	return d.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketDownload)
		var dl Download
		found, err := getJSON(b, keyDownload, &dl)
		if err != nil {
			return err
		}
		if !found {
			return errors.New("localdb: no download in progress")
		}
		if offset != dl.Received {
			return fmt.Errorf("localdb: download chunk at %d, but %d bytes received", offset, dl.Received)
		}
		if err := b.Put(chunkKey(offset), chunk); err != nil {
			return err
		}
		dl.Received += int64(len(chunk))
		return putJSON(b, keyDownload, dl)
	})
}

// DownloadedBytes returns the bytes received so far by the download in
// progress.
func (d *DB) DownloadedBytes() ([]byte, error) {
	var out []byte
	err := d.view(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketDownload).Cursor()
		for k, v := c.Seek([]byte{'c'}); k != nil && k[0] == 'c'; k, v = c.Next() {
			out = append(out, v...)
		}
		return nil
	})
	return out, err
}

// ResetDownload drops the download in progress.
func (d *DB) ResetDownload(ctx context.Context) error {
	return d.update(ctx, resetDownload)
}

func resetDownload(tx *bbolt.Tx) error {
	if err := tx.DeleteBucket(bucketDownload); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
		return err
	}
	_, err := tx.CreateBucket(bucketDownload)
	return err
}

func chunkKey(offset int64) []byte {
	k := make([]byte, 9)
	k[0] = 'c'
	binary.BigEndian.PutUint64(k[1:], uint64(offset))
	return k
}
