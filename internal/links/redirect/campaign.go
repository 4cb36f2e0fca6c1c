package redirect

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// serveRotator handles GET /r/{slug} on the short host.
func (h *Handler) serveRotator(w http.ResponseWriter, r *http.Request, slug string) {
	if !validAlias(slug) {
		h.notFoundPage(w, r)
		return
	}
	c, err := h.campaigns.get("s:"+slug, func() (links.Campaign, error) {
		return h.store.GetCampaignBySlug(r.Context(), slug)
	})
	if !h.publicCampaign(w, r, c, err) {
		return
	}
	ls, err := h.rotations.get(c.ID, func() ([]links.ShortLink, error) {
		return h.campaignLinks(r.Context(), c)
	})
	if err != nil {
		h.internal(w, r, "campaign links", err)
		return
	}
	// Expiry is checked on every request, the cached list may be older.
	live := ls[:0:0]
	for _, l := range ls {
		if !h.expired(l) && l.PasswordHash == "" && safeTarget(l.LongURL) {
			live = append(live, l)
		}
	}
	if len(live) == 0 {
		h.notFoundPage(w, r)
		return
	}
	l := live[h.turn(c.ID)%uint64(len(live))]
	if r.Method != http.MethodHead {
		h.rec.Record(h.rec.Capture(r, visits.KindCampaign, c.ID, c.UserID))
	}
	redirect(w, l.LongURL)
}

// publicCampaign answers the 404 page (or a 500) unless the look-up found a
// public campaign.
func (h *Handler) publicCampaign(w http.ResponseWriter, r *http.Request, c links.Campaign, err error) bool {
	switch {
	case err == nil && c.Public:
		return true
	case err == nil || errors.Is(err, links.ErrNotFound):
		h.notFoundPage(w, r)
	default:
		h.internal(w, r, "campaign", err)
	}
	return false
}

// campaignLinks returns the campaign's links in ascending id order (at most
// links.MaxLimit).
func (h *Handler) campaignLinks(ctx context.Context, c links.Campaign) ([]links.ShortLink, error) {
	l, err := h.store.ListLinks(ctx, c.UserID, links.LinkFilter{CampaignID: c.ID}, links.Page{Number: 1, Limit: links.MaxLimit})
	if err != nil {
		return nil, err
	}
	out := slices.Clone(l.Items)
	slices.SortFunc(out, func(a, b links.ShortLink) int { return cmpInt(a.ID, b.ID) })
	return out, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// parseID parses a positive decimal id; 0 when s is not one.
func parseID(s string) int64 {
	if s == "" || s[0] == '+' || s[0] == '-' {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// serveList handles GET /c/{id} on the short host.
func (h *Handler) serveList(w http.ResponseWriter, r *http.Request, arg string) {
	id := parseID(arg)
	if id == 0 {
		h.notFoundPage(w, r)
		return
	}
	c, err := h.campaigns.get("i:"+arg, func() (links.Campaign, error) {
		return h.store.GetCampaignByID(r.Context(), id)
	})
	if !h.publicCampaign(w, r, c, err) {
		return
	}
	ls, err := h.campaignLinks(r.Context(), c)
	if err != nil {
		h.internal(w, r, "campaign links", err)
		return
	}
	bases := map[int64]string{0: h.base(r)}
	data := listData{Name: c.Name}
	if data.Name == "" {
		data.Name = "Links"
	}
	for _, l := range ls {
		if h.expired(l) {
			continue
		}
		base, ok := bases[l.DomainID]
		if !ok {
			d, err := h.store.GetDomain(r.Context(), c.UserID, l.DomainID)
			if err != nil && !errors.Is(err, links.ErrNotFound) {
				h.internal(w, r, "domain", err)
				return
			}
			base = strings.TrimSuffix(d.URL, "/")
			bases[l.DomainID] = base
		}
		if base == "" {
			continue
		}
		title := l.Title
		if title == "" {
			title = l.Alias
		}
		data.Links = append(data.Links, listItem{URL: base + "/" + l.Alias, Title: title, Description: l.Description})
	}
	h.page(w, http.StatusOK, listTmpl, data, pageCSP)
}

// base is the short host's base URL, without a trailing slash.
func (h *Handler) base(r *http.Request) string {
	if h.publicURL != nil {
		return strings.TrimSuffix(h.publicURL(r), "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := h.shortHost
	if host == "" {
		host = r.Host
	}
	return scheme + "://" + host
}

// serveQR handles GET /q/{id} on the short host: a link-type QR code's scan.
func (h *Handler) serveQR(w http.ResponseWriter, r *http.Request, arg string) {
	id := parseID(arg)
	if id == 0 {
		h.notFoundPage(w, r)
		return
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
	if q.Type != links.QRLink {
		h.notFoundPage(w, r)
		return
	}
	target, ok := h.qrTarget(w, r, q)
	if !ok {
		return
	}
	if r.Method != http.MethodHead {
		h.rec.Record(h.rec.Capture(r, visits.KindQR, q.ID, q.UserID))
	}
	redirect(w, target)
}

// qrTarget returns where a link-type QR code's scan goes; it answers the
// 404 page (or a 500) itself and reports false when there is nowhere.
func (h *Handler) qrTarget(w http.ResponseWriter, r *http.Request, q links.QRCode) (string, bool) {
	if q.LinkID != 0 {
		l, err := h.store.GetLink(r.Context(), q.UserID, q.LinkID)
		switch {
		case err == nil:
			if h.expired(l) || !safeTarget(l.LongURL) {
				h.notFoundPage(w, r)
				return "", false
			}
			if l.PasswordHash == "" && len(l.PixelIDs) == 0 {
				return l.LongURL, true
			}
			base := h.base(r)
			if l.DomainID != 0 {
				d, err := h.store.GetDomain(r.Context(), l.UserID, l.DomainID)
				if err != nil {
					h.internal(w, r, "domain", err)
					return "", false
				}
				base = strings.TrimSuffix(d.URL, "/")
			}
			return base + "/" + l.Alias, true
		case !errors.Is(err, links.ErrNotFound):
			h.internal(w, r, "QR link", err)
			return "", false
		}
		// The link is gone: fall back to the data.
	}
	var u string
	if err := json.Unmarshal(q.Data, &u); err != nil || !safeTarget(u) || links.ValidateURL("data", u) != nil {
		h.notFoundPage(w, r)
		return "", false
	}
	return u, true
}
