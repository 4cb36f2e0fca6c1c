// Package redirect is the link redirector: the public side of the link
// domain, served on the short-link host and on every branded domain.
//
// # Routes
//
// The host of the request (lower-cased, port stripped when the host is not
// registered with its port) chooses the domain: Options.ShortHost is the
// portal's own short host (domain id 0), any other host is looked up with
// Store.GetDomainByHost, and a host that is neither answers the 404 page.
//
//	GET|HEAD /{alias}    every host: 302 to the link's long URL and one
//	                     KindLink visit; unknown or expired alias: 302 to
//	                     the domain's Redirect404, else the 404 page.
//	                     A link with pixels answers a 200 interstitial page
//	                     that fires them and redirects after one second;
//	                     a link with a password answers a 200 password form.
//	POST /{alias}        the password form's submission (field "password"):
//	                     good: as GET without the password; bad: the form
//	                     again with 401; 5 failures per alias and client
//	                     address within 5 minutes: 429 with Retry-After.
//	GET|HEAD /           branded domain: 302 to its RedirectRoot, else the
//	                     404 page; short host: 302 to Options.HomeURL, else
//	                     the 404 page.
//	GET|HEAD /r/{slug}   short host: the campaign rotator (the address the
//	                     API gives as a campaign's "rotator").
//	GET|HEAD /c/{id}     short host: the campaign's public list page (the
//	                     address the API gives as a campaign's "list").
//	GET|HEAD /q/{id}     short host: the tracking address a link-type QR
//	                     code encodes.
//	GET|HEAD /qr/{id}    short host: the QR code's image (the API's "link"
//	                     of a code), PNG; /qr/{id}.png is the same and
//	                     /qr/{id}.svg is SVG; ?size= 64 to 2048 pixels.
//
// Any other method answers 405 with an Allow header; any other path the 404
// page. Two-segment paths cannot collide with aliases, which never contain
// a slash.
//
// # Decisions
//
//   - Every redirect carries Cache-Control: no-store, so that browsers and
//     proxies come back and every click is counted. Redirects set no
//     Referrer-Policy, so the destination sees the referrer the browser's
//     own policy allows; the HTML pages send no-referrer (form, 404, list)
//     or strict-origin-when-cross-origin (interstitial: the pixel vendors
//     see the short host, not the alias).
//   - HEAD answers as GET but records no visit: it is not a click.
//   - Visits are captured and queued on the request path (Recorder.Record
//     never blocks); a link's password form and interstitial count the
//     visit only when the visitor is sent on (after the password).
//   - Pixels: each pixel is checked again with links.ValidatePixel and only
//     its validated tag id is put into the vendor's standard snippet, by
//     html/template (JavaScript and URL escaping). Pixels that fail the
//     check are skipped; a link whose pixels all fail is redirected at once.
//     The page's Content-Security-Policy allows scripts only with the page's
//     nonce and from the script hosts of the vendors on the page.
//   - Rotator: GET /r/{slug} sends each visitor to the next of the public
//     campaign's links (ascending id; expired and password-protected links
//     are skipped, at most links.MaxLimit links) and records one
//     KindCampaign visit. The turn is an in-memory counter per campaign: with
//     several portal instances each rotates on its own, so the split is even
//     overall but not strictly in turn. A private campaign, a campaign
//     without usable links or an unknown slug answer the 404 page.
//   - List page: GET /c/{id} lists a public campaign's unexpired links (short
//     address and title, at most links.MaxLimit), else the 404 page.
//   - QR: GET /q/{id} of a link-type code records a KindQR visit and
//     redirects to the long URL of the code's link (LinkID), or to the URL in
//     its data when it has no link. When that link has a password or pixels
//     the scan goes to the link's short address instead, so that its form or
//     interstitial runs (the link then counts its own visit). Codes of other
//     types encode their content directly and have no tracking address (404).
//   - QR images: any code's image is public, like the short links. It is
//     drawn by internal/links/qr from the code's payload (qr.Payload of its
//     type and data; a link-type code encodes its tracking address
//     <base>/q/{id}, not the long URL, so that scans are counted), colours
//     and logo. Responses carry Cache-Control: public, max-age=300 and a
//     strong ETag (a hash of the drawing's inputs: format, size, payload,
//     colours, logo); If-None-Match answers 304. Rendered images are kept
//     in memory by ETag (32 MiB in all). Fetching an image is no visit.
//   - Cache: with Options.CacheTTL > 0 the results of host, alias, campaign
//     and QR look-ups (found or not found) are kept in memory for that long,
//     or until Invalidate drops those of a kind: the portal calls it on
//     every write of the link API, and on every write another instance
//     publishes (links.ChangeFeed), so that a write is seen by the next
//     request. The TTL bounds what a lost notification could leave.
package redirect

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
	"github.com/seedhq/portal/internal/password"
)

// Store is what the redirector reads. links.Store implementations provide
// it; GetCampaignByID and GetQRByID are the owner-less reads only the
// redirector needs.
type Store interface {
	// GetDomainByHost returns the domain with the (lower-case) host, whoever owns it.
	GetDomainByHost(ctx context.Context, host string) (links.Domain, error)
	// GetDomain returns the owner's domain.
	GetDomain(ctx context.Context, owner, id int64) (links.Domain, error)
	// GetLinkByAlias returns the link of the domain (0: the short host) with
	// the alias, whoever owns it.
	GetLinkByAlias(ctx context.Context, domainID int64, alias string) (links.ShortLink, error)
	// GetLink returns the owner's link.
	GetLink(ctx context.Context, owner, id int64) (links.ShortLink, error)
	// ListLinks returns one page of the owner's matching links.
	ListLinks(ctx context.Context, owner int64, f links.LinkFilter, p links.Page) (links.List[links.ShortLink], error)
	// GetCampaignBySlug returns the campaign with the rotator slug, whoever owns it.
	GetCampaignBySlug(ctx context.Context, slug string) (links.Campaign, error)
	// GetCampaignByID returns the campaign with the id, whoever owns it
	// (ErrNotFound when there is none).
	GetCampaignByID(ctx context.Context, id int64) (links.Campaign, error)
	// GetPixel returns the owner's pixel.
	GetPixel(ctx context.Context, owner, id int64) (links.Pixel, error)
	// GetQRByID returns the QR code with the id, whoever owns it
	// (ErrNotFound when there is none).
	GetQRByID(ctx context.Context, id int64) (links.QRCode, error)
}

// Every links.Store is a Store.
var _ Store = links.Store(nil)

// Recorder captures and queues visits; *visits.Recorder implements it.
type Recorder interface {
	// Capture reads a hit of the target (kind, id, owner id) from the request.
	Capture(req *http.Request, kind string, id, ownerID int64) visits.Hit
	// Record queues the hit without blocking.
	Record(h visits.Hit)
}

var _ Recorder = (*visits.Recorder)(nil)

// Options configure a Handler. Store and Recorder are required.
type Options struct {
	// Store is where links, domains, campaigns, pixels and QR codes are read.
	Store Store
	// Recorder records visits.
	Recorder Recorder
	// ShortHost is the portal's own short-link host, e.g. "s.example.org"
	// (a port may be given). Empty: every host that is not a branded domain
	// is taken as the short host (for development).
	ShortHost string
	// PublicURL returns the base URL of the short host without a trailing
	// slash, e.g. "https://s.example.org"; it should match the link API's
	// base URL. Nil: the request's scheme and ShortHost (or its Host).
	PublicURL func(r *http.Request) string
	// HomeURL is where GET / on the short host goes; empty: the 404 page.
	HomeURL string
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Logger receives store failures; nil discards them.
	Logger *slog.Logger
	// CacheTTL keeps look-up results in memory for that long; 0 disables
	// the cache.
	CacheTTL time.Duration
	// CacheSize bounds each look-up cache; 0 means 10000 entries.
	CacheSize int
	// Blobs holds the QR codes' logos kept in the blob store
	// (links.IsLogoRef). Nil: only logos kept in the records are drawn.
	Blobs blobstore.Store
}

// Handler is the redirector, an http.Handler; see the package comment for
// its routes. Create it with New.
type Handler struct {
	store     Store
	rec       Recorder
	shortHost string
	publicURL func(*http.Request) string
	homeURL   string
	now       func() time.Time
	log       *slog.Logger
	blobs     blobstore.Store

	domains   *cache[string, links.Domain]
	links     *cache[linkKey, links.ShortLink]
	campaigns *cache[string, links.Campaign] // "s:"+slug or "i:"+id
	rotations *cache[int64, []links.ShortLink]
	qrs       *cache[int64, links.QRCode]
	images    *imageCache // rendered QR images by ETag

	turns   sync.Map // campaign id -> *atomic.Uint64
	limiter *limiter
}

type linkKey struct {
	domain int64
	alias  string
}

// Password-guessing limits: Failures wrong passwords per alias and client
// address within Window answer 429 until the window ends.
const (
	PasswordFailures = 5
	PasswordWindow   = 5 * time.Minute
)

// maxFormBytes bounds the body of the password form.
const maxFormBytes = 4 << 10

// New returns a Handler. It panics when Store or Recorder is nil.
func New(o Options) *Handler {
	if o.Store == nil || o.Recorder == nil {
		panic("redirect: Options.Store and Options.Recorder are required")
	}
	h := &Handler{
		store:     o.Store,
		rec:       o.Recorder,
		shortHost: strings.ToLower(o.ShortHost),
		publicURL: o.PublicURL,
		homeURL:   o.HomeURL,
		now:       o.Now,
		log:       o.Logger,
		blobs:     o.Blobs,
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	size := o.CacheSize
	if size <= 0 {
		size = 10000
	}
	h.domains = newCache[string, links.Domain](o.CacheTTL, size, h.now)
	h.links = newCache[linkKey, links.ShortLink](o.CacheTTL, size, h.now)
	h.campaigns = newCache[string, links.Campaign](o.CacheTTL, size, h.now)
	h.rotations = newCache[int64, []links.ShortLink](o.CacheTTL, size, h.now)
	h.qrs = newCache[int64, links.QRCode](o.CacheTTL, size, h.now)
	h.images = newImageCache(qrImageCacheBytes)
	h.limiter = newLimiter(PasswordFailures, PasswordWindow)
	return h
}

// Invalidate drops the cached look-ups of records of kind c (a rotator's
// links go with the links and with the campaigns).
func (h *Handler) Invalidate(c links.Change) {
	switch c {
	case links.ChangeDomain:
		h.domains.invalidate()
	case links.ChangeLink:
		h.links.invalidate()
		h.rotations.invalidate()
	case links.ChangeCampaign:
		h.campaigns.invalidate()
		h.rotations.invalidate()
	case links.ChangeQR:
		h.qrs.invalidate()
	}
}

// ServeHTTP dispatches on host, method and path.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if len(path) == 0 || path[0] != '/' {
		h.notFoundPage(w, r)
		return
	}
	rest := path[1:]
	slash := strings.IndexByte(rest, '/')

	// The hot path: /{alias}.
	if slash < 0 && rest != "" {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodPost:
		default:
			methodNotAllowed(w, "GET, HEAD, POST")
			return
		}
		dom, ok := h.domain(w, r)
		if !ok {
			return
		}
		h.serveAlias(w, r, dom, rest)
		return
	}

	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, "GET, HEAD")
		return
	}
	dom, ok := h.domain(w, r)
	if !ok {
		return
	}
	if rest == "" {
		h.serveRoot(w, r, dom)
		return
	}
	if dom.ID != 0 || slash < 0 {
		h.notFound(w, r, dom)
		return
	}
	prefix, arg := rest[:slash], rest[slash+1:]
	switch prefix {
	case "r":
		h.serveRotator(w, r, arg)
	case "c":
		h.serveList(w, r, arg)
	case "q":
		h.serveQR(w, r, arg)
	case "qr":
		h.serveQRImage(w, r, arg)
	default:
		h.notFoundPage(w, r)
	}
}

// domain resolves the request's host: the short host is the zero Domain.
// It answers the 404 page (or a 500) itself and reports false when the host
// is unknown.
func (h *Handler) domain(w http.ResponseWriter, r *http.Request) (links.Domain, bool) {
	host := r.Host
	if hasUpper(host) {
		host = strings.ToLower(host)
	}
	name := host
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		name = host[:i]
	}
	name = strings.TrimSuffix(name, ".")
	if h.shortHost != "" && (host == h.shortHost || name == h.shortHost) {
		return links.Domain{}, true
	}
	d, err := h.domains.get(host, func() (links.Domain, error) {
		return h.store.GetDomainByHost(r.Context(), host)
	})
	if errors.Is(err, links.ErrNotFound) && name != host {
		d, err = h.domains.get(name, func() (links.Domain, error) {
			return h.store.GetDomainByHost(r.Context(), name)
		})
	}
	switch {
	case err == nil:
		return d, true
	case errors.Is(err, links.ErrNotFound):
		if h.shortHost == "" {
			return links.Domain{}, true
		}
		h.notFoundPage(w, r)
	default:
		h.internal(w, r, "domain by host", err)
	}
	return links.Domain{}, false
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			return true
		}
	}
	return false
}

// validAlias reports whether s could be an alias (letters, digits, '-',
// '_', at most links.MaxAliasLength), so that junk never reaches the store.
func validAlias(s string) bool {
	if len(s) == 0 || len(s) > links.MaxAliasLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// serveAlias handles GET, HEAD and POST /{alias}.
func (h *Handler) serveAlias(w http.ResponseWriter, r *http.Request, dom links.Domain, alias string) {
	if !validAlias(alias) {
		h.notFound(w, r, dom)
		return
	}
	l, err := h.links.get(linkKey{dom.ID, alias}, func() (links.ShortLink, error) {
		return h.store.GetLinkByAlias(r.Context(), dom.ID, alias)
	})
	if err != nil {
		if errors.Is(err, links.ErrNotFound) {
			h.notFound(w, r, dom)
		} else {
			h.internal(w, r, "link by alias", err)
		}
		return
	}
	if h.expired(l) || !safeTarget(l.LongURL) {
		h.notFound(w, r, dom)
		return
	}
	if l.PasswordHash != "" {
		if r.Method == http.MethodPost {
			h.checkPassword(w, r, dom, l)
		} else {
			h.passwordPage(w, l, "", http.StatusOK)
		}
		return
	}
	if r.Method == http.MethodPost {
		methodNotAllowed(w, "GET, HEAD")
		return
	}
	h.sendOn(w, r, l)
}

// sendOn records the link's visit and redirects, through the interstitial
// when the link has pixels.
func (h *Handler) sendOn(w http.ResponseWriter, r *http.Request, l links.ShortLink) {
	if r.Method != http.MethodHead {
		h.rec.Record(h.rec.Capture(r, visits.KindLink, l.ID, l.UserID))
	}
	if len(l.PixelIDs) > 0 {
		if px := h.pixels(r.Context(), l); len(px) > 0 {
			h.interstitial(w, l.LongURL, px)
			return
		}
	}
	redirect(w, l.LongURL)
}

// expired reports whether the link's expiry has passed.
func (h *Handler) expired(l links.ShortLink) bool {
	return l.ExpiresAt != nil && !h.now().Before(*l.ExpiresAt)
}

// safeTarget reports whether u is an http or https URL (as the link rules
// require), a last check before it becomes a Location or a page's link.
func safeTarget(u string) bool {
	if len(u) > 8 && (u[:8] == "https://" || u[:7] == "http://") {
		return true
	}
	return len(u) > 7 && (strings.EqualFold(u[:7], "http://") || strings.EqualFold(u[:8], "https://"))
}

// redirect answers 302 to target, uncacheable.
func redirect(w http.ResponseWriter, target string) {
	hd := w.Header()
	hd["Location"] = []string{target}
	hd["Cache-Control"] = noStore
	w.WriteHeader(http.StatusFound)
}

var noStore = []string{"no-store"}

// serveRoot handles GET /.
func (h *Handler) serveRoot(w http.ResponseWriter, r *http.Request, dom links.Domain) {
	target := h.homeURL
	if dom.ID != 0 {
		target = dom.RedirectRoot
	}
	if target != "" && safeTarget(target) {
		redirect(w, target)
		return
	}
	h.notFoundPage(w, r)
}

// notFound answers an unknown or expired address of the domain: its
// Redirect404 when set, else the 404 page.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request, dom links.Domain) {
	if dom.Redirect404 != "" && safeTarget(dom.Redirect404) {
		redirect(w, dom.Redirect404)
		return
	}
	h.notFoundPage(w, r)
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusMethodNotAllowed)
	_, _ = io.WriteString(w, "405 method not allowed\n")
}

// internal logs err and answers a plain 500 page.
func (h *Handler) internal(w http.ResponseWriter, r *http.Request, what string, err error) {
	h.log.ErrorContext(r.Context(), "redirect: "+what, "host", r.Host, "path", r.URL.Path, "err", err)
	h.page(w, http.StatusInternalServerError, errorTmpl, errorData{Title: "Something went wrong", Message: "Please try again in a moment."}, pageCSP)
}

// unavailableRetryAfter is the Retry-After, in seconds, of a page that a
// dependency's outage (the blob store) kept from being served.
const unavailableRetryAfter = "10"

// unavailable answers 503 with Retry-After when a dependency (the blob
// store) cannot be reached; the failure is logged as a warning.
func (h *Handler) unavailable(w http.ResponseWriter, r *http.Request, what string, err error) {
	h.log.WarnContext(r.Context(), "redirect: "+what, "host", r.Host, "path", r.URL.Path, "err", err)
	w.Header().Set("Retry-After", unavailableRetryAfter)
	h.page(w, http.StatusServiceUnavailable, errorTmpl, errorData{Title: "Temporarily unavailable", Message: "Please try again in a moment."}, pageCSP)
}

// checkPassword handles POST /{alias} of a password-protected link.
func (h *Handler) checkPassword(w http.ResponseWriter, r *http.Request, dom links.Domain, l links.ShortLink) {
	key := strconv.FormatInt(dom.ID, 10) + "\x00" + l.Alias + "\x00" + clientIP(r)
	now := h.now()
	if wait, blocked := h.limiter.blocked(key, now); blocked {
		secs := int(wait.Seconds() + 0.999)
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
		h.passwordPage(w, l, "Too many wrong passwords. Please try again later.", http.StatusTooManyRequests)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		h.passwordPage(w, l, "The form could not be read. Please try again.", http.StatusBadRequest)
		return
	}
	if !password.Check(l.PasswordHash, r.PostForm.Get("password")) {
		h.limiter.fail(key, now)
		h.passwordPage(w, l, "Wrong password.", http.StatusUnauthorized)
		return
	}
	h.limiter.reset(key)
	h.sendOn(w, r, l)
}

// clientIP is the host part of r.RemoteAddr (a trusted-proxy middleware
// must have rewritten it).
func clientIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// turn returns the next position of the campaign's rotation.
func (h *Handler) turn(campaignID int64) uint64 {
	v, ok := h.turns.Load(campaignID)
	if !ok {
		v, _ = h.turns.LoadOrStore(campaignID, new(atomic.Uint64))
	}
	return v.(*atomic.Uint64).Add(1) - 1
}
