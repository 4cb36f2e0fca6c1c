// Package respond holds what the HTTP edges of the portal's APIs share:
// JSON answers, strict JSON decoding with clear errors, the error envelope
// {"success": false, "error", "code"} of the exam and ordering APIs with the
// mapping of *apperr.Error kinds to statuses, and the request id and client
// address that the router's middleware keeps in each request's context.
package respond

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/seedhq/portal/internal/jsonx"
)

// bodyBuffers are the response buffers of writeJSON, reused so that a long
// list is not encoded into a buffer grown (and zeroed) afresh each time.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody is the largest buffer kept for reuse (a few lists of 1,000
// records); larger ones are left to the garbage collector.
const maxPooledBody = 4 << 20

// JSON writes v as JSON, followed by a newline, with the given status.
func JSON(w http.ResponseWriter, status int, v any) {
	buf := bodyBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledBody {
			buf.Reset()
			bodyBuffers.Put(buf)
		}
	}()
	buf.Reset()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		// Only a bug can get here (every response type marshals).
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"success":false,"error":"internal error: response could not be encoded","code":"INTERNAL"}` + "\n")
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// Decode decodes the request body, which must be exactly one JSON value
// with no field unknown to dst. Errors are 400 INVALID_JSON with a message
// that says what is wrong and where, or 413 BODY_TOO_LARGE (as
// *http.MaxBytesError) when the body is over the route's limit.
//
// A body is decoded by the json v2 engine in encoding/json's semantics
// (jsonx, twice as fast on a push of 1,000 answers); one it refuses is
// decoded again by encoding/json, whose errors name the field and the
// offset, so that encoding/json has the last word either way.
func Decode(r *http.Request, dst any) error {
	body, err := io.ReadAll(r.Body)
	if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
		// The body's read deadline (limits.go) passed; the error's text
		// would name the portal's own address.
		return InvalidJSON("the request body did not arrive in time")
	}
	if err != nil {
		return jsonError(err)
	}
	return DecodeBytes(body, dst)
}

// DecodeBytes is Decode for a body already read (one whose signature was
// checked over its raw bytes first). A body that is only null is refused:
// every body the APIs take is an object (or an array).
func DecodeBytes(body []byte, dst any) error {
	if string(bytes.Trim(body, " \t\r\n")) == "null" {
		// encoding/json reads a null body as "nothing to set", which
		// would make an update of nothing, or a creation of defaults.
		return InvalidJSON("request body must be %s, not null", jsonKind(reflect.TypeOf(dst).Elem().Kind().String()))
	}
	strictErr := jsonx.UnmarshalStrict(body, dst)
	if strictErr == nil {
		return nil
	}
	zero := reflect.ValueOf(dst).Elem()
	zero.SetZero() // what the failed decoding filled in
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	// Exactly one value: anything but white space after it is an error.
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return InvalidJSON("request body has data after the JSON value")
	}
	// encoding/json took what the strict engine refused: a name in
	// another case than its field's.
	zero.SetZero()
	if name, ok := jsonx.UnknownName(strictErr); ok {
		return InvalidJSON("unknown field %q (names are case-sensitive)", name)
	}
	return InvalidJSON("invalid JSON: %v", strictErr)
}

// jsonError turns a decoding error into a clear INVALID_JSON error.
func jsonError(err error) error {
	var (
		tooLarge *http.MaxBytesError
		syntax   *json.SyntaxError
		typ      *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &tooLarge):
		return err
	case errors.Is(err, io.EOF):
		return InvalidJSON("request body is empty; a JSON object is required")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return InvalidJSON("request body ends in the middle of a JSON value")
	case errors.As(err, &syntax):
		return InvalidJSON("malformed JSON at byte %d: %v", syntax.Offset, err)
	case errors.As(err, &typ):
		if typ.Field != "" {
			return InvalidJSON("field %q must be %s, not %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)
		}
		return InvalidJSON("request body must be %s, not %s", jsonKind(typ.Type.Kind().String()), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return InvalidJSON("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	default:
		// Errors of UnmarshalJSON/UnmarshalText methods, e.g. a malformed time.
		return InvalidJSON("invalid JSON: %v", err)
	}
}

// jsonKind names a Go kind as JSON readers know it.
func jsonKind(kind string) string {
	switch kind {
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	default:
		return kind
	}
}
