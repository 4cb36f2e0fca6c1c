package exam

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/qbank/formats"
	"github.com/seedhq/portal/internal/qbank/sheet"
)

// bankReport is what an import read: the per-item report, with the
// questions (a preview) or the exam created.
type bankReport struct {
	Format    qbank.Format       `json:"format"`
	Title     string             `json:"title"`
	Imported  int                `json:"imported"`
	Changed   int                `json:"changed"`
	Refused   int                `json:"refused"`
	Items     []qbank.ItemReport `json:"items"`
	Questions []questionJSON     `json:"questions,omitempty"`
	Stimuli   []exam.Stimulus    `json:"stimuli,omitempty"`
	Exam      *examView          `json:"exam,omitempty"`
}

func newBankReport(f qbank.Format, b *qbank.Bank) bankReport {
	rep := bankReport{Format: f, Title: b.Title, Items: nonNil(b.Items)}
	rep.Imported, rep.Changed, rep.Refused = b.Counts()
	for i := range rep.Items {
		rep.Items[i].Changes = nonNil(rep.Items[i].Changes)
	}
	return rep
}

// bankRefused is the answer to a creation from a bank with refused items:
// the error envelope with the report.
type bankRefused struct {
	Success bool       `json:"success"`
	Error   string     `json:"error"`
	Code    string     `json:"code"`
	Data    bankReport `json:"data"`
}

// spool copies body to a temporary file, which the caller removes.
func spool(body io.Reader) (*os.File, int64, error) {
	f, err := os.CreateTemp("", "bank-*.upload")
	if err != nil {
		return nil, 0, fmt.Errorf("spool upload: %w", err)
	}
	n, err := io.Copy(f, body)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, 0, err
	}
	return f, n, nil
}

// importExam handles POST /api/v1/admin/exams/import (body up to
// qbank.MaxFileSize, spooled to a temporary file): a question bank in the
// query's format (moodle, qti, xlsx; absent: told by its bytes); an item
// that would lose a figure is refused unless allow_missing_media=true
// keeps it, changed. mode=preview
// (the default) answers its report and questions and creates nothing;
// mode=create creates the exam of the query's title, npsn, starts_at,
// ends_at, duration_minutes (and subject) from the items that passed:
// 201, or 422 BANK_HAS_REFUSED_ITEMS unless only_passed=true when some
// were refused.
func (a *api) importExam(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	mode := q.Get("mode")
	if mode != "" && mode != "preview" && mode != "create" {
		a.writeError(w, r, apperr.New(apperr.Invalid, "INVALID_MODE", "mode must be preview or create"))
		return
	}
	var opts qbank.ImportOptions
	if v := strings.TrimSpace(q.Get("allow_missing_media")); v != "" {
		var err error
		if opts.AllowMissingMedia, err = strconv.ParseBool(v); err != nil {
			a.writeError(w, r, apperr.New(apperr.Invalid, "VALIDATION_ERROR", "allow_missing_media must be true or false"))
			return
		}
	}
	var in exam.ExamInput
	onlyPassed := false
	if mode == "create" {
		var err error
		if in, onlyPassed, err = importInput(q); err != nil {
			a.writeError(w, r, err)
			return
		}
	}
	f, n, err := spool(r.Body)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	defer os.Remove(f.Name())
	defer f.Close()
	var format qbank.Format
	if v := q.Get("format"); v != "" {
		format, err = formats.Parse(v)
	} else {
		format, err = formats.Detect(f, n)
	}
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	bank, err := formats.Import(r.Context(), format, f, n, a.svc, opts)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	rep := newBankReport(format, bank)
	if mode != "create" {
		for _, q := range bank.Questions {
			rep.Questions = append(rep.Questions, newQuestionJSON(q))
		}
		rep.Stimuli = bank.Stimuli
		respond.Data(w, http.StatusOK, rep)
		return
	}
	if rep.Refused > 0 && !onlyPassed {
		respond.JSON(w, http.StatusUnprocessableEntity, bankRefused{Code: "BANK_HAS_REFUSED_ITEMS", Data: rep,
			Error: fmt.Sprintf("%d of the bank's items were refused; send only_passed=true to create the exam of the others", rep.Refused)})
		return
	}
	if in.Title == "" {
		in.Title = bank.Title
	}
	in.Questions, in.Stimuli = bank.Questions, bank.Stimuli
	e, err := a.svc.CreateExam(r.Context(), in)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	v := newExamView(e, true)
	rep.Exam = &v
	respond.Data(w, http.StatusCreated, rep)
}

// importInput reads the exam of a creation from the query.
func importInput(q map[string][]string) (exam.ExamInput, bool, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return strings.TrimSpace(v[0])
		}
		return ""
	}
	in := exam.ExamInput{Title: get("title"), Subject: get("subject")}
	for _, v := range q["npsn"] {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				in.NPSNs = append(in.NPSNs, n)
			}
		}
	}
	var err error
	for _, t := range []struct {
		key string
		dst *time.Time
	}{{"starts_at", &in.StartsAt}, {"ends_at", &in.EndsAt}} {
		if *t.dst, err = time.Parse(time.RFC3339, get(t.key)); err != nil {
			return in, false, apperr.Errorf(apperr.Invalid, "VALIDATION_ERROR", "%s must be a time such as 2026-03-02T07:30:00+07:00", t.key)
		}
	}
	if in.DurationMinutes, err = strconv.Atoi(get("duration_minutes")); err != nil {
		return in, false, apperr.New(apperr.Invalid, "VALIDATION_ERROR", "duration_minutes must be a whole number of minutes")
	}
	onlyPassed := false
	if v := get("only_passed"); v != "" {
		if onlyPassed, err = strconv.ParseBool(v); err != nil {
			return in, false, apperr.New(apperr.Invalid, "VALIDATION_ERROR", "only_passed must be true or false")
		}
	}
	return in, onlyPassed, nil
}

// exportExam handles GET /api/v1/admin/exams/{id}/export?format=: the exam
// as a file of that format (moodle, qti, xlsx), answer keys included.
func (a *api) exportExam(w http.ResponseWriter, r *http.Request) {
	format, err := formats.Parse(r.URL.Query().Get("format"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	e, err := a.svc.GetExam(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	f, err := os.CreateTemp("", "export-*")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := formats.Export(r.Context(), format, f, e, a.svc); err != nil {
		a.writeError(w, r, err)
		return
	}
	writeFile(w, r, f, formats.ContentType(format), "exam-"+e.ID+formats.Ext(format))
}

// importTemplate handles GET /api/v1/admin/exams/import/template.xlsx: the
// spreadsheet template of a question bank.
func (a *api) importTemplate(w http.ResponseWriter, r *http.Request) {
	f, err := os.CreateTemp("", "template-*")
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := sheet.Template(f); err != nil {
		a.writeError(w, r, err)
		return
	}
	writeFile(w, r, f, formats.ContentType(qbank.Sheet), "bank-soal.xlsx")
}

// writeFile sends the file f as an attachment.
func writeFile(w http.ResponseWriter, r *http.Request, f *os.File, contentType, name string) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, "", time.Time{}, f)
}
