package links

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	link "github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// pathID parses the path parameter param as a record id. Anything but a
// positive decimal integer cannot name a record: NOT_FOUND, as a missing id.
func pathID(r *http.Request, param, what string) (int64, error) {
	raw := chi.URLParam(r, param)
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		if len(raw) > 40 {
			raw = raw[:40] + "..."
		}
		return 0, apperr.Errorf(apperr.NotFound, "NOT_FOUND", "%s %q not found", what, raw)
	}
	return id, nil
}

// pageOf reads the limit and page query parameters (VALIDATION_FAILED
// when they are not integers in range).
func pageOf(r *http.Request) (link.Page, error) {
	var p link.Page
	q := r.URL.Query()
	for _, f := range []struct {
		name string
		dst  *int
	}{{"page", &p.Number}, {"limit", &p.Limit}} {
		v := strings.TrimSpace(q.Get(f.name))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			if f.name == "limit" {
				return p, apperr.Errorf(apperr.Invalid, "VALIDATION_FAILED", "limit must be an integer between 1 and %d", link.MaxLimit)
			}
			return p, apperr.New(apperr.Invalid, "VALIDATION_FAILED", "page must be an integer of at least 1")
		}
		*f.dst = n
	}
	return p.Normalize()
}

// dateLayout is the spec's date format, in UTC.
const dateLayout = "2006-01-02 15:04:05"

func formatDate(t time.Time) string { return t.UTC().Format(dateLayout) }

// formatDatePtr formats an optional time; "" when there is none.
func formatDatePtr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return formatDate(*t)
}

// setIf sets *dst to *v when v is not nil.
func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// getWithStats reads the user's record {id} with get and its statistics
// with stats (GET /api/qr/{id} and /api/url/{id}); on an error it answers
// it and reports false.
func getWithStats[T any](a *api, w http.ResponseWriter, r *http.Request, what string,
	get func(context.Context, int64, int64) (T, error),
	stats func(context.Context, int64, int64) (visits.Stats, error)) (T, visits.Stats, bool) {
	var (
		rec T
		st  visits.Stats
	)
	id, err := pathID(r, "id", what)
	if err == nil {
		owner := userFrom(r).ID
		if rec, err = get(r.Context(), owner, id); err == nil {
			st, err = stats(r.Context(), owner, id)
		}
	}
	if err != nil {
		a.writeError(w, r, err)
		return rec, st, false
	}
	return rec, st, true
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func invalidField(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, "VALIDATION_FAILED", format, args...)
}

// present reports whether a raw field was given and is not null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}
