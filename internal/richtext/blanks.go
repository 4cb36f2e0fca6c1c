package richtext

import (
	"regexp"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// A cloze question's text marks each blank [[id]], where id is the blank's
// id (letters, digits, dots, dashes, underscores; at most 64). The marker
// renders as an empty <span class="blank" data-blank="id"></span> that the
// student's page fills with the blank's field; in a code span or a formula it
// is text, and \[[id]] (escaped) shows the brackets as typed.

// blankNode is a blank's marker.
type blankNode struct {
	ast.BaseInline
	id string
}

var kindBlank = ast.NewNodeKind("Blank")

func (n *blankNode) Kind() ast.NodeKind { return kindBlank }

func (n *blankNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"ID": n.id}, nil)
}

// blankMarker matches a marker at the start of the rest of a line.
var blankMarker = regexp.MustCompile(`^\[\[([A-Za-z0-9._-]{1,64})\]\]`)

// blankParser reads [[id]] before the link parser sees its brackets.
type blankParser struct{}

func (blankParser) Trigger() []byte { return []byte{'['} }

func (blankParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, _ := block.PeekLine()
	m := blankMarker.FindSubmatch(line)
	if m == nil {
		return nil
	}
	block.Advance(len(m[0]))
	return &blankNode{id: string(m[1])}
}

// Blanks returns the ids of the blank markers of a markdown text, in order,
// as Render would show them (not those in code spans or formulas), without
// rendering it.
func Blanks(src string) []string {
	source := []byte(src)
	doc := markdown.Parser().Parse(text.NewReader(source))
	var ids []string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if b, ok := n.(*blankNode); ok && entering {
			ids = append(ids, b.id)
		}
		return ast.WalkContinue, nil
	})
	return ids
}
