package ordering

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/httpapi/respond"
	ord "github.com/seedhq/portal/internal/ordering"
)

type usersResponse struct {
	Success bool        `json:"success"`
	Users   []*UserBody `json:"users"`
}

// newUserBodies returns the bodies of users.
func newUserBodies(users []ord.User) []*UserBody {
	out := make([]*UserBody, len(users))
	for i, u := range users {
		out[i] = newUserBody(u)
	}
	return out
}

// listUsers serves GET /api/users (OWNER): every user, oldest first.
func (a *api) listUsers(w http.ResponseWriter, r *http.Request) {
	users, err := a.svc.Users(r.Context())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, usersResponse{Success: true, Users: newUserBodies(users)})
}

// roleRequest is the body of a role change: the role and, for STAFF, the
// allowedMenus (absent: kept).
type roleRequest struct {
	Role         ord.Role `json:"role"`
	AllowedMenus []string `json:"allowedMenus"`
}

// setRole serves PUT /api/users/{id}/role (OWNER): never the owner's own.
func (a *api) setRole(w http.ResponseWriter, r *http.Request) {
	var req roleRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	actor := userFrom(r.Context())
	u, err := a.svc.SetRole(r.Context(), &actor, chi.URLParam(r, "id"), req.Role, req.AllowedMenus)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, userResponse{Success: true, User: newUserBody(u)})
}
