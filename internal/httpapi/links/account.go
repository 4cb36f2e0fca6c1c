package links

import (
	"net/http"

	"github.com/seedhq/portal/internal/httpapi/respond"
	link "github.com/seedhq/portal/internal/links"
)

// accountView is the spec's account record.
type accountView struct {
	ID         int64  `json:"id"`
	Email      string `json:"email"`
	Username   string `json:"username"`
	Avatar     string `json:"avatar"`
	Status     string `json:"status"`
	Expires    string `json:"expires"` // "" when the plan does not expire
	Registered string `json:"registered"`
}

func newAccountView(u link.User) accountView {
	return accountView{ID: u.ID, Email: u.Email, Username: u.Username, Avatar: u.Avatar, Status: u.Plan,
		Expires: formatDatePtr(u.ExpiresAt), Registered: formatDate(u.RegisteredAt)}
}

// account handles GET /api/account.
func (a *api) account(w http.ResponseWriter, r *http.Request) {
	u, err := a.svc.Account(r.Context(), userFrom(r).ID)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Error int         `json:"error"`
		Data  accountView `json:"data"`
	}{0, newAccountView(u)})
}

type accountUpdateRequest struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
}

// updateAccount handles PUT /api/account/update: email, password or both.
func (a *api) updateAccount(w http.ResponseWriter, r *http.Request) {
	var req accountUpdateRequest
	if !a.decode(w, r, &req) {
		return
	}
	if _, err := a.svc.UpdateAccount(r.Context(), userFrom(r).ID,
		link.AccountUpdate{Email: req.Email, Password: req.Password}); err != nil {
		a.writeError(w, r, err)
		return
	}
	writeOK(w, "Account has been successfully updated.")
}
