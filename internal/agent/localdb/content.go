package localdb

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"go.etcd.io/bbolt"
)

// Content blobs are the questions and stimuli of a package of format 3,
// each a blob sealed once for every school (its sealed bytes, named by
// their SHA-256). They are small and are read each time the package is
// loaded, so they live in the state file beside the package.

// ErrNoContentBlob means a content blob the package names is not held.
var ErrNoContentBlob = errors.New("localdb: content blob not held")

// ErrContentBlobName means bytes given to PutContentBlobs are not the blob
// named: their SHA-256 differs from the name.
var ErrContentBlobName = errors.New("localdb: content blob bytes do not match their name")

// HasContentBlob reports whether the content blob name is held.
func (d *DB) HasContentBlob(name string) bool {
	found := false
	d.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketContent) // nil in a read-only file from before content blobs
		found = b != nil && b.Get([]byte(name)) != nil
		return nil
	})
	return found
}

// ContentBlob returns the sealed bytes of the content blob name, or
// ErrNoContentBlob.
func (d *DB) ContentBlob(name string) ([]byte, error) {
	var data []byte
	err := d.view(func(tx *bbolt.Tx) error {
		var v []byte
		if b := tx.Bucket(bucketContent); b != nil {
			v = b.Get([]byte(name))
		}
		if v == nil {
			return fmt.Errorf("%w: %s", ErrNoContentBlob, name)
		}
		data = bytes.Clone(v)
		return nil
	})
	return data, err
}

// PutContentBlobs stores the content blobs of blobs (name -> sealed
// bytes), in one transaction, after checking each against its name; on a
// mismatch nothing is stored.
func (d *DB) PutContentBlobs(ctx context.Context, blobs map[string][]byte) error {
	for name, data := range blobs {
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != name {
			return fmt.Errorf("%w: %s has SHA-256 %x", ErrContentBlobName, name, sum)
		}
	}
	return d.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketContent)
		for name, data := range blobs {
			if err := b.Put([]byte(name), data); err != nil {
				return err
			}
		}
		return nil
	})
}

// PruneContentBlobs removes the content blobs that keep does not name.
func (d *DB) PruneContentBlobs(ctx context.Context, keep map[string]bool) error {
	return d.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketContent)
		var drop [][]byte
		if err := b.ForEach(func(k, _ []byte) error {
			if !keep[string(k)] {
				drop = append(drop, bytes.Clone(k))
			}
			return nil
		}); err != nil {
			return err
		}
		for _, k := range drop {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}
