package httpapi

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
)

// Codes of errors raised by the HTTP layer itself (the domain's codes come
// with its *apperr.Error values).
const (
	codeInvalidJSON      = "INVALID_JSON"
	codeInvalidQuery     = "INVALID_QUERY"
	codeBodyTooLarge     = "BODY_TOO_LARGE"
	codeUnsupportedMedia = "UNSUPPORTED_MEDIA_TYPE"
	codeNotFound         = "NOT_FOUND"
	codeMethodNotAllowed = "METHOD_NOT_ALLOWED"
	codeInternal         = "INTERNAL"
)

// errorBody is the error envelope of the exam API.
type errorBody struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	Code    string `json:"code"`
}

// writeErrorStatus writes the exam error envelope with an explicit status.
func writeErrorStatus(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, errorBody{Success: false, Error: msg, Code: code})
}

// writeError answers err in the exam envelope: an *apperr.Error with the
// status of its kind, its code and message; an over-limit body with 413
// BODY_TOO_LARGE; anything else with 500 INTERNAL and a generic message, the
// full error being logged with the request id.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		writeErrorStatus(w, http.StatusRequestEntityTooLarge, codeBodyTooLarge,
			fmt.Sprintf("request body is larger than the limit of %s", byteSize(tooLarge.Limit)))
		return
	}
	e := apperr.From(err)
	if e == nil {
		id := requestIDFrom(r.Context())
		s.log.ErrorContext(r.Context(), "internal error",
			"request_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
		writeErrorStatus(w, http.StatusInternalServerError, codeInternal,
			"internal error; quote request id "+id+" when reporting it")
		return
	}
	status := e.Kind.Status()
	if status == http.StatusTooManyRequests {
		var ra *exam.RetryAfterError
		if errors.As(err, &ra) {
			w.Header().Set("Retry-After", strconv.FormatInt(retrySeconds(ra.RetryAfter.Seconds()), 10))
		}
	}
	if status == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" &&
		strings.HasPrefix(r.Header.Get("Authorization"), "Bearer") {
		w.Header().Set("WWW-Authenticate", `Bearer realm="portal", error="invalid_token"`)
	}
	if status == http.StatusInternalServerError {
		s.log.ErrorContext(r.Context(), "internal error",
			"request_id", requestIDFrom(r.Context()), "method", r.Method, "path", r.URL.Path, "err", err)
	}
	// The message of a domain error is meant for users; when handlers or
	// the service wrapped it ("get exam: NOT_FOUND: not found"), show the
	// error's own message only.
	writeErrorStatus(w, status, e.Code, e.Message)
}

// retrySeconds rounds a wait up to whole seconds, at least 1.
func retrySeconds(sec float64) int64 {
	n := int64(math.Ceil(sec))
	if n < 1 {
		n = 1
	}
	return n
}

func byteSize(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// invalidQuery returns a 400 INVALID_QUERY error.
func invalidQuery(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, codeInvalidQuery, format, args...)
}

// invalidJSON returns a 400 INVALID_JSON error.
func invalidJSON(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, codeInvalidJSON, format, args...)
}

// notFound answers unknown paths in the exam envelope.
func (s *server) notFound(w http.ResponseWriter, r *http.Request) {
	writeErrorStatus(w, http.StatusNotFound, codeNotFound, "no route for "+r.Method+" "+r.URL.Path)
}

// methodNotAllowed answers a known path with a method it does not serve,
// listing the methods it does in Allow.
func (s *server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
		http.MethodPatch, http.MethodDelete, http.MethodOptions} {
		if s.mux.Match(chiContext(), m, r.URL.Path) {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
	}
	writeErrorStatus(w, http.StatusMethodNotAllowed, codeMethodNotAllowed,
		"method "+r.Method+" is not allowed on "+r.URL.Path)
}
