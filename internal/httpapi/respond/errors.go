package respond

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/seedhq/portal/internal/apperr"
)

// Codes of errors raised by the HTTP layer itself (the domain's codes come
// with its *apperr.Error values).
const (
	CodeInvalidJSON      = "INVALID_JSON"
	CodeInvalidQuery     = "INVALID_QUERY"
	CodeBodyTooLarge     = "BODY_TOO_LARGE"
	CodeUnsupportedMedia = "UNSUPPORTED_MEDIA_TYPE"
	CodeNotFound         = "NOT_FOUND"
	CodeMethodNotAllowed = "METHOD_NOT_ALLOWED"
	CodeInternal         = "INTERNAL"
)

// errorBody is the error envelope of the exam and ordering APIs.
type errorBody struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	Code    string `json:"code"`
}

// ErrorStatus writes the error envelope with an explicit status.
func ErrorStatus(w http.ResponseWriter, status int, code, msg string) {
	JSON(w, status, errorBody{Success: false, Error: msg, Code: code})
}

// Error answers err in the exam and ordering envelope: an *apperr.Error
// with the status of its kind (and Retry-After for an
// *apperr.RetryAfterError), its code and message; an over-limit body with 413
// BODY_TOO_LARGE; a blob store that cannot be reached with 503
// BLOB_STORE_UNAVAILABLE and Retry-After; a store that cannot be reached
// with 503 STORE_UNAVAILABLE and Retry-After; text the store cannot keep (a NUL character, bytes that
// are not UTF-8) with 400 INVALID_TEXT; anything else with 500 INTERNAL and
// a generic message, the full error being logged with the request id.
func Error(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		ErrorStatus(w, http.StatusRequestEntityTooLarge, CodeBodyTooLarge,
			fmt.Sprintf("request body is larger than the limit of %s", ByteSize(tooLarge.Limit)))
		return
	}
	e := apperr.From(err)
	if e == nil && BlobStoreUnavailable(err) {
		log.WarnContext(r.Context(), "blob store unavailable", "request_id", RequestID(r.Context()), "method", r.Method,
			"path", r.URL.Path, "err", err)
		status, code, msg := SetBlobStoreUnavailable(w)
		ErrorStatus(w, status, code, msg)
		return
	}
	if e == nil && StoreUnavailable(err) {
		log.WarnContext(r.Context(), "store unavailable", "request_id", RequestID(r.Context()), "method", r.Method,
			"path", r.URL.Path, "err", err)
		status, code, msg := SetStoreUnavailable(w)
		ErrorStatus(w, status, code, msg)
		return
	}
	if e == nil && StoreRefusedText(err) {
		status, code, msg := InvalidTextAnswer()
		ErrorStatus(w, status, code, msg)
		return
	}
	if e == nil {
		id := RequestID(r.Context())
		log.ErrorContext(r.Context(), "internal error",
			"request_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
		ErrorStatus(w, http.StatusInternalServerError, CodeInternal,
			"internal error; quote request id "+id+" when reporting it")
		return
	}
	status := e.Kind.Status()
	if status == http.StatusTooManyRequests {
		var ra *apperr.RetryAfterError
		if errors.As(err, &ra) && ra.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.FormatInt(RetrySeconds(ra.RetryAfter.Seconds()), 10))
		}
	}
	if status == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" &&
		strings.HasPrefix(r.Header.Get("Authorization"), "Bearer") {
		w.Header().Set("WWW-Authenticate", `Bearer realm="portal", error="invalid_token"`)
	}
	if status == http.StatusInternalServerError {
		log.ErrorContext(r.Context(), "internal error",
			"request_id", RequestID(r.Context()), "method", r.Method, "path", r.URL.Path, "err", err)
	}
	// The message of a domain error is meant for users; when handlers or
	// the service wrapped it ("get exam: NOT_FOUND: not found"), show the
	// error's own message only.
	ErrorStatus(w, status, e.Code, e.Message)
}

// RetrySeconds rounds a wait up to whole seconds, at least 1.
func RetrySeconds(sec float64) int64 {
	n := int64(math.Ceil(sec))
	if n < 1 {
		n = 1
	}
	return n
}

// ByteSize formats a body limit for an error message.
func ByteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// InvalidQuery returns a 400 INVALID_QUERY error.
func InvalidQuery(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, CodeInvalidQuery, format, args...)
}

// QueryBool reads the optional boolean query parameter key: false when
// absent, an INVALID_QUERY error when it is not true or false (or 1, 0, t,
// f, as strconv.ParseBool reads).
func QueryBool(r *http.Request, key string) (bool, error) {
	v := strings.TrimSpace(r.URL.Query().Get(key))
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, InvalidQuery("%s must be true or false, got %q", key, v)
	}
	return b, nil
}

// InvalidJSON returns a 400 INVALID_JSON error.
func InvalidJSON(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, CodeInvalidJSON, format, args...)
}
