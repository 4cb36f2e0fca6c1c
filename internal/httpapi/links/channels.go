package links

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/httpapi/respond"
	link "github.com/seedhq/portal/internal/links"
)

// channelView is the spec's channel record.
type channelView struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Color       string `json:"color"`
	Starred     bool   `json:"starred"`
}

func newChannelView(c link.Channel) channelView {
	return channelView{ID: c.ID, Name: c.Name, Description: c.Description, Color: c.Color, Starred: c.Starred}
}

// listChannels handles GET /api/channels.
func (a *api) listChannels(w http.ResponseWriter, r *http.Request) {
	p, err := pageOf(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	l, err := a.svc.ListChannels(r.Context(), userFrom(r).ID, p)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeList(w, "channels", l, newChannelView)
}

// channelItemView is the spec's read-only channel item.
type channelItemView struct {
	Type    string `json:"type"`
	ID      int64  `json:"id"`
	Title   string `json:"title"`
	Preview string `json:"preview"`
	Link    string `json:"link"`
	Date    string `json:"date"` // YYYY-MM-DD
}

// listChannelItems handles GET /api/channel/{id}: the channel's items.
func (a *api) listChannelItems(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id", "channel")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	p, err := pageOf(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	owner := userFrom(r).ID
	l, err := a.svc.ListChannelItems(r.Context(), owner, id, p)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var domains map[int64]string
	for _, it := range l.Items {
		if it.Type == link.ItemLink && it.DomainID != 0 {
			if domains, err = a.domainURLs(r.Context(), owner); err != nil {
				a.writeError(w, r, err)
				return
			}
			break
		}
	}
	writeList(w, "items", l, func(it link.ChannelItem) channelItemView {
		v := channelItemView{Type: string(it.Type), ID: it.ItemID, Title: it.Title,
			Date: it.CreatedAt.UTC().Format("2006-01-02")}
		switch it.Type {
		case link.ItemLink:
			v.Link = a.shortURL(r, domains, link.ShortLink{DomainID: it.DomainID, Alias: it.Alias})
		case link.ItemQR:
			v.Link = a.qrLink(r, it.ItemID)
		}
		v.Preview = v.Link
		return v
	})
}

type channelRequest struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
	Color       *string `json:"color"`
	Starred     *bool   `json:"starred"`
}

// addChannel handles POST /api/channel/add.
func (a *api) addChannel(w http.ResponseWriter, r *http.Request) {
	var req channelRequest
	if !a.decode(w, r, &req) {
		return
	}
	var in link.ChannelInput
	setIf(&in.Name, req.Name)
	setIf(&in.Description, req.Description)
	setIf(&in.Color, req.Color)
	setIf(&in.Starred, req.Starred)
	c, err := a.svc.CreateChannel(r.Context(), userFrom(r).ID, in)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Error int `json:"error"`
		channelView
	}{0, newChannelView(c)})
}

// updateChannel handles PUT /api/channel/{id}/update.
func (a *api) updateChannel(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id", "channel")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var req channelRequest
	if !a.decode(w, r, &req) {
		return
	}
	if _, err := a.svc.UpdateChannel(r.Context(), userFrom(r).ID, id, link.ChannelPatch{
		Name: req.Name, Description: req.Description, Color: req.Color, Starred: req.Starred}); err != nil {
		a.writeError(w, r, err)
		return
	}
	writeOK(w, "Channel has been updated successfully.")
}

// assignChannel handles POST /api/channel/{channelid}/assign/{type}/{itemid}.
func (a *api) assignChannel(w http.ResponseWriter, r *http.Request) {
	cid, err := pathID(r, "channelid", "channel")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	t, err := link.ParseItemType(chi.URLParam(r, "type"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	iid, err := pathID(r, "itemid", string(t)+" item")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if err := a.svc.AssignChannelItem(r.Context(), userFrom(r).ID, cid, t, iid); err != nil {
		a.writeError(w, r, err)
		return
	}
	writeOK(w, "Item successfully added to the channel.")
}
