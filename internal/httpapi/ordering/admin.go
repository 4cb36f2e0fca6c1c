package ordering

import (
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/httpapi/respond"
	ord "github.com/seedhq/portal/internal/ordering"
)

// importRefused is the answer to a menu file with bad rows: the error
// envelope with the report of every bad row.
type importRefused struct {
	Success bool             `json:"success"`
	Error   string           `json:"error"`
	Code    string           `json:"code"`
	Data    ord.ImportReport `json:"data"`
}

// adminImportMenu handles POST /api/v1/admin/ordering/menu/import
// (text/csv body, the columns of ordering.ImportColumns): all rows or none.
func (a *api) adminImportMenu(w http.ResponseWriter, r *http.Request) {
	rep, err := a.svc.ImportMenu(r.Context(), r.Body)
	var fail *ord.ImportFailedError
	if errors.As(err, &fail) {
		respond.JSON(w, http.StatusUnprocessableEntity, importRefused{Error: fail.Error(), Code: "IMPORT_REFUSED", Data: fail.Report})
		return
	}
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusOK, rep)
}

// adminLedger handles GET /api/v1/admin/ordering/ledger?from=&to=
// [&format=csv]: the owner's ledger, for the operator.
func (a *api) adminLedger(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	l, err := a.svc.Ledger(r.Context(), q.Get("from"), q.Get("to"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if q.Get("format") == "csv" {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		if err := l.WriteCSV(w); err != nil {
			a.log.Warn("ordering: ledger CSV", "err", err)
		}
		return
	}
	respond.Data(w, http.StatusOK, l)
}

// adminUsers handles GET /api/v1/admin/ordering/users.
func (a *api) adminUsers(w http.ResponseWriter, r *http.Request) {
	users, err := a.svc.Users(r.Context())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusOK, newUserBodies(users))
}

// adminSetRole handles PUT /api/v1/admin/ordering/users/{id}/role
// (body: role, allowedMenus): the operator may set any user's role, the
// last OWNER's excepted.
func (a *api) adminSetRole(w http.ResponseWriter, r *http.Request) {
	var req roleRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	u, err := a.svc.SetRole(r.Context(), nil, chi.URLParam(r, "id"), req.Role, req.AllowedMenus)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusOK, newUserBody(u))
}

// adminBans handles GET /api/v1/admin/ordering/bans.
func (a *api) adminBans(w http.ResponseWriter, r *http.Request) {
	bans, err := a.svc.Bans(r.Context())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusOK, newBanBodies(bans))
}

// adminLiftBan handles POST /api/v1/admin/ordering/bans/{id}/lift.
func (a *api) adminLiftBan(w http.ResponseWriter, r *http.Request) {
	if err := a.svc.LiftBan(r.Context(), chi.URLParam(r, "id")); err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, respond.OK{Success: true, Message: "The ban has been lifted."})
}
