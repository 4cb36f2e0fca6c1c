package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Reader reads one stored blob as an io.ReadSeeker, for http.ServeContent's
// Range answers: a Seek costs nothing, and the next Read opens the blob
// from there (OpenRange), so a range request reads only its bytes from the
// store. Get one with NewReader; close it.
type Reader struct {
	ctx  context.Context
	st   Store
	info Info
	off  int64
	rc   io.ReadCloser // open at off, or nil
}

// NewReader returns a Reader of the blob info describes (from Stat) in st.
// Reads use ctx.
func NewReader(ctx context.Context, st Store, info Info) *Reader {
	return &Reader{ctx: ctx, st: st, info: info}
}

// Read implements io.Reader. A blob shorter than its Info is an error
// wrapping ErrUnavailable (the store changed under the read), never a
// silent end.
func (r *Reader) Read(p []byte) (int, error) {
	if r.off >= r.info.Size {
		return 0, io.EOF
	}
	if r.rc == nil {
		rc, _, err := r.st.OpenRange(r.ctx, r.info.Key, r.off, -1)
		if err != nil {
			return 0, err
		}
		r.rc = rc
	}
	n, err := r.rc.Read(p)
	r.off += int64(n)
	if errors.Is(err, io.EOF) && r.off < r.info.Size {
		return n, fmt.Errorf("%w: blob %s ended at %d of %d bytes", ErrUnavailable, r.info.Key, r.off, r.info.Size)
	}
	if errors.Is(err, io.EOF) {
		err = nil
		if n == 0 {
			err = io.EOF
		}
	}
	return n, err
}

// Seek implements io.Seeker.
func (r *Reader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += r.info.Size
	default:
		return 0, fmt.Errorf("blobstore: seek: invalid whence %d", whence)
	}
	if offset < 0 {
		return 0, fmt.Errorf("blobstore: seek to %d: negative position", offset)
	}
	if offset != r.off && r.rc != nil {
		r.rc.Close()
		r.rc = nil
	}
	r.off = offset
	return offset, nil
}

// Close implements io.Closer.
func (r *Reader) Close() error {
	if r.rc == nil {
		return nil
	}
	err := r.rc.Close()
	r.rc = nil
	return err
}
