package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The formats of a question bank.
const (
	BankMoodle = "moodle" // Moodle quiz XML (.xml)
	BankQTI    = "qti"    // a QTI 2.1/3.0 content package (.zip)
	BankSheet  = "xlsx"   // the spreadsheet template (.xlsx, or a .zip with its media)
)

// The statuses of an item of an imported bank.
const (
	BankItemImported = "imported" // the item became a question as it was
	BankItemChanged  = "changed"  // it became a question, with Changes dropped or changed
	BankItemRefused  = "refused"  // it did not: Code and Message say why
)

// BankItem is the report of one item of an imported question bank.
type BankItem struct {
	// Position is the item's place in the file, from 1 (a sheet's row
	// number).
	Position int `json:"position"`
	// Title is the item's name in the file, for the operator to find it.
	Title      string `json:"title"`
	QuestionID string `json:"question_id,omitempty"`
	// Kind is what the file called the item's type.
	Kind string `json:"kind,omitempty"`
	// Category is where the file filed the item (a Moodle category path).
	Category string `json:"category,omitempty"`
	Status   string `json:"status"`
	// Changes lists what was dropped or changed (BankItemChanged).
	Changes []string `json:"changes,omitempty"`
	// Code and Message say why an item was refused: UNSUPPORTED_TYPE,
	// MEDIA_NOT_FOUND, TEX_ERROR, KEY_NOT_AN_OPTION, DUPLICATE_ID,
	// INVALID_ITEM, ...
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// BankReport is what an import read: the report of every item, with the
// questions of a preview or the exam a creation made.
type BankReport struct {
	Format   string     `json:"format"`
	Title    string     `json:"title"`
	Imported int        `json:"imported"`
	Changed  int        `json:"changed"`
	Refused  int        `json:"refused"`
	Items    []BankItem `json:"items"`
	// Questions and Stimuli are a preview's (ExamImportOptions.Create false).
	Questions []Question `json:"questions,omitempty"`
	Stimuli   []Stimulus `json:"stimuli,omitempty"`
	// Exam is the exam created (ExamImportOptions.Create).
	Exam *Exam `json:"exam,omitempty"`
}

// ExamImportOptions say how ImportExam reads a bank and what it does with it.
type ExamImportOptions struct {
	// Format is BankMoodle, BankQTI or BankSheet; "" lets the portal tell
	// by the file's bytes.
	Format string
	// Create creates an exam of the items that passed, with the fields
	// below; false previews the bank and creates nothing.
	Create bool
	// OnlyPassed creates the exam even when some items were refused
	// (without it such a creation is refused 422 CodeBankHasRefusedItems).
	OnlyPassed bool
	// AllowMissingMedia keeps an item whose image or audio cannot be
	// found or stored as changed, the figure dropped with a note; without
	// it such an item is refused (MEDIA_NOT_FOUND).
	AllowMissingMedia bool
	// Title defaults to the bank's own title.
	Title, Subject  string
	NPSN            []string
	StartsAt        time.Time
	EndsAt          time.Time
	DurationMinutes int
}

// ImportExam sends the question bank read from r (POST
// /api/v1/admin/exams/import, operator token; at most 256 MiB): Moodle XML,
// a QTI package, or the spreadsheet template (an .xlsx, or a .zip holding
// the .xlsx and its media). It returns the report of every item, with the
// questions (a preview) or the exam created (opts.Create); a creation
// refused for refused items gives a *BankRefusedError with the report. r is streamed,
// not retried; a creation carries an Idempotency-Key, so a retry of the
// same call by the transport creates one exam.
func (s *ExamAdminService) ImportExam(ctx context.Context, r io.Reader, opts ExamImportOptions) (*BankReport, *Response, error) {
	if r == nil {
		return nil, nil, errorf("import exam: nil reader")
	}
	q := url.Values{}
	if opts.Format != "" {
		q.Set("format", opts.Format)
	}
	if opts.AllowMissingMedia {
		q.Set("allow_missing_media", "true")
	}
	if opts.Create {
		ctx = creating(ctx)
		q.Set("mode", "create")
		q.Set("title", opts.Title)
		if opts.Subject != "" {
			q.Set("subject", opts.Subject)
		}
		q.Set("npsn", strings.Join(opts.NPSN, ","))
		q.Set("starts_at", opts.StartsAt.UTC().Format(time.RFC3339))
		q.Set("ends_at", opts.EndsAt.UTC().Format(time.RFC3339))
		q.Set("duration_minutes", strconv.Itoa(opts.DurationMinutes))
		if opts.OnlyPassed {
			q.Set("only_passed", "true")
		}
	}
	var refused *BankReport
	decode := func(e *Error, body []byte) bool {
		if !decodeExamError(e, body) {
			return false
		}
		if e.Code == CodeBankHasRefusedItems {
			var env dataBody[*BankReport]
			if json.Unmarshal(body, &env) == nil {
				refused = env.Data
			}
		}
		return true
	}
	var out dataBody[*BankReport]
	resp, err := s.client.call(ctx, http.MethodPost, examPrefix+"admin/exams/import", q, r, &out, credBearer, decode)
	var apiErr *Error
	if errors.As(err, &apiErr) && apiErr.Code == CodeBankHasRefusedItems {
		return nil, resp, &BankRefusedError{Report: refused, Err: apiErr}
	}
	if err != nil {
		return nil, resp, err
	}
	return out.Data, resp, nil
}

// BankRefusedError is the error of an ImportExam creation refused because
// some items were refused and OnlyPassed was not set (422
// CodeBankHasRefusedItems): Report says which and why; nothing was
// created. errors.As finds the *Error.
type BankRefusedError struct {
	Report *BankReport
	Err    *Error
}

// Error implements error.
func (e *BankRefusedError) Error() string { return e.Err.Error() }

// Unwrap returns the *Error.
func (e *BankRefusedError) Unwrap() error { return e.Err }

// ExportExam writes the exam id as a question bank file of format
// (BankMoodle, BankQTI or BankSheet) to w (GET
// /api/v1/admin/exams/{id}/export, operator token). The file holds the
// answer keys.
func (s *ExamAdminService) ExportExam(ctx context.Context, id, format string, w io.Writer) (*Response, error) {
	seg, err := segment("exam id", id)
	if err != nil {
		return nil, err
	}
	return s.download(ctx, "admin/exams/"+seg+"/export", url.Values{"format": {format}}, w)
}

// ImportTemplate writes the spreadsheet template of a question bank (.xlsx)
// to w (GET /api/v1/admin/exams/import/template.xlsx, operator token).
func (s *ExamAdminService) ImportTemplate(ctx context.Context, w io.Writer) (*Response, error) {
	return s.download(ctx, "admin/exams/import/template.xlsx", nil, w)
}

// download copies the body of a GET to w.
func (s *ExamAdminService) download(ctx context.Context, path string, q url.Values, w io.Writer) (*Response, error) {
	if w == nil {
		return nil, errorf("download: nil writer")
	}
	req, err := s.client.newRequest(ctx, http.MethodGet, examPrefix+path, q, nil, credBearer)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "*/*")
	return s.client.do(ctx, req, w, decodeExamError)
}
