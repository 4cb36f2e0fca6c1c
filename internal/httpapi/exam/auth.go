package exam

import (
	"net/http"
	"time"

	"github.com/seedhq/portal/internal/httpapi/operator"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/identity"
)

type loginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

type userView struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Name     string `json:"name"`
	Role     string `json:"role"`
}

func newUserView(u identity.User) userView {
	return userView{ID: u.ID, Username: u.Username, Name: u.Name, Role: string(u.Role)}
}

// login handles POST /api/v1/auth/login: an operator signs in with username
// and password and receives a JWT. Failures are counted per resolved client
// address.
func (a *api) login(w http.ResponseWriter, r *http.Request) {
	var req loginRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	res, err := a.ids.Login(r.Context(), identity.LoginInput{
		Username: req.Username, Password: req.Password, ClientAddr: respond.ClientIP(r.Context()),
	})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Success   bool      `json:"success"`
		Token     string    `json:"token"`
		ExpiresAt time.Time `json:"expires_at"`
		User      userView  `json:"user"`
	}{true, res.Token, res.ExpiresAt.UTC(), newUserView(res.User)})
}

// me handles GET /api/v1/auth/me: the signed-in operator.
func (a *api) me(w http.ResponseWriter, r *http.Request) {
	respond.JSON(w, http.StatusOK, struct {
		Success bool     `json:"success"`
		User    userView `json:"user"`
	}{true, newUserView(operator.From(r.Context()))})
}
