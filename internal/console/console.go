// Package console is the portal's web console: server-rendered pages
// (html/template) embedded in the binary, served at /console/, in
// Indonesian and English, over the same domain services as the JSON APIs.
//
// The console has one area per kind of user, each with its own session
// cookie and sign-in page (see area): exam operators (the account "portal
// admin" uses) at /console/, marketers of the link API at /console/links/,
// the shop's staff and customers of the ordering API at /console/shop/.
//
// Sessions live in HttpOnly, SameSite=Lax cookies, Secure when the portal
// is reached over HTTPS; every form carries a CSRF token (an HMAC of the
// area's session under the console's stored key) checked on the server,
// and cross-site posts are refused (Go's http.CrossOriginProtection) before
// that.
package console

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/exam/analysissheet"
	"github.com/seedhq/portal/internal/httpapi/respond"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/mathfont"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/challenge"
	"github.com/seedhq/portal/internal/qbank"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options configure the console.
type Options struct {
	// Exam is the exam domain service. Required.
	Exam *exam.Service
	// Identity signs operators in and checks their sessions. Required.
	Identity *identity.Service
	// Key signs the forms' CSRF tokens (at least 32 bytes). Every portal
	// instance behind one address must share it, so that a form one of
	// them rendered is accepted by the others. Required.
	Key []byte
	// Links is the link-management service; nil leaves the marketers'
	// pages out.
	Links *links.Service
	// LinkBaseURL is where short links are served (no trailing slash).
	LinkBaseURL string
	// Ordering is what the shop's pages share with the ordering API; nil
	// leaves them out.
	Ordering *Ordering
	// Logger receives internal errors. Nil discards.
	Logger *slog.Logger
}

// Ordering is what the console's shop and back office share with the
// ordering API (internal/httpapi/ordering).
type Ordering struct {
	// Service is the ordering domain. Required.
	Service *ordering.Service
	// PoW issues the built-in proof-of-work challenges of the shop's login
	// form; nil when logins are checked by another verifier.
	PoW *challenge.PoW
	// MessengerStandIn tells the login page that the built-in stand-in of
	// the messaging gateway (/sandbox/messenger) is on.
	MessengerStandIn bool
	// Now returns the current time; tests fix it. Nil: time.Now.
	Now func() time.Time
}

// langCookie keeps the language chosen with ?lang=.
const langCookie = "portal_lang"

// area is one kind of console user: the cookie that holds its session and
// its sign-in page. Each area's pages check their own session, and its
// forms' CSRF tokens are bound to it.
type area struct {
	name   string
	cookie string
	login  string
}

// The console's areas.
var (
	examArea = area{name: "exam", cookie: "portal_console", login: "/console/login"}
	linkArea = area{name: "links", cookie: "portal_console_links", login: "/console/links/login"}
	shopArea = area{name: "shop", cookie: "portal_console_shop", login: "/console/shop/login"}
)

// console holds what the pages share.
type console struct {
	exam     *exam.Service
	ids      *identity.Service
	links    *links.Service
	linkBase string
	ordering *Ordering
	log      *slog.Logger
	pages    map[string]*template.Template
	csrfKey  []byte
}

// New returns the console's handler, to mount at /console.
func New(o Options) http.Handler {
	if o.Exam == nil || o.Identity == nil || len(o.Key) < 32 {
		panic("console: Options.Exam, Identity and a Key of at least 32 bytes are required")
	}
	c := &console{exam: o.Exam, ids: o.Identity, log: o.Logger, pages: map[string]*template.Template{}, csrfKey: o.Key,
		links: o.Links, linkBase: o.LinkBaseURL, ordering: o.Ordering}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	funcs := template.FuncMap{"ago": ago, "list": func(xs ...string) []string { return xs },
		"inc":     func(i int) int { return i + 1 },
		"dec":     func(i int) int { return i - 1 },
		"mul":     func(a, b int) int { return a * b },
		"percent": func(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + " %" },
		"points":  exam.FormatPoints,
		"fig":     figure,
		"num":     number,
		"label":   analysissheet.Label}
	files, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		page := strings.TrimSuffix(path.Base(f), ".html")
		if page == "layout" {
			continue
		}
		c.pages[page] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", f))
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err)
	}
	r := chi.NewRouter()
	r.Use(securityHeaders)
	r.Handle("/static/"+mathfont.File, http.StripPrefix("/console/static/", http.FileServerFS(mathfont.FS)))
	r.Handle("/static/*", http.StripPrefix("/console/static/", http.FileServerFS(static)))
	r.Get("/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/console/fleet", http.StatusSeeOther)
	})
	r.Get("/login", c.loginPage)
	cop := http.NewCrossOriginProtection()
	r.Method(http.MethodPost, "/login", cop.Handler(http.HandlerFunc(c.login)))
	r.Method(http.MethodPost, "/logout", cop.Handler(c.account(c.checkCSRF(examArea, http.HandlerFunc(c.logout)))))
	r.Method(http.MethodGet, "/grading", c.account(http.HandlerFunc(c.gradingExams)))
	r.Method(http.MethodGet, "/grading/{id}", c.account(http.HandlerFunc(c.gradingExam)))
	r.Method(http.MethodGet, "/grading/{id}/{qid}", c.account(http.HandlerFunc(c.gradePage)))
	r.Method(http.MethodGet, "/grading/{id}/media/{sha256}", c.account(http.HandlerFunc(c.media))) // the question's media, beside the essays
	r.Method(http.MethodPost, "/grading/{id}/{qid}", cop.Handler(c.account(c.checkCSRF(examArea, http.HandlerFunc(c.saveGrade)))))
	r.Method(http.MethodGet, "/graders", c.operator(http.HandlerFunc(c.graders)))
	r.Method(http.MethodPost, "/graders", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.createGrader)))))
	r.Method(http.MethodPost, "/graders/{id}/exams", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.assignGrader)))))
	r.Method(http.MethodGet, "/fleet", c.operator(http.HandlerFunc(c.fleet)))
	r.Method(http.MethodPost, "/servers/{code}/reset", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.resetServer)))))
	r.Method(http.MethodGet, "/licenses", c.operator(http.HandlerFunc(c.licenses)))
	r.Method(http.MethodGet, "/sync-logs", c.operator(http.HandlerFunc(c.syncLogs)))
	r.Method(http.MethodGet, "/exams", c.operator(http.HandlerFunc(c.exams)))
	r.Method(http.MethodGet, "/students", c.operator(http.HandlerFunc(c.students)))
	r.Method(http.MethodGet, "/login-cards", c.operator(http.HandlerFunc(c.loginCards)))
	r.With(limitBody(maxImportSize+64<<10)).Method(http.MethodPost, "/students/import", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.importStudents)))))
	r.Method(http.MethodPost, "/academic-years", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.createYear)))))
	r.Method(http.MethodPost, "/academic-years/{id}/activate", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.activateYear)))))
	r.Method(http.MethodPost, "/students/{id}/reset-password", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.resetPassword)))))
	r.Method(http.MethodGet, "/exams/new", c.operator(http.HandlerFunc(c.newExam)))
	r.Method(http.MethodGet, "/exams/import", c.operator(http.HandlerFunc(c.importPage)))
	r.With(limitBody(qbank.MaxFileSize+64<<10)).Method(http.MethodPost, "/exams/import", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.importBank)))))
	r.With(limitBody(maxBankFormSize)).Method(http.MethodPost, "/exams/import/create", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.createFromBank)))))
	r.Method(http.MethodGet, "/exams/import/template.xlsx", c.operator(http.HandlerFunc(c.bankTemplate)))
	r.Method(http.MethodGet, "/exams/{id}/export", c.operator(http.HandlerFunc(c.exportExam)))
	r.With(limitBody(maxExamFormSize)).Method(http.MethodPost, "/exams/new", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.saveExam)))))
	r.Method(http.MethodGet, "/exams/{id}/edit", c.operator(http.HandlerFunc(c.editExam)))
	r.With(limitBody(maxExamFormSize)).Method(http.MethodPost, "/exams/{id}/edit", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.saveExam)))))
	r.Method(http.MethodPost, "/exams/{id}/delete", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.deleteExam)))))
	r.With(respond.RouteBodyLimitCode(exam.MaxAudioSize, exam.ErrMediaTooLarge.Code, exam.ErrMediaTooLarge.Message)).Method(http.MethodPost, "/exams/media", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.uploadMedia)))))
	// The editor's preview shows media/<sha256> relative to its URL.
	r.Method(http.MethodGet, "/exams/media/{sha256}", c.operator(http.HandlerFunc(c.media)))
	r.Method(http.MethodGet, "/exams/{id}/media/{sha256}", c.operator(http.HandlerFunc(c.media)))
	r.Method(http.MethodGet, "/exams/{id}/results", c.operator(http.HandlerFunc(c.results)))
	r.Method(http.MethodGet, "/exams/{id}/results.csv", c.operator(http.HandlerFunc(c.resultsCSV)))
	r.Method(http.MethodGet, "/exams/{id}/analysis", c.operator(http.HandlerFunc(c.analysis)))
	r.Method(http.MethodPost, "/exams/{id}/calibration", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.keepCalibration)))))
	r.Method(http.MethodPost, "/exams/{id}/calibration/run", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.recalibrate)))))
	r.Method(http.MethodGet, "/exams/{id}/analysis.{format:csv|xlsx}", c.operator(http.HandlerFunc(c.analysisFile)))
	r.Method(http.MethodGet, "/api-keys", c.operator(http.HandlerFunc(c.apiKeys)))
	r.Method(http.MethodPost, "/api-keys", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.createAPIKey)))))
	r.Method(http.MethodPost, "/api-keys/{id}/revoke", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.revokeAPIKey)))))
	r.Method(http.MethodGet, "/licenses/{id}/token", c.operator(http.HandlerFunc(c.licenseFile)))
	r.Method(http.MethodPost, "/licenses", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.generateLicense)))))
	r.Method(http.MethodPost, "/licenses/{id}/revoke", cop.Handler(c.operator(c.checkCSRF(examArea, http.HandlerFunc(c.revokeLicense)))))
	if c.links != nil {
		r.Route("/links", func(r chi.Router) { c.mountLinks(r, cop) })
	}
	if c.ordering != nil {
		r.Route("/shop", func(r chi.Router) { c.mountShop(r, cop) })
	}
	return r
}

// limitBody replaces the router's default body limit for one route.
func limitBody(n int64) func(http.Handler) http.Handler { return respond.RouteBodyLimit(n) }

// securityHeaders sets the headers of every console answer: no framing,
// no sniffing, scripts and styles from the console only.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// view is what every page template gets.
type view struct {
	Lang string
	// Who names the signed-in user in the header; empty on sign-in pages.
	Who string
	// Nav is the area's menu for this user; Logout the area's sign-out.
	Nav    []navItem
	Logout string
	CSRF   string
	Error  string // a text key
	// Message is a domain error's own message (in English), shown as is.
	Message string
	// Brand names the site in the header and the <title>: on the shop's
	// pages the shop's name (shopView); empty, the console's own name.
	Brand string
	Data  any
}

// Name returns the name in the page's header and title: its Brand, else
// the console's own name.
func (v view) Name() string {
	if v.Brand != "" {
		return v.Brand
	}
	return v.T("app.title")
}

// navItem is one entry of an area's menu.
type navItem struct {
	Href string
	Key  string // its text key
}

// T returns the text of key in the page's language.
func (v view) T(key string) string { return translate(v.Lang, key) }

// render writes the page with its view. A language chosen with ?lang= is
// kept in a cookie for the next pages.
func (c *console) render(w http.ResponseWriter, r *http.Request, page string, status int, v view) {
	if l := r.URL.Query().Get("lang"); l == "id" || l == "en" {
		http.SetCookie(w, &http.Cookie{Name: langCookie, Value: l, Path: "/console", MaxAge: 365 * 24 * 3600,
			SameSite: http.SameSiteLaxMode, HttpOnly: true, Secure: secure(r)})
	}
	v.Lang = language(r)
	var b strings.Builder
	if err := c.pages[page].Execute(&b, v); err != nil {
		c.log.Error("console: render", "page", page, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write([]byte(b.String()))
}

// showError puts err on the page: a domain error with its own message,
// anything else as an internal error (logged); it returns the status.
func (c *console) showError(v *view, err error) int {
	if e := apperr.From(err); e != nil {
		v.Message = e.Message
		return e.Kind.Status()
	}
	if respond.BlobStoreUnavailable(err) || respond.StoreUnavailable(err) {
		c.log.Warn("console: store unavailable", "err", err)
		v.Error = "error.unavailable"
		return http.StatusServiceUnavailable
	}
	c.log.Error("console", "err", err)
	v.Error = "error.internal"
	return http.StatusInternalServerError
}

// forbidden answers 403 with the forbidden page in v's area.
func (c *console) forbidden(w http.ResponseWriter, r *http.Request, v view) {
	v.Error = "error.forbidden"
	c.render(w, r, "forbidden", http.StatusForbidden, v)
}

// language returns the console's language for r: the lang cookie (set by
// ?lang=), else the browser's first of id and en, else English.
func language(r *http.Request) string {
	if l := r.URL.Query().Get("lang"); l == "id" || l == "en" {
		return l
	}
	if c, err := r.Cookie(langCookie); err == nil && (c.Value == "id" || c.Value == "en") {
		return c.Value
	}
	for _, part := range strings.Split(r.Header.Get("Accept-Language"), ",") {
		tag := strings.ToLower(strings.TrimSpace(strings.SplitN(part, ";", 2)[0]))
		switch {
		case strings.HasPrefix(tag, "id"), strings.HasPrefix(tag, "in"):
			return "id"
		case strings.HasPrefix(tag, "en"):
			return "en"
		}
	}
	return "en"
}

// csrfToken returns the form token of a session.
func (c *console) csrfToken(session string) string {
	m := hmac.New(sha256.New, c.csrfKey)
	m.Write([]byte(session))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// secure reports whether r came over HTTPS (directly or through a proxy).
func secure(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// setSession sets a's session cookie until expires.
func setSession(w http.ResponseWriter, r *http.Request, a area, token string, expires time.Time) {
	http.SetCookie(w, &http.Cookie{Name: a.cookie, Value: token, Path: "/console", HttpOnly: true, Secure: secure(r),
		SameSite: http.SameSiteLaxMode, Expires: expires})
}

// clearSession removes a's session cookie.
func clearSession(w http.ResponseWriter, r *http.Request, a area) {
	http.SetCookie(w, &http.Cookie{Name: a.cookie, Path: "/console", HttpOnly: true, Secure: secure(r),
		SameSite: http.SameSiteLaxMode, MaxAge: -1})
}

// session returns the request's session token in a.
func session(r *http.Request, a area) string {
	ck, err := r.Cookie(a.cookie)
	if err != nil {
		return ""
	}
	return ck.Value
}

// checkCSRF refuses a form without the token of its area's session. Every
// form post of the console passes here, so the form it read is also where
// its newlines are made "\n" (see normalizeNewlines).
func (c *console) checkCSRF(a area, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		want := c.csrfToken(session(r, a))
		// A script's upload of raw bytes sends the token in a header; a
		// form posts it as a field.
		got := r.Header.Get("X-CSRF-Token")
		if got == "" {
			got = r.PostFormValue("csrf")
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
			http.Error(w, "the form's security token is missing or stale: reload the page", http.StatusForbidden)
			return
		}
		normalizeNewlines(r)
		next.ServeHTTP(w, r)
	})
}

// newlines turns CRLF and lone CR into LF.
var newlines = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// normalizeNewlines rewrites the newlines of every field of r's parsed
// form (URL-encoded or multipart) as "\n": browsers send a textarea's
// lines ended by CRLF, and what the console stores must read back as it
// was written. A body not read as a form (a raw upload) is left alone.
func normalizeNewlines(r *http.Request) {
	fix := func(vs map[string][]string) {
		for _, v := range vs {
			for i, s := range v {
				if strings.ContainsRune(s, '\r') {
					v[i] = newlines.Replace(s)
				}
			}
		}
	}
	fix(r.Form)
	fix(r.PostForm)
	if r.MultipartForm != nil {
		fix(r.MultipartForm.Value)
	}
}

type ctxKey int

const ctxOperator ctxKey = iota

// clientAddr returns the client's address as the router resolved it.
func clientAddr(r *http.Request) string { return respond.ClientIP(r.Context()) }
