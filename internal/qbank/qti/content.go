package qti

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/richtext"
)

// text is a synthetic node holding s (a blank, a separator).
func textNode(s string) *node { return &node{Text: s} }

// blank is what an inline interaction leaves in its sentence.
const blank = "_____"

// maxTextHTML bounds one text's HTML: its markdown is at most
// richtext.MaxSource.
const maxTextHTML = 1 << 20

// replacements say what to write instead of some nodes of a text: the
// interaction (its prompt, a blank) and what a question keeps elsewhere
// (a rubric). A node mapped to nil is left out.
type replacements map[*node][]*node

// texts converts XHTML contents, each the children of one node, to the
// exam's texts in one format: plain when none has more than paragraphs,
// line breaks and text, else markdown (with its media stored and its
// math as TeX). A missing media file refuses the item (MEDIA_NOT_FOUND),
// a formula that does not render too (TEX_ERROR).
func (ir *itemReader) texts(parts []*node, repl replacements) (format string, out []string, err error) {
	plain := true
	for _, p := range parts {
		if !plainContent(p, repl, true) {
			plain = false
		}
	}
	if plain {
		for _, p := range parts {
			out = append(out, plainText(p, repl))
		}
		return "", out, nil
	}
	var missing, refused []string
	audio := map[string]bool{}
	mediaFn := func(src string) (string, bool) {
		if ir.imp.fatal != nil {
			return "", false
		}
		if qbank.IsDataURI(src) {
			m, err := qbank.StoreDataURI(ir.imp.ctx, ir.imp.media, src)
			if err != nil && apperr.KindOf(err) == apperr.Internal {
				ir.imp.fatal = fmt.Errorf("qti import: store a data: URI: %w", err)
				return "", false
			}
			if err != nil {
				ir.lose("the image %s cannot be stored: %s", qbank.DataURIShown(src), apperr.From(err).Message)
				return "", false
			}
			audio[m.SHA256] = m.Kind == exam.MediaAudio
			return "media:" + m.SHA256, true
		}
		p, ok := resolve(ir.path, src)
		if !ok || ir.imp.a.files[p] == nil {
			missing = append(missing, src)
			return "", false
		}
		u, err := ir.imp.uploadMedia(p)
		if err != nil {
			ir.imp.fatal = err
			return "", false
		}
		if u.refused != "" {
			refused = append(refused, src)
			ir.lose("dropped the media file %s, which the portal refuses: %s", p, u.refused)
			return "", false
		}
		audio[u.m.SHA256] = u.m.Kind == exam.MediaAudio
		return "media:" + u.m.SHA256, true
	}
	for _, p := range parts {
		var b strings.Builder
		if err := ir.writeHTML(&b, p, repl, true); err != nil {
			return "", nil, err
		}
		if b.Len() > maxTextHTML {
			return "", nil, refuse(codeInvalidItem, "a text is longer than %d KiB as HTML", maxTextHTML>>10)
		}
		md, changes := qbank.HTMLToMarkdown(b.String(), mediaFn)
		if ir.imp.fatal != nil {
			return "", nil, ir.imp.fatal
		}
		if len(missing) > 0 {
			return "", nil, refuse(codeMediaNotFound, "the package has no file %q", missing[0])
		}
	changes:
		for _, c := range changes {
			for _, src := range refused {
				if strings.HasSuffix(c, "("+src+")") {
					continue changes // said already, with the portal's reason
				}
			}
			ir.note("%s", c)
		}
		if len(md) > richtext.MaxSource {
			return "", nil, refuse(codeInvalidItem, "a text is longer than %d KiB as markdown", richtext.MaxSource>>10)
		}
		res, err := richtext.Render(richtext.Markdown, md, richtext.Options{Media: func(sha string) (richtext.Media, bool) {
			a, ok := audio[sha]
			return richtext.Media{URL: "media/" + sha, Audio: a}, ok
		}})
		if err != nil {
			return "", nil, err
		}
		for _, pr := range res.Problems {
			if pr.Code == "TEX_ERROR" {
				return "", nil, refuse(codeTeXError, "the formula %q does not render: %s", pr.Source, pr.Message)
			}
		}
		out = append(out, md)
	}
	return string(richtext.Markdown), out, nil
}

// plainContent reports whether n's children are only text, paragraphs
// and line breaks.
func plainContent(n *node, repl replacements, top bool) bool {
	if !top {
		if r, ok := repl[n]; ok {
			for _, k := range r {
				if !plainContent(k, repl, false) {
					return false
				}
			}
			return true
		}
		switch n.Name {
		case "":
			// TeX between \( \), \[ \] or $$ is math (HTMLToMarkdown).
			return !strings.Contains(n.Text, `\(`) && !strings.Contains(n.Text, `\[`) && !strings.Contains(n.Text, "$$")
		case "p", "div", "br", "span", "prompt", "contentBody", "stimulusBody", "simpleChoice", "simpleAssociableChoice", "inlineChoice":
			if n.Name == "span" && n.attr("class") != "" {
				return false
			}
		default:
			return false
		}
	}
	for _, k := range n.Kids {
		if !plainContent(k, repl, false) {
			return false
		}
	}
	return true
}

// plainText is n's content as plain text: a blank line between
// paragraphs, a line break for <br>, spaces collapsed.
func plainText(n *node, repl replacements) string {
	const para = "\x01"
	var b strings.Builder
	var walk func(*node, bool)
	walk = func(m *node, top bool) {
		if !top {
			if r, ok := repl[m]; ok {
				for _, k := range r {
					walk(k, false)
				}
				return
			}
		}
		switch m.Name {
		case "":
			b.WriteString(collapseSpace(m.Text))
			return
		case "br":
			b.WriteString("\n")
			return
		case "p", "div":
			b.WriteString(para)
			for _, k := range m.Kids {
				walk(k, false)
			}
			b.WriteString(para)
			return
		}
		for _, k := range m.Kids {
			walk(k, false)
		}
	}
	walk(n, true)
	// Trim each line; a run of paragraph marks is a blank line between
	// texts, nothing at the ends.
	lines := strings.Split(multiSpace.ReplaceAllString(b.String(), " "), "\n")
	for i, l := range lines {
		lines[i] = strings.Trim(l, " ")
	}
	s := strings.Join(lines, "\n")
	var out strings.Builder
	for s != "" {
		i := strings.Index(s, para)
		if i < 0 {
			out.WriteString(s)
			break
		}
		out.WriteString(strings.TrimRight(s[:i], " "))
		s = s[i:]
		j := 0
		for j < len(s) && (s[j] == '\x01' || s[j] == ' ' || s[j] == '\n') {
			j++
		}
		s = s[j:]
		if out.Len() > 0 && s != "" {
			o := strings.TrimRight(out.String(), "\n")
			out.Reset()
			out.WriteString(o + "\n\n")
			s = strings.TrimLeft(s, "\n")
		}
	}
	return strings.TrimSpace(out.String())
}

var multiSpace = regexp.MustCompile(` {2,}`)

// collapseSpace turns each run of XML whitespace in s into one space.
func collapseSpace(s string) string {
	var b strings.Builder
	sp := false
	for _, r := range s {
		if isXMLSpace(r) {
			if !sp {
				b.WriteByte(' ')
			}
			sp = true
			continue
		}
		sp = false
		b.WriteRune(r)
	}
	return b.String()
}

func isXMLSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// voidElements are written without a closing tag.
var voidElements = map[string]bool{"br": true, "img": true, "hr": true, "col": true, "source": true, "wbr": true}

// qtiContainers are QTI elements whose content is the text's (their
// markup is not).
var qtiContainers = map[string]bool{"prompt": true, "contentBody": true, "stimulusBody": true, "itemBody": true,
	"simpleChoice": true, "simpleAssociableChoice": true, "inlineChoice": true, "gap": true}

// writeHTML writes n's content as HTML for HTMLToMarkdown: its math as
// \(TeX\) or \[TeX\], its <object>s as images and audio, the QTI
// shared vocabulary's underline as <u>.
func (ir *itemReader) writeHTML(b *strings.Builder, n *node, repl replacements, top bool) error {
	if !top {
		if r, ok := repl[n]; ok {
			for _, k := range r {
				if err := ir.writeHTML(b, k, repl, false); err != nil {
					return err
				}
			}
			return nil
		}
		if n.Name == "" {
			b.WriteString(escapeText(n.Text))
			return nil
		}
		switch {
		case n.Name == "math":
			return ir.writeMath(b, n)
		case n.Name == "object":
			return ir.writeObject(b, n, repl)
		case n.Name == "rubricBlock":
			return nil // an essay's rubric is read apart
		case n.Name == "feedbackInline" || n.Name == "feedbackBlock" || n.Name == "modalFeedback":
			return nil // noted by the item
		case n.Name == "templateInline" || n.Name == "templateBlock" || n.Name == "printedVariable":
			ir.note("dropped the item's %s", n.Name)
			return nil
		case qtiContainers[n.Name]:
			b.WriteString("<div>")
			defer b.WriteString("</div>")
		case n.Name == "span" && strings.Contains(" "+n.attr("class")+" ", " qti-underline "):
			b.WriteString("<u>")
			defer b.WriteString("</u>")
		case interactions[n.Name] || strings.Contains(n.Name, "Interaction") || strings.HasPrefix(n.Name, "qti"):
			ir.note("dropped the item's %s", n.Name)
			return nil
		default:
			b.WriteString("<" + n.Name)
			for k, v := range n.Attr {
				if strings.HasPrefix(k, "xml:") || strings.ContainsAny(k, "<>\"' /=") {
					continue
				}
				b.WriteString(" " + k + `="` + escapeText(v) + `"`)
			}
			b.WriteString(">")
			if voidElements[n.Name] {
				return nil
			}
			defer b.WriteString("</" + n.Name + ">")
		}
	}
	for _, k := range n.Kids {
		if err := ir.writeHTML(b, k, repl, false); err != nil {
			return err
		}
	}
	return nil
}

// writeMath writes a <math> as TeX between \( \) or \[ \]: its TeX
// annotation or its presentation converted. MathML with no TeX here is
// written as its text, noted; TeX that does not render refuses the item.
func (ir *itemReader) writeMath(b *strings.Builder, m *node) error {
	tex, display, err := mathTeX(m)
	if err == nil && texAnnotation(m) != "" {
		if _, merr := richtext.MathML(tex, display); merr != nil {
			// A TeX annotation the portal cannot render: the presentation may.
			if t, err2 := mathChildren(m); err2 == nil && strings.TrimSpace(t) != "" {
				if _, e := richtext.MathML(strings.TrimSpace(t), display); e == nil {
					ir.note("a formula's TeX annotation does not render (%s): its MathML converted instead", clip(tex, 80))
					tex = strings.TrimSpace(t)
				}
			}
		}
	}
	if err != nil {
		txt := strings.Join(strings.FieldsFunc(m.textContent(), isXMLSpace), " ")
		ir.note("a formula kept as its text %q: %v", clip(txt, 80), err)
		b.WriteString(escapeText(txt))
		return nil
	}
	if tex == "" {
		return nil
	}
	if _, err := richtext.MathML(tex, display); err != nil {
		var me *richtext.MathError
		if errors.As(err, &me) {
			return refuse(codeTeXError, "the formula %q does not render: %s", clip(tex, 200), me.Message)
		}
		return err
	}
	tex = strings.Join(strings.FieldsFunc(tex, isXMLSpace), " ")
	if display {
		b.WriteString(escapeText(`\[` + tex + `\]`))
	} else {
		b.WriteString(escapeText(`\(` + tex + `\)`))
	}
	return nil
}

// writeObject writes QTI 2.1's <object data type> as an image or an audio.
func (ir *itemReader) writeObject(b *strings.Builder, o *node, repl replacements) error {
	src, typ := o.attr("data"), strings.ToLower(o.attr("type"))
	alt := strings.Join(strings.FieldsFunc(o.textContent(), isXMLSpace), " ")
	if alt == "" {
		alt = o.attr("title")
	}
	ext := strings.ToLower(path.Ext(src))
	shown := typ == "image/png" || typ == "image/jpeg" || typ == "image/webp" || strings.HasPrefix(typ, "audio/") ||
		typ == "" && (ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".webp")
	if !shown && o.find(func(n *node) bool { return n != o && (n.Name == "img" || n.Name == "object") }) != nil {
		// A fallback the exam can show (a PNG inside an SVG's <object>).
		ir.note("an <object> of type %q (%s) became its fallback content", typ, clip(src, 100))
		for _, k := range o.Kids {
			if k.Name == "param" {
				continue
			}
			if err := ir.writeHTML(b, k, repl, false); err != nil {
				return err
			}
		}
		return nil
	}
	switch {
	case strings.HasPrefix(typ, "image/") || ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".webp" || ext == ".gif" || ext == ".svg":
		b.WriteString(`<img src="` + escapeText(src) + `" alt="` + escapeText(alt) + `">`)
	case strings.HasPrefix(typ, "audio/") || ext == ".mp3" || ext == ".ogg" || ext == ".m4a" || ext == ".aac" || ext == ".oga" || ext == ".opus":
		b.WriteString(`<audio src="` + escapeText(src) + `" aria-label="` + escapeText(alt) + `"></audio>`)
	default:
		ir.note("dropped an <object> of type %q (%s): the exam shows images and audio", typ, clip(src, 100))
	}
	return nil
}
