package links

import (
	"net/http"

	link "github.com/seedhq/portal/internal/links"
)

// splashView is the spec's custom splash page record.
type splashView struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Date string `json:"date"`
}

func newSplashView(sp link.Splash) splashView {
	return splashView{ID: sp.ID, Name: sp.Name, Date: formatDate(sp.CreatedAt)}
}

// listSplashes handles GET /api/splash.
func (a *api) listSplashes(w http.ResponseWriter, r *http.Request) {
	p, err := pageOf(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	l, err := a.svc.ListSplashes(r.Context(), userFrom(r).ID, p)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	writeList(w, "splash", l, newSplashView)
}
