package links

import (
	"fmt"
	"net/http"

	"github.com/seedhq/portal/internal/httpapi/respond"
	link "github.com/seedhq/portal/internal/links"
)

// campaignView is the spec's campaign record in lists. Slug is an
// addition.
type campaignView struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Slug    string `json:"slug"`
	Public  bool   `json:"public"`
	Rotator any    `json:"rotator"` // URL, or false without a slug
	List    string `json:"list"`
}

// rotator returns the campaign's rotator address, or false.
func (a *api) rotator(r *http.Request, c link.Campaign) any {
	if c.Slug == "" {
		return false
	}
	return a.base(r) + "/r/" + c.Slug
}

func (a *api) campaignListURL(r *http.Request, c link.Campaign) string {
	return fmt.Sprintf("%s/c/%d", a.base(r), c.ID)
}

// campaignBody answers campaign create and update: the name is in
// "domain", as the spec says.
type campaignBody struct {
	Error   int    `json:"error"`
	ID      int64  `json:"id"`
	Domain  string `json:"domain"`
	Public  bool   `json:"public"`
	Rotator any    `json:"rotator"`
	List    string `json:"list"`
}

func (a *api) writeCampaign(w http.ResponseWriter, r *http.Request, c link.Campaign) {
	respond.JSON(w, http.StatusOK, campaignBody{ID: c.ID, Domain: c.Name, Public: c.Public,
		Rotator: a.rotator(r, c), List: a.campaignListURL(r, c)})
}

// listCampaigns handles GET /api/campaigns.
func (a *api) listCampaigns(w http.ResponseWriter, r *http.Request) {
	p, err := pageOf(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	l, err := a.svc.ListCampaigns(r.Context(), userFrom(r).ID, p)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeList(w, "campaigns", l, func(c link.Campaign) campaignView {
		return campaignView{ID: c.ID, Name: c.Name, Slug: c.Slug, Public: c.Public,
			Rotator: a.rotator(r, c), List: a.campaignListURL(r, c)}
	})
}

type campaignRequest struct {
	Name   *string `json:"name"`
	Slug   *string `json:"slug"`
	Public *bool   `json:"public"`
}

// addCampaign handles POST /api/campaign/add.
func (a *api) addCampaign(w http.ResponseWriter, r *http.Request) {
	var req campaignRequest
	if !a.decode(w, r, &req) {
		return
	}
	var in link.CampaignInput
	setIf(&in.Name, req.Name)
	setIf(&in.Slug, req.Slug)
	setIf(&in.Public, req.Public)
	c, err := a.svc.CreateCampaign(r.Context(), userFrom(r).ID, in)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeCampaign(w, r, c)
}

// updateCampaign handles PUT /api/campaign/{id}/update: name required.
func (a *api) updateCampaign(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id", "campaign")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var req campaignRequest
	if !a.decode(w, r, &req) {
		return
	}
	in := link.CampaignPatch{Slug: req.Slug, Public: req.Public}
	setIf(&in.Name, req.Name)
	c, err := a.svc.UpdateCampaign(r.Context(), userFrom(r).ID, id, in)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	a.writeCampaign(w, r, c)
}

// assignCampaign handles POST /api/campaign/{campaignid}/assign/{linkid}.
func (a *api) assignCampaign(w http.ResponseWriter, r *http.Request) {
	cid, err := pathID(r, "campaignid", "campaign")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	lid, err := pathID(r, "linkid", "link")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if err := a.svc.AssignCampaignLink(r.Context(), userFrom(r).ID, cid, lid); err != nil {
		a.writeError(w, r, err)
		return
	}
	writeOK(w, "Link successfully added to the campaign.")
}
