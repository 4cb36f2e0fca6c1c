package bolt

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/store/chunkio"
)

// Blobs of the blob store (blobstore.Store) kept in the bbolt file itself, so
// that a backup holds them, as media are: the bytes are chunks of
// blobChunkSize in bucketBlobChunks under the id of their upload, written over
// several transactions of blobChunksPerTx chunks; the record in bucketBlobs
// (key -> blobRecord) then makes them visible. A put's chunks are its own
// (its upload id, from the bucket's sequence), so that two puts of one key
// never mix their chunks: the first record written wins and the other put
// drops its chunks. Chunks that no record refers to, left by a crash, are
// removed at Open.

const (
	blobChunkSize   = 256 << 10
	blobChunksPerTx = 16
	// blobListPage is how many records one read transaction of List reads:
	// no transaction stays open while the loop's body runs.
	blobListPage = 256
)

// blobRecord is the value of a key in bucketBlobs.
type blobRecord struct {
	Upload   uint64    `json:"upload"`
	Size     int64     `json:"size"`
	SHA256   string    `json:"sha256"` // the ETag
	Modified time.Time `json:"modified"`
}

func (r blobRecord) info(key string) blobstore.Info {
	return blobstore.Info{Key: key, Size: r.Size, ETag: r.SHA256, LastModified: r.Modified.UTC()}
}

// blobChunkKey is the key of chunk seq of upload.
func blobChunkKey(upload uint64, seq int64) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, upload), uint32(seq))
}

// BlobStore is the blob store kept in the bbolt file (blobstore.Store). Get
// it with (*Store).Blobs; it lives as long as the Store.
type BlobStore struct{ s *Store }

var _ blobstore.Store = (*BlobStore)(nil)

// Blobs returns the blob store kept in the bbolt file.
func (s *Store) Blobs() blobstore.Store { return &BlobStore{s: s} }

// Put stores the size bytes of r under key, streamed in chunks over several
// transactions and made visible by one last transaction; a blob that fits
// one transaction is written in one. When key holds a blob already, r is
// not read.
func (b *BlobStore) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if err := blobstore.ValidKey(key); err != nil {
		return fmt.Errorf("bolt: put blob: %w", err)
	}
	if size < 0 {
		return fmt.Errorf("bolt: put blob %s: %w: negative size %d", key, blobstore.ErrSizeMismatch, size)
	}
	if _, err := b.Stat(ctx, key); err == nil {
		return nil
	} else if !errors.Is(err, blobstore.ErrNotFound) {
		return fmt.Errorf("bolt: put blob %s: %w", key, err)
	}
	er := blobstore.ExactReader(r, size)
	if size <= blobChunkSize*blobChunksPerTx {
		return b.putSmall(ctx, key, er, size)
	}
	var upload uint64
	if err := b.s.update(ctx, "put blob", func(tx *bbolt.Tx) error {
		var err error
		upload, err = tx.Bucket(bucketBlobChunks).NextSequence()
		return err
	}); err != nil {
		return err
	}
	h := sha256.New()
	buf := make([]byte, blobChunkSize*blobChunksPerTx)
	var seq int64
	remaining := size
	fail := func(err error) error {
		b.dropUpload(upload)
		return fmt.Errorf("bolt: put blob %s: %w", key, err)
	}
	for remaining > 0 {
		// Read the transaction's chunks first, so that no write
		// transaction waits on the caller's reader.
		n := min(remaining, int64(len(buf)))
		if err := readChunks(er, buf[:n], size); err != nil {
			return fail(err)
		}
		h.Write(buf[:n])
		err := b.s.update(ctx, "put blob", func(tx *bbolt.Tx) error {
			return putBlobChunks(tx, upload, seq, buf[:n])
		})
		if err != nil {
			return fail(err)
		}
		seq += (n + blobChunkSize - 1) / blobChunkSize
		remaining -= n
	}
	if err := readEnd(er, size); err != nil {
		return fail(err)
	}
	rec := blobRecord{Upload: upload, Size: size, SHA256: hex.EncodeToString(h.Sum(nil)), Modified: time.Now().UTC()}
	kept := false
	err := b.s.update(ctx, "put blob", func(tx *bbolt.Tx) error {
		bk := tx.Bucket(bucketBlobs)
		if bk.Get([]byte(key)) != nil {
			kept = true // put meanwhile by another writer, with the same bytes
			return nil
		}
		return putJSON(bk, []byte(key), rec)
	})
	if err != nil || kept {
		b.dropUpload(upload)
	}
	if err != nil {
		return fmt.Errorf("bolt: put blob %s: %w", key, err)
	}
	return nil
}

// putSmall puts a blob that fits one write transaction: its upload id,
// chunks and record are written together, so that a package build putting
// many small blobs (questions) costs one commit each.
func (b *BlobStore) putSmall(ctx context.Context, key string, er io.Reader, size int64) error {
	buf := make([]byte, size)
	if err := readChunks(er, buf, size); err != nil {
		return fmt.Errorf("bolt: put blob %s: %w", key, err)
	}
	if err := readEnd(er, size); err != nil {
		return fmt.Errorf("bolt: put blob %s: %w", key, err)
	}
	sum := sha256.Sum256(buf)
	err := b.s.update(ctx, "put blob", func(tx *bbolt.Tx) error {
		bk := tx.Bucket(bucketBlobs)
		if bk.Get([]byte(key)) != nil {
			return nil // put meanwhile by another writer, with the same bytes
		}
		upload, err := tx.Bucket(bucketBlobChunks).NextSequence()
		if err != nil {
			return err
		}
		if err := putBlobChunks(tx, upload, 0, buf); err != nil {
			return err
		}
		return putJSON(bk, []byte(key), blobRecord{Upload: upload, Size: size, SHA256: hex.EncodeToString(sum[:]), Modified: time.Now().UTC()})
	})
	if err != nil {
		return fmt.Errorf("bolt: put blob %s: %w", key, err)
	}
	return nil
}

// putBlobChunks writes data as the chunks of upload from seq on.
func putBlobChunks(tx *bbolt.Tx, upload uint64, seq int64, data []byte) error {
	c := tx.Bucket(bucketBlobChunks)
	n := int64(len(data))
	for off := int64(0); off < n; off += blobChunkSize {
		if err := c.Put(blobChunkKey(upload, seq+off/blobChunkSize), data[off:min(off+blobChunkSize, n)]); err != nil {
			return err
		}
	}
	return nil
}

// readChunks fills p from er, a blobstore.ExactReader of size bytes: a
// reader that ends early is ErrSizeMismatch.
func readChunks(er io.Reader, p []byte, size int64) error {
	if _, err := io.ReadFull(er, p); err != nil {
		if !errors.Is(err, blobstore.ErrSizeMismatch) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
			err = fmt.Errorf("%w: the reader ended before %d bytes", blobstore.ErrSizeMismatch, size)
		}
		return err
	}
	return nil
}

// readEnd checks that er, a blobstore.ExactReader of size bytes read
// whole, ends there.
func readEnd(er io.Reader, size int64) error {
	var one [1]byte
	if _, err := er.Read(one[:]); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("%w: the reader has more than %d bytes", blobstore.ErrSizeMismatch, size)
		}
		return err
	}
	return nil
}

// dropUpload removes the chunks of upload (a put that failed or lost the
// race to another put of its key).
func (b *BlobStore) dropUpload(upload uint64) {
	_ = b.s.db.Update(func(tx *bbolt.Tx) error { return deleteBlobChunks(tx, upload) })
}

func deleteBlobChunks(tx *bbolt.Tx, upload uint64) error {
	c := tx.Bucket(bucketBlobChunks).Cursor()
	prefix := binary.BigEndian.AppendUint64(nil, upload)
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// getRecord reads the record of key; ErrNotFound when there is none.
func (b *BlobStore) getRecord(ctx context.Context, op, key string) (blobRecord, error) {
	if err := blobstore.ValidKey(key); err != nil {
		return blobRecord{}, fmt.Errorf("bolt: %s: %w", op, err)
	}
	var rec blobRecord
	err := b.s.view(ctx, op, func(tx *bbolt.Tx) error {
		found, err := getJSON(tx.Bucket(bucketBlobs), []byte(key), &rec)
		if err == nil && !found {
			err = fmt.Errorf("%s: %w", key, blobstore.ErrNotFound)
		}
		return err
	})
	return rec, err
}

// Stat returns what is kept about the blob of key.
func (b *BlobStore) Stat(ctx context.Context, key string) (blobstore.Info, error) {
	rec, err := b.getRecord(ctx, "stat blob", key)
	if err != nil {
		return blobstore.Info{}, err
	}
	return rec.info(key), nil
}

// Open opens the whole blob of key, read one chunk per read transaction.
func (b *BlobStore) Open(ctx context.Context, key string) (io.ReadCloser, blobstore.Info, error) {
	rec, err := b.getRecord(ctx, "open blob", key)
	if err != nil {
		return nil, blobstore.Info{}, err
	}
	return b.reader(ctx, rec), rec.info(key), nil
}

// OpenRange opens length bytes of the blob of key from offset (-1: to the
// end).
func (b *BlobStore) OpenRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, blobstore.Info, error) {
	rec, err := b.getRecord(ctx, "open blob", key)
	if err != nil {
		return nil, blobstore.Info{}, err
	}
	info := rec.info(key)
	n, err := blobstore.CheckRange(rec.Size, offset, length)
	if err != nil {
		return nil, info, fmt.Errorf("bolt: open blob %s: %w", key, err)
	}
	r := b.reader(ctx, rec)
	if _, err := r.Seek(offset, io.SeekStart); err != nil {
		r.Close()
		return nil, info, fmt.Errorf("bolt: open blob %s: %w", key, err)
	}
	return limitedReadCloser{Reader: io.LimitReader(r, n), Closer: r}, info, nil
}

// reader reads the chunks of rec, one read transaction per chunk, so that
// no transaction stays open while a slow client reads.
func (b *BlobStore) reader(ctx context.Context, rec blobRecord) *chunkio.Reader {
	return chunkio.NewReader(rec.Size, blobChunkSize, func(seq int64, buf []byte) ([]byte, error) {
		err := b.s.view(ctx, "read blob", func(tx *bbolt.Tx) error {
			v := tx.Bucket(bucketBlobChunks).Get(blobChunkKey(rec.Upload, seq))
			if v == nil {
				return errors.New("chunk missing: the blob was deleted")
			}
			buf = append(buf, v...)
			return nil
		})
		return buf, err
	})
}

// limitedReadCloser reads from Reader and closes Closer.
type limitedReadCloser struct {
	io.Reader
	io.Closer
}

// Delete removes the blob of key and its chunks in one transaction.
func (b *BlobStore) Delete(ctx context.Context, key string) error {
	if err := blobstore.ValidKey(key); err != nil {
		return fmt.Errorf("bolt: delete blob: %w", err)
	}
	return b.s.update(ctx, "delete blob", func(tx *bbolt.Tx) error {
		bk := tx.Bucket(bucketBlobs)
		var rec blobRecord
		found, err := getJSON(bk, []byte(key), &rec)
		if err != nil || !found {
			return err
		}
		if err := bk.Delete([]byte(key)); err != nil {
			return err
		}
		return deleteBlobChunks(tx, rec.Upload)
	})
}

// List yields the blobs whose keys start with prefix, in byte-wise order,
// reading blobListPage records per read transaction.
func (b *BlobStore) List(ctx context.Context, prefix string) iter.Seq2[blobstore.Info, error] {
	return func(yield func(blobstore.Info, error) bool) {
		from := []byte(prefix)
		inclusive := true
		for {
			var page []blobstore.Info
			err := b.s.view(ctx, "list blobs", func(tx *bbolt.Tx) error {
				c := tx.Bucket(bucketBlobs).Cursor()
				k, v := c.Seek(from)
				if !inclusive && k != nil && bytes.Equal(k, from) {
					k, v = c.Next()
				}
				for ; k != nil && bytes.HasPrefix(k, []byte(prefix)) && len(page) < blobListPage; k, v = c.Next() {
					var rec blobRecord
					if err := decodeJSON(k, v, &rec); err != nil {
						return err
					}
					page = append(page, rec.info(string(k)))
				}
				return nil
			})
			if err != nil {
				yield(blobstore.Info{}, err)
				return
			}
			for _, info := range page {
				if !yield(info, nil) {
					return
				}
			}
			if len(page) < blobListPage {
				return
			}
			from, inclusive = []byte(page[len(page)-1].Key), false
		}
	}
}

// Ping reports whether the bbolt file is open.
func (b *BlobStore) Ping(ctx context.Context) error {
	return b.s.view(ctx, "ping blobs", func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketBlobs) == nil {
			return blobstore.ErrNoBucket
		}
		return nil
	})
}

// removeStrayBlobChunks removes the chunks of uploads that no blob record
// refers to, left by a crash during Put.
func (s *Store) removeStrayBlobChunks() error {
	return s.db.Update(func(tx *bbolt.Tx) error {
		used := map[uint64]bool{}
		err := tx.Bucket(bucketBlobs).ForEach(func(k, v []byte) error {
			var rec blobRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return err
			}
			used[rec.Upload] = true
			return nil
		})
		if err != nil {
			return fmt.Errorf("remove stray blob chunks: %w", err)
		}
		var stray []uint64
		c := tx.Bucket(bucketBlobChunks).Cursor()
		for k, _ := c.First(); k != nil; {
			if len(k) < 8 {
				k, _ = c.Next()
				continue
			}
			upload := binary.BigEndian.Uint64(k)
			if !used[upload] {
				stray = append(stray, upload)
			}
			k, _ = c.Seek(binary.BigEndian.AppendUint64(nil, upload+1))
		}
		for _, u := range stray {
			if err := deleteBlobChunks(tx, u); err != nil {
				return fmt.Errorf("remove stray blob chunks: %w", err)
			}
		}
		return nil
	})
}
