package httpapi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/qr"
)

// linkRoutes lists every route of the link-management API
// (docs/api/links.md), all behind the API key and the per-key rate limit,
// and the operator routes that manage its users. It is called only when
// Options.Links is set: without it none of these paths exist (404).
func (s *server) linkRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(s.requireLinkKey, s.linkRateLimit)

		r.Get("/api/account", s.linkAccount)
		r.Put("/api/account/update", s.linkUpdateAccount)

		r.Get("/api/domains", s.linkListDomains)
		r.With(s.linkOnce).Post("/api/domain/add", s.linkAddDomain)
		r.Put("/api/domain/{id}/update", s.linkUpdateDomain)
		r.Delete("/api/domain/{id}/delete", s.linkDelete("domain", s.links.DeleteDomain, "Domain has been deleted successfully."))

		r.Get("/api/overlay", s.linkListOverlays)
		r.Get("/api/splash", s.linkListSplashes)

		r.Get("/api/campaigns", s.linkListCampaigns)
		r.With(s.linkOnce).Post("/api/campaign/add", s.linkAddCampaign)
		r.Post("/api/campaign/{campaignid}/assign/{linkid}", s.linkAssignCampaign)
		r.Put("/api/campaign/{id}/update", s.linkUpdateCampaign)
		r.Delete("/api/campaign/{id}/delete", s.linkDelete("campaign", s.links.DeleteCampaign, "Campaign has been deleted successfully."))

		r.Get("/api/channels", s.linkListChannels)
		r.Get("/api/channel/{id}", s.linkListChannelItems)
		r.With(s.linkOnce).Post("/api/channel/add", s.linkAddChannel)
		r.Post("/api/channel/{channelid}/assign/{type}/{itemid}", s.linkAssignChannel)
		r.Put("/api/channel/{id}/update", s.linkUpdateChannel)
		r.Delete("/api/channel/{id}/delete", s.linkDelete("channel", s.links.DeleteChannel, "Channel has been deleted successfully.")) // its items are unassigned

		r.Get("/api/pixels", s.linkListPixels)
		r.With(s.linkOnce).Post("/api/pixel/add", s.linkAddPixel)
		r.Put("/api/pixel/{id}/update", s.linkUpdatePixel)
		r.Delete("/api/pixel/{id}/delete", s.linkDelete("pixel", s.links.DeletePixel, "Pixel has been deleted successfully."))

		r.Get("/api/qr", s.linkListQRs)
		r.Get("/api/qr/{id}", s.linkGetQR)
		r.With(s.linkOnce).Post("/api/qr/add", s.linkAddQR)
		r.Put("/api/qr/{id}/update", s.linkUpdateQR)
		r.Delete("/api/qr/{id}/delete", s.linkDelete("QR code", s.links.DeleteQR, "QR has been deleted successfully."))

		r.Get("/api/urls", s.linkListURLs)
		r.Get("/api/url/{id}", s.linkGetURL)
		r.With(s.linkOnce).Post("/api/url/add", s.linkAddURL)
		r.Put("/api/url/{id}/update", s.linkUpdateURL)
		r.Delete("/api/url/{id}/delete", s.linkDelete("link", s.links.DeleteLink, "Link has been deleted successfully."))
	})

	// Operator JWT, exam envelope.
	r.Group(func(r chi.Router) {
		r.Use(s.requireOperator)

		r.With(s.operatorOnce).Post(examBase+"/admin/link-users", s.adminCreateLinkUser)
		r.Get(examBase+"/admin/link-users", s.adminListLinkUsers)
		r.Post(examBase+"/admin/link-users/{id}/rotate-key", s.adminRotateLinkKey)
		r.Put(examBase+"/admin/link-users/{id}/password", s.adminSetLinkPassword)
		r.With(s.operatorOnce).Post(examBase+"/admin/link-overlays", s.adminCreateLinkOverlay)
		r.With(s.operatorOnce).Post(examBase+"/admin/link-splashes", s.adminCreateLinkSplash)
	})
}

// linkOnce honours Idempotency-Key on a link user's creating call
// (internal/idempotency), answering in the link envelope.
func (s *server) linkOnce(next http.Handler) http.Handler {
	return s.exam.Idempotency().Middleware(func(r *http.Request) string {
		return "link-user:" + strconv.FormatInt(linkUser(r).ID, 10)
	}, s.linkError)(next)
}

// --- Envelope -------------------------------------------------------------

// linkErrorBody is the error envelope of the link API. Code is an addition
// to the spec's two fields: the stable code of docs/api/links.md.
type linkErrorBody struct {
	Error   int    `json:"error"`
	Message string `json:"message"`
	Code    string `json:"code"`
}

// linkOKBody answers operations that return no record.
type linkOKBody struct {
	Error   int    `json:"error"`
	Message string `json:"message"`
}

// writeLinkOK writes {"error":0,"message":msg}.
func writeLinkOK(w http.ResponseWriter, msg string) {
	respond.JSON(w, http.StatusOK, linkOKBody{Error: 0, Message: msg})
}

// writeLinkList writes the paged list envelope: {"error":"0","data":{result,
// perpage, currentpage, nextpage, maxpage, <name>: items}}.
func writeLinkList[T, V any](w http.ResponseWriter, name string, l links.List[T], view func(T) V) {
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

// writeLinkErrorStatus writes the link error envelope with an explicit status.
func writeLinkErrorStatus(w http.ResponseWriter, status int, code, msg string) {
	respond.JSON(w, status, linkErrorBody{Error: 1, Message: msg, Code: code})
}

// linkError answers err in the link envelope: an *apperr.Error with the
// status of its kind; a *qr.ValidationError with 400 VALIDATION_FAILED (413
// BODY_TOO_LARGE for an oversized logo); an over-limit body with 413; a
// blob store that cannot be reached with 503 BLOB_STORE_UNAVAILABLE and
// Retry-After; a store that cannot be reached with 503 STORE_UNAVAILABLE
// and Retry-After;
// text the store cannot keep (a NUL character, bytes that are not UTF-8)
// with 400 INVALID_TEXT; anything else with 500 INTERNAL, logged in full.
func (s *server) linkError(w http.ResponseWriter, r *http.Request, err error) {
	var (
		tooLarge *http.MaxBytesError
		qrErr    *qr.ValidationError
	)
	switch {
	case errors.As(err, &tooLarge):
		writeLinkErrorStatus(w, http.StatusRequestEntityTooLarge, respond.CodeBodyTooLarge,
			"request body is larger than the limit of "+respond.ByteSize(tooLarge.Limit))
		return
	case errors.As(err, &qrErr):
		if errors.Is(err, qr.ErrTooLarge) {
			writeLinkErrorStatus(w, http.StatusRequestEntityTooLarge, respond.CodeBodyTooLarge, qrErr.Error())
			return
		}
		writeLinkErrorStatus(w, http.StatusBadRequest, "VALIDATION_FAILED", qrErr.Error())
		return
	}
	e := apperr.From(err)
	if e == nil && respond.BlobStoreUnavailable(err) {
		s.log.WarnContext(r.Context(), "blob store unavailable", "request_id", respond.RequestID(r.Context()), "method", r.Method,
			"path", r.URL.Path, "err", err)
		status, code, msg := respond.SetBlobStoreUnavailable(w)
		writeLinkErrorStatus(w, status, code, msg)
		return
	}
	if e == nil && respond.StoreUnavailable(err) {
		s.log.WarnContext(r.Context(), "store unavailable", "request_id", respond.RequestID(r.Context()), "method", r.Method,
			"path", r.URL.Path, "err", err)
		status, code, msg := respond.SetStoreUnavailable(w)
		writeLinkErrorStatus(w, status, code, msg)
		return
	}
	if e == nil && respond.StoreRefusedText(err) {
		status, code, msg := respond.InvalidTextAnswer()
		writeLinkErrorStatus(w, status, code, msg)
		return
	}
	if e == nil || e.Kind == apperr.Internal {
		id := respond.RequestID(r.Context())
		s.log.ErrorContext(r.Context(), "internal error",
			"request_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
		writeLinkErrorStatus(w, http.StatusInternalServerError, respond.CodeInternal,
			"internal error; quote request id "+id+" when reporting it")
		return
	}
	status := e.Kind.Status()
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="links"`)
	}
	writeLinkErrorStatus(w, status, e.Code, e.Message)
}

// decodeLink decodes a JSON body for the link API (one value, no unknown
// field, at most the default body limit), answering the error itself; it
// reports whether the handler may go on.
func (s *server) decodeLink(w http.ResponseWriter, r *http.Request, dst any) bool {
	if err := respond.Decode(r, dst); err != nil {
		s.linkError(w, r, err)
		return false
	}
	return true
}

// --- Authentication and rate limit ------------------------------------------

type ctxLinkUserKey struct{}

// requireLinkKey admits requests carrying "Authorization: Bearer <key>" or
// "Token <key>" of a link user and stores the user in the context; others
// get 401 UNAUTHORIZED.
func (s *server) requireLinkKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := links.ParseAuthorization(r.Header.Get("Authorization"))
		if !ok {
			s.linkError(w, r, links.ErrUnauthorized)
			return
		}
		u, err := s.links.Authenticate(r.Context(), key)
		if err != nil {
			s.linkError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxLinkUserKey{}, u)))
	})
}

// linkRateLimit counts the request against the user's per-minute cap and
// sets X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix
// seconds) before the handler writes anything, so that every response of an
// authenticated request carries them. Over the cap: 429 RATE_LIMITED with
// Retry-After (seconds to the window's end).
func (s *server) linkRateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st, err := s.links.Allow(r.Context(), linkUser(r))
		if err != nil && !errors.Is(err, links.ErrRateLimited) {
			s.linkError(w, r, err)
			return
		}
		h := w.Header()
		h.Set("X-RateLimit-Limit", strconv.Itoa(st.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(st.Remaining))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(st.Reset.Unix(), 10))
		if err != nil {
			// The window ends within a minute; time.Until is that wait on
			// the wall clock the service uses in production.
			wait := min(max(int64(math.Ceil(time.Until(st.Reset).Seconds())), 1), 60)
			h.Set("Retry-After", strconv.FormatInt(wait, 10))
			s.linkError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// linkUser returns the user stored by requireLinkKey.
func linkUser(r *http.Request) links.User {
	u, _ := r.Context().Value(ctxLinkUserKey{}).(links.User)
	return u
}

// --- Request helpers --------------------------------------------------------

// linkID parses the path parameter param as a record id. Anything but a
// positive decimal integer cannot name a record: NOT_FOUND, as a missing id.
func linkID(r *http.Request, param, what string) (int64, error) {
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

// linkPage reads the limit and page query parameters (VALIDATION_FAILED
// when they are not integers in range).
func linkPage(r *http.Request) (links.Page, error) {
	var p links.Page
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
				return p, apperr.Errorf(apperr.Invalid, "VALIDATION_FAILED", "limit must be an integer between 1 and %d", links.MaxLimit)
			}
			return p, apperr.New(apperr.Invalid, "VALIDATION_FAILED", "page must be an integer of at least 1")
		}
		*f.dst = n
	}
	return p.Normalize()
}

// linkDateLayout is the spec's date format, in UTC.
const linkDateLayout = "2006-01-02 15:04:05"

func linkDate(t time.Time) string { return t.UTC().Format(linkDateLayout) }

// linkDatePtr formats an optional time; "" when there is none.
func linkDatePtr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return linkDate(*t)
}

// linkBase returns the base URL of the short host, without a trailing
// slash: Options.LinkBaseURL, else the scheme and host of the request.
func (s *server) linkBase(r *http.Request) string {
	if s.linkBaseURL != "" {
		return s.linkBaseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// domainURLs returns the URL of each of the owner's domains by id, walking
// every page (the service has no single-domain read).
func (s *server) domainURLs(ctx context.Context, owner int64) (map[int64]string, error) {
	out := map[int64]string{}
	for page := 1; ; page++ {
		l, err := s.links.ListDomains(ctx, owner, links.Page{Number: page, Limit: links.MaxLimit})
		if err != nil {
			return nil, err
		}
		for _, d := range l.Items {
			out[d.ID] = d.URL
		}
		if l.Paging().NextPage == 0 {
			return out, nil
		}
	}
}

// shortURL returns the address of a short link: the branded domain's URL or
// the short host's, and the alias.
func (s *server) shortURL(r *http.Request, domains map[int64]string, l links.ShortLink) string {
	base := s.linkBase(r)
	if l.DomainID != 0 {
		if u, ok := domains[l.DomainID]; ok {
			base = u
		}
	}
	return strings.TrimSuffix(base, "/") + "/" + l.Alias
}

// qrLink is the address of a QR code's image on the short host.
func (s *server) qrLink(r *http.Request, id int64) string {
	return fmt.Sprintf("%s/qr/%d", s.linkBase(r), id)
}

// linkDelete returns the handler of a DELETE /api/<resource>/{id}/delete
// route: what names the resource in a bad-id error, del removes the caller's
// record, msg is the success message.
func (s *server) linkDelete(what string, del func(ctx context.Context, owner, id int64) error, msg string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := linkID(r, "id", what)
		if err != nil {
			s.linkError(w, r, err)
			return
		}
		if err := del(r.Context(), linkUser(r).ID, id); err != nil {
			s.linkError(w, r, err)
			return
		}
		writeLinkOK(w, msg)
	}
}
