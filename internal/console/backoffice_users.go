package console

import (
	"net/http"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	ord "github.com/seedhq/portal/internal/ordering"
)

// usersView is the users page's data.
type usersView struct {
	office
	Users []userRow
	Roles []ord.Role
	Menus []string
	// Done names the user whose role was just set.
	Done string
}

// userRow is a user with the menus it may use now.
type userRow struct {
	ord.User
	Menus map[string]bool
	Self  bool
}

// usersPage serves GET /console/shop/users (?done= after a change).
func (c *console) usersPage(w http.ResponseWriter, r *http.Request) {
	c.renderUsers(w, r, http.StatusOK, r.URL.Query().Get("done"), nil)
}

// renderUsers renders the users page with err, if any.
func (c *console) renderUsers(w http.ResponseWriter, r *http.Request, status int, done string, err error) {
	uv := usersView{office: c.newOffice(r.Context()), Roles: []ord.Role{ord.RoleCustomer, ord.RoleStaff, ord.RoleAdmin, ord.RoleOwner},
		Menus: ord.Menus, Done: done}
	users, lerr := c.ordering.Service.Users(r.Context())
	if err == nil {
		err = lerr
	}
	me := shopUserFrom(r).ID
	for _, u := range users {
		row := userRow{User: u, Menus: map[string]bool{}, Self: u.ID == me}
		for _, m := range ord.Menus {
			row.Menus[m] = u.Allows(m)
		}
		uv.Users = append(uv.Users, row)
	}
	c.officeRender(w, r, "office_users", status, uv, err)
}

// setRole serves POST /console/shop/users/{id}/role (role, menus): the
// role and, for STAFF, the ticked menus, through SetRole with the owner
// as the actor (never one's own role, never the last owner's).
func (c *console) setRole(w http.ResponseWriter, r *http.Request) {
	menus := r.PostForm["menus"]
	if menus == nil {
		menus = []string{}
	}
	actor := shopUserFrom(r)
	u, err := c.ordering.Service.SetRole(r.Context(), &actor, chi.URLParam(r, "id"), ord.Role(r.PostFormValue("role")), menus)
	if err != nil {
		c.renderUsers(w, r, apperr.KindOf(err).Status(), "", err)
		return
	}
	who := u.Name
	if who == "" {
		who = u.MessengerNumber
	}
	http.Redirect(w, r, "/console/shop/users?done="+url.QueryEscape(who), http.StatusSeeOther)
}

// bansView is the bans page's data.
type bansView struct {
	office
	Bans   []banRow
	Lifted bool
}

// banRow is a ban record and whether it refuses logins now.
type banRow struct {
	ord.Ban
	Active bool
}

// bansPage serves GET /console/shop/bans (?lifted=1 after a lift).
func (c *console) bansPage(w http.ResponseWriter, r *http.Request) {
	c.renderBans(w, r, http.StatusOK, r.URL.Query().Get("lifted") == "1", nil)
}

// renderBans renders the bans page with err, if any.
func (c *console) renderBans(w http.ResponseWriter, r *http.Request, status int, lifted bool, err error) {
	bv := bansView{office: c.newOffice(r.Context()), Lifted: lifted}
	bans, lerr := c.ordering.Service.Bans(r.Context())
	if err == nil {
		err = lerr
	}
	now := time.Now()
	if c.ordering.Now != nil {
		now = c.ordering.Now()
	}
	for _, b := range bans {
		bv.Bans = append(bv.Bans, banRow{Ban: b, Active: b.Active(now)})
	}
	c.officeRender(w, r, "office_bans", status, bv, err)
}

// liftBan serves POST /console/shop/bans/{id}/lift.
func (c *console) liftBan(w http.ResponseWriter, r *http.Request) {
	if err := c.ordering.Service.LiftBan(r.Context(), chi.URLParam(r, "id")); err != nil {
		c.renderBans(w, r, apperr.KindOf(err).Status(), false, err)
		return
	}
	http.Redirect(w, r, "/console/shop/bans?lifted=1", http.StatusSeeOther)
}
