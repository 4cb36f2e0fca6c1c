package console

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
)

// licenseRow is a licence as the page shows it.
type licenseRow struct {
	exam.License
	Status string
}

// licenseForm is the generation form as typed.
type licenseForm struct {
	NPSN, School, Region, HardwareID, MaxStudents, Days, Mode string
}

// newLicenseForm is the empty form with its defaults.
var newLicenseForm = licenseForm{MaxStudents: "500", Days: "365", Mode: "SEMI_OFFLINE"}

// licensesView is the licences page's data.
type licensesView struct {
	Licenses []licenseRow // this page's, newest first
	Pager    pager
	NPSN     string
	// Issued is the licence just generated, whose token the operator
	// copies or downloads now.
	Issued *exam.License
	Form   licenseForm
}

// licenses serves GET /console/licenses?npsn=&page=: the licences, newest
// first and a hundred a page, with their status, and the form to generate
// one.
func (c *console) licenses(w http.ResponseWriter, r *http.Request) {
	c.renderLicenses(w, r, http.StatusOK, licensesView{NPSN: strings.TrimSpace(r.URL.Query().Get("npsn")), Form: newLicenseForm}, nil)
}

// renderLicenses renders the licences page; err, when not nil, is shown:
// a domain error with its own message, anything else as an internal error.
func (c *console) renderLicenses(w http.ResponseWriter, r *http.Request, status int, lv licensesView, err error) {
	v := c.examView(r)
	if err != nil {
		if e := apperr.From(err); e != nil {
			v.Message = e.Message
		} else {
			c.log.Error("console: licences", "err", err)
			v.Error, status = "error.internal", http.StatusInternalServerError
		}
	}
	ls, lerr := c.exam.ListLicenses(r.Context(), lv.NPSN)
	if lerr != nil {
		c.log.Error("console: licences", "err", lerr)
		v.Error, status = "error.internal", http.StatusInternalServerError
	}
	slices.Reverse(ls)
	ls, lv.Pager = paginate(r, ls, pageSize)
	now := time.Now()
	for _, l := range ls {
		lv.Licenses = append(lv.Licenses, licenseRow{License: l, Status: exam.LicenseStatus(l, now)})
	}
	v.Data = lv
	c.render(w, r, "licenses", status, v)
}

// errNumbers refuses a form whose numbers are not numbers.
var errNumbers = apperr.New(apperr.Invalid, "INVALID_FORM", "max students and duration must be whole numbers")

// generateLicense serves POST /console/licenses: a new licence, shown with
// its token; a refused one keeps the form and says why.
func (c *console) generateLicense(w http.ResponseWriter, r *http.Request) {
	f := licenseForm{NPSN: strings.TrimSpace(r.PostFormValue("npsn")), School: strings.TrimSpace(r.PostFormValue("school")),
		Region:     strings.TrimSpace(r.PostFormValue("region")),
		HardwareID: strings.TrimSpace(r.PostFormValue("hardware_id")), MaxStudents: r.PostFormValue("max_students"),
		Days: r.PostFormValue("duration_days"), Mode: r.PostFormValue("operating_mode")}
	maxStudents, err1 := strconv.Atoi(f.MaxStudents)
	days, err2 := strconv.Atoi(f.Days)
	if err1 != nil || err2 != nil {
		c.renderLicenses(w, r, http.StatusBadRequest, licensesView{Form: f}, errNumbers)
		return
	}
	issued, err := c.exam.GenerateLicense(r.Context(), exam.LicenseInput{NPSN: f.NPSN, SchoolName: f.School, Region: f.Region,
		HardwareID: f.HardwareID, MaxStudents: maxStudents, DurationDays: days, OperatingMode: f.Mode})
	if err != nil {
		c.renderLicenses(w, r, apperr.KindOf(err).Status(), licensesView{Form: f}, err)
		return
	}
	c.renderLicenses(w, r, http.StatusCreated, licensesView{Issued: &issued.License, Form: newLicenseForm}, nil)
}

// revokeLicense serves POST /console/licenses/{id}/revoke.
func (c *console) revokeLicense(w http.ResponseWriter, r *http.Request) {
	if _, err := c.exam.RevokeLicense(r.Context(), chi.URLParam(r, "id")); err != nil {
		c.renderLicenses(w, r, apperr.KindOf(err).Status(), licensesView{Form: newLicenseForm}, err)
		return
	}
	http.Redirect(w, r, "/console/licenses", http.StatusSeeOther)
}

// licenseFile serves GET /console/licenses/{id}/token: the licence token
// as a file to hand to the school.
func (c *console) licenseFile(w http.ResponseWriter, r *http.Request) {
	ls, err := c.exam.ListLicenses(r.Context(), "")
	if err != nil {
		c.log.Error("console: licence file", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	for _, l := range ls {
		if l.ID == chi.URLParam(r, "id") {
			h := w.Header()
			h.Set("Content-Type", "text/plain; charset=utf-8")
			h.Set("Content-Disposition", `attachment; filename="licence-`+l.NPSN+`.txt"`)
			h.Set("Cache-Control", "no-store")
			w.Write([]byte(l.Token + "\n"))
			return
		}
	}
	http.NotFound(w, r)
}
