package respond

import (
	"io"
	"net/http"
)

// limitedBody is a request body under a size limit that remembers the
// original body, so that a route may set a limit of its own, higher or lower
// than the default installed for every request.
type limitedBody struct {
	io.ReadCloser               // the limited reader
	orig          io.ReadCloser // the body as the server gave it
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
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > n {
				ErrorStatus(w, http.StatusRequestEntityTooLarge, CodeBodyTooLarge,
					"request body is larger than the limit of "+ByteSize(n))
				return
			}
			setBodyLimit(w, r, n)
			next.ServeHTTP(w, r)
		})
	}
}

// setBodyLimit puts the body of r under the limit n.
func setBodyLimit(w http.ResponseWriter, r *http.Request, n int64) {
	orig := r.Body
	if lb, ok := orig.(*limitedBody); ok {
		orig = lb.orig
	}
	if orig != nil && orig != http.NoBody {
		r.Body = &limitedBody{ReadCloser: http.MaxBytesReader(w, orig, n), orig: orig}
	}
}
