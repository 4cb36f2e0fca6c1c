package qbank

import (
	"html"
	"regexp"
	"strconv"
	"strings"
)

// An importer of a cloze question writes a placeholder where each blank
// goes in the HTML (or plain text) it converts: private-use characters
// around the blank's number, which HTMLToMarkdown keeps as they are (where
// [[id]] would be escaped as text); MarkBlanks then writes the markers.
const blankOpen, blankClose = "\uE100", "\uE101"

var blankPlaceholder = regexp.MustCompile(blankOpen + `([0-9]+)` + blankClose)

// BlankPlaceholder is the placeholder of the blank numbered i.
func BlankPlaceholder(i int) string { return blankOpen + strconv.Itoa(i) + blankClose }

// MarkBlanks replaces each placeholder of md by its blank's marker,
// [[id(i)]].
func MarkBlanks(md string, id func(i int) string) string {
	return blankPlaceholder.ReplaceAllStringFunc(md, func(s string) string {
		n, _ := strconv.Atoi(s[len(blankOpen) : len(s)-len(blankClose)])
		return "[[" + id(n) + "]]"
	})
}

// PlainToMarkdown is a plain text as markdown that shows it as typed (its
// line breaks kept, its markdown characters escaped, its placeholders
// kept).
func PlainToMarkdown(s string) string {
	md, _ := HTMLToMarkdown(strings.ReplaceAll(html.EscapeString(s), "\n", "<br>"), nil)
	return md
}
