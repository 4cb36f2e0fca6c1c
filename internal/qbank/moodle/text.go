package moodle

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlToPlain is HTML as the text a browser shows: whitespace collapsed,
// <br> and the ends of blocks as line breaks, scripts and styles dropped.
func htmlToPlain(s string) string {
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(s), body)
	if err != nil {
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	type frame struct {
		n    *html.Node
		exit bool
	}
	var stack []frame
	for i := len(nodes) - 1; i >= 0; i-- {
		stack = append(stack, frame{n: nodes[i]})
	}
	space := true
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := f.n
		if f.exit {
			if isBlock(n.DataAtom) {
				trimRightSpace(&b)
				b.WriteByte('\n')
				space = true
			}
			continue
		}
		switch n.Type {
		case html.TextNode:
			for _, r := range n.Data {
				if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' {
					if !space {
						b.WriteByte(' ')
						space = true
					}
					continue
				}
				b.WriteRune(r)
				space = false
			}
			continue
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Template, atom.Head, atom.Title:
				continue
			case atom.Br:
				trimRightSpace(&b)
				b.WriteByte('\n')
				space = true
				continue
			case atom.Img:
				if alt := strings.TrimSpace(attrOf(n, "alt")); alt != "" {
					b.WriteString(alt)
					space = false
				}
				continue
			}
			if isBlock(n.DataAtom) && b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
				trimRightSpace(&b)
				b.WriteByte('\n')
				space = true
			}
		}
		stack = append(stack, frame{n: n, exit: true})
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, frame{n: c})
		}
	}
	lines := strings.Split(b.String(), "\n")
	out := lines[:0]
	for _, l := range lines {
		out = append(out, strings.TrimSpace(l))
	}
	return strings.TrimSpace(collapseBlankLines(strings.Join(out, "\n")))
}

func collapseBlankLines(s string) string {
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return s
}

func trimRightSpace(b *strings.Builder) {
	s := b.String()
	t := strings.TrimRight(s, " ")
	if len(t) != len(s) {
		b.Reset()
		b.WriteString(t)
	}
}

func isBlock(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Li, atom.Ul, atom.Ol, atom.Tr, atom.Table, atom.H1, atom.H2, atom.H3, atom.H4,
		atom.H5, atom.H6, atom.Blockquote, atom.Pre, atom.Section, atom.Article:
		return true
	}
	return false
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
