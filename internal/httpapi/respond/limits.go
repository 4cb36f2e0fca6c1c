package respond

import (
	"io"
	"net/http"
	"time"
)

// Slow request bodies. The portal's http.Server has no ReadTimeout (answer
// uploads may take minutes on a school's line), so a client that sent its
// headers and then trickled its body would hold its connection and handler
// for as long as it liked. Instead, the body of each request must arrive
// within BodyReadGrace plus its route's limit at BodyReadRate bytes a
// second: 1 MiB routes get 94 s, a 32 MiB push 34 minutes. A body still
// arriving then fails to read (the handler answers it as a bad body) and
// the connection is closed. The deadline is lifted as soon as the body has
// been read, so that a handler working longer is not cut off.
var (
	BodyReadGrace       = 30 * time.Second
	BodyReadRate  int64 = 16 << 10
)

// bodyReadTime is the time a body under the limit n may take to arrive.
func bodyReadTime(n int64) time.Duration {
	return BodyReadGrace + time.Duration(n/max(BodyReadRate, 1))*time.Second
}

// limitedBody is a request body under a size limit that remembers the
// original body, so that a route may set a limit of its own, higher or lower
// than the default installed for every request, and lifts the read
// deadline of the body once it has been read.
type limitedBody struct {
	io.ReadCloser                          // the limited reader
	orig          io.ReadCloser            // the body as the server gave it
	rc            *http.ResponseController // sets the connection's read deadline
}

// Read reads the body; at its end it lifts the read deadline set for it.
// After any other error the deadline stays: the server, discarding what is
// left of a body that timed out, must not wait for it.
func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// LimitBody limits the request body of every request to n bytes; reading
// more fails with *http.MaxBytesError, answered 413 BODY_TOO_LARGE. It runs
// before routing; routes with another limit say so with RouteBodyLimit.
func LimitBody(n int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			setBodyLimit(w, r, n)
			next.ServeHTTP(w, r)
		})
	}
}

// RouteBodyLimit replaces the default body limit by n for one route. A
// declared Content-Length over n is answered 413 at once, before the body is
// read.
func RouteBodyLimit(n int64) func(http.Handler) http.Handler {
	return RouteBodyLimitCode(n, CodeBodyTooLarge, "request body is larger than the limit of "+ByteSize(n))
}

// RouteBodyLimitCode is RouteBodyLimit answering a declared Content-Length
// over n with the route's own code and message (an upload's
// MEDIA_TOO_LARGE, say); the handler answers a longer body that declared no
// length, when reading fails with *http.MaxBytesError.
func RouteBodyLimitCode(n int64, code, message string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > n {
				ErrorStatus(w, http.StatusRequestEntityTooLarge, code, message)
				return
			}
			setBodyLimit(w, r, n)
			next.ServeHTTP(w, r)
		})
	}
}

// setBodyLimit puts the body of r under the limit n, to arrive within
// bodyReadTime(n) (a writer that cannot set deadlines, as in tests with
// httptest.NewRecorder, sets none).
func setBodyLimit(w http.ResponseWriter, r *http.Request, n int64) {
	orig := r.Body
	if lb, ok := orig.(*limitedBody); ok {
		orig = lb.orig
	}
	if orig != nil && orig != http.NoBody {
		rc := http.NewResponseController(w)
		rc.SetReadDeadline(time.Now().Add(bodyReadTime(n)))
		r.Body = &limitedBody{ReadCloser: http.MaxBytesReader(w, orig, n), orig: orig, rc: rc}
	}
}
