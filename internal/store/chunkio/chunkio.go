// Package chunkio reads blobs that a store keeps in fixed-size chunks (one
// row or key per chunk) as an io.ReadSeekCloser that loads one chunk at a
// time, so that a blob of any size is served with one chunk in memory.
package chunkio

import (
	"errors"
	"fmt"
	"io"
	"sync"
)

// Fetch loads chunk seq of a blob into buf (reusing its capacity) and
// returns it.
type Fetch func(seq int64, buf []byte) ([]byte, error)

// Reader is a lazy io.ReadSeekCloser over the chunks of a blob of Size
// bytes, each ChunkSize bytes but the last. It is safe for concurrent use,
// though reads from several goroutines interleave.
type Reader struct {
	size      int64
	chunkSize int64
	fetch     Fetch

	mu     sync.Mutex
	off    int64
	chunk  int64  // seq of the chunk in buf, -1 when none
	buf    []byte // the current chunk
	closed bool
}

// NewReader returns a Reader of a blob of size bytes stored in chunks of
// chunkSize bytes, loaded by fetch.
func NewReader(size, chunkSize int64, fetch Fetch) *Reader {
	return &Reader{size: size, chunkSize: chunkSize, fetch: fetch, chunk: -1}
}

// Read implements io.Reader.
func (r *Reader) Read(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, errors.New("chunkio: read after close")
	}
	if r.off >= r.size {
		return 0, io.EOF
	}
	if len(b) == 0 {
		return 0, nil
	}
	seq := r.off / r.chunkSize
	if seq != r.chunk {
		r.chunk = -1
		buf, err := r.fetch(seq, r.buf[:0])
		if err != nil {
			return 0, fmt.Errorf("chunk %d: %w", seq, err)
		}
		if want := min(r.size-seq*r.chunkSize, r.chunkSize); int64(len(buf)) != want {
			return 0, fmt.Errorf("chunk %d has %d bytes, want %d", seq, len(buf), want)
		}
		r.buf, r.chunk = buf, seq
	}
	n := copy(b, r.buf[r.off-seq*r.chunkSize:])
	r.off += int64(n)
	return n, nil
}

// Seek implements io.Seeker. Seeking past the end is allowed; reads there
// return io.EOF.
func (r *Reader) Seek(offset int64, whence int) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = r.off + offset
	case io.SeekEnd:
		abs = r.size + offset
	default:
		return 0, errors.New("chunkio: invalid whence")
	}
	if abs < 0 {
		return 0, errors.New("chunkio: negative position")
	}
	r.off = abs
	return abs, nil
}

// Close releases the chunk buffer; later reads fail.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed, r.buf = true, nil
	return nil
}
