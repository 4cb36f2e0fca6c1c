package redirect

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"net/http"
	"strconv"

	"github.com/seedhq/portal/internal/links"
)

// css is the one style sheet of every page, allowed by its hash.
const css = `body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}` +
	`h1{font-size:1.4rem}p.err{color:#b00020}input,button{font:inherit;padding:.4rem}` +
	`ul{padding-left:1.2rem}li{margin:.4rem 0}small{color:#666}`

var cssHash = func() string {
	s := sha256.Sum256([]byte(css))
	return "'sha256-" + base64.StdEncoding.EncodeToString(s[:]) + "'"
}()

// pageCSP is the policy of the pages without scripts or forms.
var pageCSP = "default-src 'none'; style-src " + cssHash + "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// formCSP is the password form's policy.
var formCSP = "default-src 'none'; style-src " + cssHash + "; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

const head = `{{define "head"}}<!doctype html><html lang="en"><head><meta charset="utf-8">` +
	`<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">` +
	`<style>` + css + `</style>{{end}}`

func mustPage(body string) *template.Template {
	return template.Must(template.Must(template.New("").Parse(head)).New("page").Parse(body))
}

type errorData struct {
	Title, Message string
}

var errorTmpl = mustPage(`{{template "head"}}<title>{{.Title}}</title></head><body><h1>{{.Title}}</h1><p>{{.Message}}</p></body></html>`)

type passwordData struct {
	Alias, Error string
}

var passwordTmpl = mustPage(`{{template "head"}}<title>Password required</title></head><body>` +
	`<h1>This link is protected</h1><p>Enter the password to continue.</p>` +
	`{{with .Error}}<p class="err" role="alert">{{.}}</p>{{end}}` +
	`<form method="post" action="/{{.Alias}}"><input type="password" name="password" autocomplete="current-password" aria-label="Password" required autofocus> ` +
	`<button type="submit">Continue</button></form></body></html>`)

type listItem struct {
	URL, Title, Description string
}

type listData struct {
	Name  string
	Links []listItem
}

var listTmpl = mustPage(`{{template "head"}}<title>{{.Name}}</title></head><body><h1>{{.Name}}</h1>` +
	`{{if .Links}}<ul>{{range .Links}}<li><a href="{{.URL}}" rel="nofollow">{{.Title}}</a><br><small>{{.URL}}</small>` +
	`{{with .Description}}<br>{{.}}{{end}}</li>{{end}}</ul>{{else}}<p>No links yet.</p>{{end}}</body></html>`)

// notFoundBody is the 404 page, rendered once.
var notFoundBody = func() []byte {
	var b bytes.Buffer
	if err := errorTmpl.Execute(&b, errorData{Title: "Link not found", Message: "This link does not exist or has expired."}); err != nil {
		panic(err)
	}
	return b.Bytes()
}()

var notFoundLen = []string{strconv.Itoa(len(notFoundBody))}

// notFoundPage answers the plain 404 page.
func (h *Handler) notFoundPage(w http.ResponseWriter, r *http.Request) {
	setPageHeaders(w.Header(), pageCSP, "no-referrer")
	w.Header()["Content-Length"] = notFoundLen
	w.WriteHeader(http.StatusNotFound)
	if r.Method != http.MethodHead {
		_, _ = w.Write(notFoundBody)
	}
}

func setPageHeaders(hd http.Header, csp, referrer string) {
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Security-Policy", csp)
	hd.Set("Referrer-Policy", referrer)
	hd.Set("X-Content-Type-Options", "nosniff")
}

// page renders t with data and answers it with the status.
func (h *Handler) page(w http.ResponseWriter, status int, t *template.Template, data any, csp string) {
	h.pageRef(w, status, t, data, csp, "no-referrer")
}

func (h *Handler) pageRef(w http.ResponseWriter, status int, t *template.Template, data any, csp, referrer string) {
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "page", data); err != nil {
		h.log.Error("redirect: render page", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	setPageHeaders(w.Header(), csp, referrer)
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

func (h *Handler) passwordPage(w http.ResponseWriter, l links.ShortLink, msg string, status int) {
	h.page(w, status, passwordTmpl, passwordData{Alias: l.Alias, Error: msg}, formCSP)
}
