package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

// requestIDHeader carries the request id in both directions.
const requestIDHeader = "X-Request-ID"

// requestID takes the caller's X-Request-ID when it is a sane token (so that
// a proxy's id follows the request), otherwise makes a new one; it is echoed
// in the response and kept in the context for log lines.
func (s *server) requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(requestIDHeader)
		if !validRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set(requestIDHeader, id)
		next.ServeHTTP(w, r.WithContext(respond.WithRequestID(r.Context(), id)))
	})
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// responseRecorder remembers the status and the number of body bytes written.
type responseRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (rw *responseRecorder) WriteHeader(status int) {
	if rw.status == 0 && status >= 200 {
		rw.status = status
	}
	rw.ResponseWriter.WriteHeader(status)
}

func (rw *responseRecorder) Write(p []byte) (int, error) {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	n, err := rw.ResponseWriter.Write(p)
	rw.bytes += int64(n)
	return n, err
}

// ReadFrom keeps io.Copy's fast path of the underlying writer.
func (rw *responseRecorder) ReadFrom(src io.Reader) (int64, error) {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	n, err := io.Copy(rw.ResponseWriter, src)
	rw.bytes += n
	return n, err
}

// Flush sends buffered data to the client.
func (rw *responseRecorder) Flush() {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	http.NewResponseController(rw.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (rw *responseRecorder) Unwrap() http.ResponseWriter { return rw.ResponseWriter }

// written reports whether the response has started.
func (rw *responseRecorder) written() bool { return rw.status != 0 }

// observe writes one "request complete" log line per request and records
// the request in the HTTP metrics, labelled with the chi route pattern (never
// the raw path, whose ids would make unbounded label values).
func (s *server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &responseRecorder{ResponseWriter: w}
		defer func() {
			// A panic that got past the recoverer (http.ErrAbortHandler)
			// still gets its line, then goes on to net/http.
			p := recover()
			status := rec.status
			switch {
			case status == 0 && p != nil:
				status = 499 // aborted before a response started
			case status == 0:
				status = http.StatusOK // the handler wrote nothing
			}
			route := routePattern(r)
			elapsed := time.Since(start)
			s.metrics.observe(route, r.Method, status, elapsed)
			level := slog.LevelInfo
			if status >= 500 {
				level = slog.LevelError
			}
			s.log.LogAttrs(r.Context(), level, "request complete",
				slog.String("method", r.Method),
				slog.String("route", route),
				slog.Int("status", status),
				slog.Duration("duration", elapsed),
				slog.Int64("bytes", rec.bytes),
				slog.String("request_id", respond.RequestID(r.Context())),
				slog.String("client_ip", respond.ClientIP(r.Context())),
			)
			if p != nil {
				panic(p)
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

// routePattern returns the chi route pattern that served r, or "unmatched".
func routePattern(r *http.Request) string {
	if rctx := chi.RouteContext(r.Context()); rctx != nil {
		if p := rctx.RoutePattern(); p != "" {
			return p
		}
	}
	return "unmatched"
}

func chiContext() *chi.Context { return chi.NewRouteContext() }

// recoverer turns a panic in a handler into 500 INTERNAL in the exam
// envelope (when the response has not started) and logs it with its stack.
// http.ErrAbortHandler is re-raised: it is net/http's way to abort a response.
func (s *server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.ErrorContext(r.Context(), "panic serving request",
				"request_id", respond.RequestID(r.Context()), "method", r.Method, "path", r.URL.Path,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if rec, ok := w.(*responseRecorder); ok && rec.written() {
				panic(http.ErrAbortHandler) // too late for a clean answer: cut the connection
			}
			respond.ErrorStatus(w, http.StatusInternalServerError, respond.CodeInternal,
				"internal error; quote request id "+respond.RequestID(r.Context())+" when reporting it")
		}()
		next.ServeHTTP(w, r)
	})
}
