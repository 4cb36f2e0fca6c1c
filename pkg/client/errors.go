package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Error is an error answered by the portal: a status outside 2xx with, when
// the body is one of the APIs' error envelopes, its stable code and message.
//
// errors.Is(err, ErrNotFound) and the other sentinels match by status;
// errors.Is(err, &Error{Code: CodeLicenseExpired}) matches by code.
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Code is the stable UPPER_SNAKE code of the envelope (see the Code*
	// constants), empty when the body was not an API error envelope (for
	// example an error page of a proxy in front of the portal).
	Code string
	// Message is the envelope's message, or else the start of the body as
	// text, or else the status text.
	Message string
	// RetryAfter is the wait asked by Retry-After (seconds or an HTTP
	// date), on 429 and 503 answers; 0 when absent.
	RetryAfter time.Duration
	// RequestID is the X-Request-ID of the answer, to quote in reports.
	RequestID string
	// Method and URL are the request's.
	Method, URL string
}

// Error implements error: "GET https://…/api/v1/x: 404 NOT_FOUND: message".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Method != "" || e.URL != "" {
		b.WriteString(strings.TrimSpace(e.Method + " " + e.URL))
		b.WriteString(": ")
	}
	b.WriteString(strconv.Itoa(e.Status))
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

// Is reports whether target is a sentinel whose status class e is in
// (ErrNotFound, ...), or an *Error whose non-zero Code and Status equal e's.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case *statusError:
		return t.match(e.Status)
	case *Error:
		if t.Code == "" && t.Status == 0 {
			return false
		}
		return (t.Code == "" || t.Code == e.Code) && (t.Status == 0 || t.Status == e.Status)
	}
	return false
}

// statusError is the type of the sentinels that match an *Error by status.
type statusError struct {
	msg   string
	match func(status int) bool
}

func (e *statusError) Error() string { return e.msg }

func statusSentinel(msg string, codes ...int) *statusError {
	return &statusError{msg: msg, match: func(s int) bool {
		for _, c := range codes {
			if s == c {
				return true
			}
		}
		return false
	}}
}

// Sentinels matched by errors.Is against an *Error's status.
var (
	ErrBadRequest           error = statusSentinel("client: bad request", http.StatusBadRequest)                             // 400
	ErrUnauthorized         error = statusSentinel("client: unauthorized", http.StatusUnauthorized)                          // 401
	ErrForbidden            error = statusSentinel("client: forbidden", http.StatusForbidden)                                // 403
	ErrNotFound             error = statusSentinel("client: not found", http.StatusNotFound)                                 // 404
	ErrConflict             error = statusSentinel("client: conflict", http.StatusConflict)                                  // 409
	ErrTooLarge             error = statusSentinel("client: request too large", http.StatusRequestEntityTooLarge)            // 413
	ErrUnsupportedMediaType error = statusSentinel("client: unsupported media type", http.StatusUnsupportedMediaType)        // 415
	ErrRangeNotSatisfiable  error = statusSentinel("client: range not satisfiable", http.StatusRequestedRangeNotSatisfiable) // 416
	ErrUnprocessable        error = statusSentinel("client: unprocessable", http.StatusUnprocessableEntity)                  // 422
	ErrRateLimited          error = statusSentinel("client: rate limited", http.StatusTooManyRequests)                       // 429
	ErrUnavailable          error = statusSentinel("client: service unavailable", http.StatusServiceUnavailable)             // 503
	ErrServer               error = &statusError{"client: server error", func(s int) bool { return s >= 500 && s <= 599 }}   // any 5xx
)

// Errors raised by the client itself, not answered by the portal.
var (
	// ErrChecksumMismatch: downloaded package bytes do not have the
	// SHA-256 or the size the portal announced.
	ErrChecksumMismatch = errors.New("client: package checksum mismatch")
	// ErrPackageChanged: a resumed download (Range with If-Range) was
	// answered with the whole package, because the package changed since
	// the partial copy was taken (or the server ignored the range). Nothing
	// was written; discard the partial copy and download from offset 0.
	ErrPackageChanged = errors.New("client: package changed; restart the download from offset 0")
)

// Error codes of the exam API (docs/api/exam.md, "Errors"), for
// errors.Is(err, &Error{Code: ...}) and switches on (*Error).Code.
const (
	CodeInvalidJSON          = "INVALID_JSON"              // 400
	CodeValidationFailed     = "VALIDATION_FAILED"         // 400
	CodeInvalidQuery         = "INVALID_QUERY"             // 400
	CodeUnauthorized         = "UNAUTHORIZED"              // 401 no or bad credential
	CodeInvalidCredentials   = "INVALID_CREDENTIALS"       // 401 login
	CodeTokenExpired         = "TOKEN_EXPIRED"             // 401
	CodeInvalidAPIKey        = "INVALID_API_KEY"           // 401
	CodeLicenseInvalid       = "LICENSE_INVALID"           // 401 bad signature or malformed token
	CodeForbidden            = "FORBIDDEN"                 // 403
	CodeGraderForbidden      = "GRADER_FORBIDDEN"          // 403 a grader's token outside grading, or asking for names
	CodeLicenseExpired       = "LICENSE_EXPIRED"           // 403
	CodeLicenseRevoked       = "LICENSE_REVOKED"           // 403
	CodeHardwareMismatch     = "HARDWARE_MISMATCH"         // 403
	CodeNPSNMismatch         = "NPSN_MISMATCH"             // 403
	CodeServerMismatch       = "SERVER_MISMATCH"           // 403
	CodeNotFound             = "NOT_FOUND"                 // 404
	CodeNoActiveAcademicYear = "NO_ACTIVE_ACADEMIC_YEAR"   // 404
	CodePackageEmpty         = "PACKAGE_EMPTY"             // 404
	CodeUsernameTaken        = "USERNAME_TAKEN"            // 409
	CodeAcademicYearExists   = "ACADEMIC_YEAR_EXISTS"      // 409
	CodeExamHasAnswers       = "EXAM_HAS_ANSWERS"          // 409
	CodeBankHasRefusedItems  = "BANK_HAS_REFUSED_ITEMS"    // 422 an import creating an exam, some items refused
	CodeInvalidBank          = "INVALID_BANK"              // 400 the file is not a bank of its format
	CodeBankTooLarge         = "BANK_TOO_LARGE"            // 413
	CodeGradeConflict        = "GRADE_CONFLICT"            // 409 another grader saved first: see GradeConflictError
	CodeNotAnEssay           = "NOT_AN_ESSAY"              // 400 only essays worth points are graded
	CodeIdempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED"    // 409 on a push, 422 on a creating call
	CodeIdempotencyKeyInUse  = "IDEMPOTENCY_KEY_IN_USE"    // 409, with Retry-After: the first call still runs
	CodeLabagentTooOld       = "LABAGENT_UPGRADE_REQUIRED" // 406: the package needs a newer labagent
	CodeInvalidIdempotency   = "INVALID_IDEMPOTENCY_KEY"   // 400
	CodeBodyTooLarge         = "BODY_TOO_LARGE"            // 413
	CodeUnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"    // 415
	CodeUnsupportedMedia     = "UNSUPPORTED_MEDIA"         // 415 an upload that is no accepted image or audio
	CodeMediaTooLarge        = "MEDIA_TOO_LARGE"           // 413 an upload, or an exam's media in total, over the limits
	CodeChecksumMismatch     = "CHECKSUM_MISMATCH"         // 422
	CodeRecordCountMismatch  = "RECORD_COUNT_MISMATCH"     // 422
	CodeUnknownExam          = "UNKNOWN_EXAM"              // 422
	CodeUnknownQuestion      = "UNKNOWN_QUESTION"          // 422
	CodeUnknownSchool        = "UNKNOWN_SCHOOL"            // 404 an item analysis of a school no member belongs to
	CodeUnknownAcademicYear  = "UNKNOWN_ACADEMIC_YEAR"     // 404 an item analysis of an academic year no member belongs to
	CodeUnknownRegion        = "UNKNOWN_REGION"            // 404 an item analysis of a region no licensed school is in
	CodeUnknownModel         = "UNKNOWN_MODEL"             // 400 a calibration with a model other than rasch or 2pl
	CodeNotCalibrated        = "NOT_CALIBRATED"            // 409 a calibration kept from answers that give no fit (too few students or questions)
	CodeTooManyAttempts      = "TOO_MANY_ATTEMPTS"         // 429, with Retry-After
	CodeInternal             = "INTERNAL"                  // 500
)

// Error codes of the link-management API (docs/api/links.md) beyond those
// it shares with the exam API (VALIDATION_FAILED, INVALID_JSON,
// UNAUTHORIZED, NOT_FOUND, USERNAME_TAKEN, BODY_TOO_LARGE, INTERNAL).
const (
	CodeAliasTaken  = "ALIAS_TAKEN"   // 409 the alias is used on that domain
	CodeDomainTaken = "DOMAIN_TAKEN"  // 409 the host is registered by a user
	CodeDomainInUse = "DOMAIN_IN_USE" // 409 short links still use the domain
	CodeSlugTaken   = "SLUG_TAKEN"    // 409 the rotator slug is used
	CodeEmailTaken  = "EMAIL_TAKEN"   // 409
	CodeRateLimited = "RATE_LIMITED"  // 429, with Retry-After
)

// maxErrorBody bounds how much of an error body is read.
const maxErrorBody = 64 << 10

// errorDecoder fills e's Code and Message from body when body is in the
// envelope of its API, and reports whether it was.
type errorDecoder func(e *Error, body []byte) bool

// decodeExamError reads the envelope of the exam and ordering APIs:
// {"success": false, "error": "<message>", "code": "<CODE>"}.
func decodeExamError(e *Error, body []byte) bool {
	var env struct {
		Error *string `json:"error"`
		Code  string  `json:"code"`
	}
	if json.Unmarshal(body, &env) != nil || env.Error == nil {
		return false
	}
	e.Code, e.Message = env.Code, *env.Error
	return true
}

// decodeLinkError reads the envelope of the link-management API:
// {"error": 1, "message": "<message>", "code": "<CODE>"} (code is the
// portal's addition; the error flag may be an integer or a string).
func decodeLinkError(e *Error, body []byte) bool {
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message *string         `json:"message"`
		Code    string          `json:"code"`
	}
	if json.Unmarshal(body, &env) != nil || env.Message == nil || len(env.Error) == 0 {
		return false
	}
	e.Code, e.Message = env.Code, *env.Message
	return true
}

// decodeAnyError tries every envelope the portal uses.
func decodeAnyError(e *Error, body []byte) bool {
	return decodeExamError(e, body) || decodeLinkError(e, body)
}

// checkResponse returns nil for 2xx and 304, else the *Error of r (whose
// body it reads, up to maxErrorBody; the caller closes it).
func checkResponse(r *http.Response, dec errorDecoder) error {
	if (r.StatusCode >= 200 && r.StatusCode <= 299) || r.StatusCode == http.StatusNotModified {
		return nil
	}
	return newError(r, dec)
}

// newError builds the *Error of r, reading its body.
func newError(r *http.Response, dec errorDecoder) *Error {
	e := &Error{
		Status:     r.StatusCode,
		RetryAfter: parseRetryAfter(r.Header.Get("Retry-After"), time.Now()),
		RequestID:  r.Header.Get("X-Request-ID"),
	}
	if r.Request != nil {
		e.Method, e.URL = r.Request.Method, redact(r.Request.URL)
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxErrorBody))
	if dec != nil && dec(e, body) {
		return e
	}
	e.Message = textMessage(body)
	if e.Message == "" {
		e.Message = http.StatusText(r.StatusCode)
	}
	return e
}

// textMessage returns the start of a non-envelope error body as one line of
// text, or "" when it is empty or not text.
func textMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || !utf8.Valid(body) {
		return ""
	}
	const max = 512
	s := strings.Join(strings.Fields(string(body)), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if sec, err := strconv.ParseInt(v, 10, 64); err == nil {
		if sec < 0 {
			return 0
		}
		return time.Duration(sec) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// errorf formats a client-side error.
func errorf(format string, args ...any) error {
	return fmt.Errorf("client: "+format, args...)
}
