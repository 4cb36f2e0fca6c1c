// Package sanitize is the allow-list of exam content's HTML (internal/
// richtext): the portal passes every rendered text through it last, and a
// lab server passes a package's HTML through it again before a student's
// page shows it, without the renderer and its TeX engine.
package sanitize

import (
	"regexp"

	"github.com/microcosm-cc/bluemonday"
)

// SHA256Hex matches a lowercase hex SHA-256, the name of a media file.
var SHA256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// HTML returns s with everything outside the allow-list removed.
func HTML(s string) string { return policy.Sanitize(s) }

// policy is the allow-list every rendered text passes last (HTML): the elements
// and attributes the renderer writes, MathML Core's elements and the
// attributes Temml writes, media only from the exam's own files. What the
// renderer does not write cannot get through, whatever the source was.
var policy = func() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements("p", "br", "strong", "em", "u", "sub", "sup", "ul", "ol", "li", "code",
		"table", "thead", "tbody", "tr", "th", "td")
	p.AllowAttrs("dir").Matching(regexp.MustCompile(`^auto$`)).OnElements("p", "li", "th", "td")
	p.AllowAttrs("start").Matching(bluemonday.Integer).OnElements("ol")
	p.AllowAttrs("align").Matching(regexp.MustCompile(`^(left|center|right)$`)).OnElements("th", "td")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^tex-error$`)).OnElements("code")
	// A cloze question's blank, which the student's page fills.
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^blank$`)).OnElements("span")
	p.AllowAttrs("data-blank").Matching(regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)).OnElements("span")

	mediaURL := regexp.MustCompile(`^media/[0-9a-f]{64}$`)
	p.AllowAttrs("src").Matching(mediaURL).OnElements("img", "audio")
	p.AllowAttrs("data-media").Matching(SHA256Hex).OnElements("img", "audio")
	p.AllowAttrs("alt").OnElements("img")
	p.AllowAttrs("loading").Matching(regexp.MustCompile(`^lazy$`)).OnElements("img")
	// aria-label: an audio's description in packages rendered before
	// data-description (the student page does not announce it).
	p.AllowAttrs("aria-label", "data-description").OnElements("audio")
	p.AllowAttrs("controls").Matching(regexp.MustCompile(`^(controls)?$`)).OnElements("audio")
	p.AllowAttrs("preload").Matching(regexp.MustCompile(`^metadata$`)).OnElements("audio")
	p.AllowNoAttrs().OnElements("audio")

	mathElements := []string{"math", "mrow", "mi", "mn", "mo", "mtext", "ms", "mspace", "msub", "msup", "msubsup",
		"mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mpadded", "mphantom",
		"menclose", "mstyle", "merror", "mmultiscripts", "mprescripts", "none", "semantics", "annotation"}
	p.AllowElements(mathElements...)
	p.AllowNoAttrs().OnElements(mathElements...)
	token := regexp.MustCompile(`^[A-Za-z0-9 .+\-#%]*$`)
	p.AllowAttrs("display").Matching(regexp.MustCompile(`^(block|inline)$`)).OnElements("math")
	p.AllowAttrs("mathvariant", "stretchy", "fence", "form", "separator", "movablelimits", "largeop", "symmetric",
		"lspace", "rspace", "width", "height", "depth", "voffset", "columnalign", "rowalign", "columnspacing",
		"rowspacing", "columnlines", "rowlines", "frame", "displaystyle", "scriptlevel", "accent", "accentunder",
		"linethickness", "notation", "minsize", "maxsize", "encoding").Matching(token).OnElements(mathElements...)
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^[a-z0-9 \-]*$`)).OnElements(mathElements...)
	p.AllowStyles("padding-left", "padding-right", "padding-top", "padding-bottom", "text-align", "border-left",
		"border-right", "border-top", "border-bottom", "width", "height", "vertical-align").
		Matching(regexp.MustCompile(`^[0-9a-z .\-%]*$`)).OnElements(mathElements...)
	return p
}()
