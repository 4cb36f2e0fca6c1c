package respond

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/seedhq/portal/internal/blobstore"
)

// CodeStoreUnavailable is the code of a request that failed because the
// store (PostgreSQL) could not be reached: nothing was written, and the
// client may try again after Retry-After.
const CodeStoreUnavailable = "STORE_UNAVAILABLE"

// StoreRetryAfter is the Retry-After of a STORE_UNAVAILABLE answer: the
// portal reconnects by itself, a restart of the database takes seconds.
const StoreRetryAfter = 5 * time.Second

// storeUnavailableMessage is the message of a STORE_UNAVAILABLE answer.
const storeUnavailableMessage = "the portal cannot reach its database right now; nothing was changed: try again shortly"

// StoreUnavailable reports whether err says that the store could not be
// reached, rather than that the request or the portal is wrong: a refused,
// reset or cut connection, or PostgreSQL refusing connections or
// terminating them (SQLSTATE class 08, 57P01 to 57P03: shutting down,
// starting up, restarted). Nothing is half-written then: a transaction
// whose connection is lost is rolled back by the server.
func StoreUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var (
		op    *net.OpError
		state interface{ SQLState() string }
	)
	switch {
	case errors.As(err, &op), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	case errors.As(err, &state):
		c := state.SQLState()
		return strings.HasPrefix(c, "08") || c == "57P01" || c == "57P02" || c == "57P03"
	}
	return false
}

// SetStoreUnavailable sets the Retry-After of a STORE_UNAVAILABLE answer
// and returns its status, code and message, for the envelope of each API.
func SetStoreUnavailable(w http.ResponseWriter) (status int, code, message string) {
	w.Header().Set("Retry-After", strconv.Itoa(int(StoreRetryAfter.Seconds())))
	return http.StatusServiceUnavailable, CodeStoreUnavailable, storeUnavailableMessage
}

// CodeBlobStoreUnavailable is the code of a request that failed because the
// blob store (object storage, or the portal's own store of blobs) could not
// be reached: nothing was changed, and the client may try again after
// Retry-After.
const CodeBlobStoreUnavailable = "BLOB_STORE_UNAVAILABLE"

// BlobStoreRetryAfter is the Retry-After of a BLOB_STORE_UNAVAILABLE answer.
const BlobStoreRetryAfter = 10 * time.Second

// blobStoreUnavailableMessage is the message of a BLOB_STORE_UNAVAILABLE
// answer.
const blobStoreUnavailableMessage = "the portal cannot reach its file storage right now; nothing was changed: try again shortly"

// BlobStoreUnavailable reports whether err says that the blob store could
// not be reached (blobstore.ErrUnavailable).
func BlobStoreUnavailable(err error) bool { return errors.Is(err, blobstore.ErrUnavailable) }

// SetBlobStoreUnavailable sets the Retry-After of a BLOB_STORE_UNAVAILABLE
// answer and returns its status, code and message, for the envelope of each
// API.
func SetBlobStoreUnavailable(w http.ResponseWriter) (status int, code, message string) {
	w.Header().Set("Retry-After", strconv.Itoa(int(BlobStoreRetryAfter.Seconds())))
	return http.StatusServiceUnavailable, CodeBlobStoreUnavailable, blobStoreUnavailableMessage
}
