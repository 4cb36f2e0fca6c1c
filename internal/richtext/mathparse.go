package richtext

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// mathNode is a formula: its TeX source, display or inline.
type mathNode struct {
	ast.BaseInline
	tex     string
	display bool
	delim   string // "$" or "$$", to show the source of a formula in error
}

var kindMath = ast.NewNodeKind("Math")

func (n *mathNode) Kind() ast.NodeKind { return kindMath }

func (n *mathNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"TeX": n.tex}, nil)
}

// mathParser reads math the way Pandoc's tex_math_dollars does, so that
// prices and other lone dollars stay text:
//
//   - $$…$$ is display math, and may span lines of one paragraph;
//   - $…$ is inline math on one line: the opening $ is not followed by a
//     space, the closing $ is not preceded by a space nor followed by a
//     digit;
//   - \$ is a dollar sign, outside math (CommonMark's escape) and inside
//     (TeX's), and never ends a formula.
type mathParser struct{}

func (mathParser) Trigger() []byte { return []byte{'$'} }

func (mathParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, _ := block.PeekLine()
	if len(line) >= 2 && line[1] == '$' {
		return parseDisplay(block)
	}
	// Inline: $x$ within the line.
	if len(line) < 3 || isSpace(line[1]) {
		return nil
	}
	for i := 1; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++ // an escaped character, \$ included
		case '$':
			if isSpace(line[i-1]) || (i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9') {
				continue
			}
			block.Advance(i + 1)
			return &mathNode{tex: string(line[1:i]), delim: "$"}
		case '\n', '\r':
			return nil
		}
	}
	return nil
}

// parseDisplay reads $$…$$ from the reader's position, over lines of the
// paragraph; without a closing $$ it reads nothing (the dollars are text).
func parseDisplay(block text.Reader) ast.Node {
	savedLine, savedPos := block.Position()
	line, _ := block.PeekLine()
	rest, offset := line[2:], 2 // rest is line after the offset bytes read
	var tex bytes.Buffer
	for {
		if i := closingDollars(rest); i >= 0 {
			tex.Write(rest[:i])
			block.Advance(offset + i + 2)
			src := bytes.TrimSpace(tex.Bytes())
			if len(src) == 0 {
				block.SetPosition(savedLine, savedPos)
				return nil
			}
			return &mathNode{tex: string(src), display: true, delim: "$$"}
		}
		tex.Write(rest)
		block.AdvanceLine()
		next, _ := block.PeekLine()
		if next == nil {
			break
		}
		rest, offset = next, 0
	}
	// No closing $$: go back and leave the dollars as text.
	block.SetPosition(savedLine, savedPos)
	return nil
}

// closingDollars is the index of the first $$ in b not escaped by a
// backslash, or -1.
func closingDollars(b []byte) int {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\\' {
			i++
			continue
		}
		if b[i] == '$' && b[i+1] == '$' {
			return i
		}
	}
	return -1
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
