package console

import (
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
)

// studentsView is the students page's data.
type studentsView struct {
	NPSN, Search string
	Members      []exam.Member
	Total        int
	Years        []exam.AcademicYear
	// Report is the outcome of an import just made.
	Report *exam.ImportReport
	// Reset is the card of a student whose exam password was just reset.
	Reset *exam.LoginCard
}

// maxImportSize bounds a members CSV uploaded through the console.
const maxImportSize = 8 << 20

// students serves GET /console/students?npsn=&q=: a school's members (the
// first 200 matching), the academic years and the import form.
func (c *console) students(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	c.renderStudents(w, r, http.StatusOK, studentsView{NPSN: strings.TrimSpace(q.Get("npsn")), Search: strings.TrimSpace(q.Get("q"))}, nil)
}

func (c *console) renderStudents(w http.ResponseWriter, r *http.Request, status int, sv studentsView, err error) {
	v := c.examView(r)
	if err != nil {
		status = c.showError(&v, err)
	}
	var lerr error
	if sv.Years, lerr = c.exam.ListAcademicYears(r.Context()); lerr == nil && sv.NPSN != "" {
		sv.Members, sv.Total, lerr = c.exam.ListMembers(r.Context(), exam.MemberFilter{NPSN: sv.NPSN, Search: sv.Search, Limit: 200})
	}
	if lerr != nil && err == nil {
		status = c.showError(&v, lerr)
	}
	v.Data = sv
	c.render(w, r, "students", status, v)
}

// importStudents serves POST /console/students/import (multipart: csrf,
// npsn, file): the CSV import of members, with the report of every row (a
// bad row is reported and not written; the good ones are).
func (c *console) importStudents(w http.ResponseWriter, r *http.Request) {
	npsn := strings.TrimSpace(r.PostFormValue("npsn"))
	f, _, err := r.FormFile("file")
	if err != nil {
		c.renderStudents(w, r, http.StatusBadRequest, studentsView{NPSN: npsn},
			apperr.New(apperr.Invalid, "INVALID_FORM", "choose a CSV file to import"))
		return
	}
	defer f.Close()
	rows, err := exam.ParseMembersCSV(io.LimitReader(f, maxImportSize))
	if err != nil {
		c.renderStudents(w, r, http.StatusBadRequest, studentsView{NPSN: npsn}, err)
		return
	}
	rep, err := c.exam.ImportMembers(r.Context(), rows, npsn)
	if err != nil {
		c.renderStudents(w, r, http.StatusBadRequest, studentsView{NPSN: npsn}, err)
		return
	}
	c.renderStudents(w, r, http.StatusOK, studentsView{NPSN: npsn, Report: &rep}, nil)
}

// resetPassword serves POST /console/students/{id}/reset-password: a new
// exam password for the student, shown on the page.
func (c *console) resetPassword(w http.ResponseWriter, r *http.Request) {
	card, err := c.exam.ResetExamPassword(r.Context(), chi.URLParam(r, "id"))
	npsn := strings.TrimSpace(r.PostFormValue("npsn"))
	if err != nil {
		c.renderStudents(w, r, http.StatusBadRequest, studentsView{NPSN: npsn}, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	c.renderStudents(w, r, http.StatusOK, studentsView{NPSN: card.NPSN, Reset: &card}, nil)
}

// createYear serves POST /console/academic-years (name, active): a new
// academic year, made the active one when asked.
func (c *console) createYear(w http.ResponseWriter, r *http.Request) {
	npsn := strings.TrimSpace(r.PostFormValue("npsn"))
	y, err := c.exam.CreateAcademicYear(r.Context(), strings.TrimSpace(r.PostFormValue("name")), r.PostFormValue("active") != "")
	if err != nil {
		c.renderStudents(w, r, http.StatusBadRequest, studentsView{NPSN: npsn}, err)
		return
	}
	c.log.Info("console: academic year created", "year", y.Name, "active", y.IsActive, "by", operatorFrom(r).Username)
	http.Redirect(w, r, "/console/students?npsn="+url.QueryEscape(npsn)+"#years", http.StatusSeeOther)
}

// activateYear serves POST /console/academic-years/{id}/activate: the
// year becomes the active one (the others stop being).
func (c *console) activateYear(w http.ResponseWriter, r *http.Request) {
	npsn := strings.TrimSpace(r.PostFormValue("npsn"))
	y, err := c.exam.ActivateAcademicYear(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		c.renderStudents(w, r, http.StatusBadRequest, studentsView{NPSN: npsn}, err)
		return
	}
	c.log.Info("console: academic year activated", "year", y.Name, "by", operatorFrom(r).Username)
	http.Redirect(w, r, "/console/students?npsn="+url.QueryEscape(npsn)+"#years", http.StatusSeeOther)
}

// loginCards serves GET /console/login-cards?npsn=: one card per student,
// laid out for printing.
func (c *console) loginCards(w http.ResponseWriter, r *http.Request) {
	v := c.examView(r)
	cards, err := c.exam.LoginCards(r.Context(), strings.TrimSpace(r.URL.Query().Get("npsn")))
	status := http.StatusOK
	if err != nil {
		status = c.showError(&v, err)
	}
	v.Data = cards
	w.Header().Set("Cache-Control", "no-store")
	c.render(w, r, "cards", status, v)
}
