package httpapi

import (
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/ordering"
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
		r.With(s.operatorOnce).Post(examBase+"/admin/ordering/menu/import", s.adminOrderingImportMenu)
		r.Get(examBase+"/admin/ordering/ledger", s.adminOrderingLedger)
	})
}

// importRefused is the answer to a menu file with bad rows: the error
// envelope with the report of every bad row.
type importRefused struct {
	Success bool                  `json:"success"`
	Error   string                `json:"error"`
	Code    string                `json:"code"`
	Data    ordering.ImportReport `json:"data"`
}

// adminOrderingImportMenu handles POST /api/v1/admin/ordering/menu/import
// (text/csv body, the columns of ordering.ImportColumns): all rows or none.
func (s *server) adminOrderingImportMenu(w http.ResponseWriter, r *http.Request) {
	rep, err := s.ordering.Service.ImportMenu(r.Context(), r.Body)
	var fail *ordering.ImportFailedError
	if errors.As(err, &fail) {
		respond.JSON(w, http.StatusUnprocessableEntity, importRefused{Error: fail.Error(), Code: "IMPORT_REFUSED", Data: fail.Report})
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeData(w, http.StatusOK, rep)
}

// adminOrderingLedger handles GET /api/v1/admin/ordering/ledger?from=&to=
// [&format=csv]: the owner's ledger, for the operator.
func (s *server) adminOrderingLedger(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	l, err := s.ordering.Service.Ledger(r.Context(), q.Get("from"), q.Get("to"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if q.Get("format") == "csv" {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		if err := l.WriteCSV(w); err != nil {
			s.log.Warn("ordering: ledger CSV", "err", err)
		}
		return
	}
	writeData(w, http.StatusOK, l)
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
