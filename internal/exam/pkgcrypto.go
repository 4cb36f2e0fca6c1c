package exam

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The AES-256-GCM-STREAM package format (docs/api/exam.md, "Package
// encryption"):
//
//	header (16 bytes): "EXPK" | version 0x01 | log2 chunk size 0x10 | 0x00 0x00 | nonce prefix (8)
//	chunks:            AES-256-GCM(plaintext chunk) with its 16-byte tag
//
// Every plaintext chunk holds 64 KiB except the final one, which holds the
// rest: fewer bytes, possibly none (an empty package, or one whose size is an
// exact multiple of 64 KiB, ends with an empty final chunk). Chunk i is sealed
// with nonce = prefix ‖ uint32 BE i and additional data = the header, plus one
// 0x01 byte for the final chunk, so that reordering, truncation and extension
// are all detected.
const (
	// PackageKeySize is the size in bytes of a package key (AES-256).
	PackageKeySize = 32

	packageMagic       = "EXPK"
	packageVersion     = 0x01
	packageChunkLog2   = 16
	packageChunkSize   = 1 << packageChunkLog2 // plaintext bytes per chunk
	packageHeaderSize  = 16
	packageTagSize     = 16
	packageSealedChunk = packageChunkSize + packageTagSize // bytes of a full sealed chunk
)

// ErrPackageCorrupt is returned (wrapped) by the package decrypter when the
// encrypted bytes are not a well-formed AES-256-GCM-STREAM package under the
// given key: a bad header, a chunk that does not authenticate (tampering or a
// wrong key), truncation, or trailing data.
var ErrPackageCorrupt = errors.New("exam: encrypted package is corrupt, truncated or under another key")

// newPackageAEAD returns AES-256-GCM for key.
func newPackageAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != PackageKeySize {
		return nil, fmt.Errorf("exam: package key is %d bytes, want %d", len(key), PackageKeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// packageAAD returns the additional data of a chunk: the header, plus 0x01
// for the final chunk. buf must have room for packageHeaderSize+1 bytes.
func packageAAD(buf *[packageHeaderSize + 1]byte, final bool) []byte {
	if final {
		buf[packageHeaderSize] = 0x01
		return buf[:]
	}
	return buf[:packageHeaderSize]
}

// chunkNonce writes the nonce of chunk index into nonce.
func chunkNonce(nonce *[12]byte, index uint32) []byte {
	binary.BigEndian.PutUint32(nonce[8:], index)
	return nonce[:]
}

// packageEncrypter is the io.WriteCloser of NewPackageEncrypter.
type packageEncrypter struct {
	w             io.Writer
	aead          cipher.AEAD
	aad           [packageHeaderSize + 1]byte // header, then the final marker
	nonce         [12]byte
	buf           []byte // pending plaintext, len <= packageChunkSize, cap packageSealedChunk
	index         uint32 // index of the next chunk
	headerWritten bool
	closed        bool
	err           error // sticky
}

// NewPackageEncrypter returns a writer that encrypts everything written to it
// into w in the AES-256-GCM-STREAM format; Close writes the final chunk (it
// does not close w). Nothing is written to w until a full chunk or Close.
//
// key must be PackageKeySize bytes. A (key, noncePrefix) pair must never be
// used for two different plaintexts: derive the prefix from the plaintext (as
// a keyed hash of it) or draw it at random. Memory use is one chunk (64 KiB)
// whatever the size of the package.
func NewPackageEncrypter(w io.Writer, key []byte, noncePrefix [8]byte) (io.WriteCloser, error) {
	aead, err := newPackageAEAD(key)
	if err != nil {
		return nil, err
	}
	e := &packageEncrypter{w: w, aead: aead, buf: make([]byte, 0, packageSealedChunk)}
	copy(e.aad[0:4], packageMagic)
	e.aad[4] = packageVersion
	e.aad[5] = packageChunkLog2
	copy(e.aad[8:16], noncePrefix[:])
	copy(e.nonce[:8], noncePrefix[:])
	return e, nil
}

// Write encrypts p. Full chunks are sealed and written as soon as they are
// complete; the rest waits for more data or Close.
func (e *packageEncrypter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	if e.closed {
		return 0, errors.New("exam: write to a closed package encrypter")
	}
	n := 0
	for len(p) > 0 {
		k := min(len(p), packageChunkSize-len(e.buf))
		e.buf = append(e.buf, p[:k]...)
		p, n = p[k:], n+k
		if len(e.buf) == packageChunkSize {
			if err := e.seal(false); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// Close seals and writes the final chunk (empty when the plaintext size is a
// multiple of the chunk size). It does not close the underlying writer.
// Calling Close again returns the error of the first call.
func (e *packageEncrypter) Close() error {
	if e.closed || e.err != nil {
		return e.err
	}
	e.closed = true
	return e.seal(true)
}

// seal encrypts the pending plaintext as chunk e.index, in place, and writes it.
func (e *packageEncrypter) seal(final bool) error {
	if !final && e.index == math.MaxUint32 {
		// The final chunk would need index 2^32, which the nonce cannot hold.
		e.err = errors.New("exam: package too large for AES-256-GCM-STREAM")
		return e.err
	}
	if !e.headerWritten {
		if _, err := e.w.Write(e.aad[:packageHeaderSize]); err != nil {
			e.err = err
			return err
		}
		e.headerWritten = true
	}
	sealed := e.aead.Seal(e.buf[:0], chunkNonce(&e.nonce, e.index), e.buf, packageAAD(&e.aad, final))
	if _, err := e.w.Write(sealed); err != nil {
		e.err = err
		return err
	}
	e.index++
	e.buf = e.buf[:0]
	return nil
}

// packageDecrypter is the io.Reader of NewPackageDecrypter.
type packageDecrypter struct {
	r       io.Reader
	aead    cipher.AEAD
	aad     [packageHeaderSize + 1]byte
	nonce   [12]byte
	buf     []byte // sealed chunk + 1 byte of look-ahead; plaintext is opened in place
	plain   []byte // unread plaintext of the current chunk (a slice of buf)
	ahead   byte   // the look-ahead byte: the first byte of the next chunk
	hasNext bool   // ahead is valid
	index   uint32 // index of the next chunk
	done    bool   // the final chunk has been opened
	err     error  // sticky
}

// NewPackageDecrypter reads and checks the header from r and returns a reader
// of the plaintext. Reads return an error wrapping ErrPackageCorrupt on
// tampering, truncation, trailing data or a wrong key; I/O errors of r are
// returned as they are. io.EOF is returned only after the final chunk has
// authenticated.
//
// Plaintext is released one authenticated chunk at a time, so an error can
// come after some plaintext has been read: do not act on the package before
// reading it to io.EOF. Memory use is one chunk (64 KiB) whatever the size of
// the package. The decrypter accepts a final chunk of a full 64 KiB too,
// although NewPackageEncrypter never writes one.
func NewPackageDecrypter(r io.Reader, key []byte) (io.Reader, error) {
	aead, err := newPackageAEAD(key)
	if err != nil {
		return nil, err
	}
	d := &packageDecrypter{r: r, aead: aead}
	if _, err := io.ReadFull(r, d.aad[:packageHeaderSize]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("%w: header truncated", ErrPackageCorrupt)
		}
		return nil, err
	}
	h := d.aad[:packageHeaderSize]
	switch {
	case string(h[0:4]) != packageMagic:
		return nil, fmt.Errorf("%w: not an encrypted package (bad magic)", ErrPackageCorrupt)
	case h[4] != packageVersion:
		return nil, fmt.Errorf("%w: unsupported format version %d", ErrPackageCorrupt, h[4])
	case h[5] != packageChunkLog2:
		return nil, fmt.Errorf("%w: unsupported chunk size 2^%d", ErrPackageCorrupt, h[5])
	case h[6] != 0 || h[7] != 0:
		return nil, fmt.Errorf("%w: reserved header bytes are not zero", ErrPackageCorrupt)
	}
	copy(d.nonce[:8], h[8:16])
	d.buf = make([]byte, packageSealedChunk+1)
	return d, nil
}

// Read implements io.Reader.
func (d *packageDecrypter) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for len(d.plain) == 0 {
		if d.err != nil {
			return 0, d.err
		}
		if d.done {
			return 0, io.EOF
		}
		if err := d.next(); err != nil {
			d.err = err
			return 0, err
		}
	}
	n := copy(p, d.plain)
	d.plain = d.plain[n:]
	return n, nil
}

// next reads and opens the next chunk. A chunk is final when the stream ends
// within it: it reads one sealed chunk plus one byte, and only a successful
// look-ahead byte makes the chunk non-final.
func (d *packageDecrypter) next() error {
	n := 0
	if d.hasNext {
		d.buf[0] = d.ahead
		n = 1
	}
	m, err := io.ReadFull(d.r, d.buf[n:])
	n += m
	final := false
	switch {
	case err == nil:
		// A full sealed chunk and the first byte of the next one.
		d.ahead, d.hasNext = d.buf[packageSealedChunk], true
		n = packageSealedChunk
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		final, d.hasNext = true, false
	default:
		return err
	}
	if n < packageTagSize {
		if d.index == 0 && n == 0 {
			return fmt.Errorf("%w: no chunks after the header", ErrPackageCorrupt)
		}
		return fmt.Errorf("%w: truncated at chunk %d", ErrPackageCorrupt, d.index)
	}
	if !final && d.index == math.MaxUint32 {
		return fmt.Errorf("%w: too many chunks", ErrPackageCorrupt)
	}
	plain, err := d.aead.Open(d.buf[:0], chunkNonce(&d.nonce, d.index), d.buf[:n], packageAAD(&d.aad, final))
	if err != nil {
		// A non-final chunk opened as final (or the reverse) fails here too:
		// that is truncation at a chunk boundary, or data appended after the
		// final chunk.
		return fmt.Errorf("%w: chunk %d does not authenticate", ErrPackageCorrupt, d.index)
	}
	d.plain = plain
	d.index++
	d.done = final
	return nil
}
