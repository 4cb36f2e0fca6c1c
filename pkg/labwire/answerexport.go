package labwire

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// The answer export file (docs/api/exam.md, "Answer export file") carries a
// lab server's sealed answer batches to the portal on a USB stick when the
// lab stays offline:
//
//	line 1:  the header, one JSON object (AnswerExportHeader) and "\n"
//	rest:    the encrypted body, AES-256-GCM-STREAM (crypto.go) under the
//	         school's package key with a random nonce prefix
//
// The header's checksum_sha256 and size cover the encrypted body, so that a
// damaged copy is told apart before anything is
// decrypted. The plaintext of the body is a sequence of JSON values, one per
// line: the manifest (the header without encryption, checksum and size),
// then one batch per line, each shaped like a push body:
//
//	{"idempotency_key","sealed_at","checksum_sha256","total_records","answers":[Answer]}
//
// The manifest repeats the header inside the authenticated body: an import
// refuses a file whose header disagrees with it.
const (
	// AnswerExportFormat is the format of the answer export file.
	AnswerExportFormat = "labagent-answers/1"
	// AnswerExportEncryption names the encryption of the body.
	AnswerExportEncryption = PackageEncryption
	// MaxAnswerExportSize bounds the encrypted body of an answer export file.
	MaxAnswerExportSize = 256 << 20
	// MaxAnswerExportHeader bounds the header line: the size of the
	// bufio.Reader that ReadAnswerExportHeader reads.
	MaxAnswerExportHeader = 4 << 10
)

// Refusals of an answer export file as a whole, matched with errors.Is:
// every refusal of ReadAnswerExportHeader wraps ErrExportInvalid, every one
// of ReadAnswerExportBody ErrExportCorrupt, as an *ExportError.
var (
	ErrExportInvalid = errors.New("not an answer export file (the file written by labagent export)")
	ErrExportCorrupt = errors.New("the answer export file does not decrypt under the school's package key: it was altered, or made for another portal")
)

// ExportError is a refusal of an answer export file: Err is
// ErrExportInvalid or ErrExportCorrupt, Message says what is wrong, for
// the person who carried the file.
type ExportError struct {
	Err     error
	Message string
}

// Error returns the message.
func (e *ExportError) Error() string { return e.Message }

// Unwrap returns Err.
func (e *ExportError) Unwrap() error { return e.Err }

// exportInvalid returns an *ExportError of ErrExportInvalid.
func exportInvalid(format string, args ...any) error {
	return &ExportError{Err: ErrExportInvalid, Message: fmt.Sprintf(format, args...)}
}

// exportCorrupt returns an *ExportError of ErrExportCorrupt.
func exportCorrupt(format string, args ...any) error {
	return &ExportError{Err: ErrExportCorrupt, Message: fmt.Sprintf(format, args...)}
}

// AnswerExportManifest describes an answer export file. It is the first
// plaintext line of the encrypted body, and the header repeats it.
type AnswerExportManifest struct {
	Format     string    `json:"format"`
	ServerCode string    `json:"server_code"`
	NPSN       string    `json:"npsn"`
	LicenseID  string    `json:"license_id"`
	ExportedAt time.Time `json:"exported_at"`
	Batches    int       `json:"batches"`
	Records    int       `json:"records"`
}

func (m AnswerExportManifest) equal(o AnswerExportManifest) bool {
	return m.Format == o.Format && m.ServerCode == o.ServerCode && m.NPSN == o.NPSN &&
		m.LicenseID == o.LicenseID && m.ExportedAt.Equal(o.ExportedAt) &&
		m.Batches == o.Batches && m.Records == o.Records
}

// AnswerExportHeader is the first line of an answer export file, in the
// clear: the manifest, the encryption of the body, and the SHA-256 (lowercase
// hex) and size in bytes of the encrypted body that follows the line.
type AnswerExportHeader struct {
	AnswerExportManifest
	Encryption string `json:"encryption"`
	Checksum   string `json:"checksum_sha256"`
	Size       int64  `json:"size"`
}

// AnswerExport is what WriteAnswerExport writes.
type AnswerExport struct {
	ServerCode string
	NPSN       string
	LicenseID  string
	ExportedAt time.Time
	Batches    []AnswerExportBatch
}

// AnswerExportBatch is one sealed batch of a lab server's outbox.
type AnswerExportBatch struct {
	// IdempotencyKey is the batch's key, the one its push sends as
	// Idempotency-Key: the portal stores the batch once, whichever way
	// it arrives first.
	IdempotencyKey string
	SealedAt       time.Time
	// Answers holds the exact bytes of the answers array as a push sends
	// them (pkg/client marshals []client.Answer with UTC times), so that
	// the batch's checksum is the same as its push's.
	Answers json.RawMessage
}

// AnswerExportLine is a batch as the body holds it: a push body without
// server_code and npsn, which the manifest gives once.
type AnswerExportLine struct {
	exportBatchHead
	Answers json.RawMessage `json:"answers"`
}

// exportBatchHead is a batch line without its answers; its fields are
// AnswerExportLine's.
type exportBatchHead struct {
	IdempotencyKey string    `json:"idempotency_key"`
	SealedAt       time.Time `json:"sealed_at"`
	Checksum       string    `json:"checksum_sha256"`
	TotalRecords   int       `json:"total_records"`
}

// WriteAnswerExport writes e to w as an answer export file encrypted under
// key (the school's package key) with a random nonce prefix, and returns its
// header. The body is built in memory, since the header that precedes it
// holds its checksum. Every batch needs an idempotency key and at least one
// answer.
func WriteAnswerExport(w io.Writer, key []byte, e AnswerExport) (AnswerExportHeader, error) {
	switch {
	case !ValidServerCode(e.ServerCode):
		return AnswerExportHeader{}, fmt.Errorf("answer export: server_code %q is not valid", e.ServerCode)
	case !ValidNPSN(e.NPSN):
		return AnswerExportHeader{}, fmt.Errorf("answer export: npsn %q is not valid", e.NPSN)
	}
	m := AnswerExportManifest{
		Format: AnswerExportFormat, ServerCode: e.ServerCode, NPSN: e.NPSN, LicenseID: e.LicenseID,
		ExportedAt: e.ExportedAt.UTC(), Batches: len(e.Batches),
	}
	lines := make([][]byte, 0, len(e.Batches)+1)
	for i, b := range e.Batches {
		if !ValidIdempotencyKey(b.IdempotencyKey) {
			return AnswerExportHeader{}, fmt.Errorf("answer export: batch %d: idempotency key %q is not valid", i, b.IdempotencyKey)
		}
		var recs []json.RawMessage
		if err := json.Unmarshal(b.Answers, &recs); err != nil || len(recs) == 0 {
			return AnswerExportHeader{}, fmt.Errorf("answer export: batch %s: answers must be a non-empty JSON array", b.IdempotencyKey)
		}
		line, err := batchLine(exportBatchHead{
			IdempotencyKey: b.IdempotencyKey, SealedAt: b.SealedAt.UTC(),
			Checksum: ChecksumSHA256(b.Answers), TotalRecords: len(recs),
		}, b.Answers)
		if err != nil {
			return AnswerExportHeader{}, err
		}
		lines = append(lines, line)
		m.Records += len(recs)
	}
	manifest, err := json.Marshal(m)
	if err != nil {
		return AnswerExportHeader{}, fmt.Errorf("answer export: %w", err)
	}

	var nonce [8]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return AnswerExportHeader{}, fmt.Errorf("answer export: nonce: %w", err)
	}
	var body bytes.Buffer
	enc, err := NewPackageEncrypter(&body, key, nonce)
	if err != nil {
		return AnswerExportHeader{}, fmt.Errorf("answer export: %w", err)
	}
	enc.Write(append(manifest, '\n')) // writes to a bytes.Buffer do not fail
	for _, line := range lines {
		enc.Write(line)
	}
	if err := enc.Close(); err != nil {
		return AnswerExportHeader{}, fmt.Errorf("answer export: %w", err)
	}

	h := AnswerExportHeader{AnswerExportManifest: m, Encryption: AnswerExportEncryption,
		Checksum: ChecksumSHA256(body.Bytes()), Size: int64(body.Len())}
	head, err := json.Marshal(h)
	if err != nil {
		return AnswerExportHeader{}, fmt.Errorf("answer export: %w", err)
	}
	if _, err := w.Write(append(head, '\n')); err != nil {
		return AnswerExportHeader{}, err
	}
	if _, err := w.Write(body.Bytes()); err != nil {
		return AnswerExportHeader{}, err
	}
	return h, nil
}

// batchLine encodes b with answers appended byte for byte (json.Marshal
// would re-encode a RawMessage), and a new line.
func batchLine(b exportBatchHead, answers json.RawMessage) ([]byte, error) {
	head, err := json.Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("answer export: %w", err)
	}
	// head is {...}: reopen it and append the answers' exact bytes.
	line := make([]byte, 0, len(head)+len(answers)+14)
	line = append(line, head[:len(head)-1]...)
	line = append(line, `,"answers":`...)
	line = append(line, answers...)
	return append(line, '}', '\n'), nil
}

// ReadAnswerExportHeader reads the header line of an answer export file
// from r, a bufio.Reader of MaxAnswerExportHeader bytes, and checks it. r is
// then at the first byte of the encrypted body. A refusal is an
// *ExportError of ErrExportInvalid; an error of r is returned as it is.
func ReadAnswerExportHeader(r *bufio.Reader) (AnswerExportHeader, error) {
	line, err := r.ReadSlice('\n')
	switch {
	case errors.Is(err, io.EOF) && len(line) == 0:
		return AnswerExportHeader{}, exportInvalid("the file is empty: %s", ErrExportInvalid)
	case errors.Is(err, io.EOF), errors.Is(err, bufio.ErrBufferFull):
		return AnswerExportHeader{}, exportInvalid(
			"the file does not start with a header line (at most %d bytes): %s", MaxAnswerExportHeader, ErrExportInvalid)
	case err != nil:
		return AnswerExportHeader{}, err // an I/O error, or *http.MaxBytesError
	}
	var h AnswerExportHeader
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return AnswerExportHeader{}, exportInvalid("%s: its header line is not valid: %v", ErrExportInvalid, err)
	}
	bad := func(format string, args ...any) error {
		return exportInvalid("answer export header: "+format, args...)
	}
	switch {
	case h.Format != AnswerExportFormat:
		return AnswerExportHeader{}, bad("format is %q; this portal reads %q (is the portal older than labagent?)", h.Format, AnswerExportFormat)
	case h.Encryption != AnswerExportEncryption:
		return AnswerExportHeader{}, bad("encryption is %q, not %q", h.Encryption, AnswerExportEncryption)
	case !ValidServerCode(h.ServerCode):
		return AnswerExportHeader{}, bad("server_code %q is not valid", h.ServerCode)
	case !ValidNPSN(h.NPSN):
		return AnswerExportHeader{}, bad("npsn %q is not 8 digits", h.NPSN)
	case !ValidChecksum(h.Checksum):
		return AnswerExportHeader{}, bad("checksum_sha256 must be 64 lowercase hexadecimal characters")
	case h.Size <= 0 || h.Size > MaxAnswerExportSize:
		return AnswerExportHeader{}, bad("size %d is outside 1..%d", h.Size, MaxAnswerExportSize)
	case h.Batches < 0 || h.Records < 0:
		return AnswerExportHeader{}, bad("batches and records must not be negative")
	}
	return h, nil
}

// ReadAnswerExportBody decodes the plaintext of an answer export body (the
// reader of NewPackageDecrypter over the encrypted body): it checks the
// manifest against the header and calls fn for each batch in order. fn may
// be nil (a dry pass). A refusal of the body, a body that does not decrypt
// among them, is an *ExportError of ErrExportCorrupt; an I/O error of
// plain, or an error of fn, is returned as it is.
func ReadAnswerExportBody(plain io.Reader, h AnswerExportHeader, fn func(AnswerExportLine) error) error {
	src := &readErr{r: plain}
	decodeErr := func(what string, err error) error {
		switch {
		case errors.Is(src.err, ErrPackageInvalid):
			return exportCorrupt("%s", ErrExportCorrupt)
		case src.err != nil:
			return src.err // an I/O error of the spooled file
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return exportCorrupt("the encrypted body ends before %s", what)
		default:
			return exportCorrupt("%s is not valid: %v", what, err)
		}
	}
	dec := json.NewDecoder(src)
	dec.DisallowUnknownFields()
	var m AnswerExportManifest
	if err := dec.Decode(&m); err != nil {
		return decodeErr("the manifest", err)
	}
	if !m.equal(h.AnswerExportManifest) {
		return exportCorrupt("the header line does not match the manifest inside the encrypted body: the header was altered")
	}
	batches, records := 0, 0
	for {
		var b AnswerExportLine
		err := dec.Decode(&b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return decodeErr(fmt.Sprintf("batch %d", batches+1), err)
		}
		batches++
		if b.IdempotencyKey == "" {
			return exportCorrupt("batch %d has no idempotency_key", batches)
		}
		records += b.TotalRecords
		if fn != nil {
			if err := fn(b); err != nil {
				return err
			}
		}
	}
	if batches != m.Batches || records != m.Records {
		return exportCorrupt("the body holds %d batches of %d records; the manifest says %d of %d", batches, records, m.Batches, m.Records)
	}
	return nil
}

// readErr remembers the error, other than io.EOF, that its reader returned.
type readErr struct {
	r   io.Reader
	err error
}

func (r *readErr) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}
