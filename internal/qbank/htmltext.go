package qbank

import (
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTMLToMarkdown converts the HTML of a question from another system
// (Moodle's question text, QTI's XHTML) to the exam's markdown
// (docs/exam-content.md), and lists what it dropped or changed, each kind
// once, for the item's report.
//
// Kept: paragraphs and line breaks, bold and italic, <u>, <sub>, <sup>,
// lists, tables (as GitHub's pipe tables), <code>, images and audio, and
// TeX between \(…\), \[…\] or $$…$$ (as $…$ and $$…$$, the TeX as it
// was). Everything else keeps its text and loses its markup (a link shows
// its text, a <span style> its content); <script>, <style> and form
// controls lose their content too. Text is escaped so that it reads as
// typed: a "*", "_", "[", "<", "|", "$" in the HTML's text is that
// character in the exam, never markup or math.
//
// media resolves an image's or audio's src (as written in the HTML) to the
// exam's reference, "media:" + SHA256; false drops the image or audio,
// keeping its description as text, with a change noted (the caller that
// needs to refuse the item for it, MEDIA_NOT_FOUND, knows which src it
// could not resolve). media nil resolves nothing.
func HTMLToMarkdown(src string, media func(src string) (ref string, ok bool)) (md string, changes []string) {
	c := &converter{media: media, notes: &notes{seen: map[string]bool{}}}
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(src), body)
	if err != nil { // only a read error: src is a string
		return escapeText(src, true, false), []string{"the HTML did not parse: kept as text"}
	}
	for _, n := range nodes {
		c.node(n, 0)
	}
	return c.result(), c.notes.list
}

// notes are the changes of one conversion, each once, in order.
type notes struct {
	seen map[string]bool
	list []string
}

func (n *notes) add(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !n.seen[s] && len(n.list) < maxNotes {
		n.seen[s] = true
		n.list = append(n.list, s)
	}
}

const (
	// maxNotes bounds the changes listed for one text.
	maxNotes = 50
	// maxDepth is the deepest nesting of elements converted as markup;
	// deeper, an element's text is kept as text.
	maxDepth = 100
)

// converter writes the markdown of one run of content: a whole text, a
// list item, a table cell or the inside of an inline element.
type converter struct {
	b     strings.Builder
	media func(string) (string, bool)
	notes *notes
	// tight: a paragraph break is a line break (inside a list item or a
	// table cell).
	tight bool
	// cell: inside a table cell, where a line break is <br>.
	cell bool
	// pre: inside <pre>, whitespace kept.
	pre bool
	// midLine: the converter's output continues a line (an inline
	// element's inside), so its start is not a line's start.
	midLine bool
	// afterSpace: the output this converter continues ends with a space
	// (midLine).
	afterSpace bool
	// blocks: the output holds a list or a table (an inline element around
	// it cannot be kept).
	blocks bool
}

func (c *converter) sub() *converter {
	return &converter{media: c.media, notes: c.notes, tight: c.tight, cell: c.cell, pre: c.pre}
}

// result is the markdown, trimmed, at most one blank line between blocks.
func (c *converter) result() string {
	s := c.b.String()
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.Trim(strings.Join(out, "\n"), "\n ")
}

// atLineStart reports whether the next character written starts a line.
func (c *converter) atLineStart() bool {
	s := c.b.String()
	if s == "" {
		return !c.midLine
	}
	return s[len(s)-1] == '\n'
}

// lastIsSpace reports whether the output ends with a space or a line break
// (or nothing), so that a space need not be written.
func (c *converter) lastIsSpace() bool {
	s := c.b.String()
	if s == "" {
		return !c.midLine || c.afterSpace
	}
	return s[len(s)-1] == ' ' || s[len(s)-1] == '\n'
}

// trimTrailingSpace removes spaces at the end of the output.
func (c *converter) trimTrailingSpace() {
	s := c.b.String()
	t := strings.TrimRight(s, " ")
	if len(t) != len(s) {
		c.b.Reset()
		c.b.WriteString(t)
	}
}

// paragraph ends the current block: a blank line (a line break when tight).
func (c *converter) paragraph() {
	c.trimTrailingSpace()
	s := c.b.String()
	if s == "" {
		return
	}
	want := "\n\n"
	if c.tight {
		want = "\n"
	}
	for !strings.HasSuffix(c.b.String(), want) {
		c.b.WriteByte('\n')
	}
}

// lineBreak writes a line break (<br>).
func (c *converter) lineBreak() {
	c.trimTrailingSpace()
	if c.cell {
		c.b.WriteString("<br>")
		return
	}
	c.b.WriteByte('\n')
}

// Elements whose content is dropped with them.
var droppedWithContent = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Template: true, atom.Noscript: true, atom.Head: true,
	atom.Title: true, atom.Meta: true, atom.Link: true, atom.Base: true, atom.Iframe: true,
	atom.Embed: true, atom.Applet: true, atom.Frame: true, atom.Frameset: true, atom.Input: true,
	atom.Select: true, atom.Textarea: true, atom.Button: true, atom.Svg: true, atom.Math: true,
	atom.Video: true, atom.Canvas: true, atom.Param: true, atom.Track: true,
}

// Block elements whose markup is dropped: their text is a paragraph.
var blockElements = map[atom.Atom]bool{
	atom.Div: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Blockquote: true, atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true,
	atom.Aside: true, atom.Nav: true, atom.Main: true, atom.Figure: true, atom.Figcaption: true,
	atom.Address: true, atom.Center: true, atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Fieldset: true,
	atom.Legend: true, atom.Form: true, atom.Details: true, atom.Summary: true, atom.Caption: true,
	atom.Html: true, atom.Body: true,
}

// Elements whose markup is dropped without a note: they change nothing
// the exam's page would show differently.
var silentElements = map[atom.Atom]bool{
	atom.Span: true, atom.Div: true, atom.Html: true, atom.Body: true, atom.Tbody: true, atom.Thead: true,
	atom.Tfoot: true, atom.Nobr: true, atom.Wbr: true, atom.Bdi: true, atom.Abbr: true,
	atom.Section: true, atom.Article: true, atom.Main: true, atom.Center: true,
}

// Attributes noted when dropped: the rest (class, id, width, …) change
// nothing the exam needs.
func notedAttr(key string) bool {
	return key == "style" || strings.HasPrefix(key, "on") || key == "href" || key == "background" ||
		key == "formaction" || key == "action" || key == "srcset"
}

// noteAttrs notes the attributes of n that the conversion drops.
func (c *converter) noteAttrs(n *html.Node) {
	for _, a := range n.Attr {
		k := strings.ToLower(a.Key)
		switch {
		case strings.HasPrefix(k, "on"):
			c.notes.add("dropped the %s handler of <%s>", k, n.Data)
		case notedAttr(k) && k != "href":
			c.notes.add("dropped <%s %s>", n.Data, k)
		}
	}
}

func (c *converter) node(n *html.Node, depth int) {
	switch n.Type {
	case html.TextNode:
		c.text(n.Data)
		return
	case html.ElementNode:
	case html.DocumentNode:
		c.children(n, depth)
		return
	default: // comments, doctypes
		return
	}
	if depth > maxDepth {
		c.notes.add("markup nested more than %d deep: kept as text", maxDepth)
		c.text(textOf(n))
		return
	}
	if n.Namespace != "" { // <svg>, <math> and what they hold
		c.notes.add("dropped <%s>", n.Data)
		return
	}
	switch n.DataAtom {
	case atom.P:
		c.noteAttrs(n)
		c.paragraph()
		c.children(n, depth)
		c.paragraph()
	case atom.Br:
		c.lineBreak()
	case atom.B, atom.Strong:
		c.noteAttrs(n)
		c.wrap(n, depth, "**", "**")
	case atom.I, atom.Em:
		c.noteAttrs(n)
		c.wrap(n, depth, "*", "*")
	case atom.U, atom.Ins:
		c.noteAttrs(n)
		c.wrap(n, depth, "<u>", "</u>")
	case atom.Sub:
		c.noteAttrs(n)
		c.wrap(n, depth, "<sub>", "</sub>")
	case atom.Sup:
		c.noteAttrs(n)
		c.wrap(n, depth, "<sup>", "</sup>")
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		c.noteAttrs(n)
		c.code(textOf(n))
	case atom.Pre:
		c.notes.add("dropped <pre>: its lines kept")
		c.paragraph()
		s := c.sub()
		s.pre = true
		s.midLine = false
		s.children(n, depth)
		c.b.WriteString(s.b.String())
		c.paragraph()
	case atom.Ul, atom.Ol:
		c.noteAttrs(n)
		c.list(n, depth)
	case atom.Li: // outside a list
		c.paragraph()
		c.children(n, depth)
		c.paragraph()
	case atom.Table:
		c.noteAttrs(n)
		c.table(n, depth)
	case atom.Img:
		c.noteAttrs(n)
		c.image(n, attr(n, "src"), false)
	case atom.Audio:
		c.noteAttrs(n)
		src := attr(n, "src")
		if src == "" {
			for s := n.FirstChild; s != nil; s = s.NextSibling {
				if s.DataAtom == atom.Source && attr(s, "src") != "" {
					src = attr(s, "src")
					break
				}
			}
		}
		c.image(n, src, true)
	case atom.A:
		c.noteAttrs(n)
		href := strings.TrimSpace(attr(n, "href"))
		if isAudioName(href) && c.media != nil {
			if ref, ok := c.media(href); ok { // Moodle's media filter shows such a link as a player
				c.embed(linkAlt(n, href), ref)
				return
			}
		}
		if href != "" {
			c.notes.add("dropped a link to %s, kept its text", clip(href, 100))
		}
		c.children(n, depth)
	case atom.Object:
		c.noteAttrs(n)
		c.object(n, depth)
	case atom.Hr:
		c.notes.add("dropped <hr>")
		c.paragraph()
	default:
		switch {
		case droppedWithContent[n.DataAtom]:
			c.notes.add("dropped <%s>", n.Data)
		case blockElements[n.DataAtom]:
			c.noteDropped(n)
			c.paragraph()
			c.children(n, depth)
			c.paragraph()
		default:
			c.noteDropped(n)
			c.children(n, depth)
		}
	}
}

// noteDropped notes an element whose markup is dropped and text kept.
func (c *converter) noteDropped(n *html.Node) {
	styled := ""
	if attr(n, "style") != "" {
		styled = " style"
	}
	if !silentElements[n.DataAtom] || styled != "" {
		c.notes.add("dropped <%s%s>", n.Data, styled)
	}
	for _, a := range n.Attr {
		if k := strings.ToLower(a.Key); strings.HasPrefix(k, "on") {
			c.notes.add("dropped the %s handler of <%s>", k, n.Data)
		}
	}
}

func (c *converter) children(n *html.Node, depth int) {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.node(ch, depth+1)
	}
}

// wrap writes n's content between open and close (emphasis, <u>, <sub>,
// <sup>), line by line, the spaces at its ends outside the marks (where
// CommonMark reads them).
func (c *converter) wrap(n *html.Node, depth int, open, close string) {
	s := c.sub()
	s.midLine, s.afterSpace = !c.atLineStart(), c.lastIsSpace()
	s.children(n, depth)
	if s.blocks { // a list or a table inside: the marks cannot hold it
		c.notes.add("dropped <%s> around a list or table", n.Data)
		c.paragraph()
		c.b.WriteString(s.b.String())
		return
	}
	inner := s.b.String()
	if strings.TrimSpace(strings.ReplaceAll(inner, "<br>", "")) == "" {
		if inner != "" && !c.lastIsSpace() {
			c.b.WriteByte(' ')
		}
		return
	}
	sep := "\n"
	if c.cell {
		sep = "<br>"
	}
	lines := strings.Split(inner, sep)
	for i, l := range lines {
		if i > 0 {
			c.b.WriteString(sep)
		}
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if strings.HasPrefix(l, " ") && !c.lastIsSpace() {
			c.b.WriteByte(' ')
		}
		c.b.WriteString(open + t + close)
		if strings.HasSuffix(l, " ") {
			c.b.WriteByte(' ')
		}
	}
}

// code writes s as a code span.
func (c *converter) code(s string) {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return
	}
	ticks := "`"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	if c.cell {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	c.b.WriteString(ticks + s + ticks)
}

// list writes a <ul> or <ol>, each item's lines indented under its marker.
func (c *converter) list(n *html.Node, depth int) {
	if c.cell {
		c.notes.add("a list inside a table cell: kept as lines")
	}
	ordered := n.DataAtom == atom.Ol
	num := 1
	if v, err := strconv.Atoi(strings.TrimSpace(attr(n, "start"))); err == nil && v >= 0 && v < 1_000_000_000 {
		num = v
	}
	if c.tight && ordered && num != 1 {
		c.tight = false // an ordered list starting elsewhere than 1 cannot interrupt a paragraph
		c.paragraph()
		c.tight = true
	} else {
		c.paragraph()
	}
	c.blocks = true
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode || li.DataAtom != atom.Li {
			if li.Type == html.TextNode && strings.TrimSpace(li.Data) == "" || li.Type != html.ElementNode && li.Type != html.TextNode {
				continue
			}
		}
		s := c.sub()
		s.tight = true
		if li.DataAtom == atom.Li {
			s.noteAttrs(li)
			s.children(li, depth+1)
		} else {
			s.node(li, depth+1)
		}
		body := s.result()
		if li.DataAtom != atom.Li && strings.TrimSpace(body) == "" {
			continue // a <br> (or other empty markup) between the items is no item
		}
		marker := "- "
		if ordered {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		indent := strings.Repeat(" ", len(marker))
		if c.cell {
			c.b.WriteString(marker + strings.ReplaceAll(body, "\n", "<br>") + "<br>")
			continue
		}
		c.b.WriteString(marker + strings.ReplaceAll(body, "\n", "\n"+indent) + "\n")
	}
	if c.cell {
		c.trimSuffix("<br>")
	}
	c.paragraph()
}

func (c *converter) trimSuffix(s string) {
	if t, ok := strings.CutSuffix(c.b.String(), s); ok {
		c.b.Reset()
		c.b.WriteString(t)
	}
}

// table writes a <table> as a pipe table: its first row is the header when
// it is in <thead> or all <th>, else the header is empty.
func (c *converter) table(n *html.Node, depth int) {
	if c.cell {
		c.notes.add("a table inside a table cell: kept as text")
		c.children(n, depth)
		return
	}
	type row struct {
		cells  []string
		header bool
	}
	var rows []row
	var walk func(*html.Node, bool)
	walk = func(p *html.Node, inHead bool) {
		for ch := p.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type != html.ElementNode {
				continue
			}
			switch ch.DataAtom {
			case atom.Thead:
				walk(ch, true)
			case atom.Tbody, atom.Tfoot:
				walk(ch, false)
			case atom.Caption:
				c.notes.add("a table's caption became a paragraph above it")
				s := c.sub()
				s.children(ch, depth+1)
				if t := s.result(); t != "" {
					c.paragraph()
					c.b.WriteString(t)
					c.paragraph()
				}
			case atom.Tr:
				r := row{header: inHead}
				allTH := true
				for td := ch.FirstChild; td != nil; td = td.NextSibling {
					if td.Type != html.ElementNode || td.DataAtom != atom.Td && td.DataAtom != atom.Th {
						continue
					}
					if td.DataAtom != atom.Th {
						allTH = false
					}
					if attr(td, "colspan") != "" && attr(td, "colspan") != "1" || attr(td, "rowspan") != "" && attr(td, "rowspan") != "1" {
						c.notes.add("a table's merged cells became single cells")
					}
					s := c.sub()
					s.tight, s.cell, s.midLine = true, true, false
					s.noteAttrs(td)
					s.children(td, depth+2)
					r.cells = append(r.cells, strings.ReplaceAll(s.result(), "\n", "<br>"))
				}
				if allTH && len(r.cells) > 0 {
					r.header = true
				}
				rows = append(rows, r)
			}
		}
	}
	walk(n, false)
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r.cells))
	}
	if cols == 0 {
		return
	}
	c.paragraph()
	c.blocks = true
	line := func(cells []string) {
		c.b.WriteString("|")
		for i := range cols {
			v := ""
			if i < len(cells) {
				v = cells[i]
			}
			c.b.WriteString(" " + v + " |")
		}
		c.b.WriteString("\n")
	}
	if rows[0].header {
		line(rows[0].cells)
		rows = rows[1:]
	} else {
		line(nil)
	}
	c.b.WriteString("|" + strings.Repeat("---|", cols) + "\n")
	for _, r := range rows {
		line(r.cells)
	}
	c.paragraph()
}

// image writes an <img> or <audio> as the exam's media, or its description
// as text when its file is not resolved.
func (c *converter) image(n *html.Node, src string, audio bool) {
	src = strings.TrimSpace(src)
	alt := strings.Join(strings.Fields(attr(n, "alt")), " ")
	if alt == "" {
		alt = strings.Join(strings.Fields(attr(n, "title")), " ")
	}
	if alt == "" {
		alt = strings.Join(strings.Fields(attr(n, "aria-label")), " ")
	}
	what := "an image"
	if audio {
		what = "an audio"
	}
	if alt == "" && audio {
		alt = strings.Join(strings.Fields(textOf(n)), " ")
	}
	ref, ok := "", false
	if src != "" && c.media != nil {
		ref, ok = c.media(src)
	}
	if !ok {
		shown := clip(src, 100)
		if IsDataURI(src) {
			shown = DataURIShown(src)
		}
		c.notes.add("dropped %s that could not be found or stored (%s)", what, shown)
		if alt != "" {
			c.text(" " + alt + " ")
		}
		return
	}
	if alt == "" {
		alt = nameAlt(src)
		c.notes.add("%s had no description: its file name %q is its description", what, alt)
	}
	c.embed(alt, ref)
}

// object writes an <object>: its fallback content (an <img> inside a
// chart's <object data="fig.svg">) when it has one, else its data as an
// image or audio.
func (c *converter) object(n *html.Node, depth int) {
	data := strings.TrimSpace(attr(n, "data"))
	fallback := false
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type == html.ElementNode && ch.DataAtom != atom.Param || ch.Type == html.TextNode && strings.TrimSpace(ch.Data) != "" {
			fallback = true
		}
	}
	switch {
	case fallback:
		c.notes.add("an <object> (%s) became its fallback content", clip(data, 100))
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.DataAtom != atom.Param {
				c.node(ch, depth+1)
			}
		}
	case data != "":
		typ := strings.ToLower(attr(n, "type"))
		c.image(n, data, strings.HasPrefix(typ, "audio/") || isAudioName(data))
	default:
		c.notes.add("dropped <object>")
	}
}

// embed writes ![alt](ref).
func (c *converter) embed(alt, ref string) {
	c.b.WriteString("![" + cleanAlt(alt, c.cell) + "](" + ref + ")")
}

// cleanAlt is a description as an image's brackets hold it. The exam shows
// a description as written (a backslash would show), so the characters
// that would end it or make markup of it are replaced by their likes:
// brackets by parentheses, a backtick by an apostrophe, angle brackets by
// single guillemets, a backslash by a slash.
func cleanAlt(alt string, cell bool) string {
	alt = strings.NewReplacer("[", "(", "]", ")", "`", "'", "<", "‹", ">", "›", `\`, "/", "\n", " ").Replace(alt)
	if cell {
		alt = strings.ReplaceAll(alt, "|", "/")
	}
	return alt
}

// linkAlt is the description of an audio shown by a link: its text, or
// its file's name.
func linkAlt(n *html.Node, href string) string {
	t := strings.Join(strings.Fields(textOf(n)), " ")
	if t == "" || t == path.Base(href) || strings.Contains(t, "://") {
		return nameAlt(href)
	}
	return t
}

// nameAlt is a description made from a file's name: "grafik_suhu-2.png"
// is "grafik suhu 2".
func nameAlt(src string) string {
	name := src
	if i := strings.IndexAny(name, "?#"); i >= 0 {
		name = name[:i]
	}
	name = path.Base(name)
	if u, err := url.PathUnescape(name); err == nil {
		name = u
	}
	name = strings.TrimSuffix(name, path.Ext(name))
	name = strings.Join(strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == ' ' }), " ")
	if name == "" || !utf8.ValidString(name) {
		return "gambar"
	}
	return clip(name, 100)
}

func isAudioName(s string) bool {
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	switch strings.ToLower(path.Ext(s)) {
	case ".mp3", ".ogg", ".oga", ".opus", ".m4a", ".aac":
		return true
	}
	return false
}

// text writes a text node: its whitespace collapsed as a browser shows it,
// its math converted, the rest escaped.
func (c *converter) text(s string) {
	if !c.pre {
		s = collapseSpace(s)
		if strings.HasPrefix(s, " ") && c.lastIsSpace() {
			s = s[1:]
		}
		if s == "" {
			return
		}
	}
	for s != "" {
		i, open, close, display := nextMath(s)
		if i < 0 {
			c.plain(s)
			return
		}
		j := strings.Index(s[i+len(open):], close)
		if j < 0 {
			c.plain(s)
			return
		}
		c.plain(s[:i])
		tex := s[i+len(open) : i+len(open)+j]
		s = s[i+len(open)+j+len(close):]
		c.math(tex, display)
	}
}

// nextMath finds the first TeX opening delimiter of s: \( (inline), \[ or
// $$ (display).
func nextMath(s string) (i int, open, close string, display bool) {
	best := -1
	for _, d := range [...]struct {
		open, close string
		display     bool
	}{{`\(`, `\)`, false}, {`\[`, `\]`, true}, {`$$`, `$$`, true}} {
		if k := strings.Index(s, d.open); k >= 0 && (best < 0 || k < best) {
			best, open, close, display = k, d.open, d.close, d.display
		}
	}
	return best, open, close, display
}

// math writes a formula as the exam writes it: $…$ inline, on one line;
// $$…$$ display.
func (c *converter) math(tex string, display bool) {
	tex = strings.TrimSpace(strings.Join(strings.Fields(tex), " "))
	if tex == "" {
		return
	}
	if c.cell {
		tex = strings.ReplaceAll(tex, "|", `\|`)
	}
	if display {
		c.b.WriteString("$$" + tex + "$$")
		return
	}
	c.b.WriteString("$" + tex + "$")
}

// plain writes text escaped, so that it shows as typed.
func (c *converter) plain(s string) {
	if s == "" {
		return
	}
	if !c.pre {
		if strings.HasPrefix(s, " ") && c.lastIsSpace() {
			s = s[1:]
		}
		c.b.WriteString(escapeText(s, c.atLineStart(), c.cell))
		return
	}
	for i, l := range strings.Split(s, "\n") {
		if i > 0 {
			c.lineBreak()
		}
		l = strings.TrimLeft(l, " \t")
		c.b.WriteString(escapeText(l, c.atLineStart(), c.cell))
	}
}

// escapeText escapes the characters of s that markdown would read as
// markup or math; lineStart: s starts a line (where "#", "- ", "1. " would
// start a heading or a list).
func escapeText(s string, lineStart, cell bool) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			if cell {
				b.WriteString("<br>")
			} else {
				b.WriteByte('\n')
			}
			lineStart = true
		}
		mark := -1
		if lineStart {
			line = strings.TrimLeft(line, " \t")
			mark = lineStartMark(line)
		}
		for k, r := range line {
			switch {
			case k == mark:
				b.WriteByte('\\')
			case r == '\\', r == '*', r == '_', r == '`', r == '[', r == ']', r == '<', r == '&', r == '$', r == '|':
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// lineStartMark is the index of the character to escape at a line's start
// where it would start a block: a heading "#", a list "- ", "+ ", "1. ",
// "1) ", an underline "---", "==="; -1 for none.
func lineStartMark(l string) int {
	if l == "" {
		return -1
	}
	switch l[0] {
	case '#', '+', '-', '=':
		return 0
	}
	k := 0
	for k < len(l) && k < 10 && l[k] >= '0' && l[k] <= '9' {
		k++
	}
	if k > 0 && k < len(l) && (l[k] == '.' || l[k] == ')') {
		return k
	}
	return -1
}

// collapseSpace makes each run of HTML whitespace one space.
func collapseSpace(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// textOf is the text of n and its descendants, iteratively (however deep).
func textOf(n *html.Node) string {
	var b strings.Builder
	stack := []*html.Node{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x.Type == html.TextNode {
			b.WriteString(x.Data)
			continue
		}
		if x.Type == html.ElementNode && droppedWithContent[x.DataAtom] {
			continue
		}
		for ch := x.LastChild; ch != nil; ch = ch.PrevSibling {
			stack = append(stack, ch)
		}
	}
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}

// clip shortens s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
