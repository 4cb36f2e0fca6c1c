package links

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/httpapi/respond"
	link "github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// urlView is the short-link record (docs/api/links.md). Campaign is the
// campaign id, 0 for none; domain, expiry, pixels and channels are additions.
type urlView struct {
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

func (a *api) newURLView(r *http.Request, domains map[int64]string, l link.ShortLink) urlView {
	v := urlView{ID: l.ID, Alias: l.Alias, ShortURL: a.shortURL(r, domains, l), LongURL: l.LongURL,
		Clicks: l.Clicks, UniqueClicks: l.UniqueClicks, Title: l.Title, Description: l.Description,
		Date: formatDate(l.CreatedAt), Campaign: l.CampaignID, Domain: l.DomainID, Expiry: formatDatePtr(l.ExpiresAt),
		Password: l.PasswordHash != "", Pixels: l.PixelIDs, Channels: l.ChannelIDs}
	if v.Pixels == nil {
		v.Pixels = []int64{}
	}
	if v.Channels == nil {
		v.Channels = []int64{}
	}
	return v
}

// listURLs handles GET /api/urls: limit, page, order (date or clicks).
func (a *api) listURLs(w http.ResponseWriter, r *http.Request) {
	p, err := pageOf(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	owner := userFrom(r).ID
	l, err := a.svc.ListLinks(r.Context(), owner, link.LinkFilter{Order: link.LinkOrder(r.URL.Query().Get("order"))}, p)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	domains, err := a.domainURLs(r.Context(), owner)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeList(w, "urls", l, func(sl link.ShortLink) urlView { return a.newURLView(r, domains, sl) })
}

// getURL handles GET /api/url/{id}: the record in details and its
// statistics in data.
func (a *api) getURL(w http.ResponseWriter, r *http.Request) {
	l, st, ok := getWithStats(a, w, r, "link", a.svc.GetLink, a.svc.LinkStats)
	if !ok {
		return
	}
	domains, err := a.domainURLs(r.Context(), userFrom(r).ID)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Error   int          `json:"error"`
		ID      int64        `json:"id"`
		Details urlView      `json:"details"`
		Data    visits.Stats `json:"data"`
	}{0, l.ID, a.newURLView(r, domains, l), st})
}

// urlRequest is the body of POST /api/url/add and PUT /api/url/:id/update.
// domain is a domain id or the URL of one of the user's domains (0 or "":
// the short host); expiry is "YYYY-MM-DD HH:MM:SS" (UTC) or RFC 3339, "" or
// null to clear on update; channel is one channel id or an array of ids.
type urlRequest struct {
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

// resolveDomain turns the domain field into a domain id.
func (a *api) resolveDomain(r *http.Request, owner int64, raw json.RawMessage) (int64, error) {
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
	canonical, _, err := link.NormalizeDomain(str)
	if err != nil {
		return 0, err
	}
	domains, err := a.domainURLs(r.Context(), owner)
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
	for _, layout := range []string{dateLayout, time.RFC3339, "2006-01-02"} {
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

// addURL handles POST /api/url/add: the new id and shorturl.
func (a *api) addURL(w http.ResponseWriter, r *http.Request) {
	var req urlRequest
	if !a.decode(w, r, &req) {
		return
	}
	owner := userFrom(r).ID
	in := link.LinkInput{}
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
		a.writeError(w, r, invalidField("url is required"))
		return
	}
	var err error
	if present(req.Domain) {
		if in.DomainID, err = a.resolveDomain(r, owner, req.Domain); err != nil {
			a.writeError(w, r, err)
			return
		}
	}
	if present(req.Expiry) {
		if in.ExpiresAt, err = parseExpiry(req.Expiry); err != nil {
			a.writeError(w, r, err)
			return
		}
	}
	if present(req.Channel) {
		if in.ChannelIDs, err = parseChannels(req.Channel); err != nil {
			a.writeError(w, r, err)
			return
		}
	}
	l, err := a.svc.CreateLink(r.Context(), owner, in)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	domains, err := a.domainURLs(r.Context(), owner)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Error    int    `json:"error"`
		ID       int64  `json:"id"`
		ShortURL string `json:"shorturl"`
	}{0, l.ID, a.shortURL(r, domains, l)})
}

// updateURL handles PUT /api/url/{id}/update: every field optional.
func (a *api) updateURL(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id", "link")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var req urlRequest
	if !a.decode(w, r, &req) {
		return
	}
	owner := userFrom(r).ID
	in := link.LinkPatch{URL: req.URL, Custom: req.Custom, Password: req.Password, PixelIDs: req.Pixels,
		CampaignID: req.Campaign, Title: req.Title, Description: req.Description}
	if present(req.Domain) {
		d, err := a.resolveDomain(r, owner, req.Domain)
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		in.DomainID = &d
	}
	if len(req.Expiry) > 0 {
		if !present(req.Expiry) {
			in.ClearExpiry = true
		} else if in.ExpiresAt, err = parseExpiry(req.Expiry); err != nil {
			a.writeError(w, r, err)
			return
		} else if in.ExpiresAt == nil {
			in.ClearExpiry = true
		}
	}
	if len(req.Channel) > 0 {
		chans := []int64{}
		if present(req.Channel) {
			if chans, err = parseChannels(req.Channel); err != nil {
				a.writeError(w, r, err)
				return
			}
		}
		in.ChannelIDs = &chans
	}
	l, err := a.svc.UpdateLink(r.Context(), owner, id, in)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	domains, err := a.domainURLs(r.Context(), owner)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Error    int    `json:"error"`
		Message  string `json:"message"`
		ID       int64  `json:"id"`
		ShortURL string `json:"shorturl"`
	}{0, "Link has been updated successfully.", l.ID, a.shortURL(r, domains, l)})
}
