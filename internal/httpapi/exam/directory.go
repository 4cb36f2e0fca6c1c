package exam

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

// directoryMeta is the meta object of academic-year and lookup responses.
type directoryMeta struct {
	AppName string `json:"app_name"`
}

// activeAcademicYear handles GET /api/v1/academic-year/active (X-API-Key):
// the active school year, or 404 NO_ACTIVE_ACADEMIC_YEAR.
func (a *api) activeAcademicYear(w http.ResponseWriter, r *http.Request) {
	ay, err := a.svc.ActiveAcademicYear(r.Context())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Success bool             `json:"success"`
		Data    academicYearView `json:"data"`
		Meta    directoryMeta    `json:"meta"`
	}{true, newAcademicYearView(ay), directoryMeta{a.svc.AppName()}})
}

// memberLookupView is the lookup view of a member (spec, "Member").
type memberLookupView struct {
	ID               string `json:"id"`
	Nama             string `json:"nama"`
	Role             string `json:"role"`
	DapodikID        string `json:"dapodik_id"`
	NISN             string `json:"nisn"`
	Kelas            string `json:"kelas"`
	AcademicYearName string `json:"academic_year_name"`
	GoogleEmail      string `json:"google_email"`
	IsClaimed        bool   `json:"is_claimed"`
}

// memberListView is the list view of a member (spec, "Member").
type memberListView struct {
	ID    string `json:"id"`
	Nama  string `json:"nama"`
	Role  string `json:"role"`
	NISN  string `json:"nisn"`
	Kelas string `json:"kelas"`
}

// lookupMember handles GET /api/v1/members/lookup?<one of id|username|email|
// dapodik_id|nisn|nip|nik>= (X-API-Key): the member with that key, found or
// not; zero or several keys answer 400 INVALID_QUERY.
func (a *api) lookupMember(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var (
		field exam.LookupField
		names []string
	)
	for _, f := range exam.LookupFields {
		if _, ok := q[string(f)]; ok {
			field = f
			names = append(names, string(f))
		}
	}
	if len(names) != 1 {
		a.writeError(w, r, respond.InvalidQuery("give exactly one of %s; got %d", lookupFieldList(), len(names)))
		return
	}
	values := q[string(field)]
	value := strings.TrimSpace(values[0])
	if len(values) != 1 || value == "" {
		a.writeError(w, r, respond.InvalidQuery("%s must be given once and not be empty", field))
		return
	}
	m, found, err := a.svc.LookupMember(r.Context(), field, value)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	var data *memberLookupView
	if found {
		data = &memberLookupView{ID: m.ID, Nama: m.Nama, Role: m.Role, DapodikID: m.DapodikID, NISN: m.NISN,
			Kelas: m.Kelas, AcademicYearName: m.AcademicYearName, GoogleEmail: m.GoogleEmail, IsClaimed: m.IsClaimed}
	}
	respond.JSON(w, http.StatusOK, struct {
		Success bool              `json:"success"`
		Found   bool              `json:"found"`
		Data    *memberLookupView `json:"data"`
		Meta    directoryMeta     `json:"meta"`
	}{true, found, data, directoryMeta{a.svc.AppName()}})
}

func lookupFieldList() string {
	names := make([]string, len(exam.LookupFields))
	for i, f := range exam.LookupFields {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// Paging of GET /api/v1/members.
const (
	defaultPerPage = 20
	maxPerPage     = 100
)

// listMembers handles GET /api/v1/members?search=&role=&kelas=&page=&per_page=
// (X-API-Key): one page of the member directory with paging meta.
func (a *api) listMembers(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, err := intParam(q.Get("page"), 1, 1, 1<<30)
	if err != nil {
		a.writeError(w, r, respond.InvalidQuery("page must be an integer of at least 1"))
		return
	}
	perPage, err := intParam(q.Get("per_page"), defaultPerPage, 1, maxPerPage)
	if err != nil {
		a.writeError(w, r, respond.InvalidQuery("per_page must be an integer between 1 and %d", maxPerPage))
		return
	}
	ms, total, err := a.svc.ListMembers(r.Context(), exam.MemberFilter{
		Search: q.Get("search"), Role: q.Get("role"), Kelas: q.Get("kelas"),
		Offset: (page - 1) * perPage, Limit: perPage,
	})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	views := make([]memberListView, len(ms))
	for i, m := range ms {
		views[i] = memberListView{ID: m.ID, Nama: m.Nama, Role: m.Role, NISN: m.NISN, Kelas: m.Kelas}
	}
	type meta struct {
		Total      int `json:"total"`
		Page       int `json:"page"`
		PerPage    int `json:"per_page"`
		TotalPages int `json:"total_pages"`
	}
	respond.JSON(w, http.StatusOK, struct {
		Success bool             `json:"success"`
		Data    []memberListView `json:"data"`
		Meta    meta             `json:"meta"`
	}{true, views, meta{Total: total, Page: page, PerPage: perPage, TotalPages: (total + perPage - 1) / perPage}})
}

// intParam parses an integer query parameter in [lo, hi]; empty gives def.
func intParam(v string, def, lo, hi int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, err
	}
	if n < lo || n > hi {
		return 0, strconv.ErrRange
	}
	return n, nil
}
