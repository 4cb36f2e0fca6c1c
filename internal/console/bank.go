package console

import (
	"encoding/json"
	"net/http"
	"os"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/qbank/formats"
	"github.com/seedhq/portal/internal/qbank/sheet"
)

// maxBankFormSize bounds the creation form, which carries the bank's
// questions.
const maxBankFormSize = 64 << 20

// bankView is the import page's data: the upload form, then the report of
// an upload with the form that creates its exam.
type bankView struct {
	Formats []qbank.Format
	Format  string // the upload form's choice, "" to detect
	// AllowMissingMedia is the upload form's choice: keep an item that
	// would lose a figure (changed) rather than refuse it.
	AllowMissingMedia bool
	// FileName is the uploaded file's name, shown as text.
	FileName string
	Report   *bankReport
	// Bank is the questions and stimuli that passed, as JSON carried by the
	// creation form (the exam service checks them again).
	Bank string
	// Form holds the exam's title, schools and schedule.
	Form  examForm
	Zones []string
}

// bankReport is an import's report as the page shows it.
type bankReport struct {
	Format                     qbank.Format
	Title                      string
	Imported, Changed, Refused int
	Passed                     int
	Items                      []qbank.ItemReport
}

// bankCarry is what the creation form carries of an import.
type bankCarry struct {
	Questions []exam.Question `json:"questions"`
	Stimuli   []exam.Stimulus `json:"stimuli,omitempty"`
	Refused   int             `json:"refused"`
}

func (c *console) renderBank(w http.ResponseWriter, r *http.Request, status int, bv bankView, err error) {
	v := c.examView(r)
	if err != nil {
		status = c.showError(&v, err)
	}
	bv.Formats = formats.All
	if bv.Form.Zone == "" {
		f := newExamForm(time.Now())
		f.Questions = nil
		f.Title = bv.Form.Title
		bv.Form = f
	}
	for _, z := range examZones {
		bv.Zones = append(bv.Zones, z.Name)
	}
	v.Data = bv
	c.render(w, r, "exam_import", status, v)
}

// importPage serves GET /console/exams/import: the upload form.
func (c *console) importPage(w http.ResponseWriter, r *http.Request) {
	c.renderBank(w, r, http.StatusOK, bankView{}, nil)
}

// importBank serves POST /console/exams/import (multipart: csrf, format,
// allow_missing_media, file): the file read as a question bank, with the report of every item
// and the form that creates its exam. Nothing is created yet (the media
// the file holds are stored, by SHA-256).
func (c *console) importBank(w http.ResponseWriter, r *http.Request) {
	bv := bankView{Format: r.PostFormValue("format"), AllowMissingMedia: r.PostFormValue("allow_missing_media") != ""}
	file, hdr, err := r.FormFile("file")
	if err != nil {
		c.renderBank(w, r, http.StatusBadRequest, bv, apperr.New(apperr.Invalid, "INVALID_FORM", "choose a question bank file to import"))
		return
	}
	defer file.Close()
	defer r.MultipartForm.RemoveAll()
	bv.FileName = hdr.Filename
	var format qbank.Format
	if bv.Format != "" {
		format, err = formats.Parse(bv.Format)
	} else {
		format, err = formats.Detect(file, hdr.Size)
	}
	if err != nil {
		c.renderBank(w, r, http.StatusBadRequest, bv, err)
		return
	}
	bank, err := formats.Import(r.Context(), format, file, hdr.Size, c.exam, qbank.ImportOptions{AllowMissingMedia: bv.AllowMissingMedia})
	if err != nil {
		c.renderBank(w, r, http.StatusBadRequest, bv, err)
		return
	}
	rep := &bankReport{Format: format, Title: bank.Title, Items: bank.Items, Passed: len(bank.Questions)}
	rep.Imported, rep.Changed, rep.Refused = bank.Counts()
	carry, err := json.Marshal(bankCarry{Questions: bank.Questions, Stimuli: bank.Stimuli, Refused: rep.Refused})
	if err != nil {
		c.renderBank(w, r, http.StatusInternalServerError, bv, err)
		return
	}
	bv.Report, bv.Bank = rep, string(carry)
	bv.Form.Title = bank.Title
	c.log.Info("console: bank read", "format", format, "imported", rep.Imported, "changed", rep.Changed, "refused", rep.Refused,
		"by", operatorFrom(r).Username)
	c.renderBank(w, r, http.StatusOK, bv, nil)
}

// createFromBank serves POST /console/exams/import/create (csrf, bank,
// title, subject, npsn, starts, ends, zone, duration, only_passed): the
// exam of the bank's questions, by the exam service's rules; a bank with
// refused items needs only_passed.
func (c *console) createFromBank(w http.ResponseWriter, r *http.Request) {
	v := func(k string) string { return r.PostFormValue(k) }
	form := examForm{Title: v("title"), Subject: v("subject"), NPSNs: v("npsn"), Starts: v("starts"), Ends: v("ends"),
		Zone: v("zone"), Duration: v("duration")}
	bv := bankView{Bank: v("bank"), Form: form}
	var carry bankCarry
	if err := json.Unmarshal([]byte(bv.Bank), &carry); err != nil {
		c.renderBank(w, r, http.StatusBadRequest, bankView{}, apperr.New(apperr.Invalid, "INVALID_FORM", "the import was lost: upload the file again"))
		return
	}
	bv.Report = &bankReport{Refused: carry.Refused, Passed: len(carry.Questions)}
	if carry.Refused > 0 && v("only_passed") == "" {
		c.renderBank(w, r, http.StatusUnprocessableEntity, bv, apperr.Errorf(apperr.Unprocessable, "BANK_HAS_REFUSED_ITEMS",
			"%d items were refused: tick \"only the items that passed\" to create the exam without them", carry.Refused))
		return
	}
	in, err := form.input()
	if err != nil {
		c.renderBank(w, r, http.StatusBadRequest, bv, err)
		return
	}
	in.Questions, in.Stimuli = carry.Questions, carry.Stimuli
	e, err := c.exam.CreateExam(r.Context(), in)
	if err != nil {
		c.renderBank(w, r, http.StatusBadRequest, bv, err)
		return
	}
	c.log.Info("console: exam imported", "exam", e.ID, "questions", e.QuestionCount, "by", operatorFrom(r).Username)
	http.Redirect(w, r, "/console/exams?saved=1", http.StatusSeeOther)
}

// bankTemplate serves GET /console/exams/import/template.xlsx.
func (c *console) bankTemplate(w http.ResponseWriter, r *http.Request) {
	c.sendFile(w, r, qbank.Sheet, "bank-soal.xlsx", func(f *os.File) error { return sheet.Template(f) })
}

// exportExam serves GET /console/exams/{id}/export?format=: the exam as a
// question bank file, answer keys included (operators only).
func (c *console) exportExam(w http.ResponseWriter, r *http.Request) {
	format, err := formats.Parse(r.URL.Query().Get("format"))
	if err != nil {
		c.examsError(w, r, err)
		return
	}
	e, err := c.exam.GetExam(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		c.examsError(w, r, err)
		return
	}
	c.sendFile(w, r, format, "exam-"+e.ID+formats.Ext(format), func(f *os.File) error {
		return formats.Export(r.Context(), format, f, e, c.exam)
	})
}

// sendFile writes a file through a temporary file (an error is a page,
// never half a file) and sends it as an attachment.
func (c *console) sendFile(w http.ResponseWriter, r *http.Request, format qbank.Format, name string, write func(*os.File) error) {
	f, err := os.CreateTemp("", "console-*")
	if err != nil {
		c.examsError(w, r, err)
		return
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := write(f); err != nil {
		c.examsError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", formats.ContentType(format))
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, "", time.Time{}, f)
}
