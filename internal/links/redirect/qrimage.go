package redirect

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/qr"
)

// QR image responses are public and cacheable for QRMaxAge seconds; the
// ETag lets clients revalidate after that.
const (
	QRMaxAge = 300
	// qrRenderVersion is part of every ETag: bump it when the drawing
	// changes, so that clients do not keep the old images.
	qrRenderVersion = "1"
	// qrImageCacheBytes bounds the rendered images kept in memory.
	qrImageCacheBytes = 32 << 20
)

var (
	qrCacheControl = []string{"public, max-age=" + strconv.Itoa(QRMaxAge)}
	qrPNGType      = []string{"image/png"}
	qrSVGType      = []string{"image/svg+xml"}
	nosniff        = []string{"nosniff"}
	// qrSVGCSP keeps an SVG opened on its own from running anything: it
	// only ever holds shapes and the logo as a data: image.
	qrSVGCSP = []string{"default-src 'none'; img-src data:; style-src 'unsafe-inline'"}
)

// serveQRImage handles GET|HEAD /qr/{id}, /qr/{id}.png and /qr/{id}.svg on
// the short host: the image of any QR code (the API's "link" of a code).
// The query parameter size (qr.MinSize to qr.MaxSize pixels, default
// qr.DefaultSize) sets the width and height; anything else is 400. Unknown
// ids answer the 404 page. Fetching the image records no visit: a scan of a
// link-type code is counted at its tracking address /q/{id}, which is what
// the image encodes.
func (h *Handler) serveQRImage(w http.ResponseWriter, r *http.Request, arg string) {
	svg := false
	if s, ok := strings.CutSuffix(arg, ".svg"); ok {
		arg, svg = s, true
	} else {
		arg = strings.TrimSuffix(arg, ".png")
	}
	id := parseID(arg)
	if id == 0 {
		h.notFoundPage(w, r)
		return
	}
	size := qr.DefaultSize
	if v := r.URL.Query().Get("size"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < qr.MinSize || n > qr.MaxSize {
			badRequest(w, "size must be an integer from "+strconv.Itoa(qr.MinSize)+" to "+strconv.Itoa(qr.MaxSize))
			return
		}
		size = n
	}
	q, err := h.qrs.get(id, func() (links.QRCode, error) {
		return h.store.GetQRByID(r.Context(), id)
	})
	if err != nil {
		if errors.Is(err, links.ErrNotFound) {
			h.notFoundPage(w, r)
		} else {
			h.internal(w, r, "QR by id", err)
		}
		return
	}

	var payload string
	if q.Type == links.QRLink {
		// A link-type code encodes its tracking address, which counts the
		// scan and redirects (GET /q/{id}).
		payload = h.base(r) + "/q/" + strconv.FormatInt(q.ID, 10)
	} else if payload, err = qr.Payload(qr.Type(q.Type), q.Data); err != nil {
		h.internal(w, r, "QR payload", err)
		return
	}
	format := "png"
	if svg {
		format = "svg"
	}
	etag := qrETag(format, size, payload, q)

	hd := w.Header()
	hd["Cache-Control"] = qrCacheControl
	hd["Etag"] = []string{etag}
	hd["X-Content-Type-Options"] = nosniff
	if svg {
		hd["Content-Type"] = qrSVGType
		hd["Content-Security-Policy"] = qrSVGCSP
	} else {
		hd["Content-Type"] = qrPNGType
	}
	if etagMatch(r.Header.Get("If-None-Match"), etag) {
		hd.Del("Content-Type")
		w.WriteHeader(http.StatusNotModified)
		return
	}

	body, ok := h.images.get(etag)
	if !ok && links.IsLogoRef(q.Logo) {
		// The ETag holds the logo's reference (its SHA-256): the image
		// is drawn with the logo's bytes from the blob store.
		if q.Logo, err = links.ResolveLogo(r.Context(), h.blobs, q.Logo); err != nil {
			hd.Del("Cache-Control")
			hd.Del("Etag")
			hd.Del("Content-Security-Policy")
			if errors.Is(err, blobstore.ErrUnavailable) {
				h.unavailable(w, r, "QR logo", err)
			} else {
				h.internal(w, r, "QR logo", err)
			}
			return
		}
	}
	if !ok {
		body, err = RenderQR(q, payload, size, svg)
		if err != nil {
			hd.Del("Cache-Control")
			hd.Del("Etag")
			hd.Del("Content-Security-Policy")
			h.internal(w, r, "QR render", err)
			return
		}
		h.images.put(etag, body)
	}
	hd["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// RenderQR draws the code with its colours and logo (the web console's
// designer draws unsaved designs with it too). Stored codes passed
// the API's checks; one whose payload no longer fits at level H once a logo
// is added (the API checks level M) is drawn without its logo rather than
// not at all.
func RenderQR(q links.QRCode, payload string, size int, svg bool) ([]byte, error) {
	fg, bg, err := qr.ParseColors(q.Foreground, q.Background)
	if err != nil {
		return nil, err
	}
	o := qr.Options{Foreground: fg, Background: bg, Size: size}
	if q.Logo != "" {
		raw, err := qr.DecodeDataURI(q.Logo)
		if err != nil {
			return nil, err
		}
		if o.Logo, err = qr.DecodeLogo(raw); err != nil {
			return nil, err
		}
		if qr.Fits(payload, true) != nil {
			o.Logo = nil
		}
	}
	if svg {
		return qr.SVG(payload, o)
	}
	return qr.PNG(payload, o)
}

// qrETag is a strong validator of everything the image is drawn from.
func qrETag(format string, size int, payload string, q links.QRCode) string {
	hs := sha256.New()
	for _, s := range []string{qrRenderVersion, format, strconv.Itoa(size), payload, q.Foreground, q.Background, q.Logo} {
		hs.Write([]byte(strconv.Itoa(len(s))))
		hs.Write([]byte{':'})
		hs.Write([]byte(s))
	}
	return `"` + hex.EncodeToString(hs.Sum(nil)[:16]) + `"`
}

// etagMatch reports whether the If-None-Match header value matches etag
// (weak comparison, as RFC 9110 requires for If-None-Match).
func etagMatch(header, etag string) bool {
	if header == "" {
		return false
	}
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || strings.TrimPrefix(part, "W/") == etag {
			return true
		}
	}
	return false
}

func badRequest(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write([]byte("400 " + msg + "\n"))
}

// imageCache keeps rendered QR images by ETag, at most max bytes in all
// (everything is dropped when a new image would not fit). Images are a pure
// function of their ETag's inputs, so entries never go stale.
type imageCache struct {
	max int

	mu    sync.RWMutex
	m     map[string][]byte
	bytes int
}

func newImageCache(max int) *imageCache {
	return &imageCache{max: max, m: make(map[string][]byte)}
}

func (c *imageCache) get(k string) ([]byte, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	b, ok := c.m[k]
	return b, ok
}

func (c *imageCache) put(k string, b []byte) {
	if len(b) > c.max/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		return
	}
	if c.bytes+len(b) > c.max {
		clear(c.m)
		c.bytes = 0
	}
	c.m[k] = b
	c.bytes += len(b)
}
