package console

import (
	"net/http"
	"strings"

	"github.com/seedhq/portal/internal/links"
)

// domainsView is the domains page's data.
type domainsView struct {
	Domains []links.Domain
	Form    links.DomainInput
}

// renderDomains renders the domains page.
func (c *console) renderDomains(w http.ResponseWriter, r *http.Request, status int, dv domainsView, err error) {
	v := c.linkView(r)
	if err != nil {
		status = c.linkError(&v, err)
	}
	l, lerr := c.links.ListDomains(r.Context(), linkUserFrom(r).ID, linkAllPage)
	if lerr != nil {
		status = c.linkError(&v, lerr)
	}
	dv.Domains = l.Items
	v.Data = dv
	c.render(w, r, "links_domains", status, v)
}

// linkDomains serves GET /console/links/domains.
func (c *console) linkDomains(w http.ResponseWriter, r *http.Request) {
	c.renderDomains(w, r, http.StatusOK, domainsView{}, nil)
}

// domainAdd serves POST /console/links/domains.
func (c *console) domainAdd(w http.ResponseWriter, r *http.Request) {
	f := links.DomainInput{Domain: strings.TrimSpace(r.PostFormValue("domain")),
		RedirectRoot: strings.TrimSpace(r.PostFormValue("redirect_root")), Redirect404: strings.TrimSpace(r.PostFormValue("redirect_404"))}
	if _, err := c.links.AddDomain(r.Context(), linkUserFrom(r).ID, f); err != nil {
		c.renderDomains(w, r, http.StatusBadRequest, domainsView{Form: f}, err)
		return
	}
	http.Redirect(w, r, "/console/links/domains", http.StatusSeeOther)
}

// domainDelete serves POST /console/links/domains/{id}/delete; a domain
// links still use is refused with the service's message.
func (c *console) domainDelete(w http.ResponseWriter, r *http.Request) {
	id, err := linkID(r)
	if err == nil {
		err = c.links.DeleteDomain(r.Context(), linkUserFrom(r).ID, id)
	}
	if err != nil {
		c.renderDomains(w, r, http.StatusBadRequest, domainsView{}, err)
		return
	}
	http.Redirect(w, r, "/console/links/domains", http.StatusSeeOther)
}
