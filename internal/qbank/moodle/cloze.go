package moodle

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
)

// Cloze questions in Moodle: "multianswer" (embedded answers, the text
// holding each as {weight:TYPE:alternatives}), "gapselect" (select missing
// words, [[n]] in the text) and "ddwtos" (drag and drop into text, the
// same shape). Each becomes an exam.Cloze question whose blanks are b1,
// b2, … in the order of the text.

// Tags the portal writes on a numeric or cloze question for what Moodle's
// syntax cannot say: a relative tolerance ("portal-tolerance:5%" on a
// numeric question, "portal-blank:2:tolerance=5%" on the second blank of a
// cloze question) and a blank's points that are not a whole number
// ("portal-blank:2:points=0.5").
const (
	tagTolerance = "portal-tolerance:"
	tagBlank     = "portal-blank:"
)

func blankID(i int) string { return "b" + strconv.Itoa(i+1) }

// clozeText converts the question text raw (HTML, with spans [start, end)
// that are blanks) to markdown, each span becoming [[b1]], [[b2]], ….
func (it *item) clozeText(raw string, spans [][2]int) string {
	var b strings.Builder
	last := 0
	for i, s := range spans {
		b.WriteString(raw[last:s[0]])
		b.WriteString(qbank.BlankPlaceholder(i))
		last = s[1]
	}
	b.WriteString(raw[last:])
	qt := it.q.child("questiontext")
	e := &elem{name: "questiontext"}
	if qt != nil {
		e.attr = qt.attr
	}
	e.text.WriteString(b.String())
	return qbank.MarkBlanks(it.text(e), blankID)
}

// embedded is one embedded answer of a multianswer text.
type embedded struct {
	start, end int
	weight     string
	typ        string
	alts       []alternative
}

// alternative is one answer of an embedded answer, as written (HTML with
// Moodle's backslash escapes).
type alternative struct {
	fraction float64
	answer   string
	feedback string
}

// embeddedTypes are the types an embedded answer may have, by the kind of
// blank they become.
var embeddedTypes = map[string]string{
	"SHORTANSWER": "text", "SA": "text", "MW": "text",
	"SHORTANSWER_C": "text_c", "SAC": "text_c", "MWC": "text_c",
	"NUMERICAL": "number", "NM": "number",
	"MULTICHOICE": "choice", "MC": "choice", "MULTICHOICE_S": "choice", "MCS": "choice",
	"MULTICHOICE_V": "radio", "MCV": "radio", "MULTICHOICE_H": "radio", "MCH": "radio",
	"MULTICHOICE_VS": "radio", "MCVS": "radio", "MULTICHOICE_HS": "radio", "MCHS": "radio",
	"MULTIRESPONSE": "multi", "MR": "multi", "MULTIRESPONSE_H": "multi", "MRH": "multi",
	"MULTIRESPONSE_S": "multi", "MRS": "multi", "MULTIRESPONSE_HS": "multi", "MRHS": "multi",
}

var embeddedStart = regexp.MustCompile(`^\{([0-9]*):([A-Z_]+):`)

// parseEmbedded finds the embedded answers of a multianswer text as Moodle
// reads them: {weight:TYPE:alternative~alternative…}, each alternative an
// optional fraction ("=" for 100%, "%50%"), the answer, and "#feedback";
// "~", "#" and "}" end an answer unless escaped by a backslash (or, "#",
// part of an HTML entity), and "~" and "}" end a feedback. Braces that do
// not make such an answer are text.
func parseEmbedded(s string) []embedded {
	var out []embedded
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 {
			break
		}
		i += j
		if e, ok := parseOneEmbedded(s, i); ok {
			out = append(out, e)
			i = e.end
			continue
		}
		i++
	}
	return out
}

// parseOneEmbedded reads the embedded answer at s[start] ('{').
func parseOneEmbedded(s string, start int) (embedded, bool) {
	m := embeddedStart.FindStringSubmatch(s[start:])
	if m == nil || embeddedTypes[m[2]] == "" {
		return embedded{}, false
	}
	e := embedded{start: start, weight: m[1], typ: m[2]}
	i := start + len(m[0])
	for {
		var a alternative
		switch {
		case strings.HasPrefix(s[i:], "="):
			a.fraction = 100
			i++
		case strings.HasPrefix(s[i:], "%"):
			if f, n, ok := percent(s[i:]); ok {
				a.fraction = f
				i += n
			}
		}
		end := answerEnd(s, i)
		if end < 0 || end == i {
			return embedded{}, false
		}
		a.answer = s[i:end]
		i = end
		if s[i] == '#' {
			end = feedbackEnd(s, i+1)
			if end < 0 {
				return embedded{}, false
			}
			a.feedback = s[i+1 : end]
			i = end
		}
		e.alts = append(e.alts, a)
		if s[i] == '}' {
			e.end = i + 1
			return e, true
		}
		i++ // the "~"
	}
}

var percentPrefix = regexp.MustCompile(`^%(-?[0-9]+(?:[.,][0-9]*)?)%`)

// percent reads a "%50%" fraction and its length.
func percent(s string) (float64, int, bool) {
	m := percentPrefix.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", "."), 64)
	if err != nil {
		return 0, 0, false
	}
	return f, len(m[0]), true
}

// answerEnd is the index of the "~", "#" or "}" that ends the answer from
// s[i], -1 when none does.
func answerEnd(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '~', '}':
			if !afterAmp(s, i) {
				return i
			}
		case '#':
			if !afterAmp(s, i) {
				return i
			}
		}
	}
	return -1
}

// afterAmp reports whether s[i] follows "&" or "&amp;" (Moodle's own rule:
// "&#35;" is an entity, not a feedback).
func afterAmp(s string, i int) bool {
	return i > 0 && s[i-1] == '&' || strings.HasSuffix(s[:i], "&amp;")
}

// feedbackEnd is the index of the "~" or "}" that ends a feedback from
// s[i], -1 when none does.
func feedbackEnd(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '~', '}':
			return i
		}
	}
	return -1
}

// unescapeAnswer is an embedded answer as the text it means: its HTML read
// as text, then Moodle's backslash escapes (\} \~ \# \/ \" \\) undone.
func unescapeAnswer(raw string) string {
	s := htmlToPlain(raw)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`}~#/"\`, s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return strings.TrimSpace(b.String())
}

// escapeAnswer is the embedded syntax of an answer: Moodle's special
// characters escaped with a backslash (the HTML's escaping is the
// renderer's).
var escapeAnswer = strings.NewReplacer(`\`, `\\`, `}`, `\}`, `~`, `\~`, `#`, `\#`, `/`, `\/`, `"`, `\"`).Replace

// multianswer reads an embedded-answers question.
func (it *item) multianswer(q *exam.Question) bool {
	q.Type = exam.Cloze
	raw := it.q.child("questiontext").textOf()
	found := parseEmbedded(raw)
	if len(found) == 0 {
		it.refuse("INVALID_ITEM", "the text has no embedded answer ({1:SHORTANSWER:=…})")
		return false
	}
	if len(found) > 50 {
		it.refuse("INVALID_ITEM", "the text has %d embedded answers; a cloze question has at most 50", len(found))
		return false
	}
	spans := make([][2]int, len(found))
	for i, e := range found {
		spans[i] = [2]int{e.start, e.end}
		b, ok := it.embeddedBlank(i, e)
		if !ok {
			return false
		}
		q.Blanks = append(q.Blanks, b)
	}
	q.Text = it.clozeText(raw, spans)
	it.blankTags(q)
	return true
}

// embeddedBlank is the blank an embedded answer becomes.
func (it *item) embeddedBlank(i int, e embedded) (exam.Blank, bool) {
	b := exam.Blank{ID: blankID(i), Points: 1}
	if e.weight != "" {
		w, _ := strconv.Atoi(e.weight)
		if w == 0 || w > 1000 {
			it.refuse("INVALID_ITEM", "embedded answer %d weighs %s; a blank is worth 1 to 1000 points", i+1, clip(e.weight, 10))
			return b, false
		}
		b.Points = float64(w)
	}
	for _, a := range e.alts {
		if strings.TrimSpace(htmlToPlain(a.feedback)) != "" {
			it.change("dropped the feedback of the embedded answers (the exam shows none)")
		}
	}
	kind := embeddedTypes[e.typ]
	switch kind {
	case "multi":
		it.refuse("UNSUPPORTED_TYPE", "embedded answer %d is a %s (several choices to tick), which a blank cannot be", i+1, e.typ)
		return b, false
	case "text", "text_c":
		b.Kind = exam.BlankText
		for _, a := range e.alts {
			v := unescapeAnswer(a.answer)
			switch {
			case v == "":
			case a.fraction < 99.99:
				if a.fraction > 0 {
					it.change("dropped the answer %q of blank %s, which earned part of its points", clip(v, 40), b.ID)
				}
			default:
				if strings.Contains(strings.ReplaceAll(v, `\*`, ""), "*") {
					it.change("the answer %q has Moodle's wildcard *: the exam compares it as written", clip(v, 40))
				}
				b.Answer = append(b.Answer, strings.ReplaceAll(v, `\*`, "*"))
			}
		}
		if kind == "text_c" {
			it.change("blank %s was case-sensitive in Moodle (%s); the exam compares it without case", b.ID, e.typ)
		}
	case "number":
		b.Kind = exam.BlankNumber
		var tols []string
		for _, a := range e.alts {
			v := unescapeAnswer(a.answer)
			if a.fraction < 99.99 {
				if a.fraction > 0 {
					it.change("dropped the answer %q of blank %s, which earned part of its points", clip(v, 40), b.ID)
				}
				continue
			}
			if v == "*" {
				it.change("dropped the answer * (any number) of blank %s", b.ID)
				continue
			}
			num, tol, _ := strings.Cut(v, ":")
			n, ok := exam.ParseNumber(num)
			if !ok {
				it.refuse("INVALID_ITEM", "the answer %q of blank %s is not a number", clip(v, 40), b.ID)
				return b, false
			}
			b.Answer = append(b.Answer, exam.FormatNumber(n))
			tols = append(tols, tol)
		}
		t, ok := it.tolerance(tols, "blank "+b.ID, it.relativeTagged(fmt.Sprintf("%s%d:tolerance=", tagBlank, i+1)))
		if !ok {
			return b, false
		}
		b.Tolerance = t
	case "choice", "radio":
		b.Kind = exam.BlankChoice
		if kind == "radio" {
			it.change("blank %s (%s, buttons in Moodle) shows as a drop-down list", b.ID, e.typ)
		}
		var partial bool
		for k, a := range e.alts {
			id := "o" + strconv.Itoa(k+1)
			text, _ := qbank.HTMLToMarkdown(plainHTML(unescapeAnswer(a.answer)), nil)
			b.Options = append(b.Options, exam.Option{ID: id, Text: text})
			switch {
			case a.fraction >= 99.99:
				b.Answer = append(b.Answer, id)
			case a.fraction > 0:
				partial = true
			}
		}
		switch {
		case len(b.Answer) == 0:
			it.refuse("KEY_NOT_AN_OPTION", "no choice of blank %s is right (none at 100%%)", b.ID)
			return b, false
		case len(b.Answer) > 1:
			it.refuse("INVALID_ITEM", "%d choices of blank %s are right; a blank has one right choice", len(b.Answer), b.ID)
			return b, false
		case partial:
			it.change("dropped the partial points of the choices of blank %s that are partly right", b.ID)
		}
	}
	if len(b.Answer) == 0 {
		it.refuse("KEY_NOT_AN_OPTION", "no answer of blank %s is accepted (100%%)", b.ID)
		return b, false
	}
	return b, true
}

// tolerance is the tolerance of the accepted numbers of a numerical
// question or blank (what, for the notes), each written as Moodle's
// absolute ± ("" is none): the largest, noted when they differ (unless
// the portal's tag says they are a relative tolerance's).
func (it *item) tolerance(tols []string, what string, relativeTagged bool) (float64, bool) {
	largest, first := 0.0, -1.0
	differ := false
	for _, t := range tols {
		v := 0.0
		if strings.TrimSpace(t) != "" {
			r, ok := exam.ParseNumber(t)
			if !ok {
				it.refuse("INVALID_ITEM", "the tolerance %q of %s is not a number", clip(t, 20), what)
				return 0, false
			}
			v, _ = r.Float64()
		}
		v = math.Abs(v)
		if first >= 0 && v != first {
			differ = true
		}
		if first < 0 {
			first = v
		}
		largest = math.Max(largest, v)
	}
	if differ && !relativeTagged {
		it.change("the accepted numbers of %s had different tolerances: the largest, ±%s, is kept for all", what, strconv.FormatFloat(largest, 'f', -1, 64))
	}
	return largest, true
}

// blankTags applies the portal's tags of a cloze question's blanks
// (tagBlank) and of a numeric question (tagTolerance).
func (it *item) blankTags(q *exam.Question) {
	for tag := range it.tags {
		if rest, ok := strings.CutPrefix(tag, tagTolerance); ok && q.Type == exam.Numeric {
			if pct, ok := relative(rest); ok {
				q.Tolerance, q.ToleranceMode = pct, exam.ToleranceRelative
			}
			continue
		}
		rest, ok := strings.CutPrefix(tag, tagBlank)
		if !ok || q.Type != exam.Cloze {
			continue
		}
		n, setting, _ := strings.Cut(rest, ":")
		k, err := strconv.Atoi(n)
		if err != nil || k < 1 || k > len(q.Blanks) {
			continue
		}
		b := &q.Blanks[k-1]
		key, val, _ := strings.Cut(setting, "=")
		switch key {
		case "tolerance":
			if pct, ok := relative(val); ok && b.Kind == exam.BlankNumber {
				b.Tolerance, b.ToleranceMode = pct, exam.ToleranceRelative
			}
		case "points":
			if p, err := strconv.ParseFloat(val, 64); err == nil && p > 0 && p <= 1000 {
				b.Points = p
			}
		}
	}
}

// relativeTagged reports whether the question has a tag of a relative
// tolerance starting with prefix.
func (it *item) relativeTagged(prefix string) bool {
	for tag := range it.tags {
		if rest, ok := strings.CutPrefix(tag, prefix); ok {
			if _, ok := relative(rest); ok {
				return true
			}
		}
	}
	return false
}

// relative reads "5%".
func relative(s string) (float64, bool) {
	v, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, false
	}
	p, err := strconv.ParseFloat(v, 64)
	return p, err == nil && p >= 0 && p <= 100
}

var gapMarker = regexp.MustCompile(`\[\[([0-9]+)\]\]`)

// gapselect reads a "select missing words" or a "drag and drop into text"
// question (dd: true): each [[n]] of the text a choice blank whose options
// are the choices of choice n's group, choice n the right one.
func (it *item) gapselect(q *exam.Question, dd bool) bool {
	q.Type = exam.Cloze
	type choice struct {
		text  string
		group string
	}
	name := "selectoption"
	if dd {
		name = "dragbox"
		it.change("the drag and drop boxes show as drop-down lists, one per gap, of the gap's group")
	}
	var choices []choice
	for _, c := range it.q.children(name) {
		t, _ := qbank.HTMLToMarkdown(plainHTML(strings.TrimSpace(c.textOf())), nil)
		g := c.child("group").value()
		if g == "" {
			g = "1"
		}
		choices = append(choices, choice{text: t, group: g})
	}
	raw := it.q.child("questiontext").textOf()
	marks := gapMarker.FindAllStringSubmatchIndex(raw, -1)
	if len(marks) == 0 {
		it.refuse("INVALID_ITEM", "the text has no gap ([[1]])")
		return false
	}
	if len(marks) > 50 {
		it.refuse("INVALID_ITEM", "the text has %d gaps; a cloze question has at most 50", len(marks))
		return false
	}
	spans := make([][2]int, len(marks))
	for i, m := range marks {
		spans[i] = [2]int{m[0], m[1]}
		n, _ := strconv.Atoi(raw[m[2]:m[3]])
		if n < 1 || n > len(choices) {
			it.refuse("KEY_NOT_AN_OPTION", "gap %d names choice %s, which the question has not", i+1, clip(raw[m[2]:m[3]], 10))
			return false
		}
		b := exam.Blank{ID: blankID(i), Kind: exam.BlankChoice}
		for k, c := range choices {
			if c.group != choices[n-1].group {
				continue
			}
			id := "o" + strconv.Itoa(len(b.Options)+1)
			b.Options = append(b.Options, exam.Option{ID: id, Text: c.text})
			if k == n-1 {
				b.Answer = []string{id}
			}
		}
		q.Blanks = append(q.Blanks, b)
	}
	q.Text = it.clozeText(raw, spans)
	// Moodle shares the question's points among its gaps.
	per := q.Points / float64(len(q.Blanks))
	if per <= 0 || per*float64(len(q.Blanks)) != q.Points || per != math.Round(per*100)/100 {
		per = 1
		it.change("each gap is worth 1 point (Moodle shared the question's %s points among its %d gaps)", points(q.Points), len(q.Blanks))
	}
	for i := range q.Blanks {
		q.Blanks[i].Points = per
	}
	return true
}

// embeddedSyntax is a blank of a cloze question in Moodle's embedded
// syntax; tags are what the syntax cannot say (tagBlank). The choice's
// texts are plain.
func embeddedSyntax(n int, b exam.Blank, options []string) (syntax string, tags []string) {
	w := math.Round(b.Points)
	if w < 1 {
		w = 1
	}
	if w != b.Points {
		tags = append(tags, fmt.Sprintf("%s%d:points=%s", tagBlank, n, points(b.Points)))
	}
	var alts []string
	typ := "SHORTANSWER"
	switch b.Kind {
	case exam.BlankText:
		for _, a := range b.Answer {
			// A star, not Moodle's wildcard.
			alts = append(alts, "="+strings.ReplaceAll(escapeAnswer(a), "*", `\*`))
		}
	case exam.BlankNumber:
		typ = "NUMERICAL"
		if b.ToleranceMode == exam.ToleranceRelative {
			tags = append(tags, fmt.Sprintf("%s%d:tolerance=%s%%", tagBlank, n, points(b.Tolerance)))
		}
		for _, a := range b.Answer {
			alts = append(alts, "="+a+":"+absTolerance(a, b.Tolerance, b.ToleranceMode))
		}
	case exam.BlankChoice:
		typ = "MULTICHOICE"
		for k, o := range b.Options {
			f := ""
			if len(b.Answer) == 1 && o.ID == b.Answer[0] {
				f = "="
			}
			alts = append(alts, f+escapeAnswer(options[k]))
		}
	}
	return fmt.Sprintf("{%s:%s:%s}", points(w), typ, strings.Join(alts, "~")), tags
}

// absTolerance is the absolute ± of a numeric key v: the tolerance itself,
// or its percentage of v.
func absTolerance(v string, tol float64, mode string) string {
	if mode == exam.ToleranceRelative {
		n, _ := strconv.ParseFloat(v, 64)
		tol = math.Abs(n) * tol / 100
	}
	return strconv.FormatFloat(tol, 'f', -1, 64)
}

// clozeBlanks sets the exporter's embedded answers of q's blanks (the
// choices' texts written plain) and returns the tags they need.
func (x *exporter) clozeBlanks(q exam.Question) ([]string, error) {
	x.blanks = map[string]string{}
	var tags []string
	for i, b := range q.Blanks {
		var options []string
		for _, o := range b.Options {
			t, err := x.plain(q.Format, o.Text)
			if err != nil {
				return nil, err
			}
			options = append(options, t)
		}
		syntax, t := embeddedSyntax(i+1, b, options)
		x.blanks[b.ID] = syntax
		tags = append(tags, t...)
	}
	return tags, nil
}

// numerical writes a numeric question's answers, each with its absolute
// tolerance, and returns the tag of a relative one.
func (x *exporter) numerical(q exam.Question) []string {
	for _, a := range q.Answer {
		x.printf("    <answer fraction=\"100\" format=\"moodle_auto_format\">\n      <text>%s</text>\n      <feedback format=\"html\"><text></text></feedback>\n      <tolerance>%s</tolerance>\n    </answer>\n",
			esc(a), absTolerance(a, q.Tolerance, q.ToleranceMode))
	}
	x.printf("    <unitgradingtype>0</unitgradingtype>\n    <unitpenalty>0.1000000</unitpenalty>\n    <showunits>3</showunits>\n    <unitsleft>0</unitsleft>\n")
	if q.ToleranceMode == exam.ToleranceRelative {
		return []string{tagTolerance + points(q.Tolerance) + "%"}
	}
	return nil
}
