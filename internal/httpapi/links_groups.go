package httpapi

import (
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/links"
)

// linkCampaignView is the spec's campaign record in lists. Slug is an
// addition.
type linkCampaignView struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Slug    string `json:"slug"`
	Public  bool   `json:"public"`
	Rotator any    `json:"rotator"` // URL, or false without a slug
	List    string `json:"list"`
}

// rotator returns the campaign's rotator address, or false.
func (s *server) rotator(r *http.Request, c links.Campaign) any {
	if c.Slug == "" {
		return false
	}
	return s.linkBase(r) + "/r/" + c.Slug
}

func (s *server) campaignListURL(r *http.Request, c links.Campaign) string {
	return fmt.Sprintf("%s/c/%d", s.linkBase(r), c.ID)
}

// linkCampaignBody answers campaign create and update: the name is in
// "domain", as the spec says.
type linkCampaignBody struct {
	Error   int    `json:"error"`
	ID      int64  `json:"id"`
	Domain  string `json:"domain"`
	Public  bool   `json:"public"`
	Rotator any    `json:"rotator"`
	List    string `json:"list"`
}

func (s *server) writeCampaign(w http.ResponseWriter, r *http.Request, c links.Campaign) {
	respond.JSON(w, http.StatusOK, linkCampaignBody{ID: c.ID, Domain: c.Name, Public: c.Public,
		Rotator: s.rotator(r, c), List: s.campaignListURL(r, c)})
}

// linkListCampaigns handles GET /api/campaigns.
func (s *server) linkListCampaigns(w http.ResponseWriter, r *http.Request) {
	p, err := linkPage(r)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	l, err := s.links.ListCampaigns(r.Context(), linkUser(r).ID, p)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkList(w, "campaigns", l, func(c links.Campaign) linkCampaignView {
		return linkCampaignView{ID: c.ID, Name: c.Name, Slug: c.Slug, Public: c.Public,
			Rotator: s.rotator(r, c), List: s.campaignListURL(r, c)}
	})
}

type linkCampaignRequest struct {
	Name   *string `json:"name"`
	Slug   *string `json:"slug"`
	Public *bool   `json:"public"`
}

// linkAddCampaign handles POST /api/campaign/add.
func (s *server) linkAddCampaign(w http.ResponseWriter, r *http.Request) {
	var req linkCampaignRequest
	if !s.decodeLink(w, r, &req) {
		return
	}
	var in links.CampaignInput
	setIf(&in.Name, req.Name)
	setIf(&in.Slug, req.Slug)
	setIf(&in.Public, req.Public)
	c, err := s.links.CreateCampaign(r.Context(), linkUser(r).ID, in)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	s.writeCampaign(w, r, c)
}

// linkUpdateCampaign handles PUT /api/campaign/{id}/update: name required.
func (s *server) linkUpdateCampaign(w http.ResponseWriter, r *http.Request) {
	id, err := linkID(r, "id", "campaign")
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	var req linkCampaignRequest
	if !s.decodeLink(w, r, &req) {
		return
	}
	in := links.CampaignPatch{Slug: req.Slug, Public: req.Public}
	setIf(&in.Name, req.Name)
	c, err := s.links.UpdateCampaign(r.Context(), linkUser(r).ID, id, in)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	s.writeCampaign(w, r, c)
}

// linkAssignCampaign handles POST /api/campaign/{campaignid}/assign/{linkid}.
func (s *server) linkAssignCampaign(w http.ResponseWriter, r *http.Request) {
	cid, err := linkID(r, "campaignid", "campaign")
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	lid, err := linkID(r, "linkid", "link")
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	if err := s.links.AssignCampaignLink(r.Context(), linkUser(r).ID, cid, lid); err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkOK(w, "Link successfully added to the campaign.")
}

// linkChannelView is the spec's channel record.
type linkChannelView struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Color       string `json:"color"`
	Starred     bool   `json:"starred"`
}

func newLinkChannelView(c links.Channel) linkChannelView {
	return linkChannelView{ID: c.ID, Name: c.Name, Description: c.Description, Color: c.Color, Starred: c.Starred}
}

// linkListChannels handles GET /api/channels.
func (s *server) linkListChannels(w http.ResponseWriter, r *http.Request) {
	p, err := linkPage(r)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	l, err := s.links.ListChannels(r.Context(), linkUser(r).ID, p)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkList(w, "channels", l, newLinkChannelView)
}

// linkChannelItemView is the spec's read-only channel item.
type linkChannelItemView struct {
	Type    string `json:"type"`
	ID      int64  `json:"id"`
	Title   string `json:"title"`
	Preview string `json:"preview"`
	Link    string `json:"link"`
	Date    string `json:"date"` // YYYY-MM-DD
}

// linkListChannelItems handles GET /api/channel/{id}: the channel's items.
func (s *server) linkListChannelItems(w http.ResponseWriter, r *http.Request) {
	id, err := linkID(r, "id", "channel")
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	p, err := linkPage(r)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	owner := linkUser(r).ID
	l, err := s.links.ListChannelItems(r.Context(), owner, id, p)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	var domains map[int64]string
	for _, it := range l.Items {
		if it.Type == links.ItemLink && it.DomainID != 0 {
			if domains, err = s.domainURLs(r.Context(), owner); err != nil {
				s.linkError(w, r, err)
				return
			}
			break
		}
	}
	writeLinkList(w, "items", l, func(it links.ChannelItem) linkChannelItemView {
		v := linkChannelItemView{Type: string(it.Type), ID: it.ItemID, Title: it.Title,
			Date: it.CreatedAt.UTC().Format("2006-01-02")}
		switch it.Type {
		case links.ItemLink:
			v.Link = s.shortURL(r, domains, links.ShortLink{DomainID: it.DomainID, Alias: it.Alias})
		case links.ItemQR:
			v.Link = s.qrLink(r, it.ItemID)
		}
		v.Preview = v.Link
		return v
	})
}

type linkChannelRequest struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
	Color       *string `json:"color"`
	Starred     *bool   `json:"starred"`
}

// linkAddChannel handles POST /api/channel/add.
func (s *server) linkAddChannel(w http.ResponseWriter, r *http.Request) {
	var req linkChannelRequest
	if !s.decodeLink(w, r, &req) {
		return
	}
	var in links.ChannelInput
	setIf(&in.Name, req.Name)
	setIf(&in.Description, req.Description)
	setIf(&in.Color, req.Color)
	setIf(&in.Starred, req.Starred)
	c, err := s.links.CreateChannel(r.Context(), linkUser(r).ID, in)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Error int `json:"error"`
		linkChannelView
	}{0, newLinkChannelView(c)})
}

// linkUpdateChannel handles PUT /api/channel/{id}/update.
func (s *server) linkUpdateChannel(w http.ResponseWriter, r *http.Request) {
	id, err := linkID(r, "id", "channel")
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	var req linkChannelRequest
	if !s.decodeLink(w, r, &req) {
		return
	}
	if _, err := s.links.UpdateChannel(r.Context(), linkUser(r).ID, id, links.ChannelPatch{
		Name: req.Name, Description: req.Description, Color: req.Color, Starred: req.Starred}); err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkOK(w, "Channel has been updated successfully.")
}

// linkAssignChannel handles POST /api/channel/{channelid}/assign/{type}/{itemid}.
func (s *server) linkAssignChannel(w http.ResponseWriter, r *http.Request) {
	cid, err := linkID(r, "channelid", "channel")
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	t, err := links.ParseItemType(chi.URLParam(r, "type"))
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	iid, err := linkID(r, "itemid", string(t)+" item")
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	if err := s.links.AssignChannelItem(r.Context(), linkUser(r).ID, cid, t, iid); err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkOK(w, "Item successfully added to the channel.")
}

// setIf sets *dst to *v when v is not nil.
func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
