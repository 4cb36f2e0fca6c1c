package qbank

import "testing"

// TestBlankPlaceholders: a placeholder survives the conversion of HTML and
// of plain text to markdown, and becomes its blank's marker; the text
// around it reads as typed.
func TestBlankPlaceholders(t *testing.T) {
	id := func(i int) string { return []string{"b1", "x.2"}[i] }
	md, _ := HTMLToMarkdown("<p>Harga <b>$5</b> [1] "+BlankPlaceholder(0)+"</p><p>*"+BlankPlaceholder(1)+"*</p>", nil)
	if got, want := MarkBlanks(md, id), `Harga **\$5** \[1\] [[b1]]`+"\n\n"+`\*[[x.2]]\*`; got != want {
		t.Errorf("HTML: %q, want %q", got, want)
	}
	if got, want := MarkBlanks(PlainToMarkdown("a_b <i> "+BlankPlaceholder(1)+"\n# c"), id), `a\_b \<i> [[x.2]]`+"\n"+`\# c`; got != want {
		t.Errorf("plain: %q, want %q", got, want)
	}
}
