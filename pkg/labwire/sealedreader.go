package labwire

import (
	"crypto/cipher"
	"errors"
	"fmt"
	"io"
	"sync"
)

// SealedSize is the size in the AES-256-GCM-STREAM format of a plaintext of
// n bytes: the header, and a tag per chunk (the final chunk holds what is
// left after the full ones, possibly nothing).
func SealedSize(n int64) int64 {
	chunks := n/packageChunkSize + 1
	return packageHeaderSize + n + chunks*packageTagSize
}

// SealedReader reads the AES-256-GCM-STREAM encryption of a plaintext,
// sealing one chunk at a time as it is read, from any offset: the bytes are
// those NewPackageEncrypter writes for the same key and prefix. It serves
// ranges of a large file encrypted on the fly without holding it.
type SealedReader struct {
	plain     io.ReadSeekCloser
	plainSize int64
	size      int64
	aead      cipher.AEAD
	aad       [packageHeaderSize + 1]byte
	nonce     [12]byte
	chunks    int64

	mu     sync.Mutex
	off    int64
	index  int64  // index of the chunk in sealed, -1 when none
	sealed []byte // the sealed chunk index
}

// NewSealedReader returns a reader of the encryption under key and
// prefix (as NewPackageEncrypter's) of the plainSize bytes of plain.
// Closing it closes plain.
func NewSealedReader(plain io.ReadSeekCloser, plainSize int64, key []byte, prefix [8]byte) (*SealedReader, error) {
	aead, err := newPackageAEAD(key)
	if err != nil {
		return nil, err
	}
	r := &SealedReader{plain: plain, plainSize: plainSize, size: SealedSize(plainSize), aead: aead,
		chunks: plainSize/packageChunkSize + 1, index: -1}
	copy(r.aad[0:4], packageMagic)
	r.aad[4] = packageVersion
	r.aad[5] = packageChunkLog2
	copy(r.aad[8:16], prefix[:])
	copy(r.nonce[:8], prefix[:])
	return r, nil
}

// Read implements io.Reader.
func (r *SealedReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.off >= r.size {
		return 0, io.EOF
	}
	if r.off < packageHeaderSize {
		n := copy(p, r.aad[r.off:packageHeaderSize])
		r.off += int64(n)
		return n, nil
	}
	i := (r.off - packageHeaderSize) / packageSealedChunk
	if i != r.index {
		if err := r.seal(i); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.sealed[r.off-packageHeaderSize-i*packageSealedChunk:])
	r.off += int64(n)
	return n, nil
}

// seal reads plaintext chunk i and seals it into r.sealed.
func (r *SealedReader) seal(i int64) error {
	r.index = -1
	start := i * packageChunkSize
	n := min(r.plainSize-start, packageChunkSize)
	if cap(r.sealed) < packageSealedChunk {
		r.sealed = make([]byte, packageSealedChunk)
	}
	buf := r.sealed[:n]
	if _, err := r.plain.Seek(start, io.SeekStart); err != nil {
		return fmt.Errorf("seal media chunk %d: %w", i, err)
	}
	if _, err := io.ReadFull(r.plain, buf); err != nil {
		return fmt.Errorf("seal media chunk %d: %w", i, err)
	}
	r.sealed = r.aead.Seal(buf[:0], chunkNonce(&r.nonce, uint32(i)), buf, packageAAD(&r.aad, i == r.chunks-1))
	r.index = i
	return nil
}

// Seek implements io.Seeker.
func (r *SealedReader) Seek(offset int64, whence int) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += r.size
	default:
		return 0, errors.New("sealed media: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("sealed media: negative position")
	}
	r.off = offset
	return offset, nil
}

// Close closes the plaintext reader.
func (r *SealedReader) Close() error { return r.plain.Close() }
