package console

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/links"
)

// linkBaseOf returns where the portal's own short links are served.
func (c *console) linkBaseOf(r *http.Request) string {
	if c.linkBase != "" {
		return c.linkBase
	}
	scheme := "http"
	if secure(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// linkAllPage is the page of every record of a menu (domains, campaigns, pixels).
var linkAllPage = links.Page{Number: 1, Limit: links.MaxLimit}

// linkRefs are the owner's records a link form or the list's filters
// choose from.
type linkRefs struct {
	Domains   []links.Domain
	Campaigns []links.Campaign
	Pixels    []links.Pixel
}

// loadRefs reads the owner's domains, campaigns and pixels.
func (c *console) loadRefs(ctx context.Context, owner int64) (linkRefs, error) {
	ds, err := c.links.ListDomains(ctx, owner, linkAllPage)
	if err != nil {
		return linkRefs{}, err
	}
	cs, err := c.links.ListCampaigns(ctx, owner, linkAllPage)
	if err != nil {
		return linkRefs{}, err
	}
	ps, err := c.links.ListPixels(ctx, owner, linkAllPage)
	if err != nil {
		return linkRefs{}, err
	}
	return linkRefs{Domains: ds.Items, Campaigns: cs.Items, Pixels: ps.Items}, nil
}

// shortURL returns a link's short address.
func (c *console) shortURL(r *http.Request, refs linkRefs, l links.ShortLink) string {
	base := c.linkBaseOf(r)
	for _, d := range refs.Domains {
		if d.ID == l.DomainID {
			base = d.URL
		}
	}
	return strings.TrimSuffix(base, "/") + "/" + l.Alias
}

// linkRow is a link as the list shows it.
type linkRow struct {
	links.ShortLink
	Short string
}

// linkListView is the links page's data.
type linkListView struct {
	linkRefs
	Links            []linkRow
	Q, Order         string
	Domain, Campaign int64
	Total            int
	Page, MaxPage    int
	PrevURL, NextURL string
	Created, Deleted string // the alias just created or deleted
	CreatedShort     string
}

// linkPageSize is the number of links a page lists.
const linkPageSize = 20

// linkFormID reads an optional id of a form or query field: empty is 0.
func linkFormID(s string) (int64, error) {
	if s = strings.TrimSpace(s); s == "" {
		return 0, nil
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 0 {
		return 0, errLinkID
	}
	return id, nil
}

// errLinkID refuses an id that is not a number.
var errLinkID = apperr.New(apperr.Invalid, "INVALID_FORM", "a chosen item is not a valid id")

// linkList serves GET /console/links/?q=&domain=&campaign=&order=&page=:
// the marketer's links, newest (or most clicked) first, searched and
// filtered, with their short address and clicks.
func (c *console) linkList(w http.ResponseWriter, r *http.Request) {
	v := c.linkView(r)
	q := r.URL.Query()
	owner := linkUserFrom(r).ID
	lv := linkListView{Q: strings.TrimSpace(q.Get("q")), Order: q.Get("order"), Created: q.Get("created"), Deleted: q.Get("deleted")}
	status := http.StatusOK
	page, _ := strconv.Atoi(q.Get("page"))
	lv.Domain, _ = linkFormID(q.Get("domain"))
	lv.Campaign, _ = linkFormID(q.Get("campaign"))
	refs, err := c.loadRefs(r.Context(), owner)
	if err == nil {
		lv.linkRefs = refs
		var l links.List[links.ShortLink]
		l, err = c.links.ListLinks(r.Context(), owner, links.LinkFilter{Search: lv.Q, DomainID: lv.Domain,
			CampaignID: lv.Campaign, Order: links.LinkOrder(lv.Order)}, links.Page{Number: max(page, 1), Limit: linkPageSize})
		if err == nil {
			for _, it := range l.Items {
				lv.Links = append(lv.Links, linkRow{ShortLink: it, Short: c.shortURL(r, refs, it)})
				if it.Alias == lv.Created {
					lv.CreatedShort = c.shortURL(r, refs, it)
				}
			}
			pg := l.Paging()
			lv.Total, lv.Page, lv.MaxPage = pg.Result, pg.CurrentPage, pg.MaxPage
			at := func(n int) string {
				v := url.Values{"q": {lv.Q}, "order": {lv.Order}, "page": {strconv.Itoa(n)}}
				if lv.Domain > 0 {
					v.Set("domain", strconv.FormatInt(lv.Domain, 10))
				}
				if lv.Campaign > 0 {
					v.Set("campaign", strconv.FormatInt(lv.Campaign, 10))
				}
				return "/console/links/?" + v.Encode()
			}
			if pg.CurrentPage > 1 {
				lv.PrevURL = at(pg.CurrentPage - 1)
			}
			if pg.NextPage > 0 {
				lv.NextURL = at(pg.NextPage)
			}
		}
	}
	if err != nil {
		status = c.linkError(&v, err)
	}
	v.Data = lv
	c.render(w, r, "links_list", status, v)
}

// linkForm is the link form as typed.
type linkForm struct {
	URL, Alias, Title, Expiry string
	DomainID, CampaignID      int64
	PixelIDs                  []int64
	HasPassword               bool // the link has a password (edit)
}

// linkExpiryLayout is the value of a datetime-local field.
const linkExpiryLayout = "2006-01-02T15:04"

// linkFormView is the create and edit page's data.
type linkFormView struct {
	linkRefs
	ID   int64 // 0 for a new link
	Form linkForm
}

// HasPixel reports whether the form chose the pixel.
func (f linkFormView) HasPixel(id int64) bool { return slices.Contains(f.Form.PixelIDs, id) }

// renderLinkForm renders the form; err, when not nil, is shown and sets
// the status.
func (c *console) renderLinkForm(w http.ResponseWriter, r *http.Request, status int, fv linkFormView, err error) {
	v := c.linkView(r)
	if err != nil {
		status = c.linkError(&v, err)
	}
	refs, rerr := c.loadRefs(r.Context(), linkUserFrom(r).ID)
	if rerr != nil {
		status = c.linkError(&v, rerr)
	}
	fv.linkRefs = refs
	v.Data = fv
	c.render(w, r, "links_form", status, v)
}

// linkNew serves GET /console/links/new.
func (c *console) linkNew(w http.ResponseWriter, r *http.Request) {
	c.renderLinkForm(w, r, http.StatusOK, linkFormView{}, nil)
}

// readLinkForm reads the posted form; the error is a refusal of a field
// that is not a number or a date.
func readLinkForm(r *http.Request) (linkForm, *time.Time, error) {
	f := linkForm{URL: strings.TrimSpace(r.PostFormValue("url")), Alias: strings.TrimSpace(r.PostFormValue("alias")),
		Title: strings.TrimSpace(r.PostFormValue("title")), Expiry: strings.TrimSpace(r.PostFormValue("expiry"))}
	var err error
	if f.DomainID, err = linkFormID(r.PostFormValue("domain")); err != nil {
		return f, nil, err
	}
	if f.CampaignID, err = linkFormID(r.PostFormValue("campaign")); err != nil {
		return f, nil, err
	}
	for _, s := range r.PostForm["pixels"] {
		id, err := linkFormID(s)
		if err != nil {
			return f, nil, err
		}
		f.PixelIDs = append(f.PixelIDs, id)
	}
	if f.Expiry == "" {
		return f, nil, nil
	}
	t, err := time.ParseInLocation(linkExpiryLayout, f.Expiry, time.UTC)
	if err != nil {
		return f, nil, errLinkExpiry
	}
	return f, &t, nil
}

// errLinkExpiry refuses an expiry that is not a date and time.
var errLinkExpiry = apperr.New(apperr.Invalid, "INVALID_FORM", "the expiry must be a date and time (UTC)")

// linkCreate serves POST /console/links/new: the link through
// links.Service.CreateLink; a refused one keeps the form and says why.
func (c *console) linkCreate(w http.ResponseWriter, r *http.Request) {
	f, exp, err := readLinkForm(r)
	if err == nil {
		var l links.ShortLink
		l, err = c.links.CreateLink(r.Context(), linkUserFrom(r).ID, links.LinkInput{URL: f.URL, Custom: f.Alias,
			DomainID: f.DomainID, ExpiresAt: exp, Password: r.PostFormValue("password"), PixelIDs: f.PixelIDs,
			CampaignID: f.CampaignID, Title: f.Title})
		if err == nil {
			http.Redirect(w, r, "/console/links/?created="+url.QueryEscape(l.Alias), http.StatusSeeOther)
			return
		}
	}
	c.renderLinkForm(w, r, http.StatusBadRequest, linkFormView{Form: f}, err)
}

// ownLink reads the {id} link of the signed-in marketer; another user's
// link is not found, exactly as a missing one.
func (c *console) ownLink(r *http.Request) (links.ShortLink, error) {
	id, err := linkID(r)
	if err != nil {
		return links.ShortLink{}, err
	}
	return c.links.GetLink(r.Context(), linkUserFrom(r).ID, id)
}

// linkNotFound renders the error of a missing (or another user's) record in
// the marketers' area.
func (c *console) linkNotFound(w http.ResponseWriter, r *http.Request, err error) {
	v := c.linkView(r)
	status := c.linkError(&v, err)
	c.render(w, r, "forbidden", status, v)
}

// linkEdit serves GET /console/links/{id}/edit.
func (c *console) linkEdit(w http.ResponseWriter, r *http.Request) {
	l, err := c.ownLink(r)
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	f := linkForm{URL: l.LongURL, Alias: l.Alias, Title: l.Title, DomainID: l.DomainID, CampaignID: l.CampaignID,
		PixelIDs: l.PixelIDs, HasPassword: l.PasswordHash != ""}
	if l.ExpiresAt != nil {
		f.Expiry = l.ExpiresAt.UTC().Format(linkExpiryLayout)
	}
	c.renderLinkForm(w, r, http.StatusOK, linkFormView{ID: l.ID, Form: f}, nil)
}

// linkUpdate serves POST /console/links/{id}/edit: every field of the form
// through links.Service.UpdateLink. An empty password keeps the link's
// (remove_password removes it); an empty expiry removes it.
func (c *console) linkUpdate(w http.ResponseWriter, r *http.Request) {
	l, err := c.ownLink(r)
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	f, exp, err := readLinkForm(r)
	f.HasPassword = l.PasswordHash != ""
	if err == nil {
		p := links.LinkPatch{URL: &f.URL, Custom: &f.Alias, DomainID: &f.DomainID, CampaignID: &f.CampaignID,
			PixelIDs: &f.PixelIDs, Title: &f.Title, ExpiresAt: exp, ClearExpiry: exp == nil}
		if pw := r.PostFormValue("password"); pw != "" {
			p.Password = &pw
		} else if r.PostFormValue("remove_password") != "" {
			p.Password = &pw
		}
		if _, err = c.links.UpdateLink(r.Context(), linkUserFrom(r).ID, l.ID, p); err == nil {
			http.Redirect(w, r, "/console/links/", http.StatusSeeOther)
			return
		}
	}
	c.renderLinkForm(w, r, http.StatusBadRequest, linkFormView{ID: l.ID, Form: f}, err)
}

// linkDeletePage serves GET /console/links/{id}/delete: the confirmation.
func (c *console) linkDeletePage(w http.ResponseWriter, r *http.Request) {
	l, err := c.ownLink(r)
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	v := c.linkView(r)
	refs, err := c.loadRefs(r.Context(), l.UserID)
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	v.Data = linkRow{ShortLink: l, Short: c.shortURL(r, refs, l)}
	c.render(w, r, "links_delete", http.StatusOK, v)
}

// linkDelete serves POST /console/links/{id}/delete.
func (c *console) linkDelete(w http.ResponseWriter, r *http.Request) {
	l, err := c.ownLink(r)
	if err == nil {
		err = c.links.DeleteLink(r.Context(), l.UserID, l.ID)
	}
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	http.Redirect(w, r, "/console/links/?deleted="+url.QueryEscape(l.Alias), http.StatusSeeOther)
}
