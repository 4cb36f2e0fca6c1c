package labwire

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
	packageNonceSize   = 12

	// The decrypter reads chunk sizes from 1 KiB to 1 MiB (the encrypter
	// writes 64 KiB): the upper bound bounds its memory.
	packageMinChunkLog2 = 10
	packageMaxChunkLog2 = 20
)

// PackageEncryption names the AES-256-GCM-STREAM format, as the
// "encryption" field of a pull and of an answer export file says it.
const PackageEncryption = "AES-256-GCM-STREAM"

// Errors of the package decrypter, compared with errors.Is. Each of
// ErrPackageFormat, ErrPackageCorrupt and ErrPackageTruncated also matches
// ErrPackageInvalid, for a caller that refuses them alike.
var (
	// ErrPackageInvalid: the bytes are not a whole, authentic
	// AES-256-GCM-STREAM package under the key.
	ErrPackageInvalid = errors.New("labwire: encrypted package is corrupt, truncated or under another key")
	// ErrPackageFormat: the stream does not start with an
	// AES-256-GCM-STREAM header this package reads.
	ErrPackageFormat = fmt.Errorf("%w: not an AES-256-GCM-STREAM package", ErrPackageInvalid)
	// ErrPackageCorrupt: a chunk failed authentication: a wrong key, or
	// bytes changed or cut inside a chunk.
	ErrPackageCorrupt = fmt.Errorf("%w: package failed authentication (wrong key, or tampered or cut data)", ErrPackageInvalid)
	// ErrPackageTruncated: the stream ends before its last chunk (it was
	// cut on a chunk boundary, or within the header).
	ErrPackageTruncated = fmt.Errorf("%w: package is truncated", ErrPackageInvalid)
)

// newPackageAEAD returns AES-256-GCM for key.
func newPackageAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != PackageKeySize {
		return nil, fmt.Errorf("labwire: package key is %d bytes, want %d", len(key), PackageKeySize)
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
		return 0, errors.New("labwire: write to a closed package encrypter")
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
		e.err = errors.New("labwire: package too large for AES-256-GCM-STREAM")
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

// PackageDecrypter is a reader of the plaintext of an AES-256-GCM-STREAM
// package; see NewPackageDecrypter.
type PackageDecrypter struct {
	r    io.Reader
	aead cipher.AEAD

	header   [packageHeaderSize]byte
	aadFinal [packageHeaderSize + 1]byte // header | 0x01
	nonce    [packageNonceSize]byte
	ctSize   int    // sealed chunk size: plaintext chunk + tag
	buf      []byte // one sealed chunk and one byte of look-ahead
	carry    int    // look-ahead bytes already at the start of buf (0 or 1)
	plain    []byte // backing array of out
	out      []byte // plaintext not yet read
	index    uint64 // index of the next chunk

	started bool
	done    bool  // the last chunk has been opened
	err     error // sticky
}

// NewPackageDecrypter returns a reader of the plaintext of the
// AES-256-GCM-STREAM package read from r, under the PackageKeySize-byte key
// (a school's package key, or a blob's content key). It reads nothing
// before the first Read, reads r one chunk ahead, returns only authenticated
// plaintext, and ends with io.EOF only after the last chunk (the one sealed
// with the final marker) has been authenticated, so that a cut or altered
// package is an error (ErrPackageTruncated, ErrPackageCorrupt,
// ErrPackageFormat, all matching ErrPackageInvalid), never a shorter
// plaintext. Errors of r are returned wrapped.
//
// Plaintext is released one authenticated chunk at a time, so an error can
// come after some plaintext has been read: do not act on the package before
// reading it to io.EOF. Memory use is one chunk whatever the size of the
// package. The decrypter accepts a final chunk of a full chunk size too,
// although NewPackageEncrypter never writes one.
func NewPackageDecrypter(r io.Reader, key []byte) (*PackageDecrypter, error) {
	if r == nil {
		return nil, errors.New("labwire: package decrypter: nil reader")
	}
	aead, err := newPackageAEAD(key)
	if err != nil {
		return nil, err
	}
	return &PackageDecrypter{r: r, aead: aead}, nil
}

// Read implements io.Reader.
func (d *PackageDecrypter) Read(p []byte) (int, error) {
	for len(d.out) == 0 {
		if d.err != nil {
			return 0, d.err
		}
		if d.done {
			return 0, io.EOF
		}
		if len(p) == 0 {
			return 0, nil
		}
		if err := d.next(); err != nil {
			d.err = err
		}
	}
	n := copy(p, d.out)
	d.out = d.out[n:]
	return n, nil
}

// readHeader reads and checks the 16-byte header.
func (d *PackageDecrypter) readHeader() error {
	n, err := io.ReadFull(d.r, d.header[:])
	switch {
	case err == nil:
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		if n >= len(packageMagic) && string(d.header[:len(packageMagic)]) != packageMagic {
			return fmt.Errorf("%w: bad magic", ErrPackageFormat)
		}
		return fmt.Errorf("%w: %d of the %d header bytes", ErrPackageTruncated, n, packageHeaderSize)
	default:
		return fmt.Errorf("labwire: read package: %w", err)
	}
	h := d.header
	switch {
	case string(h[:4]) != packageMagic:
		return fmt.Errorf("%w: bad magic %q", ErrPackageFormat, h[:4])
	case h[4] != packageVersion:
		return fmt.Errorf("%w: format version %d, want %d", ErrPackageFormat, h[4], packageVersion)
	case h[5] < packageMinChunkLog2 || h[5] > packageMaxChunkLog2:
		return fmt.Errorf("%w: chunk size 2^%d out of range", ErrPackageFormat, h[5])
	case h[6] != 0 || h[7] != 0:
		return fmt.Errorf("%w: reserved header bytes are not zero", ErrPackageFormat)
	}
	copy(d.aadFinal[:], h[:])
	d.aadFinal[packageHeaderSize] = 0x01
	copy(d.nonce[:8], h[8:16])
	d.ctSize = 1<<h[5] + packageTagSize
	d.buf = make([]byte, d.ctSize+1)
	d.plain = make([]byte, 0, 1<<h[5])
	return nil
}

// next opens the next chunk into d.out. A chunk is final when the stream
// ends within it: it reads one sealed chunk plus one byte, and only a
// successful look-ahead byte makes the chunk non-final.
func (d *PackageDecrypter) next() error {
	if !d.started {
		d.started = true
		if err := d.readHeader(); err != nil {
			return err
		}
	}
	n, err := io.ReadFull(d.r, d.buf[d.carry:])
	total := d.carry + n
	final := false
	switch {
	case err == nil: // a whole chunk and one more byte: not the last
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		final = true
	default:
		return fmt.Errorf("labwire: read package: %w", err)
	}
	if final && total == 0 {
		if d.index == 0 {
			return fmt.Errorf("%w: no chunk after the header", ErrPackageTruncated)
		}
		return fmt.Errorf("%w: ends after chunk %d, which is not the last", ErrPackageTruncated, d.index-1)
	}
	if total < packageTagSize {
		return fmt.Errorf("%w: chunk %d has %d bytes, less than a tag", ErrPackageTruncated, d.index, total)
	}
	if d.index > math.MaxUint32 {
		return fmt.Errorf("%w: more than 2^32 chunks", ErrPackageFormat)
	}
	binary.BigEndian.PutUint32(d.nonce[8:], uint32(d.index))

	sealed := d.buf[:min(total, d.ctSize)]
	aad := d.header[:]
	if final {
		aad = d.aadFinal[:]
	}
	plain, err := d.aead.Open(d.plain[:0], d.nonce[:], sealed, aad)
	if err != nil {
		// A whole chunk that opens as a middle chunk means the stream was
		// cut right after it.
		if final && total == d.ctSize {
			if _, err2 := d.aead.Open(d.plain[:0], d.nonce[:], sealed, d.header[:]); err2 == nil {
				return fmt.Errorf("%w: ends after chunk %d, which is not the last", ErrPackageTruncated, d.index)
			}
		}
		return fmt.Errorf("%w: chunk %d", ErrPackageCorrupt, d.index)
	}
	d.out = plain
	d.index++
	if final {
		d.done = true
		d.carry = 0
	} else {
		d.buf[0] = d.buf[d.ctSize]
		d.carry = 1
	}
	return nil
}
