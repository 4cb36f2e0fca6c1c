package client

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// PackageEncryption names the package format of this file, as the
// "encryption" field of a pull says it.
const PackageEncryption = "AES-256-GCM-STREAM"

// The AES-256-GCM-STREAM format (docs/api/exam.md, "Package encryption"):
//
//	header (16 bytes): "EXPK" | version 0x01 | log2 chunk size 0x10 | 0x00 0x00 | nonce prefix (8)
//	chunks:            AES-256-GCM(plaintext chunk of 64 KiB, the last shorter or empty) with a 16-byte tag
//	nonce of chunk i:  nonce prefix (8) | uint32 big-endian i
//	additional data:   the header; the header followed by 0x01 for the last chunk
const (
	packageMagic         = "EXPK"
	packageVersion       = 1
	packageHeaderSize    = 16
	packageTagSize       = 16
	packageNonceSize     = 12
	packageKeySize       = 32
	packageMinChunkShift = 10 // 1 KiB; the portal writes 16 (64 KiB)
	packageMaxChunkShift = 20 // 1 MiB: bounds the decrypter's memory
)

// Errors of NewPackageDecrypter's reader, compared with errors.Is.
var (
	// ErrPackageFormat: the stream does not start with an
	// AES-256-GCM-STREAM header this client reads.
	ErrPackageFormat = errors.New("client: not an AES-256-GCM-STREAM package")
	// ErrPackageCorrupt: a chunk failed authentication: a wrong key, or
	// bytes changed or cut inside a chunk.
	ErrPackageCorrupt = errors.New("client: package failed authentication (wrong key, or tampered or cut data)")
	// ErrPackageTruncated: the stream ends before its last chunk (it was
	// cut on a chunk boundary, or within the header).
	ErrPackageTruncated = errors.New("client: package is truncated")
)

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
// AES-256-GCM-STREAM package read from r, with the school's 32-byte package
// key (Verification.PackageKey). It reads r one chunk ahead, returns only
// authenticated plaintext, and ends with io.EOF only after the last chunk
// (the one sealed with the final marker) has been authenticated, so that a
// cut or altered package is an error (ErrPackageTruncated,
// ErrPackageCorrupt, ErrPackageFormat), never a shorter plaintext. Errors
// of r are returned as they are, wrapped.
func NewPackageDecrypter(key []byte, r io.Reader) (*PackageDecrypter, error) {
	if len(key) != packageKeySize {
		return nil, fmt.Errorf("client: package key has %d bytes, want %d (AES-256)", len(key), packageKeySize)
	}
	if r == nil {
		return nil, errors.New("client: package decrypter: nil reader")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("client: package key: %w", err)
	}
	aead, err := cipher.NewGCM(block) // 12-byte nonce, 16-byte tag
	if err != nil {
		return nil, fmt.Errorf("client: package key: %w", err)
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
		return fmt.Errorf("client: read package: %w", err)
	}
	h := d.header
	switch {
	case string(h[:4]) != packageMagic:
		return fmt.Errorf("%w: bad magic %q", ErrPackageFormat, h[:4])
	case h[4] != packageVersion:
		return fmt.Errorf("%w: format version %d, want %d", ErrPackageFormat, h[4], packageVersion)
	case h[5] < packageMinChunkShift || h[5] > packageMaxChunkShift:
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

// next opens the next chunk into d.out.
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
		return fmt.Errorf("client: read package: %w", err)
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

// Package is the decrypted content of an exam package. Answer keys never
// appear in it.
type Package struct {
	// Format is the content format: 1, or 2 when a question has rich
	// content (PackageQuestion.HTML), or 3 when media are blobs
	// (PackageMedia.Blob), for a client that names 3 in PackageFormats, or
	// 4: format 3 with Numeric or Cloze questions.
	Format      int              `json:"format"`
	NPSN        string           `json:"npsn"`
	SchoolName  string           `json:"school_name"`
	GeneratedAt time.Time        `json:"generated_at"`
	Students    []PackageStudent `json:"students"`
	Exams       []PackageExam    `json:"exams"`

	// Version is the lowercase hex SHA-256 of the plaintext, computed by
	// DecodePackage: compare it with EncryptedPackage.Version.
	Version string `json:"-"`
}

// PackageStudent is a student as a package ships it.
type PackageStudent struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Nama     string `json:"nama"`
	Kelas    string `json:"kelas"`
	NISN     string `json:"nisn"`
	// PasswordHash is
	// "pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>" of the student's
	// exam password.
	PasswordHash string `json:"password_hash"`
}

// PackageExam is an exam as a package ships it.
type PackageExam struct {
	ID              string            `json:"id"`
	Title           string            `json:"title"`
	Subject         string            `json:"subject"`
	StartsAt        time.Time         `json:"starts_at"`
	EndsAt          time.Time         `json:"ends_at"`
	DurationMinutes int               `json:"duration_minutes"`
	Questions       []PackageQuestion `json:"questions"`
	// Stimuli are what groups of the questions share (format 2), each
	// with its HTML for a rich format.
	Stimuli []Stimulus `json:"stimuli,omitempty"`
	// Media lists the images and audio the exam's questions show (format
	// 2 and 3); fetch each with ExamSyncService.DownloadBlob when it has a
	// Blob, else with ExamSyncService.DownloadMedia.
	Media []PackageMedia `json:"media,omitempty"`
	// QuestionBlobs and StimulusBlobs replace Questions and Stimuli in a
	// package of format 3: each question and stimulus, in order, as a
	// blob; fetch each with ExamSyncService.DownloadBlob and open it with
	// OpenContentBlob into a PackageQuestion or a Stimulus.
	QuestionBlobs []PackageBlob `json:"question_blobs,omitempty"`
	StimulusBlobs []PackageBlob `json:"stimulus_blobs,omitempty"`
}

// ErrBlobMismatch: bytes given as a blob are not the blob named (their
// SHA-256 is not its name).
var ErrBlobMismatch = errors.New("client: the bytes are not the blob named")

// OpenContentBlob checks that sealed, the bytes of the blob b, are the
// blob named (ErrBlobMismatch), decrypts them with b's content key
// (ErrPackageCorrupt and the other errors of NewPackageDecrypter) and
// decodes the JSON plaintext into v: a *PackageQuestion for a question
// blob, a *Stimulus for a stimulus blob.
func OpenContentBlob(b PackageBlob, sealed []byte, v any) error {
	if sum := sha256.Sum256(sealed); hex.EncodeToString(sum[:]) != b.Name {
		return fmt.Errorf("%w: %s has SHA-256 %x", ErrBlobMismatch, b.Name, sum)
	}
	dec, err := NewPackageDecrypter(b.Key, bytes.NewReader(sealed))
	if err != nil {
		return err
	}
	plain, err := io.ReadAll(dec)
	if err != nil {
		return fmt.Errorf("client: open blob %s: %w", b.Name, err)
	}
	if err := json.Unmarshal(plain, v); err != nil {
		return fmt.Errorf("client: decode blob %s: %w", b.Name, err)
	}
	return nil
}

// PackageMedia is an image or audio file an exam shows, referred to in the
// questions' HTML as media/<SHA256>.
type PackageMedia struct {
	SHA256 string `json:"sha256"`
	// Type is the MIME type: image/png, image/jpeg, image/webp, audio/mpeg,
	// audio/ogg, audio/mp4 or audio/aac.
	Type string `json:"type"`
	// Kind is "image" or "audio".
	Kind string `json:"kind"`
	// Size is the size of the plaintext file.
	Size int64 `json:"size"`
	// Blob, in a package of format 3, is where the file is encrypted once
	// for every school, with its content key: fetch it with
	// ExamSyncService.DownloadBlob. Without it, fetch the file encrypted
	// for the school with ExamSyncService.DownloadMedia.
	Blob *PackageBlob `json:"blob,omitempty"`
}

// PackageBlob is content of a package of format 3 kept apart as a blob:
// sealed once for every school, in the AES-256-GCM-STREAM format under its
// own content key, so that the same bytes at the same URL serve every
// school and any HTTP cache can keep them.
type PackageBlob struct {
	// Name is the lowercase hex SHA-256 of the sealed bytes: check the
	// downloaded bytes against it before decrypting them.
	Name string `json:"name"`
	// Size is the size of the sealed bytes.
	Size int64 `json:"size"`
	// Key is the 32-byte content key that opens the blob (sent in standard
	// base64), for NewPackageDecrypter.
	Key []byte `json:"key"`
	// URL is where the blob is: relative to the portal's root URL (e.g.
	// "api/v1/blobs/<name>") or absolute.
	URL string `json:"url"`
}

// PackageQuestion is a question as a package ships it, without its answer.
type PackageQuestion struct {
	ID string `json:"id"`
	// Type is one of SingleChoice, MultipleChoice, TrueFalse, ShortAnswer,
	// Numeric, Essay, StatementGrid, Matching, Cloze.
	Type string `json:"type"`
	// Format is how the texts were written: "" (plain: show Text as text)
	// or "markdown" (format 2: show HTML).
	Format string `json:"format,omitempty"`
	Text   string `json:"text"`
	// HTML is Text rendered by the portal and sanitised against its
	// allow-list, for a question of a rich format.
	HTML    string           `json:"html,omitempty"`
	Options []QuestionOption `json:"options,omitempty"`
	// Statements and Columns are a StatementGrid's (format 2).
	Statements []QuestionOption `json:"statements,omitempty"`
	Columns    []QuestionOption `json:"columns,omitempty"`
	// Premises and Responses are a Matching question's (format 2);
	// ReuseResponses lets one response go with several premises.
	Premises       []QuestionOption `json:"premises,omitempty"`
	Responses      []QuestionOption `json:"responses,omitempty"`
	ReuseResponses bool             `json:"reuse_responses,omitempty"`
	// Stimulus is the id of the exam's stimulus (PackageExam.Stimuli) the
	// question goes with (format 2).
	Stimulus string `json:"stimulus,omitempty"`
	// PlayLimit is how many times each student may play the question's
	// audio; 0 is no limit.
	PlayLimit int `json:"play_limit,omitempty"`
	// Blanks are a Cloze question's (format 4), without their keys.
	Blanks []PackageBlank `json:"blanks,omitempty"`
	Points float64        `json:"points"`
}

// PackageBlank is a blank of a Cloze question as a package ships it: its
// kind, a choice blank's options and its points, never its key.
type PackageBlank struct {
	ID string `json:"id"`
	// Kind is BlankText, BlankNumber or BlankChoice.
	Kind    string           `json:"kind"`
	Options []QuestionOption `json:"options,omitempty"`
	Points  float64          `json:"points"`
}

// PackageFormats are the package formats this package reads, as the pulls
// name them to the portal in the X-Package-Formats header.
const PackageFormats = "1, 2, 3, 4"

// maxPackageFormat is the newest package format this package reads: 4 is
// format 3 with Numeric and Cloze questions.
const maxPackageFormat = 4

// ErrPackageTooNew: the package is in a format newer than this program
// reads; upgrade it.
var ErrPackageTooNew = errors.New("client: the exam package is in a newer format than this program reads; upgrade labagent")

// DecodePackage decrypts the AES-256-GCM-STREAM package read from r with
// key and decodes its JSON, reading to the end so that the whole package is
// authenticated. The result's Version is the SHA-256 of the plaintext.
func DecodePackage(r io.Reader, key []byte) (*Package, error) {
	dr, err := NewPackageDecrypter(key, r)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	dec := json.NewDecoder(io.TeeReader(dr, h))
	var p Package
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("client: decode package: %w", err)
	}
	if p.Format > maxPackageFormat {
		return nil, fmt.Errorf("%w (format %d; this one reads 1 to %d)", ErrPackageTooNew, p.Format, maxPackageFormat)
	}
	// Read to the end: the last chunk must authenticate, and nothing but
	// white space may follow the JSON value.
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("client: decode package: data after the JSON value")
	} else if !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("client: decode package: %w", err)
	}
	p.Version = hex.EncodeToString(h.Sum(nil))
	return &p, nil
}
