// Package webui holds labagent's embedded web pages: the student page (sign-in,
// exam list, one question at a time, review, finish) and the proctor page
// (session token, students, progress, sync state), with their CSS and ES5
// JavaScript. There is no build step and nothing is loaded from the internet:
// the files under static/ are served as they are.
//
// The server serves "/" from index.html, "/proctor" from proctor.html and
// "/static/<file>" from the files of FS; the pages talk to the JSON API
// described in docs/api/labagent.md.
package webui

import (
	"embed"
	"io/fs"

	"github.com/seedhq/portal/internal/mathfont"
)

//go:embed static
var static embed.FS

// FS returns the page files (index.html, proctor.html, app.css, student.js,
// proctor.js, and the math font of exam content, mathfont.File) at its
// root, ready for http.FileServerFS or fs.ReadFile.
func FS() fs.FS {
	return withFont{must(fs.Sub(static, "static"))}
}

// withFont is the page files with the math font beside them.
type withFont struct{ fs.FS }

func (f withFont) Open(name string) (fs.File, error) {
	if name == mathfont.File {
		return mathfont.FS.Open(name)
	}
	return f.FS.Open(name)
}

// must unwraps fs.Sub, which fails only for an invalid directory name: the
// name is a constant, so an error here is a programming mistake.
func must(f fs.FS, err error) fs.FS {
	if err != nil {
		panic("webui: " + err.Error())
	}
	return f
}
