package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"iter"
	"net"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seedhq/portal/internal/blobstore"
)

// blobListPage is how many blobs one query of List reads.
const blobListPage = 1000

// BlobStore is the blob store kept in the database (blobstore.Store; tables
// blobs and blob_chunks). Get it with (*Store).Blobs; it lives as long as the
// Store. Every instance on the database sees the same blobs.
type BlobStore struct{ s *Store }

var _ blobstore.Store = (*BlobStore)(nil)

// Blobs returns the blob store kept in the database.
func (s *Store) Blobs() blobstore.Store { return &BlobStore{s: s} }

// blobErr wraps err for op, marking a database that cannot be reached as
// blobstore.ErrUnavailable and a missing table as blobstore.ErrNoBucket.
func blobErr(op, key string, err error) error {
	if key != "" {
		op += " " + key
	}
	var pgErr *pgconn.PgError
	var connErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
	case errors.As(err, &pgErr) && pgErr.Code == "42P01": // undefined_table
		return fmt.Errorf("postgres: %s: %w (migrations not applied): %w", op, blobstore.ErrNoBucket, err)
	case errors.As(err, &pgErr) && (pgErr.Code[:2] == "08" || pgErr.Code[:2] == "57"):
		// connection exceptions, operator intervention (shutdown)
		return fmt.Errorf("postgres: %s: %w: %w", op, blobstore.ErrUnavailable, err)
	case errors.As(err, &connErr) || errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("postgres: %s: %w: %w", op, blobstore.ErrUnavailable, err)
	}
	return fmt.Errorf("postgres: %s: %w", op, err)
}

// Put stores the size bytes of r under key in one transaction: a row in
// blobs and its chunks by COPY, streamed. When key holds a blob already (or
// a concurrent transaction stores one), r is not read.
func (b *BlobStore) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if err := blobstore.ValidKey(key); err != nil {
		return fmt.Errorf("postgres: put blob: %w", err)
	}
	if size < 0 {
		return fmt.Errorf("postgres: put blob %s: %w: negative size %d", key, blobstore.ErrSizeMismatch, size)
	}
	src := &blobChunks{key: key, r: blobstore.ExactReader(r, size), remaining: size, h: sha256.New()}
	err := b.s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO blobs (key, size, etag, modified_at) VALUES ($1, $2, '', clock_timestamp())
			ON CONFLICT (key) DO NOTHING`, key, size)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return nil // stored already
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"blob_chunks"}, []string{"key", "seq", "data"}, src); err != nil {
			if src.err != nil {
				return src.err // the reader's error, not the COPY's report of it
			}
			return err
		}
		if !src.done {
			return errors.New("write blob: incomplete")
		}
		_, err = tx.Exec(ctx, `UPDATE blobs SET etag = $2, modified_at = clock_timestamp() WHERE key = $1`,
			key, hex.EncodeToString(src.h.Sum(nil)))
		return err
	})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			err = fmt.Errorf("%w: %w", cerr, err)
		}
		return blobErr("put blob", key, err)
	}
	return nil
}

// blobChunks is a pgx.CopyFromSource of the chunks of a blob read from r
// (which reports a wrong size itself: blobstore.ExactReader). It reuses one
// chunk buffer: pgx encodes each row before asking for the next.
type blobChunks struct {
	key       string
	r         io.Reader
	remaining int64
	h         hash.Hash
	seq       int32
	buf       []byte
	err       error
	done      bool
}

// Next reads the next chunk; at the end it checks that r ends too.
func (c *blobChunks) Next() bool {
	if c.err != nil || c.done {
		return false
	}
	if c.remaining == 0 {
		var one [1]byte
		if _, err := c.r.Read(one[:]); err != io.EOF {
			if err == nil {
				err = fmt.Errorf("%w: the reader has more bytes than its size", blobstore.ErrSizeMismatch)
			}
			c.err = err
			return false
		}
		c.done = true
		return false
	}
	n := int(min(c.remaining, chunkSize))
	if c.buf == nil {
		c.buf = make([]byte, chunkSize)
	}
	if _, err := io.ReadFull(c.r, c.buf[:n]); err != nil {
		if !errors.Is(err, blobstore.ErrSizeMismatch) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
			err = fmt.Errorf("%w: the reader is shorter than its size", blobstore.ErrSizeMismatch)
		}
		c.err = err
		return false
	}
	c.h.Write(c.buf[:n])
	c.remaining -= int64(n)
	c.buf = c.buf[:n]
	return true
}

// Values returns the row of the chunk read by Next.
func (c *blobChunks) Values() ([]any, error) {
	row := []any{c.key, c.seq, c.buf}
	c.seq++
	c.buf = c.buf[:cap(c.buf)]
	return row, nil
}

// Err returns the error that stopped Next, if any.
func (c *blobChunks) Err() error { return c.err }

// Stat returns what is kept about the blob of key.
func (b *BlobStore) Stat(ctx context.Context, key string) (blobstore.Info, error) {
	if err := blobstore.ValidKey(key); err != nil {
		return blobstore.Info{}, fmt.Errorf("postgres: stat blob: %w", err)
	}
	info := blobstore.Info{Key: key}
	err := b.s.pool.QueryRow(ctx, `SELECT size, etag, modified_at FROM blobs WHERE key = $1`, key).
		Scan(&info.Size, &info.ETag, &info.LastModified)
	if errors.Is(err, pgx.ErrNoRows) {
		return blobstore.Info{}, fmt.Errorf("postgres: stat blob %s: %w", key, blobstore.ErrNotFound)
	}
	if err != nil {
		return blobstore.Info{}, blobErr("stat blob", key, err)
	}
	info.LastModified = info.LastModified.UTC()
	return info, nil
}

// Open opens the whole blob of key, read one 1 MiB chunk per query with ctx.
func (b *BlobStore) Open(ctx context.Context, key string) (io.ReadCloser, blobstore.Info, error) {
	info, err := b.Stat(ctx, key)
	if err != nil {
		return nil, blobstore.Info{}, err
	}
	return blobReader{b.s.chunkReader(ctx, "blob_chunks", "key", key, info.Size)}, info, nil
}

// OpenRange opens length bytes of the blob of key from offset (-1: to the
// end), starting at the chunk that holds offset.
func (b *BlobStore) OpenRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, blobstore.Info, error) {
	info, err := b.Stat(ctx, key)
	if err != nil {
		return nil, blobstore.Info{}, err
	}
	n, err := blobstore.CheckRange(info.Size, offset, length)
	if err != nil {
		return nil, info, fmt.Errorf("postgres: open blob %s: %w", key, err)
	}
	r := b.s.chunkReader(ctx, "blob_chunks", "key", key, info.Size)
	if _, err := r.Seek(offset, io.SeekStart); err != nil {
		r.Close()
		return nil, info, fmt.Errorf("postgres: open blob %s: %w", key, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{blobReader{io.LimitReader(r, n)}, r}, info, nil
}

// blobReader maps the errors of a chunk read to the blob store's.
type blobReader struct{ r io.Reader }

func (b blobReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		err = blobErr("read blob", "", err)
	}
	return n, err
}

func (b blobReader) Close() error {
	if c, ok := b.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// Delete removes the blob of key and its chunks.
func (b *BlobStore) Delete(ctx context.Context, key string) error {
	if err := blobstore.ValidKey(key); err != nil {
		return fmt.Errorf("postgres: delete blob: %w", err)
	}
	if _, err := b.s.pool.Exec(ctx, `DELETE FROM blobs WHERE key = $1`, key); err != nil {
		return blobErr("delete blob", key, err)
	}
	return nil
}

// List yields the blobs whose keys start with prefix, in byte-wise order,
// blobListPage per query.
func (b *BlobStore) List(ctx context.Context, prefix string) iter.Seq2[blobstore.Info, error] {
	return func(yield func(blobstore.Info, error) bool) {
		after, first := prefix, true
		for {
			rows, err := b.s.pool.Query(ctx, `SELECT key, size, etag, modified_at FROM blobs
				WHERE (key > $2 OR ($3 AND key = $2)) AND starts_with(key, $1)
				ORDER BY key LIMIT $4`, prefix, after, first, blobListPage)
			if err != nil {
				yield(blobstore.Info{}, blobErr("list blobs", prefix, err))
				return
			}
			page, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (blobstore.Info, error) {
				var i blobstore.Info
				err := row.Scan(&i.Key, &i.Size, &i.ETag, &i.LastModified)
				i.LastModified = i.LastModified.UTC()
				return i, err
			})
			if err != nil {
				yield(blobstore.Info{}, blobErr("list blobs", prefix, err))
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
			after, first = page[len(page)-1].Key, false
		}
	}
}

// Ping checks that the database answers and holds the blob tables.
func (b *BlobStore) Ping(ctx context.Context) error {
	if _, err := b.s.pool.Exec(ctx, `SELECT 1 FROM blobs LIMIT 0`); err != nil {
		return blobErr("ping blobs", "", err)
	}
	return nil
}
