package httpapi

import (
	"net/http"

	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/links"
)

// linkAccountView is the spec's account record.
type linkAccountView struct {
	ID         int64  `json:"id"`
	Email      string `json:"email"`
	Username   string `json:"username"`
	Avatar     string `json:"avatar"`
	Status     string `json:"status"`
	Expires    string `json:"expires"` // "" when the plan does not expire
	Registered string `json:"registered"`
}

func newLinkAccountView(u links.User) linkAccountView {
	return linkAccountView{ID: u.ID, Email: u.Email, Username: u.Username, Avatar: u.Avatar, Status: u.Plan,
		Expires: linkDatePtr(u.ExpiresAt), Registered: linkDate(u.RegisteredAt)}
}

// linkAccount handles GET /api/account.
func (s *server) linkAccount(w http.ResponseWriter, r *http.Request) {
	u, err := s.links.Account(r.Context(), linkUser(r).ID)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Error int             `json:"error"`
		Data  linkAccountView `json:"data"`
	}{0, newLinkAccountView(u)})
}

type linkAccountUpdateRequest struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
}

// linkUpdateAccount handles PUT /api/account/update: email, password or both.
func (s *server) linkUpdateAccount(w http.ResponseWriter, r *http.Request) {
	var req linkAccountUpdateRequest
	if !s.decodeLink(w, r, &req) {
		return
	}
	if _, err := s.links.UpdateAccount(r.Context(), linkUser(r).ID,
		links.AccountUpdate{Email: req.Email, Password: req.Password}); err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkOK(w, "Account has been successfully updated.")
}

// linkDomainView is the spec's branded domain record.
type linkDomainView struct {
	ID           int64  `json:"id"`
	Domain       string `json:"domain"`
	RedirectRoot string `json:"redirectroot"`
	Redirect404  string `json:"redirect404"`
}

func newLinkDomainView(d links.Domain) linkDomainView {
	return linkDomainView{ID: d.ID, Domain: d.URL, RedirectRoot: d.RedirectRoot, Redirect404: d.Redirect404}
}

// linkListDomains handles GET /api/domains.
func (s *server) linkListDomains(w http.ResponseWriter, r *http.Request) {
	p, err := linkPage(r)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	l, err := s.links.ListDomains(r.Context(), linkUser(r).ID, p)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkList(w, "domains", l, newLinkDomainView)
}

type linkDomainRequest struct {
	Domain       string `json:"domain"`
	RedirectRoot string `json:"redirectroot"`
	Redirect404  string `json:"redirect404"`
}

// linkIDBody answers a create with the new record's id.
type linkIDBody struct {
	Error int   `json:"error"`
	ID    int64 `json:"id"`
}

// linkAddDomain handles POST /api/domain/add.
func (s *server) linkAddDomain(w http.ResponseWriter, r *http.Request) {
	var req linkDomainRequest
	if !s.decodeLink(w, r, &req) {
		return
	}
	d, err := s.links.AddDomain(r.Context(), linkUser(r).ID,
		links.DomainInput{Domain: req.Domain, RedirectRoot: req.RedirectRoot, Redirect404: req.Redirect404})
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, linkIDBody{ID: d.ID})
}

type linkDomainPatchRequest struct {
	RedirectRoot *string `json:"redirectroot"`
	Redirect404  *string `json:"redirect404"`
}

// linkUpdateDomain handles PUT /api/domain/{id}/update.
func (s *server) linkUpdateDomain(w http.ResponseWriter, r *http.Request) {
	id, err := linkID(r, "id", "domain")
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	var req linkDomainPatchRequest
	if !s.decodeLink(w, r, &req) {
		return
	}
	if _, err := s.links.UpdateDomain(r.Context(), linkUser(r).ID, id,
		links.DomainPatch{RedirectRoot: req.RedirectRoot, Redirect404: req.Redirect404}); err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkOK(w, "Domain has been updated successfully.")
}

// linkOverlayView is the spec's CTA overlay record.
type linkOverlayView struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
	Date string `json:"date"`
}

func newLinkOverlayView(o links.Overlay) linkOverlayView {
	return linkOverlayView{ID: o.ID, Type: o.Type, Name: o.Name, Date: linkDate(o.CreatedAt)}
}

// linkListOverlays handles GET /api/overlay.
func (s *server) linkListOverlays(w http.ResponseWriter, r *http.Request) {
	p, err := linkPage(r)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	l, err := s.links.ListOverlays(r.Context(), linkUser(r).ID, p)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkList(w, "cta", l, newLinkOverlayView)
}

// linkSplashView is the spec's custom splash page record.
type linkSplashView struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Date string `json:"date"`
}

func newLinkSplashView(sp links.Splash) linkSplashView {
	return linkSplashView{ID: sp.ID, Name: sp.Name, Date: linkDate(sp.CreatedAt)}
}

// linkListSplashes handles GET /api/splash.
func (s *server) linkListSplashes(w http.ResponseWriter, r *http.Request) {
	p, err := linkPage(r)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	l, err := s.links.ListSplashes(r.Context(), linkUser(r).ID, p)
	if err != nil {
		s.linkError(w, r, err)
		return
	}
	writeLinkList(w, "splash", l, newLinkSplashView)
}
