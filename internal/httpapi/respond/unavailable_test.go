package respond

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/seedhq/portal/internal/blobstore"
)

// sqlStateError is an error with a SQLSTATE, as pgconn.PgError is.
type sqlStateError string

func (e sqlStateError) Error() string    { return "SQLSTATE " + string(e) }
func (e sqlStateError) SQLState() string { return string(e) }

// TestStoreUnavailable: the errors of a database that cannot be reached are
// told apart from the others, through wrapping.
func TestStoreUnavailable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{fmt.Errorf("postgres: add link: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("write: %w", syscall.EPIPE), true},
		{fmt.Errorf("query: %w", sqlStateError("57P01")), true},  // admin_shutdown
		{fmt.Errorf("query: %w", sqlStateError("57P03")), true},  // cannot_connect_now
		{fmt.Errorf("query: %w", sqlStateError("08006")), true},  // connection_failure
		{fmt.Errorf("query: %w", sqlStateError("23505")), false}, // unique_violation
		{errors.New("a bug"), false},
		{nil, false},
	} {
		if got := StoreUnavailable(tc.err); got != tc.want {
			t.Errorf("StoreUnavailable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestErrorStoreUnavailable: such an error is answered 503
// STORE_UNAVAILABLE with Retry-After, not 500.
func TestErrorStoreUnavailable(t *testing.T) {
	w := httptest.NewRecorder()
	Error(w, httptest.NewRequest("POST", "/api/x", nil), slog.New(slog.DiscardHandler),
		fmt.Errorf("postgres: create: %w", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "5" ||
		!strings.Contains(w.Body.String(), `"code":"STORE_UNAVAILABLE"`) {
		t.Fatalf("answer %d %v %s", w.Code, w.Header(), w.Body)
	}
}

// TestErrorBlobStoreUnavailable: a blob store that cannot be reached is
// answered 503 BLOB_STORE_UNAVAILABLE with Retry-After, even when the
// network error inside would read as the database's.
func TestErrorBlobStoreUnavailable(t *testing.T) {
	w := httptest.NewRecorder()
	Error(w, httptest.NewRequest("GET", "/api/payments/x/proof", nil), slog.New(slog.DiscardHandler),
		fmt.Errorf("open proof: %w: %w", blobstore.ErrUnavailable, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "10" ||
		!strings.Contains(w.Body.String(), `"code":"BLOB_STORE_UNAVAILABLE"`) {
		t.Fatalf("answer %d %v %s", w.Code, w.Header(), w.Body)
	}
	// The blob store's other failures are internal errors.
	w = httptest.NewRecorder()
	Error(w, httptest.NewRequest("GET", "/api/payments/x/proof", nil), slog.New(slog.DiscardHandler),
		fmt.Errorf("open proof: %w", blobstore.ErrNoBucket))
	if w.Code != http.StatusInternalServerError || w.Header().Get("Retry-After") != "" {
		t.Fatalf("no bucket: answer %d %v %s", w.Code, w.Header(), w.Body)
	}
}
