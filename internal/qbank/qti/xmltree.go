package qti

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/seedhq/portal/internal/qbank"
)

// node is an element or a text of an XML document. QTI 3.0's kebab-case
// names (qti-choice-interaction, max-choices) are read as QTI 2.1's
// (choiceInteraction, maxChoices), so one reader serves both versions.
type node struct {
	Name  string // the element's local name, normalised; "" for a text
	Space string // the element's namespace
	Attr  map[string]string
	Kids  []*node
	Text  string // a text node's text
}

// attr returns the attribute named name, "" when it has none.
func (n *node) attr(name string) string { return n.Attr[name] }

// child is n's first child element named name, nil when none.
func (n *node) child(name string) *node {
	for _, k := range n.Kids {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// children are n's child elements named name.
func (n *node) children(name string) []*node {
	var out []*node
	for _, k := range n.Kids {
		if k.Name == name {
			out = append(out, k)
		}
	}
	return out
}

// find returns every element under n (n included) for which ok is true,
// in document order, not looking inside the elements found.
func (n *node) find(ok func(*node) bool) []*node {
	var out []*node
	var walk func(*node)
	walk = func(m *node) {
		if m.Name == "" {
			return
		}
		if ok(m) {
			out = append(out, m)
			return
		}
		for _, k := range m.Kids {
			walk(k)
		}
	}
	walk(n)
	return out
}

// textContent is the text of n and its descendants.
func (n *node) textContent() string {
	if n.Name == "" {
		return n.Text
	}
	var b strings.Builder
	for _, k := range n.Kids {
		b.WriteString(k.textContent())
	}
	return b.String()
}

// errDoctype refuses a document with a DOCTYPE or an entity declaration.
var errDoctype = errors.New("a DOCTYPE or entity declaration is refused")

// parseXML reads one XML document: well-formed, UTF-8, without DOCTYPE
// (so no external entities and no entity expansion), nested at most
// qbank.MaxXMLDepth deep.
func parseXML(data []byte) (*node, error) {
	text, utf16 := qbank.UTF8Reader(bytes.NewReader(data)) // UTF-16 with its byte-order mark is decoded
	d := xml.NewDecoder(text)
	d.Strict = true
	d.Entity = xml.HTMLEntity // a fixed table (&nbsp; and the like): nothing a document declares
	d.CharsetReader = qbank.CharsetReader(utf16)
	var root *node
	var stack []*node
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, qbank.EncodingError(err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			s := strings.ToUpper(strings.TrimSpace(string(t)))
			if strings.HasPrefix(s, "DOCTYPE") || strings.HasPrefix(s, "ENTITY") || strings.Contains(s, "ENTITY") {
				return nil, errDoctype
			}
			return nil, fmt.Errorf("the directive <!%s> is refused", firstWord(s))
		case xml.StartElement:
			if len(stack) >= qbank.MaxXMLDepth {
				return nil, fmt.Errorf("the document is nested more than %d deep", qbank.MaxXMLDepth)
			}
			n := &node{Name: t.Name.Local, Space: t.Name.Space}
			qti := strings.HasPrefix(n.Name, "qti-")
			if qti {
				n.Name = camel(strings.TrimPrefix(n.Name, "qti-"))
			}
			if len(t.Attr) > 0 {
				n.Attr = make(map[string]string, len(t.Attr))
				for _, a := range t.Attr {
					if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
						continue
					}
					name := a.Name.Local
					if qti {
						name = camel(name)
					}
					if a.Name.Space == "xml" || a.Name.Space == "http://www.w3.org/XML/1998/namespace" {
						name = "xml:" + name
					}
					n.Attr[name] = a.Value
				}
			}
			if len(stack) == 0 {
				if root != nil {
					return nil, errors.New("the document has two root elements")
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.Kids = append(p.Kids, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) == 0 {
				continue
			}
			p := stack[len(stack)-1]
			if k := len(p.Kids); k > 0 && p.Kids[k-1].Name == "" {
				p.Kids[k-1].Text += string(t)
			} else {
				p.Kids = append(p.Kids, &node{Text: string(t)})
			}
		}
	}
	if root == nil {
		return nil, errors.New("the document has no root element")
	}
	return root, nil
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// camel turns kebab-case into camelCase: "max-choices" is "maxChoices".
func camel(s string) string {
	if !strings.Contains(s, "-") {
		return s
	}
	var b strings.Builder
	up := false
	for _, r := range s {
		switch {
		case r == '-':
			up = true
		case up:
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
