package links

import (
	"errors"
	"net/http"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/httpapi/respond"
	link "github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/qr"
)

// errorBody is the error envelope of the link API. Code is an addition
// to the spec's two fields: the stable code of docs/api/links.md.
type errorBody struct {
	Error   int    `json:"error"`
	Message string `json:"message"`
	Code    string `json:"code"`
}

// okBody answers operations that return no record.
type okBody struct {
	Error   int    `json:"error"`
	Message string `json:"message"`
}

// writeOK writes {"error":0,"message":msg}.
func writeOK(w http.ResponseWriter, msg string) {
	respond.JSON(w, http.StatusOK, okBody{Error: 0, Message: msg})
}

// writeList writes the paged list envelope: {"error":"0","data":{result,
// perpage, currentpage, nextpage, maxpage, <name>: items}}.
func writeList[T, V any](w http.ResponseWriter, name string, l link.List[T], view func(T) V) {
	items := make([]V, len(l.Items))
	for i, it := range l.Items {
		items[i] = view(it)
	}
	p := l.Paging()
	respond.JSON(w, http.StatusOK, map[string]any{
		"error": "0",
		"data": map[string]any{
			"result":      p.Result,
			"perpage":     p.PerPage,
			"currentpage": p.CurrentPage,
			"nextpage":    p.NextPage,
			"maxpage":     p.MaxPage,
			name:          items,
		},
	})
}

// writeErrorStatus writes the link error envelope with an explicit status.
func writeErrorStatus(w http.ResponseWriter, status int, code, msg string) {
	respond.JSON(w, status, errorBody{Error: 1, Message: msg, Code: code})
}

// writeError answers err in the link envelope: an *apperr.Error with the
// status of its kind; a *qr.ValidationError with 400 VALIDATION_FAILED (413
// BODY_TOO_LARGE for an oversized logo); an over-limit body with 413; a
// blob store that cannot be reached with 503 BLOB_STORE_UNAVAILABLE and
// Retry-After; a store that cannot be reached with 503 STORE_UNAVAILABLE
// and Retry-After;
// text the store cannot keep (a NUL character, bytes that are not UTF-8)
// with 400 INVALID_TEXT; anything else with 500 INTERNAL, logged in full.
func (a *api) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var (
		tooLarge *http.MaxBytesError
		qrErr    *qr.ValidationError
	)
	switch {
	case errors.As(err, &tooLarge):
		writeErrorStatus(w, http.StatusRequestEntityTooLarge, respond.CodeBodyTooLarge,
			"request body is larger than the limit of "+respond.ByteSize(tooLarge.Limit))
		return
	case errors.As(err, &qrErr):
		if errors.Is(err, qr.ErrTooLarge) {
			writeErrorStatus(w, http.StatusRequestEntityTooLarge, respond.CodeBodyTooLarge, qrErr.Error())
			return
		}
		writeErrorStatus(w, http.StatusBadRequest, "VALIDATION_FAILED", qrErr.Error())
		return
	}
	e := apperr.From(err)
	if e == nil && respond.BlobStoreUnavailable(err) {
		a.log.WarnContext(r.Context(), "blob store unavailable", "request_id", respond.RequestID(r.Context()), "method", r.Method,
			"path", r.URL.Path, "err", err)
		status, code, msg := respond.SetBlobStoreUnavailable(w)
		writeErrorStatus(w, status, code, msg)
		return
	}
	if e == nil && respond.StoreUnavailable(err) {
		a.log.WarnContext(r.Context(), "store unavailable", "request_id", respond.RequestID(r.Context()), "method", r.Method,
			"path", r.URL.Path, "err", err)
		status, code, msg := respond.SetStoreUnavailable(w)
		writeErrorStatus(w, status, code, msg)
		return
	}
	if e == nil && respond.StoreRefusedText(err) {
		status, code, msg := respond.InvalidTextAnswer()
		writeErrorStatus(w, status, code, msg)
		return
	}
	if e == nil || e.Kind == apperr.Internal {
		id := respond.RequestID(r.Context())
		a.log.ErrorContext(r.Context(), "internal error",
			"request_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
		writeErrorStatus(w, http.StatusInternalServerError, respond.CodeInternal,
			"internal error; quote request id "+id+" when reporting it")
		return
	}
	status := e.Kind.Status()
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="links"`)
	}
	writeErrorStatus(w, status, e.Code, e.Message)
}

// decode decodes a JSON body for the link API (one value, no unknown
// field, at most the default body limit), answering the error itself; it
// reports whether the handler may go on.
func (a *api) decode(w http.ResponseWriter, r *http.Request, dst any) bool {
	if err := respond.Decode(r, dst); err != nil {
		a.writeError(w, r, err)
		return false
	}
	return true
}

// idBody answers a create with the new record's id.
type idBody struct {
	Error int   `json:"error"`
	ID    int64 `json:"id"`
}
