// Package richtext is the one format of exam content (question and option
// text, statements, matching items, shared passages): plain text as it always
// was, or CommonMark with tables, math and the exam's own media, rendered on
// the portal to HTML that an allow-list sanitiser has checked. The students'
// pages and the console's preview show that HTML as it is, so both show the
// same thing and neither runs a script for it. docs/exam-content.md is the
// authors' reference.
package richtext

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/seedhq/portal/pkg/labwire/sanitize"
)

// Format is how a text is written.
type Format string

// The formats.
const (
	// Plain is text shown as typed: no markup, line breaks kept. It is the
	// format of every text that names none, so content written before rich
	// text existed looks as it always did.
	Plain Format = "plain"
	// Markdown is CommonMark with tables, math between $ (inline) and $$
	// (display), underline, subscript and superscript as <u>, <sub>, <sup>,
	// and images and audio from the exam's media as ![alt](media:SHA256).
	Markdown Format = "markdown"
)

// DescribeTitle, as the title of an audio's reference
// (![description](media:SHA256 "describe")), marks its description for
// assistive technology: the students' page gives it to screen readers
// (aria-describedby), never shows it. Without it the description is the
// teacher's and the editor's only.
const DescribeTitle = "describe"

// MaxSource is the longest markdown text accepted, in bytes.
const MaxSource = 64 << 10

// Media is one file of an exam's media, as a text refers to it.
type Media struct {
	// URL is where the page loads it from: a relative URL, never another
	// host (the students' pages fetch nothing from the internet).
	URL string
	// Audio is true for an audio file (shown as a player), false for an
	// image.
	Audio bool
}

// Options are what a rendering needs from its exam.
type Options struct {
	// Media resolves the SHA-256 (lowercase hex) of a media reference to the
	// exam's file; false when the exam has no such file. Nil: no media.
	Media func(sha256 string) (Media, bool)
	// Descriptions keeps every audio's description in the HTML, as its
	// aria-label, for a question bank's export, which carries it to the
	// other system. What students get (a package) never has it unless the
	// teacher marked it (DescribeTitle).
	Descriptions bool
}

// Problem is something in a text that the author should fix: it renders
// (as its source, as text), but not as the author meant.
type Problem struct {
	// Code is a stable UPPER_SNAKE word: TEX_ERROR, MEDIA_NOT_FOUND,
	// ALT_TEXT_REQUIRED, REMOTE_MEDIA, LINK_NOT_ALLOWED.
	Code string `json:"code"`
	// Message says what is wrong, for the author.
	Message string `json:"message"`
	// Source is the part of the text concerned.
	Source string `json:"source"`
}

// Result is a rendered text.
type Result struct {
	// HTML is the sanitised HTML to insert as is.
	HTML string
	// Problems lists what renders otherwise than written, in order.
	Problems []Problem
	// Media lists the SHA-256 of every media file the text shows.
	Media []string
	// Math lists the TeX of every formula HTML shows as MathML, in the
	// order of their <math> elements (an export annotates them with it).
	Math []string
	// Blanks lists the ids of the blank markers ([[id]]) HTML shows, in
	// order: a cloze question's blanks.
	Blanks []string
}

// ParseFormat returns the format named s: "" is Plain.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case "", Plain:
		return Plain, nil
	case Markdown:
		return Markdown, nil
	}
	return "", fmt.Errorf("format %q is not one of plain, markdown", s)
}

// Render renders src written in format f.
func Render(f Format, src string, o Options) (Result, error) {
	switch f {
	case "", Plain:
		return Result{HTML: plainHTML(src)}, nil
	case Markdown:
		if len(src) > MaxSource {
			return Result{}, fmt.Errorf("a markdown text is longer than %d KiB", MaxSource>>10)
		}
		return renderMarkdown(src, o)
	}
	return Result{}, fmt.Errorf("format %q is not one of plain, markdown", f)
}

// plainHTML is text shown as typed: escaped, each line break a <br>, in one
// paragraph whose direction follows its first strong letter.
func plainHTML(src string) string {
	if src == "" {
		return ""
	}
	s := html.EscapeString(strings.ReplaceAll(src, "\r\n", "\n"))
	return `<p dir="auto">` + strings.ReplaceAll(s, "\n", "<br>") + `</p>`
}

// markdown is the parser and renderer of the Markdown format: CommonMark's
// paragraphs, lists, emphasis, code spans, images and inline HTML (of which
// <u>, <sub>, <sup> and <br> are kept and everything else shown as text),
// GitHub's tables, and math. Headings, block quotes, code blocks, rules,
// HTML blocks and autolinks are not parsed: their marks show as typed.
var markdown = goldmark.New(
	goldmark.WithParser(parser.NewParser(
		parser.WithBlockParsers(
			util.Prioritized(parser.NewListParser(), 300),
			util.Prioritized(parser.NewListItemParser(), 400),
			util.Prioritized(parser.NewParagraphParser(), 1000),
		),
		parser.WithInlineParsers(
			util.Prioritized(parser.NewCodeSpanParser(), 100),
			util.Prioritized(mathParser{}, 150),
			util.Prioritized(blankParser{}, 180),
			util.Prioritized(parser.NewLinkParser(), 200),
			util.Prioritized(parser.NewRawHTMLParser(), 400),
			util.Prioritized(parser.NewEmphasisParser(), 500),
		),
		parser.WithParagraphTransformers(
			util.Prioritized(extension.NewTableParagraphTransformer(), 200),
		),
		parser.WithASTTransformers(
			util.Prioritized(extension.NewTableASTTransformer(), 0),
		),
	)),
	goldmark.WithRendererOptions(
		ghtml.WithHardWraps(),
		renderer.WithNodeRenderers(
			util.Prioritized(extension.NewTableHTMLRenderer(
				extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)), 500),
			util.Prioritized(nodeRenderer{}, 100),
		),
	),
)

// Attributes set on nodes before rendering.
var (
	attrHTML = []byte("data-rt-html") // the node's HTML, worked out beforehand
	attrDir  = []byte("dir")
)

func renderMarkdown(src string, o Options) (Result, error) {
	source := []byte(src)
	doc := markdown.Parser().Parse(text.NewReader(source))
	var res Result
	seen := map[string]bool{}
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Paragraph, *ast.ListItem, *east.TableCell:
			n.SetAttribute(attrDir, []byte("auto"))
		case *mathNode:
			ml, err := MathML(n.tex, n.display)
			if err != nil {
				if me, ok := err.(*MathError); ok {
					res.Problems = append(res.Problems, Problem{Code: "TEX_ERROR", Message: me.Message, Source: n.tex})
					n.SetAttribute(attrHTML, []byte(`<code class="tex-error">`+html.EscapeString(n.delim+n.tex+n.delim)+`</code>`))
					return ast.WalkSkipChildren, nil
				}
				return ast.WalkStop, err
			}
			n.SetAttribute(attrHTML, []byte(ml))
			res.Math = append(res.Math, n.tex)
		case *ast.Image:
			alt := strings.TrimSpace(string(nodeText(n, source)))
			dest := string(n.Destination)
			h, ok := strings.CutPrefix(dest, "media:")
			m, found := Media{}, false
			if ok && sha256Hex.MatchString(h) && o.Media != nil {
				m, found = o.Media(h)
			}
			switch {
			case !ok:
				res.Problems = append(res.Problems, Problem{Code: "REMOTE_MEDIA",
					Message: "only the exam's own media can be shown (media:SHA256); nothing is fetched from the internet", Source: dest})
			case !found:
				res.Problems = append(res.Problems, Problem{Code: "MEDIA_NOT_FOUND", Message: "the exam has no media file " + dest, Source: dest})
			case alt == "":
				res.Problems = append(res.Problems, Problem{Code: "ALT_TEXT_REQUIRED",
					Message: "every image and audio needs a description: ![what it shows](" + dest + ")", Source: dest})
			}
			if !ok || !found || alt == "" {
				n.SetAttribute(attrHTML, []byte(html.EscapeString(alt)))
				return ast.WalkSkipChildren, nil
			}
			if !seen[h] {
				seen[h] = true
				res.Media = append(res.Media, h)
			}
			if m.Audio {
				// An audio's description is the teacher's (it may name what
				// the student is to hear): the students' page gets it only
				// when the teacher marked it for assistive technology.
				desc := ""
				if string(n.Title) == DescribeTitle {
					desc = ` data-description="` + html.EscapeString(alt) + `"`
				}
				if o.Descriptions {
					desc += ` aria-label="` + html.EscapeString(alt) + `"`
				}
				n.SetAttribute(attrHTML, []byte(fmt.Sprintf(`<audio controls preload="metadata" src="%s" data-media="%s"%s></audio>`,
					html.EscapeString(m.URL), h, desc)))
			} else {
				n.SetAttribute(attrHTML, []byte(fmt.Sprintf(`<img src="%s" alt="%s" loading="lazy" data-media="%s">`,
					html.EscapeString(m.URL), html.EscapeString(alt), h)))
			}
			return ast.WalkSkipChildren, nil
		case *blankNode:
			n.SetAttribute(attrHTML, []byte(`<span class="blank" data-blank="`+n.id+`"></span>`))
			res.Blanks = append(res.Blanks, n.id)
		case *ast.Link:
			res.Problems = append(res.Problems, Problem{Code: "LINK_NOT_ALLOWED",
				Message: "links are not shown during an exam (students have no internet); the link's text is", Source: string(n.Destination)})
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		return Result{}, err
	}
	var buf bytes.Buffer
	if err := markdown.Renderer().Render(&buf, source, doc); err != nil {
		return Result{}, fmt.Errorf("richtext: render: %w", err)
	}
	res.HTML = strings.TrimSpace(sanitize.HTML(buf.String()))
	return res, nil
}

var sha256Hex = sanitize.SHA256Hex

// nodeText is the plain text of n's children (an image's alt text).
func nodeText(n ast.Node, source []byte) []byte {
	var b bytes.Buffer
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(source))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
			continue
		}
		b.Write(nodeText(c, source))
	}
	return b.Bytes()
}

// nodeRenderer renders what differs from CommonMark's HTML: math, media,
// blanks and inline HTML (from attributes set beforehand), links (as their text).
type nodeRenderer struct{}

func (nodeRenderer) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	r.Register(kindMath, renderPrepared)
	r.Register(kindBlank, renderPrepared)
	r.Register(ast.KindImage, renderPrepared)
	r.Register(ast.KindLink, func(util.BufWriter, []byte, ast.Node, bool) (ast.WalkStatus, error) {
		return ast.WalkContinue, nil // the children only
	})
	r.Register(ast.KindRawHTML, renderRawHTML)
}

func renderPrepared(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		if v, ok := n.AttributeString(string(attrHTML)); ok {
			w.Write(v.([]byte))
		}
	}
	return ast.WalkSkipChildren, nil
}

// keptTags are the inline HTML tags kept as markup; any other inline HTML
// is shown as the text it is.
var keptTags = map[string]bool{
	"<u>": true, "</u>": true, "<sub>": true, "</sub>": true, "<sup>": true, "</sup>": true,
	"<br>": true, "<br/>": true, "<br />": true,
}

func renderRawHTML(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	raw := n.(*ast.RawHTML)
	var b bytes.Buffer
	for i := range raw.Segments.Len() {
		s := raw.Segments.At(i)
		b.Write(s.Value(source))
	}
	if keptTags[strings.ToLower(b.String())] {
		w.WriteString(strings.ToLower(b.String()))
	} else {
		w.WriteString(html.EscapeString(b.String()))
	}
	return ast.WalkSkipChildren, nil
}
