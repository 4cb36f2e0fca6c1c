package console

import (
	"net/http"
	"strings"

	"github.com/seedhq/portal/internal/links"
)

// campaignRow is a campaign as the page shows it, with its rotator's
// address.
type campaignRow struct {
	links.Campaign
	Rotator string
}

// campaignsView is the campaigns page's data.
type campaignsView struct {
	Campaigns []campaignRow
	Form      links.Campaign // the create form as typed, or the campaign edited
	Editing   bool
}

// campaignRowOf adds a campaign's rotator address on the short host.
func (c *console) campaignRowOf(r *http.Request, cp links.Campaign) campaignRow {
	row := campaignRow{Campaign: cp}
	if cp.Slug != "" {
		row.Rotator = c.linkBaseOf(r) + "/r/" + cp.Slug
	}
	return row
}

// renderCampaigns renders the campaigns page (the list and one form).
func (c *console) renderCampaigns(w http.ResponseWriter, r *http.Request, status int, cv campaignsView, err error) {
	v := c.linkView(r)
	if err != nil {
		status = c.linkError(&v, err)
	}
	l, lerr := c.links.ListCampaigns(r.Context(), linkUserFrom(r).ID, linkAllPage)
	if lerr != nil {
		status = c.linkError(&v, lerr)
	}
	for _, cp := range l.Items {
		cv.Campaigns = append(cv.Campaigns, c.campaignRowOf(r, cp))
	}
	v.Data = cv
	c.render(w, r, "links_campaigns", status, v)
}

// linkCampaigns serves GET /console/links/campaigns.
func (c *console) linkCampaigns(w http.ResponseWriter, r *http.Request) {
	c.renderCampaigns(w, r, http.StatusOK, campaignsView{}, nil)
}

// campaignForm reads the posted campaign form.
func campaignForm(r *http.Request) links.Campaign {
	return links.Campaign{Name: strings.TrimSpace(r.PostFormValue("name")), Slug: strings.TrimSpace(r.PostFormValue("slug")),
		Public: r.PostFormValue("public") != ""}
}

// campaignCreate serves POST /console/links/campaigns.
func (c *console) campaignCreate(w http.ResponseWriter, r *http.Request) {
	f := campaignForm(r)
	if _, err := c.links.CreateCampaign(r.Context(), linkUserFrom(r).ID, links.CampaignInput{Name: f.Name, Slug: f.Slug,
		Public: f.Public}); err != nil {
		c.renderCampaigns(w, r, http.StatusBadRequest, campaignsView{Form: f}, err)
		return
	}
	http.Redirect(w, r, "/console/links/campaigns", http.StatusSeeOther)
}

// campaignEdit serves GET /console/links/campaigns/{id}: the rotator
// settings of one campaign.
func (c *console) campaignEdit(w http.ResponseWriter, r *http.Request) {
	id, err := linkID(r)
	var cp links.Campaign
	if err == nil {
		cp, err = c.links.GetCampaign(r.Context(), linkUserFrom(r).ID, id)
	}
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	c.renderCampaigns(w, r, http.StatusOK, campaignsView{Form: cp, Editing: true}, nil)
}

// campaignUpdate serves POST /console/links/campaigns/{id}: name, rotator
// slug (empty removes the rotator) and whether the rotator is public.
func (c *console) campaignUpdate(w http.ResponseWriter, r *http.Request) {
	id, err := linkID(r)
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	f := campaignForm(r)
	f.ID = id
	if _, err := c.links.UpdateCampaign(r.Context(), linkUserFrom(r).ID, id, links.CampaignPatch{Name: f.Name,
		Slug: &f.Slug, Public: &f.Public}); err != nil {
		c.renderCampaigns(w, r, http.StatusBadRequest, campaignsView{Form: f, Editing: true}, err)
		return
	}
	http.Redirect(w, r, "/console/links/campaigns", http.StatusSeeOther)
}
