package links

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	link "github.com/seedhq/portal/internal/links"
)

// base returns the base URL of the short host, without a trailing
// slash: Options.LinkBaseURL, else the scheme and host of the request.
func (a *api) base(r *http.Request) string {
	if a.baseURL != "" {
		return a.baseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// domainURLs returns the URL of each of the owner's domains by id, walking
// every page (the service has no single-domain read).
func (a *api) domainURLs(ctx context.Context, owner int64) (map[int64]string, error) {
	out := map[int64]string{}
	for page := 1; ; page++ {
		l, err := a.svc.ListDomains(ctx, owner, link.Page{Number: page, Limit: link.MaxLimit})
		if err != nil {
			return nil, err
		}
		for _, d := range l.Items {
			out[d.ID] = d.URL
		}
		if l.Paging().NextPage == 0 {
			return out, nil
		}
	}
}

// shortURL returns the address of a short link: the branded domain's URL or
// the short host's, and the alias.
func (a *api) shortURL(r *http.Request, domains map[int64]string, l link.ShortLink) string {
	base := a.base(r)
	if l.DomainID != 0 {
		if u, ok := domains[l.DomainID]; ok {
			base = u
		}
	}
	return strings.TrimSuffix(base, "/") + "/" + l.Alias
}

// qrLink is the address of a QR code's image on the short host.
func (a *api) qrLink(r *http.Request, id int64) string {
	return fmt.Sprintf("%s/qr/%d", a.base(r), id)
}
