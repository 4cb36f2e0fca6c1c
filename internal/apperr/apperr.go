// Package apperr defines the application error shared by every domain: a kind
// that the HTTP edge maps to a status, a stable UPPER_SNAKE code that clients
// can switch on, and a message that is safe to show to users.
//
// The shape follows benbjohnson/wtf: domain code returns *Error for anything a
// user caused; any other error is an internal failure, logged in full and shown
// to users only as a generic message.
package apperr

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Kind classifies an error; the HTTP layer maps each kind to one status.
type Kind int

// The kinds of application errors.
const (
	Internal         Kind = iota // 500: a bug or an unavailable dependency
	Invalid                      // 400: malformed or missing input
	Unauthorized                 // 401: no credential or a bad one
	Forbidden                    // 403: a valid credential that may not do this
	NotFound                     // 404: missing, or belonging to someone else
	Conflict                     // 409: clashes with existing state
	TooLarge                     // 413: body or upload over the limit
	Unprocessable                // 422: well-formed but fails validation (checksums, counts)
	RateLimited                  // 429: too many requests, or temporarily refused
	Unavailable                  // 503: not ready yet (a lab server without its exam package)
	NotAcceptable                // 406: no representation the client says it reads
	UnsupportedMedia             // 415: a body or upload of a type that is not accepted
)

// Error is an application error with a stable code and a user-facing message.
type Error struct {
	Kind    Kind
	Code    string
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, exam.ErrLicenseExpired) works through wrapping.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Code == e.Code
}

// New returns an *Error of the given kind, code and message.
func New(kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message}
}

// Errorf returns an *Error whose message is formatted from format and args.
func Errorf(kind Kind, code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Message: fmt.Sprintf(format, args...)}
}

// From returns the *Error in err's chain, or nil when err is an internal error.
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// KindOf returns the kind of err: Internal unless err wraps an *Error.
func KindOf(err error) Kind {
	if e := From(err); e != nil {
		return e.Kind
	}
	return Internal
}

// CodeOf returns the code of err, or "INTERNAL" for internal errors.
func CodeOf(err error) string {
	if e := From(err); e != nil {
		return e.Code
	}
	return "INTERNAL"
}

// Status is the HTTP status of errors of kind k.
func (k Kind) Status() int {
	switch k {
	case Invalid:
		return http.StatusBadRequest
	case Unauthorized:
		return http.StatusUnauthorized
	case Forbidden:
		return http.StatusForbidden
	case NotFound:
		return http.StatusNotFound
	case Conflict:
		return http.StatusConflict
	case TooLarge:
		return http.StatusRequestEntityTooLarge
	case Unprocessable:
		return http.StatusUnprocessableEntity
	case RateLimited:
		return http.StatusTooManyRequests
	case Unavailable:
		return http.StatusServiceUnavailable
	case NotAcceptable:
		return http.StatusNotAcceptable
	case UnsupportedMedia:
		return http.StatusUnsupportedMediaType
	default:
		return http.StatusInternalServerError
	}
}

// RetryAfterError is an *Error that says when to try again: the HTTP edge
// sends its RetryAfter, rounded up to whole seconds, in Retry-After. A
// RetryAfter of 0 or less sends none (a permanent refusal).
type RetryAfterError struct {
	Err        *Error
	RetryAfter time.Duration
}

// Error implements the error interface.
func (e *RetryAfterError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying application error.
func (e *RetryAfterError) Unwrap() error { return e.Err }
