package exam

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

type academicYearView struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	IsActive  bool      `json:"is_active"`
	CreatedAt time.Time `json:"created_at"`
}

func newAcademicYearView(ay exam.AcademicYear) academicYearView {
	return academicYearView{ID: ay.ID, Name: ay.Name, IsActive: ay.IsActive, CreatedAt: ay.CreatedAt.UTC()}
}

type createAcademicYearRequest struct {
	Name     string `json:"name"`
	IsActive bool   `json:"is_active"`
}

// createAcademicYear handles POST /api/v1/admin/academic-years: a new school
// year; an active one deactivates the others.
func (a *api) createAcademicYear(w http.ResponseWriter, r *http.Request) {
	var req createAcademicYearRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	ay, err := a.svc.CreateAcademicYear(r.Context(), req.Name, req.IsActive)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusCreated, newAcademicYearView(ay))
}

// listAcademicYears handles GET /api/v1/admin/academic-years: every year, newest first.
func (a *api) listAcademicYears(w http.ResponseWriter, r *http.Request) {
	ays, err := a.svc.ListAcademicYears(r.Context())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	views := make([]academicYearView, len(ays))
	for i, ay := range ays {
		views[i] = newAcademicYearView(ay)
	}
	respond.Data(w, http.StatusOK, views)
}

// activateAcademicYear handles POST /api/v1/admin/academic-years/{id}/activate:
// makes the year the only active one.
func (a *api) activateAcademicYear(w http.ResponseWriter, r *http.Request) {
	ay, err := a.svc.ActivateAcademicYear(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusOK, newAcademicYearView(ay))
}
