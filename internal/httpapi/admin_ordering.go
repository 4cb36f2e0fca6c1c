package httpapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

// adminOrderingRoutes lists the operator's routes over the ordering
// service (portal admin ordering): its users and roles and its login bans.
// The portal's operator administers the shop as its OWNER does, with the
// exam API's operator JWT and envelope.
func (s *server) adminOrderingRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(s.requireOperator)

		r.Get(examBase+"/admin/ordering/users", s.adminOrderingUsers)
		r.Put(examBase+"/admin/ordering/users/{id}/role", s.adminOrderingSetRole)
		r.Get(examBase+"/admin/ordering/bans", s.adminOrderingBans)
		r.Post(examBase+"/admin/ordering/bans/{id}/lift", s.adminOrderingLiftBan)
	})
}

// adminOrderingUsers handles GET /api/v1/admin/ordering/users.
func (s *server) adminOrderingUsers(w http.ResponseWriter, r *http.Request) {
	users, err := s.ordering.Service.Users(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, ordhttp.NewUserBodies(users))
}

// adminOrderingSetRole handles PUT /api/v1/admin/ordering/users/{id}/role
// (body: role, allowedMenus): the operator may set any user's role, the
// last OWNER's excepted.
func (s *server) adminOrderingSetRole(w http.ResponseWriter, r *http.Request) {
	var req ordhttp.RoleRequest
	if err := respond.Decode(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	u, err := s.ordering.Service.SetRole(r.Context(), nil, chi.URLParam(r, "id"), req.Role, req.AllowedMenus)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, ordhttp.NewUserBody(u))
}

// adminOrderingBans handles GET /api/v1/admin/ordering/bans.
func (s *server) adminOrderingBans(w http.ResponseWriter, r *http.Request) {
	bans, err := s.ordering.Service.Bans(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, ordhttp.NewBanBodies(bans))
}

// adminOrderingLiftBan handles POST /api/v1/admin/ordering/bans/{id}/lift.
func (s *server) adminOrderingLiftBan(w http.ResponseWriter, r *http.Request) {
	if err := s.ordering.Service.LiftBan(r.Context(), chi.URLParam(r, "id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, okBody{Success: true, Message: "The ban has been lifted."})
}
