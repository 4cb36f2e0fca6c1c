package links

import (
	"net/http"

	"github.com/seedhq/portal/internal/httpapi/respond"
	link "github.com/seedhq/portal/internal/links"
)

// domainView is the spec's branded domain record.
type domainView struct {
	ID           int64  `json:"id"`
	Domain       string `json:"domain"`
	RedirectRoot string `json:"redirectroot"`
	Redirect404  string `json:"redirect404"`
}

func newDomainView(d link.Domain) domainView {
	return domainView{ID: d.ID, Domain: d.URL, RedirectRoot: d.RedirectRoot, Redirect404: d.Redirect404}
}

// listDomains handles GET /api/domains.
func (a *api) listDomains(w http.ResponseWriter, r *http.Request) {
	p, err := pageOf(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	l, err := a.svc.ListDomains(r.Context(), userFrom(r).ID, p)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeList(w, "domains", l, newDomainView)
}

type domainRequest struct {
	Domain       string `json:"domain"`
	RedirectRoot string `json:"redirectroot"`
	Redirect404  string `json:"redirect404"`
}

// addDomain handles POST /api/domain/add.
func (a *api) addDomain(w http.ResponseWriter, r *http.Request) {
	var req domainRequest
	if !a.decode(w, r, &req) {
		return
	}
	d, err := a.svc.AddDomain(r.Context(), userFrom(r).ID,
		link.DomainInput{Domain: req.Domain, RedirectRoot: req.RedirectRoot, Redirect404: req.Redirect404})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, idBody{ID: d.ID})
}

type domainPatchRequest struct {
	RedirectRoot *string `json:"redirectroot"`
	Redirect404  *string `json:"redirect404"`
}

// updateDomain handles PUT /api/domain/{id}/update.
func (a *api) updateDomain(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id", "domain")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var req domainPatchRequest
	if !a.decode(w, r, &req) {
		return
	}
	if _, err := a.svc.UpdateDomain(r.Context(), userFrom(r).ID, id,
		link.DomainPatch{RedirectRoot: req.RedirectRoot, Redirect404: req.Redirect404}); err != nil {
		a.writeError(w, r, err)
		return
	}
	writeOK(w, "Domain has been updated successfully.")
}
