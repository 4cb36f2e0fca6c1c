package exam

import (
	"bytes"
	"encoding/csv"
	"mime"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

type loginCardView struct {
	MemberID     string `json:"member_id"`
	NPSN         string `json:"npsn"`
	Kelas        string `json:"kelas"`
	Nama         string `json:"nama"`
	Username     string `json:"username"`
	NISN         string `json:"nisn"`
	ExamPassword string `json:"exam_password"`
}

// loginCardColumns is the header row of the CSV form of login cards.
var loginCardColumns = []string{"npsn", "kelas", "nama", "username", "nisn", "exam_password"}

// loginCards handles GET /api/v1/admin/login-cards?npsn=&format=csv|json: the
// exam passwords of a school's students, as a CSV attachment (default) or JSON.
func (a *api) loginCards(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	format := q.Get("format")
	if format != "" && format != "csv" && format != "json" {
		a.writeError(w, r, respond.InvalidQuery("format must be csv or json, not %q", format))
		return
	}
	npsn := q.Get("npsn")
	cards, err := a.svc.LoginCards(r.Context(), npsn)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if format == "json" {
		views := make([]loginCardView, len(cards))
		for i, c := range cards {
			views[i] = loginCardView{MemberID: c.MemberID, NPSN: c.NPSN, Kelas: c.Kelas, Nama: c.Nama,
				Username: c.Username, NISN: c.NISN, ExamPassword: c.ExamPassword}
		}
		respond.Data(w, http.StatusOK, views)
		return
	}
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	cw.Write(loginCardColumns)
	for _, c := range cards {
		cw.Write([]string{c.NPSN, c.Kelas, c.Nama, c.Username, c.NISN, c.ExamPassword})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		a.writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": "login-cards-" + npsn + ".csv"}))
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	h.Set("Cache-Control", "no-store") // passwords
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes())
}

// resetExamPassword handles POST /api/v1/admin/members/{id}/reset-exam-password:
// a new exam password for a student, shipped (hashed) in the next package.
func (a *api) resetExamPassword(w http.ResponseWriter, r *http.Request) {
	c, err := a.svc.ResetExamPassword(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Secret(w, http.StatusOK, respond.DataBody{Success: true, Data: struct {
		MemberID     string `json:"member_id"`
		Username     string `json:"username"`
		ExamPassword string `json:"exam_password"`
	}{c.MemberID, c.Username, c.ExamPassword}})
}

// memberInputJSON is one member of a JSON import.
type memberInputJSON struct {
	NPSN             string `json:"npsn"`
	Nama             string `json:"nama"`
	Role             string `json:"role"`
	DapodikID        string `json:"dapodik_id"`
	NISN             string `json:"nisn"`
	NIP              string `json:"nip"`
	NIK              string `json:"nik"`
	Username         string `json:"username"`
	Email            string `json:"email"`
	Kelas            string `json:"kelas"`
	AcademicYearName string `json:"academic_year_name"`
	GoogleEmail      string `json:"google_email"`
}

type importRowView struct {
	Row      int    `json:"row"`
	MemberID string `json:"member_id"`
	Action   string `json:"action"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// importMembers handles POST /api/v1/admin/members/import (body up to
// 32 MiB): upserts members from JSON {"members":[...]} or from a CSV with a
// header row (Content-Type: text/csv); ?npsn= fills rows without one. Rows
// that fail validation are reported, not written.
func (a *api) importMembers(w http.ResponseWriter, r *http.Request) {
	var rows []exam.MemberInput
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if r.Header.Get("Content-Type") == "" {
		mt, err = "application/json", nil
	}
	switch {
	case err != nil:
		respond.ErrorStatus(w, http.StatusUnsupportedMediaType, respond.CodeUnsupportedMedia,
			"Content-Type must be application/json or text/csv")
		return
	case mt == "application/json":
		var req struct {
			Members []memberInputJSON `json:"members"`
		}
		if err := respond.Decode(r, &req); err != nil {
			a.writeError(w, r, err)
			return
		}
		rows = make([]exam.MemberInput, len(req.Members))
		for i, m := range req.Members {
			rows[i] = exam.MemberInput(m)
		}
	case mt == "text/csv" || mt == "application/csv":
		if rows, err = exam.ParseMembersCSV(r.Body); err != nil {
			a.writeError(w, r, err)
			return
		}
	default:
		respond.ErrorStatus(w, http.StatusUnsupportedMediaType, respond.CodeUnsupportedMedia,
			"Content-Type must be application/json or text/csv, not "+mt)
		return
	}
	rep, err := a.svc.ImportMembers(r.Context(), rows, r.URL.Query().Get("npsn"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	views := make([]importRowView, len(rep.Rows))
	for i, row := range rep.Rows {
		views[i] = importRowView{Row: row.Row, MemberID: row.MemberID, Action: string(row.Action),
			Code: row.Code, Message: row.Message}
	}
	respond.JSON(w, http.StatusOK, struct {
		Success  bool            `json:"success"`
		Created  int             `json:"created"`
		Updated  int             `json:"updated"`
		Rejected int             `json:"rejected"`
		Rows     []importRowView `json:"rows"`
	}{true, rep.Created, rep.Updated, rep.Rejected, views})
}
