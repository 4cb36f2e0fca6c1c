package console

import (
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	ord "github.com/seedhq/portal/internal/ordering"
)

// officeUsersView is the users page's data.
type officeUsersView struct {
	office
	Users []officeUserRow
	Roles []ord.Role
	Menus []string
	// Done names the user whose role was just set.
	Done string
}

// officeUserRow is a user with the menus it may use now.
type officeUserRow struct {
	ord.User
	Menus map[string]bool
	Self  bool
}

// officeUsersPage serves GET /console/shop/users (?done= after a change).
func (c *console) officeUsersPage(w http.ResponseWriter, r *http.Request) {
	c.renderOfficeUsers(w, r, http.StatusOK, r.URL.Query().Get("done"), nil)
}

// renderOfficeUsers renders the users page with err, if any.
func (c *console) renderOfficeUsers(w http.ResponseWriter, r *http.Request, status int, done string, err error) {
	uv := officeUsersView{office: c.newOffice(r.Context()), Roles: []ord.Role{ord.RoleCustomer, ord.RoleStaff, ord.RoleAdmin, ord.RoleOwner},
		Menus: ord.Menus, Done: done}
	users, lerr := c.ordering.Service.Users(r.Context())
	if err == nil {
		err = lerr
	}
	me := shopUserFrom(r).ID
	for _, u := range users {
		row := officeUserRow{User: u, Menus: map[string]bool{}, Self: u.ID == me}
		for _, m := range ord.Menus {
			row.Menus[m] = u.Allows(m)
		}
		uv.Users = append(uv.Users, row)
	}
	c.officeRender(w, r, "office_users", status, uv, err)
}

// officeSetRole serves POST /console/shop/users/{id}/role (role, menus): the
// role and, for STAFF, the ticked menus, through SetRole with the owner
// as the actor (never one's own role, never the last owner's).
func (c *console) officeSetRole(w http.ResponseWriter, r *http.Request) {
	menus := r.PostForm["menus"]
	if menus == nil {
		menus = []string{}
	}
	actor := shopUserFrom(r)
	u, err := c.ordering.Service.SetRole(r.Context(), &actor, chi.URLParam(r, "id"), ord.Role(r.PostFormValue("role")), menus)
	if err != nil {
		c.renderOfficeUsers(w, r, apperr.KindOf(err).Status(), "", err)
		return
	}
	who := u.Name
	if who == "" {
		who = u.MessengerNumber
	}
	http.Redirect(w, r, "/console/shop/users?done="+url.QueryEscape(who), http.StatusSeeOther)
}

// officeBansView is the bans page's data.
type officeBansView struct {
	office
	Bans   []officeBanRow
	Lifted bool
}

// officeBanRow is a ban record and whether it refuses logins now.
type officeBanRow struct {
	ord.Ban
	Active bool
}

// officeBansPage serves GET /console/shop/bans (?lifted=1 after a lift).
func (c *console) officeBansPage(w http.ResponseWriter, r *http.Request) {
	c.renderOfficeBans(w, r, http.StatusOK, r.URL.Query().Get("lifted") == "1", nil)
}

// renderOfficeBans renders the bans page with err, if any.
func (c *console) renderOfficeBans(w http.ResponseWriter, r *http.Request, status int, lifted bool, err error) {
	bv := officeBansView{office: c.newOffice(r.Context()), Lifted: lifted}
	bans, lerr := c.ordering.Service.Bans(r.Context())
	if err == nil {
		err = lerr
	}
	now := c.now()
	for _, b := range bans {
		bv.Bans = append(bv.Bans, officeBanRow{Ban: b, Active: b.Active(now)})
	}
	c.officeRender(w, r, "office_bans", status, bv, err)
}

// officeLiftBan serves POST /console/shop/bans/{id}/lift.
func (c *console) officeLiftBan(w http.ResponseWriter, r *http.Request) {
	if err := c.ordering.Service.LiftBan(r.Context(), chi.URLParam(r, "id")); err != nil {
		c.renderOfficeBans(w, r, apperr.KindOf(err).Status(), false, err)
		return
	}
	http.Redirect(w, r, "/console/shop/bans?lifted=1", http.StatusSeeOther)
}
