package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/qr"
	"github.com/seedhq/portal/internal/links/visits"
)

// --- Pixels -------------------------------------------------------------------

// linkPixelView is the spec's pixel record.
type linkPixelView struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
	Tag  string `json:"tag"`
	Date string `json:"date"`
}

func newLinkPixelView(p links.Pixel) linkPixelView {
	return linkPixelView{ID: p.ID, Type: string(p.Type), Name: p.Name, Tag: p.Tag, Date: linkDate(p.CreatedAt)}
}

// linkListPixels handles GET /api/pixels.
func (s *server) linkListPixels(w http.ResponseWriter, r *http.Request) {
	p, err := linkPage(r)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	l, err := s.links.ListPixels(r.Context(), linkUser(r).ID, p)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkList(w, "pixels", l, newLinkPixelView)
}

type linkPixelRequest struct {
	Type string `json:"type"`
	Name string `json:"name"`
	Tag  string `json:"tag"`
}

// linkAddPixel handles POST /api/pixel/add.
func (s *server) linkAddPixel(w http.ResponseWriter, r *http.Request) {
	var req linkPixelRequest
	if !s.decodeLink(w, r, &req) {
		return
	}
	px, err := s.links.CreatePixel(r.Context(), linkUser(r).ID,
		links.PixelInput{Type: links.PixelType(req.Type), Name: req.Name, Tag: req.Tag})
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, linkIDBody{ID: px.ID})
}

type linkPixelPatchRequest struct {
	Name *string `json:"name"`
	Tag  string  `json:"tag"`
}

// linkUpdatePixel handles PUT /api/pixel/{id}/update: tag required, checked
// against the pixel's type, which never changes.
func (s *server) linkUpdatePixel(w http.ResponseWriter, r *http.Request) {
	id, err := linkID(r, "id", "pixel")
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	var req linkPixelPatchRequest
	if !s.decodeLink(w, r, &req) {
		return
	}
	if _, err := s.links.UpdatePixel(r.Context(), linkUser(r).ID, id, links.PixelPatch{Name: req.Name, Tag: req.Tag}); err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkOK(w, "Pixel has been updated successfully.")
}

// --- QR codes -------------------------------------------------------------------

// linkQRView is the spec's QR code record; type, data, background,
// foreground and logo are additions (shown with a single code).
type linkQRView struct {
	ID    int64  `json:"id"`
	Link  string `json:"link"`
	Scans int64  `json:"scans"`
	Name  string `json:"name"`
	Date  string `json:"date"`
}

type linkQRDetails struct {
	linkQRView
	Type       string          `json:"type"`
	Data       json.RawMessage `json:"data"`
	Background string          `json:"background"`
	Foreground string          `json:"foreground"`
	Logo       string          `json:"logo"`
}

func (s *server) newLinkQRView(r *http.Request, q links.QRCode) linkQRView {
	return linkQRView{ID: q.ID, Link: s.qrLink(r, q.ID), Scans: q.Scans, Name: q.Name, Date: linkDate(q.CreatedAt)}
}

// linkListQRs handles GET /api/qr.
func (s *server) linkListQRs(w http.ResponseWriter, r *http.Request) {
	p, err := linkPage(r)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	l, err := s.links.ListQRs(r.Context(), linkUser(r).ID, p)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkList(w, "qrs", l, func(q links.QRCode) linkQRView { return s.newLinkQRView(r, q) })
}

// linkGetQR handles GET /api/qr/{id}: the record in details, its scan
// statistics in data.
func (s *server) linkGetQR(w http.ResponseWriter, r *http.Request) {
	q, st, ok := getWithStats(s, w, r, "QR code", s.links.GetQR, s.links.QRStats)
	if !ok {
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Error   int           `json:"error"`
		Details linkQRDetails `json:"details"`
		Data    visits.Stats  `json:"data"`
	}{0, linkQRDetails{linkQRView: s.newLinkQRView(r, q), Type: string(q.Type), Data: q.Data,
		Background: q.Background, Foreground: q.Foreground, Logo: q.Logo}, st})
}

// getWithStats reads the user's record {id} with get and its statistics
// with stats (GET /api/qr/{id} and /api/url/{id}); on an error it answers
// it and reports false.
func getWithStats[T any](s *server, w http.ResponseWriter, r *http.Request, what string,
	get func(context.Context, int64, int64) (T, error),
	stats func(context.Context, int64, int64) (visits.Stats, error)) (T, visits.Stats, bool) {
	var (
		rec T
		st  visits.Stats
	)
	id, err := linkID(r, "id", what)
	if err == nil {
		owner := linkUser(r).ID
		if rec, err = get(r.Context(), owner, id); err == nil {
			st, err = stats(r.Context(), owner, id)
		}
	}
	if err != nil {
		s.linkError(w, r, err)
		return rec, st, false
	}
	return rec, st, true
}

type linkQRRequest struct {
	Type       string          `json:"type"`
	Data       json.RawMessage `json:"data"`
	Background *string         `json:"background"`
	Foreground *string         `json:"foreground"`
	Logo       *string         `json:"logo"`
	Name       string          `json:"name"` // addition: defaults to the type
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// linkAddQR handles POST /api/qr/add.
func (s *server) linkAddQR(w http.ResponseWriter, r *http.Request) {
	var req linkQRRequest
	if !s.decodeLink(w, r, &req) {
		return
	}
	t, err := qr.ParseType(req.Type)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	if err := links.CheckQRLook(links.QRType(t), req.Data, deref(req.Foreground), deref(req.Background)); err != nil {
		s.linkError(w, r, err)
		return
	}
	q, err := s.links.CreateQR(r.Context(), linkUser(r).ID, links.QRInput{Name: req.Name, Type: links.QRType(t),
		Data: req.Data, Background: deref(req.Background), Foreground: deref(req.Foreground), Logo: deref(req.Logo)})
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Error int    `json:"error"`
		ID    int64  `json:"id"`
		Link  string `json:"link"`
	}{0, q.ID, s.qrLink(r, q.ID)})
}

type linkQRPatchRequest struct {
	Type       *string         `json:"type"` // accepted only when it is the code's type
	Data       json.RawMessage `json:"data"`
	Background *string         `json:"background"`
	Foreground *string         `json:"foreground"`
	Logo       *string         `json:"logo"`
}

// linkUpdateQR handles PUT /api/qr/{id}/update: data required, checked
// against the code's type, which never changes.
func (s *server) linkUpdateQR(w http.ResponseWriter, r *http.Request) {
	id, err := linkID(r, "id", "QR code")
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	var req linkQRPatchRequest
	if !s.decodeLink(w, r, &req) {
		return
	}
	owner := linkUser(r).ID
	cur, err := s.links.GetQR(r.Context(), owner, id)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	if req.Type != nil && !strings.EqualFold(strings.TrimSpace(*req.Type), string(cur.Type)) {
		s.linkError(w, r, apperr.Errorf(apperr.Invalid, "VALIDATION_FAILED",
			"the type of a QR code cannot be changed (it is %s)", cur.Type))
		return
	}
	fg, bg := cur.Foreground, cur.Background
	setIf(&fg, req.Foreground)
	setIf(&bg, req.Background)
	if err := links.CheckQRLook(cur.Type, req.Data, fg, bg); err != nil {
		s.linkError(w, r, err)
		return
	}
	if _, err := s.links.UpdateQR(r.Context(), owner, id, links.QRPatch{Data: req.Data,
		Background: req.Background, Foreground: req.Foreground, Logo: req.Logo}); err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkOK(w, "QR has been updated successfully.")
}

// --- Short links ---------------------------------------------------------------

// linkURLView is the short-link record (docs/api/links.md). Campaign is the
// campaign id, 0 for none; domain, expiry, pixels and channels are additions.
type linkURLView struct {
	ID           int64   `json:"id"`
	Alias        string  `json:"alias"`
	ShortURL     string  `json:"shorturl"`
	LongURL      string  `json:"longurl"`
	Clicks       int64   `json:"clicks"`
	UniqueClicks int64   `json:"uniqueClicks"`
	Title        string  `json:"title"`
	Description  string  `json:"description"`
	Date         string  `json:"date"`
	Campaign     int64   `json:"campaign"`
	Domain       int64   `json:"domain"`
	Expiry       string  `json:"expiry"` // "" when the link does not expire
	Password     bool    `json:"password"`
	Pixels       []int64 `json:"pixels"`
	Channels     []int64 `json:"channels"`
}

func (s *server) newLinkURLView(r *http.Request, domains map[int64]string, l links.ShortLink) linkURLView {
	v := linkURLView{ID: l.ID, Alias: l.Alias, ShortURL: s.shortURL(r, domains, l), LongURL: l.LongURL,
		Clicks: l.Clicks, UniqueClicks: l.UniqueClicks, Title: l.Title, Description: l.Description,
		Date: linkDate(l.CreatedAt), Campaign: l.CampaignID, Domain: l.DomainID, Expiry: linkDatePtr(l.ExpiresAt),
		Password: l.PasswordHash != "", Pixels: l.PixelIDs, Channels: l.ChannelIDs}
	if v.Pixels == nil {
		v.Pixels = []int64{}
	}
	if v.Channels == nil {
		v.Channels = []int64{}
	}
	return v
}

// linkListURLs handles GET /api/urls: limit, page, order (date or clicks).
func (s *server) linkListURLs(w http.ResponseWriter, r *http.Request) {
	p, err := linkPage(r)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	owner := linkUser(r).ID
	l, err := s.links.ListLinks(r.Context(), owner, links.LinkFilter{Order: links.LinkOrder(r.URL.Query().Get("order"))}, p)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	domains, err := s.domainURLs(r.Context(), owner)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkList(w, "urls", l, func(sl links.ShortLink) linkURLView { return s.newLinkURLView(r, domains, sl) })
}

// linkGetURL handles GET /api/url/{id}: the record in details and its
// statistics in data.
func (s *server) linkGetURL(w http.ResponseWriter, r *http.Request) {
	l, st, ok := getWithStats(s, w, r, "link", s.links.GetLink, s.links.LinkStats)
	if !ok {
		return
	}
	domains, err := s.domainURLs(r.Context(), linkUser(r).ID)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Error   int          `json:"error"`
		ID      int64        `json:"id"`
		Details linkURLView  `json:"details"`
		Data    visits.Stats `json:"data"`
	}{0, l.ID, s.newLinkURLView(r, domains, l), st})
}

// linkURLRequest is the body of POST /api/url/add and PUT /api/url/:id/update.
// domain is a domain id or the URL of one of the user's domains (0 or "":
// the short host); expiry is "YYYY-MM-DD HH:MM:SS" (UTC) or RFC 3339, "" or
// null to clear on update; channel is one channel id or an array of ids.
type linkURLRequest struct {
	URL         *string         `json:"url"`
	Custom      *string         `json:"custom"`
	Domain      json.RawMessage `json:"domain"`
	Expiry      json.RawMessage `json:"expiry"`
	Password    *string         `json:"password"`
	Pixels      *[]int64        `json:"pixels"`
	Campaign    *int64          `json:"campaign"`
	Channel     json.RawMessage `json:"channel"`
	Title       *string         `json:"title"`
	Description *string         `json:"description"`
}

func invalidField(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, "VALIDATION_FAILED", format, args...)
}

// present reports whether a raw field was given and is not null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// resolveDomain turns the domain field into a domain id.
func (s *server) resolveDomain(r *http.Request, owner int64, raw json.RawMessage) (int64, error) {
	var id int64
	if err := json.Unmarshal(raw, &id); err == nil {
		return id, nil
	}
	var str string
	if err := json.Unmarshal(raw, &str); err != nil {
		return 0, invalidField("domain must be a domain id or the URL of one of your domains")
	}
	str = strings.TrimSpace(str)
	if str == "" {
		return 0, nil
	}
	if n, err := strconv.ParseInt(str, 10, 64); err == nil {
		return n, nil
	}
	canonical, _, err := links.NormalizeDomain(str)
	if err != nil {
		return 0, err
	}
	domains, err := s.domainURLs(r.Context(), owner)
	if err != nil {
		return 0, err
	}
	for id, u := range domains {
		if u == canonical {
			return id, nil
		}
	}
	return 0, apperr.Errorf(apperr.NotFound, "NOT_FOUND", "domain %s not found", canonical)
}

// parseExpiry reads the expiry field: nil for "" (no expiry).
func parseExpiry(raw json.RawMessage) (*time.Time, error) {
	var str string
	if err := json.Unmarshal(raw, &str); err != nil {
		return nil, invalidField(`expiry must be a date "YYYY-MM-DD HH:MM:SS" (UTC)`)
	}
	str = strings.TrimSpace(str)
	if str == "" {
		return nil, nil
	}
	for _, layout := range []string{linkDateLayout, time.RFC3339, "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, str, time.UTC); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, invalidField(`expiry must be a date "YYYY-MM-DD HH:MM:SS" (UTC), not %q`, str)
}

// parseChannels reads the channel field: one id or an array of ids.
func parseChannels(raw json.RawMessage) ([]int64, error) {
	var one int64
	if err := json.Unmarshal(raw, &one); err == nil {
		return []int64{one}, nil
	}
	var many []int64
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, invalidField("channel must be a channel id or an array of channel ids")
	}
	return many, nil
}

// linkAddURL handles POST /api/url/add: the new id and shorturl.
func (s *server) linkAddURL(w http.ResponseWriter, r *http.Request) {
	var req linkURLRequest
	if !s.decodeLink(w, r, &req) {
		return
	}
	owner := linkUser(r).ID
	in := links.LinkInput{}
	setIf(&in.URL, req.URL)
	setIf(&in.Custom, req.Custom)
	setIf(&in.Password, req.Password)
	setIf(&in.CampaignID, req.Campaign)
	setIf(&in.Title, req.Title)
	setIf(&in.Description, req.Description)
	if req.Pixels != nil {
		in.PixelIDs = *req.Pixels
	}
	if in.URL == "" {
		s.linkError(w, r, invalidField("url is required"))
		return
	}
	var err error
	if present(req.Domain) {
		if in.DomainID, err = s.resolveDomain(r, owner, req.Domain); err != nil {
			s.linkError(w, r, err)
			return
		}
	}
	if present(req.Expiry) {
		if in.ExpiresAt, err = parseExpiry(req.Expiry); err != nil {
			s.linkError(w, r, err)
			return
		}
	}
	if present(req.Channel) {
		if in.ChannelIDs, err = parseChannels(req.Channel); err != nil {
			s.linkError(w, r, err)
			return
		}
	}
	l, err := s.links.CreateLink(r.Context(), owner, in)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	domains, err := s.domainURLs(r.Context(), owner)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Error    int    `json:"error"`
		ID       int64  `json:"id"`
		ShortURL string `json:"shorturl"`
	}{0, l.ID, s.shortURL(r, domains, l)})
}

// linkUpdateURL handles PUT /api/url/{id}/update: every field optional.
func (s *server) linkUpdateURL(w http.ResponseWriter, r *http.Request) {
	id, err := linkID(r, "id", "link")
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	var req linkURLRequest
	if !s.decodeLink(w, r, &req) {
		return
	}
	owner := linkUser(r).ID
	in := links.LinkPatch{URL: req.URL, Custom: req.Custom, Password: req.Password, PixelIDs: req.Pixels,
		CampaignID: req.Campaign, Title: req.Title, Description: req.Description}
	if present(req.Domain) {
		d, err := s.resolveDomain(r, owner, req.Domain)
		if err != nil {
			s.linkError(w, r, err)
			return
		}
		in.DomainID = &d
	}
	if len(req.Expiry) > 0 {
		if !present(req.Expiry) {
			in.ClearExpiry = true
		} else if in.ExpiresAt, err = parseExpiry(req.Expiry); err != nil {
			s.linkError(w, r, err)
			return
		} else if in.ExpiresAt == nil {
			in.ClearExpiry = true
		}
	}
	if len(req.Channel) > 0 {
		chans := []int64{}
		if present(req.Channel) {
			if chans, err = parseChannels(req.Channel); err != nil {
				s.linkError(w, r, err)
				return
			}
		}
		in.ChannelIDs = &chans
	}
	l, err := s.links.UpdateLink(r.Context(), owner, id, in)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	domains, err := s.domainURLs(r.Context(), owner)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Error    int    `json:"error"`
		Message  string `json:"message"`
		ID       int64  `json:"id"`
		ShortURL string `json:"shorturl"`
	}{0, "Link has been updated successfully.", l.ID, s.shortURL(r, domains, l)})
}
