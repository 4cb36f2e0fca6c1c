package sheet

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
)

// Numeric and cloze rows (docs/question-banks.md, "Spreadsheet").
//
// A numeric row's key lists the accepted numbers, one a line, typed with
// either decimal separator (or a number cell); its tolerance column is an
// absolute ± ("0,5") or, with a trailing %, a percentage of the key ("5%").
//
// A cloze row's text marks its blanks [[b1]], [[b2]], …; its key has a line
// per blank (or the lines joined by ";"), "id = key", the id followed by
// its points in parentheses when they are not 1 ("b2 (2) = …"):
//
//	b1 = Jakarta | DKI Jakarta       a text blank: the accepted answers
//	b2 = 128,3 ± 0,5                 a number blank: the numbers, "±" (or
//	                                 "+-") and the tolerance, 5% relative,
//	                                 ± 0 exact
//	b3 = *selatan | utara | barat    a choice blank: its choices, the
//	                                 right one marked with *
//
// A "|", ";" or a leading "*" that is part of an answer is written "\|",
// "\;", "\*".

// typeAliases are the Indonesian names of the new types a teacher may type.
var typeAliases = map[string]exam.QuestionType{"isian_angka": exam.Numeric, "isian_rumpang": exam.Cloze}

// readTolerance reads a numeric row's tolerance column into q; any other
// row must leave it empty.
func readTolerance(q *exam.Question, cell string) *refusal {
	cell = strings.TrimSpace(cell)
	if cell == "" {
		return nil
	}
	if q.Type != exam.Numeric {
		return refuse("INVALID_ITEM", "tolerance is a numeric question's (a cloze blank's is in its key: b2 = 128,3 ± 0,5)")
	}
	t, mode, ok := parseTolerance(cell)
	if !ok {
		return refuse("INVALID_ITEM", "the tolerance %q is neither a number (0,5) nor a percentage (5%%)", titleOf(cell))
	}
	q.Tolerance, q.ToleranceMode = t, mode
	return nil
}

// parseTolerance reads "0,5" (absolute) or "5%" (relative).
func parseTolerance(s string) (float64, string, bool) {
	s = strings.TrimSpace(s)
	mode := exam.ToleranceAbsolute
	if v, ok := strings.CutSuffix(s, "%"); ok {
		s, mode = strings.TrimSpace(v), exam.ToleranceRelative
	}
	r, ok := exam.ParseNumber(s)
	if !ok {
		return 0, "", false
	}
	f, _ := r.Float64()
	return f, mode, f >= 0
}

// formatTolerance writes a tolerance as parseTolerance reads it.
func formatTolerance(t float64, mode string) string {
	s := strconv.FormatFloat(t, 'f', -1, 64)
	if mode == exam.ToleranceRelative {
		s += "%"
	}
	return s
}

var (
	// blankLine is a blank's key: "id (points) = key".
	blankLine = regexp.MustCompile(`^\s*([A-Za-z0-9._-]{1,64})\s*(?:\(\s*([0-9]+(?:[.,][0-9]+)?)\s*\))?\s*=(.*)$`)
	// numberKey is a number blank's key: numbers, ± and the tolerance.
	numberKey = regexp.MustCompile(`^(.*?)\s*(?:±|\+-|\+/-)\s*([^|]*?)\s*$`)
	// clozeMarker is a blank's marker in the text.
	clozeMarker = regexp.MustCompile(`\[\[[A-Za-z0-9._-]{1,64}\]\]`)
)

// readCloze reads a cloze row: its key into blanks, its text (plain made
// markdown, the markers kept), its points (the points column, when no
// blank has its own, shared among the blanks).
func readCloze(q *exam.Question, keyCell string, changes *[]string) *refusal {
	q.Answer = nil
	var lines []string
	for _, l := range splitUnescaped(keyCell, '\n') {
		for _, part := range splitUnescaped(l, ';') {
			if strings.TrimSpace(part) == "" {
				continue
			}
			if len(lines) > 0 && !blankLine.MatchString(part) {
				lines[len(lines)-1] += ";" + part
				continue
			}
			lines = append(lines, part)
		}
	}
	if len(lines) == 0 {
		return refuse("INVALID_ITEM", "a cloze question's key has a line per blank: b1 = Jakarta | DKI Jakarta")
	}
	explicit := false
	for _, l := range lines {
		m := blankLine.FindStringSubmatch(l)
		if m == nil {
			return refuse("INVALID_ITEM", `the key line %q is not "id = key" (b1 = Jakarta)`, titleOf(l))
		}
		b := exam.Blank{ID: m[1]}
		if m[2] != "" {
			p, _ := strconv.ParseFloat(strings.Replace(m[2], ",", ".", 1), 64)
			b.Points, explicit = p, true
		}
		if ref := parseBlankKey(&b, strings.TrimSpace(m[3]), q.Format); ref != nil {
			return ref
		}
		q.Blanks = append(q.Blanks, b)
	}
	switch n := float64(len(q.Blanks)); {
	case q.Points != 0 && !explicit:
		for i := range q.Blanks {
			q.Blanks[i].Points = q.Points / n
		}
	case q.Points != 0:
		sum := 0.0
		for _, b := range q.Blanks {
			if b.Points == 0 {
				b.Points = 1 // the exam's default
			}
			sum += b.Points
		}
		if sum != q.Points {
			*changes = append(*changes, fmt.Sprintf("the points became the blanks' sum, %s (the points column said %s)",
				strconv.FormatFloat(sum, 'f', -1, 64), strconv.FormatFloat(q.Points, 'f', -1, 64)))
		}
	}
	if q.Format == "" {
		q.Format = "markdown"
		q.Text = plainToMarkdown(q.Text, true)
	}
	return nil
}

// parseBlankKey reads one blank's key (after the "=").
func parseBlankKey(b *exam.Blank, key, format string) *refusal {
	alts := splitUnescaped(key, '|')
	for i := range alts {
		alts[i] = strings.TrimSpace(alts[i])
	}
	starred := 0
	for _, a := range alts {
		if strings.HasPrefix(a, "*") {
			starred++
		}
	}
	if m := numberKey.FindStringSubmatch(key); m != nil && starred == 0 {
		values := splitUnescaped(m[1], '|')
		allNumbers := len(values) > 0
		for i, v := range values {
			values[i] = strings.TrimSpace(v)
			_, ok := exam.ParseNumber(values[i])
			allNumbers = allNumbers && ok
		}
		if allNumbers {
			t, mode, ok := parseTolerance(m[2])
			if !ok {
				return refuse("INVALID_ITEM", "blank %s: the tolerance %q is neither a number (0,5) nor a percentage (5%%)", b.ID, titleOf(m[2]))
			}
			b.Kind, b.Answer, b.Tolerance, b.ToleranceMode = exam.BlankNumber, values, t, mode
			return nil
		}
	}
	switch starred {
	case 0:
		b.Kind = exam.BlankText
		for _, a := range alts {
			if a = unescapeKey(a); a != "" {
				b.Answer = append(b.Answer, a)
			}
		}
	case 1:
		b.Kind = exam.BlankChoice
		for i, a := range alts {
			id := "o" + strconv.Itoa(i+1)
			if right, ok := strings.CutPrefix(a, "*"); ok {
				a, b.Answer = strings.TrimSpace(right), []string{id}
			}
			text := unescapeKey(a)
			if format == "" {
				text = plainToMarkdown(text, false)
			}
			b.Options = append(b.Options, exam.Option{ID: id, Text: text})
		}
	default:
		return refuse("INVALID_ITEM", "blank %s: %d choices are marked right (*); a choice blank has one", b.ID, starred)
	}
	return nil
}

// splitUnescaped splits s at each sep not escaped by a backslash, keeping
// the escapes.
func splitUnescaped(s string, sep byte) []string {
	var out []string
	last := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case sep:
			out = append(out, s[last:i])
			last = i + 1
		}
	}
	return append(out, s[last:])
}

// unescapeKey undoes the key's escapes: \| \; \* \\.
func unescapeKey(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`|;*\`, s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return strings.TrimSpace(b.String())
}

// escapeKey escapes an answer or a choice for the key.
func escapeKey(s string) string {
	s = strings.NewReplacer(`\`, `\\`, `|`, `\|`, `;`, `\;`).Replace(s)
	if strings.HasPrefix(s, "*") {
		s = `\` + s
	}
	return s
}

// plainToMarkdown is a plain text as markdown that shows it as typed,
// the blank markers kept when markers.
func plainToMarkdown(s string, markers bool) string {
	if !markers {
		return qbank.PlainToMarkdown(s)
	}
	var kept []string
	s = clozeMarker.ReplaceAllStringFunc(s, func(m string) string {
		kept = append(kept, m[2:len(m)-2])
		return qbank.BlankPlaceholder(len(kept) - 1)
	})
	return qbank.MarkBlanks(qbank.PlainToMarkdown(s), func(i int) string { return kept[i] })
}

// clozeKey is a cloze question's key column, as readCloze reads it.
func clozeKey(q exam.Question) string {
	lines := make([]string, len(q.Blanks))
	for i, b := range q.Blanks {
		head := b.ID
		if b.Points != 1 {
			head += " (" + strconv.FormatFloat(b.Points, 'f', -1, 64) + ")"
		}
		var alts []string
		switch b.Kind {
		case exam.BlankText:
			for _, a := range b.Answer {
				alts = append(alts, escapeKey(a))
			}
		case exam.BlankNumber:
			alts = []string{strings.Join(b.Answer, " | ") + " ± " + formatTolerance(b.Tolerance, b.ToleranceMode)}
		case exam.BlankChoice:
			for _, o := range b.Options {
				t := escapeKey(o.Text)
				if len(b.Answer) == 1 && o.ID == b.Answer[0] {
					t = "*" + t
				}
				alts = append(alts, t)
			}
		}
		lines[i] = head + " = " + strings.Join(alts, " | ")
	}
	return strings.Join(lines, "\n")
}
