package exam

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/pkg/labwire"
)

// Refusals of an answer export file as a whole (labwire's refusals, with
// the portal's codes).
var (
	ErrExportInvalid = apperr.New(apperr.Invalid, "EXPORT_INVALID", labwire.ErrExportInvalid.Error())
	ErrExportCorrupt = apperr.New(apperr.Unprocessable, "EXPORT_CORRUPT", labwire.ErrExportCorrupt.Error())
	ErrUnknownServer = apperr.New(apperr.Unprocessable, "UNKNOWN_SERVER", "the file's server_code is not bound to the file's school")
)

// exportRefusal returns labwire's refusal of an answer export file as an
// *apperr.Error of ErrExportInvalid's or ErrExportCorrupt's code and kind,
// with its message; any other error as it is.
func exportRefusal(err error) error {
	var e *labwire.ExportError
	switch {
	case !errors.As(err, &e):
		return err
	case errors.Is(e.Err, labwire.ErrExportInvalid):
		return apperr.New(ErrExportInvalid.Kind, ErrExportInvalid.Code, e.Message)
	default:
		return apperr.New(ErrExportCorrupt.Kind, ErrExportCorrupt.Code, e.Message)
	}
}

// AnswerImport is the outcome of importing an answer export file.
type AnswerImport struct {
	ServerCode string
	NPSN       string
	LicenseID  string
	ExportedAt time.Time
	Checksum   string // SHA-256 of the encrypted body, from the header

	Accepted   int // batches stored by this import
	Duplicates int // batches the portal had already (pushed or imported before)
	Rejected   int // batches refused, with a code
	Records    int // answer records of the file
	Batches    []BatchImport
}

// BatchImport is the outcome of one batch of an answer export file: the
// outcome its push would have had.
type BatchImport struct {
	IdempotencyKey string
	Records        int
	Outcome        SyncOutcome
	SyncID         string // accepted or duplicate: the push that stored the batch
	Code           string // rejected: the push's error code, e.g. UNKNOWN_EXAM
	Message        string // rejected: the push's error message
}

// ImportAnswers imports an answer export file (labwire.WriteAnswerExport)
// read from r, at most labwire.MaxAnswerExportSize bytes after the header
// line. It checks, in order: the header (400 EXPORT_INVALID); the size and
// SHA-256 of the encrypted body (422 CHECKSUM_MISMATCH: a damaged copy); that server_code is
// bound to the file's school (422 UNKNOWN_SERVER); that the body decrypts and
// authenticates under the school's package key, to its end, and agrees with
// the header (422 EXPORT_CORRUPT). Nothing is stored before these pass.
//
// Then each batch goes through PushAnswers as a push from that server with
// the batch's Idempotency-Key: the same validation, the same storage and the
// same sync log records (push_results). Batches are independent, as pushes
// are: one refused batch does not stop the others, and each outcome is
// reported. A batch that was pushed or imported before is a duplicate and
// stores nothing, so importing a file again is safe. An internal error
// (store unavailable) stops the import; what was stored stays, and
// importing the file again completes it.
func (s *Service) ImportAnswers(ctx context.Context, r io.Reader) (AnswerImport, error) {
	br := bufio.NewReaderSize(r, labwire.MaxAnswerExportHeader)
	h, err := labwire.ReadAnswerExportHeader(br)
	if err != nil {
		return AnswerImport{}, exportRefusal(err)
	}
	f, err := s.spoolExport(br, h)
	if err != nil {
		return AnswerImport{}, err
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()

	b, err := s.store.GetServerBinding(ctx, h.ServerCode)
	switch {
	case errors.Is(err, ErrNotFound):
		return AnswerImport{}, apperr.Errorf(apperr.Unprocessable, ErrUnknownServer.Code,
			"server_code %s is not bound to any machine: the file's server must have completed a handshake, and its binding must not have been reset", h.ServerCode)
	case err != nil:
		return AnswerImport{}, fmt.Errorf("import answers: %w", err)
	case b.NPSN != h.NPSN:
		return AnswerImport{}, apperr.Errorf(apperr.Unprocessable, ErrUnknownServer.Code,
			"server_code %s is bound to school %s, not to the file's school %s", h.ServerCode, b.NPSN, h.NPSN)
	}
	key, err := s.PackageKey(ctx, h.NPSN)
	if err != nil {
		return AnswerImport{}, err
	}

	// First pass: authenticate the whole body and check its structure, so
	// that nothing is stored from a file that turns out to be corrupt.
	// Second pass: store batch by batch. Memory holds one batch at a time.
	read := func(fn func(labwire.AnswerExportLine) error) error {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("import answers: %w", err)
		}
		plain, err := labwire.NewPackageDecrypter(f, key)
		if err != nil {
			return fmt.Errorf("import answers: %w", err)
		}
		return exportRefusal(labwire.ReadAnswerExportBody(plain, h, fn))
	}
	if err := read(nil); err != nil {
		return AnswerImport{}, err
	}

	id := ServerIdentity{ServerCode: b.ServerCode, NPSN: b.NPSN, HardwareID: b.HardwareID, LicenseID: b.LicenseID}
	res := AnswerImport{
		ServerCode: h.ServerCode, NPSN: h.NPSN, LicenseID: h.LicenseID, ExportedAt: h.ExportedAt,
		Checksum: h.Checksum, Records: h.Records, Batches: make([]BatchImport, 0, h.Batches),
	}
	err = read(func(batch labwire.AnswerExportLine) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		out := BatchImport{IdempotencyKey: batch.IdempotencyKey, Records: batch.TotalRecords}
		rc, err := s.PushAnswers(ctx, id, PushInput{
			ServerCode: id.ServerCode, NPSN: id.NPSN, Checksum: batch.Checksum,
			TotalRecords: batch.TotalRecords, Answers: batch.Answers, IdempotencyKey: batch.IdempotencyKey,
		})
		switch e := apperr.From(err); {
		case err == nil && rc.Duplicate:
			out.Outcome, out.SyncID = OutcomeDuplicate, rc.SyncID
			res.Duplicates++
		case err == nil:
			out.Outcome, out.SyncID = OutcomeAccepted, rc.SyncID
			res.Accepted++
		case e != nil && e.Kind != apperr.Internal:
			out.Outcome, out.Code, out.Message = OutcomeRejected, e.Code, e.Message
			res.Rejected++
		default:
			return fmt.Errorf("import answers: batch %s: %w", batch.IdempotencyKey, err)
		}
		res.Batches = append(res.Batches, out)
		return nil
	})
	if err != nil {
		return AnswerImport{}, err
	}
	s.log.InfoContext(ctx, "answers imported", "server_code", res.ServerCode, "npsn", res.NPSN,
		"checksum", res.Checksum, "batches", len(res.Batches), "accepted", res.Accepted,
		"duplicates", res.Duplicates, "rejected", res.Rejected)
	return res, nil
}

// spoolExport copies the encrypted body that follows the header into a
// temporary file, checking its size and SHA-256 against the header. The
// caller closes and removes the file.
func (s *Service) spoolExport(r io.Reader, h labwire.AnswerExportHeader) (*os.File, error) {
	f, err := os.CreateTemp(s.cfg.TempDir, "answer-import-*")
	if err != nil {
		return nil, fmt.Errorf("import answers: %w", err)
	}
	fail := func(err error) (*os.File, error) {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	sum := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, sum), io.LimitReader(r, labwire.MaxAnswerExportSize+1))
	if err != nil {
		// A read error of r (an over-limit request body among them) is
		// returned as it is; the HTTP layer maps *http.MaxBytesError.
		return fail(fmt.Errorf("import answers: read: %w", err))
	}
	switch {
	case n > labwire.MaxAnswerExportSize:
		return fail(apperr.Errorf(apperr.TooLarge, "EXPORT_TOO_LARGE", "the encrypted body is larger than %d bytes", labwire.MaxAnswerExportSize))
	case n != h.Size:
		return fail(apperr.Errorf(apperr.Unprocessable, ErrChecksumMismatch.Code,
			"the file holds %d encrypted bytes, its header says %d: it was truncated or altered (copy it again from the lab server)", n, h.Size))
	case hex.EncodeToString(sum.Sum(nil)) != h.Checksum:
		return fail(apperr.Errorf(apperr.Unprocessable, ErrChecksumMismatch.Code,
			"the SHA-256 of the encrypted body does not match the header's checksum_sha256: the file was damaged or altered (copy it again from the lab server)"))
	}
	return f, nil
}
