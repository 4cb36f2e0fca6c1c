// Package blobstore names the store of large immutable blobs (encrypted exam
// blobs, payment receipts, QR logos) that the portal's object storage builds
// on: the Store interface, the information kept about a blob (Info), the
// rules of keys (ValidKey) and the errors every implementation reports.
//
// Blobs are content-addressed by their callers: a key names one sequence of
// bytes for ever, so a blob is written once and never changed, only deleted
// (by a garbage collection of blobs that nothing references any more and that
// are older than a retention period, which List's LastModified serves).
//
// Implementations: blobstore/s3 (S3-compatible object storage), and the
// portal's own stores, (*bolt.Store).Blobs and (*postgres.Store).Blobs.
// Every implementation passes the conformance suite blobstore/blobstoretest.
package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"time"
)

// Store keeps immutable blobs by key. Its methods are safe for concurrent
// use. Errors wrap one of this package's sentinel errors where one applies
// (errors.Is), and the cause.
type Store interface {
	// Put stores the size bytes read from r under key. r is streamed, never
	// held whole in memory. A put either completes or leaves nothing visible,
	// never part of a blob: when r fails or yields fewer or more than size
	// bytes (ErrSizeMismatch), no blob appears under key and an existing one
	// stays. When ctx ends or the store fails, Put returns an error and key
	// holds what it held before, or the whole blob when the failure came
	// after the store had every byte (as after a timeout of any write; a
	// later Put of the same bytes is harmless). Keys are content addresses:
	// callers only ever put the same bytes under one key, so a Put of a key
	// stored already may keep the stored blob without reading r.
	Put(ctx context.Context, key string, r io.Reader, size int64) error

	// Open opens the whole blob of key for reading; the reader yields
	// Info.Size bytes and must be closed. ErrNotFound when there is none.
	Open(ctx context.Context, key string) (io.ReadCloser, Info, error)

	// OpenRange opens length bytes of the blob of key from offset, fewer when
	// the blob ends first; a length of -1 reads to the end. Info describes
	// the whole blob (its Size is the blob's, for a Content-Range). An offset
	// at or past the end (any offset of an empty blob), a negative offset or
	// a length of 0 or below -1 is ErrInvalidRange.
	OpenRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, Info, error)

	// Stat returns the information kept about the blob of key; ErrNotFound
	// when there is none.
	Stat(ctx context.Context, key string) (Info, error)

	// Delete removes the blob of key. Deleting a key that has no blob is not
	// an error (a garbage collection that ran twice).
	Delete(ctx context.Context, key string) error

	// List yields every blob whose key starts with prefix ("" for all), in
	// byte-wise order of keys, reading the store page by page as the loop
	// goes. An error ends the sequence: it is yielded once, with a zero Info.
	List(ctx context.Context, prefix string) iter.Seq2[Info, error]

	// Ping checks that the store can be used: it is reachable, accepts the
	// credentials and its bucket (or table) exists.
	Ping(ctx context.Context) error
}

// Info is what a store keeps about a blob.
type Info struct {
	// Key is the blob's key.
	Key string
	// Size is the length of the whole blob in bytes.
	Size int64
	// ETag is an opaque validator of the blob's bytes given by the store,
	// without quotes; the same for every read of one stored blob.
	ETag string
	// LastModified is when the blob was stored, in UTC, to the second or
	// finer.
	LastModified time.Time
}

// The errors of a Store, for errors.Is.
var (
	// ErrNotFound: no blob is stored under the key.
	ErrNotFound = errors.New("blobstore: blob not found")
	// ErrUnavailable: the store cannot be reached now, or failed on its
	// side (a refused connection, a timeout, an HTTP 5xx, a connection cut
	// during a read). Retrying later may succeed; the portal answers 503
	// with Retry-After.
	ErrUnavailable = errors.New("blobstore: store unavailable")
	// ErrAccessDenied: the store refused the credentials (an unknown access
	// key, a wrong secret) or does not allow the operation with them.
	ErrAccessDenied = errors.New("blobstore: access denied (wrong credentials or no permission)")
	// ErrNoBucket: the store's bucket (or table) does not exist.
	ErrNoBucket = errors.New("blobstore: bucket does not exist")
	// ErrInvalidRange: OpenRange's offset and length select no byte of the
	// blob.
	ErrInvalidRange = errors.New("blobstore: range not satisfiable")
	// ErrSizeMismatch: Put's reader yielded fewer or more bytes than its
	// size.
	ErrSizeMismatch = errors.New("blobstore: blob size mismatch")
	// ErrInvalidKey: the key breaks the rules of ValidKey.
	ErrInvalidKey = errors.New("blobstore: invalid key")
)

// The longest key and the longest of its "/"-separated segments (a file
// name), in bytes.
const (
	MaxKeyLen     = 512
	MaxSegmentLen = 255
)

// ValidKey reports whether key may name a blob, wrapping ErrInvalidKey when it
// may not. A key is 1 to MaxKeyLen bytes of ASCII letters, digits and
// "-._/", made of "/"-separated segments that are neither empty nor "." or
// "..": the same key is a valid name in every store (an S3 object name, a
// bbolt key, a file path).
func ValidKey(key string) error {
	if key == "" || len(key) > MaxKeyLen {
		return fmt.Errorf("%w: %q: length %d, want 1 to %d bytes", ErrInvalidKey, key, len(key), MaxKeyLen)
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '/'
		if !ok {
			return fmt.Errorf("%w: %q: byte %#02x at %d (allowed: ASCII letters, digits and -._/)", ErrInvalidKey, key, c, i)
		}
	}
	for seg := range strings.SplitSeq(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("%w: %q: empty, \".\" or \"..\" segment", ErrInvalidKey, key)
		}
		if len(seg) > MaxSegmentLen {
			return fmt.Errorf("%w: %q: a segment of %d bytes, want at most %d", ErrInvalidKey, key, len(seg), MaxSegmentLen)
		}
	}
	return nil
}

// CheckRange checks OpenRange's offset and length against a blob of size
// bytes and returns the length to read (length, or what is left of the blob
// when it ends first); the error wraps ErrInvalidRange.
func CheckRange(size, offset, length int64) (int64, error) {
	if offset < 0 || length == 0 || length < -1 {
		return 0, fmt.Errorf("%w: offset %d, length %d", ErrInvalidRange, offset, length)
	}
	if offset >= size {
		return 0, fmt.Errorf("%w: offset %d of a blob of %d bytes", ErrInvalidRange, offset, size)
	}
	if length == -1 || length > size-offset {
		length = size - offset
	}
	return length, nil
}

// ExactReader returns a reader of r that yields r's bytes as long as they
// are exactly size: when r ends before size bytes, or has a byte after them,
// its Read returns an error wrapping ErrSizeMismatch instead of the last
// bytes' io.EOF (it reads one byte ahead of size to tell). A store passes
// Put's reader through it, so that a wrong size fails the put before the
// blob is complete.
func ExactReader(r io.Reader, size int64) io.Reader {
	return &exactReader{r: r, left: size, size: size}
}

type exactReader struct {
	r    io.Reader
	left int64 // bytes of size not yet read
	size int64
	err  error // sticky
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	if e.left == 0 {
		// Everything was read: the next read must find the end.
		var one [1]byte
		n, err := io.ReadFull(e.r, one[:])
		switch {
		case n > 0:
			e.err = fmt.Errorf("%w: the reader has more than %d bytes", ErrSizeMismatch, e.size)
		case err == io.EOF:
			e.err = io.EOF
		default:
			e.err = err
		}
		return 0, e.err
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if e.left == 0 && n > 0 {
		// The last bytes: look for one more before handing them over, so
		// that a reader with too many bytes fails before they are used.
		var one [1]byte
		m, perr := io.ReadFull(e.r, one[:])
		switch {
		case m > 0:
			e.err = fmt.Errorf("%w: the reader has more than %d bytes", ErrSizeMismatch, e.size)
			return 0, e.err
		case perr != io.EOF:
			e.err = perr
			return 0, e.err
		}
		e.err = io.EOF
		return n, nil
	}
	if err == io.EOF {
		e.err = fmt.Errorf("%w: the reader ended after %d of %d bytes: %w", ErrSizeMismatch, e.size-e.left, e.size, io.ErrUnexpectedEOF)
		return n, e.err
	}
	if err != nil {
		e.err = err
	}
	return n, err
}
