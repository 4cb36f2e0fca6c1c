package qti

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
)

// Cloze items: an item with several inline interactions (textEntry,
// inlineChoice) or a gapMatchInteraction becomes a cloze question, each
// interaction (each gap) a blank in document order: a text entry a text
// blank (a number blank when its baseType is float or integer or its
// answers are numbers), an inline choice or a gap a choice blank.

// clozeInteractions are the interactions a cloze question's blanks can be.
var clozeInteractions = map[string]bool{"textEntryInteraction": true, "inlineChoiceInteraction": true, "gapMatchInteraction": true}

// isCloze reports whether the item's interactions make a cloze question,
// and refuses an item mixing others with them.
func isCloze(found []*node) (bool, error) {
	if len(found) == 1 && found[0].Name != "gapMatchInteraction" {
		return false, nil
	}
	for _, in := range found {
		if !clozeInteractions[in.Name] {
			return false, refuse(codeUnsupportedItem, "the item has %d interactions, one a %s: a question has one interaction, "+
				"or only text entries, inline choices and gaps (a cloze question, each one of its blanks)", len(found), in.Name)
		}
	}
	return true, nil
}

// clozeChoices are the choices of one choice blank waiting for their
// texts: the nodes, and the QTI identifier of the right one.
type clozeChoices struct {
	blank int
	nodes []*node
	key   string
}

func (ir *itemReader) cloze(q *exam.Question, body *node, found []*node) error {
	q.Type = exam.Cloze
	repl := replacements{}
	var pending []clozeChoices
	used := map[string]bool{}
	blankID := func(qtiID string) string {
		id := cleanID(qtiID)
		if id == "" || used[id] {
			id = "b" + strconv.Itoa(len(q.Blanks)+1)
		}
		used[id] = true
		return id
	}
	explicit := false
	for _, in := range found {
		respID := in.attr("responseIdentifier")
		decl := ir.declaration(respID)
		if decl == nil {
			return refuse(codeInvalidItem, "the interaction's response %q is not declared", respID)
		}
		switch in.Name {
		case "textEntryInteraction":
			b := exam.Blank{ID: blankID(respID)}
			if err := ir.entryKey(&b, respID, decl); err != nil {
				return err
			}
			b.Points, explicit = ir.blankPoints(respID, decl, explicit)
			repl[in] = []*node{textNode(qbank.BlankPlaceholder(len(q.Blanks)))}
			q.Blanks = append(q.Blanks, b)
		case "inlineChoiceInteraction":
			key := keyFrom(decl, true)
			if len(key) != 1 {
				return refuse(codeInvalidItem, "inline choice %s needs one correct choice", respID)
			}
			b := exam.Blank{ID: blankID(respID), Kind: exam.BlankChoice}
			b.Points, explicit = ir.blankPoints(respID, decl, explicit)
			pending = append(pending, clozeChoices{blank: len(q.Blanks), nodes: in.children("inlineChoice"), key: key[0]})
			repl[in] = []*node{textNode(qbank.BlankPlaceholder(len(q.Blanks)))}
			q.Blanks = append(q.Blanks, b)
		case "gapMatchInteraction":
			texts := in.children("gapText")
			pairs := map[string]string{} // gap → gap text
			for _, k := range keyFrom(decl, false) {
				f := strings.Fields(k)
				if len(f) == 2 {
					pairs[f[1]] = f[0]
				}
			}
			points, exp := ir.blankPoints(respID, decl, explicit)
			explicit = exp
			repl[in] = in.Kids
			for _, t := range texts {
				repl[t] = nil
			}
			for _, gap := range in.find(func(n *node) bool { return n.Name == "gap" }) {
				gid := gap.attr("identifier")
				if pairs[gid] == "" {
					return refuse(codeKeyNotAnOption, "gap %q has no right word in the key", gid)
				}
				b := exam.Blank{ID: blankID(gid), Kind: exam.BlankChoice, Points: points}
				pending = append(pending, clozeChoices{blank: len(q.Blanks), nodes: texts, key: pairs[gid]})
				repl[gap] = []*node{textNode(qbank.BlankPlaceholder(len(q.Blanks)))}
				q.Blanks = append(q.Blanks, b)
			}
			ir.note("the gaps show as drop-down lists of the words")
		}
	}
	if len(q.Blanks) > 50 {
		return refuse(codeInvalidItem, "the item has %d blanks; a cloze question has at most 50", len(q.Blanks))
	}
	parts := []*node{body}
	for _, p := range pending {
		parts = append(parts, p.nodes...)
	}
	format, texts, err := ir.texts(parts, repl)
	if err != nil {
		return err
	}
	if format == "" { // plain: a cloze question is markdown
		for i := range texts {
			texts[i] = qbank.PlainToMarkdown(texts[i])
		}
	}
	q.Format = "markdown"
	q.Text = qbank.MarkBlanks(texts[0], func(i int) string {
		if i < len(q.Blanks) {
			return q.Blanks[i].ID
		}
		return "b" + strconv.Itoa(i+1)
	})
	texts = texts[1:]
	for _, p := range pending {
		b := &q.Blanks[p.blank]
		var ids map[string]string
		b.Options, ids = ir.options(p.nodes, texts[:len(p.nodes)])
		texts = texts[len(p.nodes):]
		id, ok := ids[p.key]
		if !ok {
			return refuse(codeKeyNotAnOption, "the key %q of blank %s is not one of its choices", p.key, b.ID)
		}
		b.Answer = []string{id}
		// An empty choice (the list's "nothing chosen") is the exam's own.
		kept := b.Options[:0]
		for _, o := range b.Options {
			if strings.TrimSpace(o.Text) == "" && o.ID != id {
				ir.note("dropped the empty choice of blank %s: the exam's drop-down list starts empty", b.ID)
				continue
			}
			kept = append(kept, o)
		}
		b.Options = kept
	}
	if !explicit {
		ir.sharePoints(q)
	}
	return nil
}

// sharePoints shares the item's MAXSCORE among blanks that have no
// points of their own.
func (ir *itemReader) sharePoints(q *exam.Question) {
	total, ok := ir.maxScore()
	if !ok || total == float64(len(q.Blanks)) {
		return
	}
	per := total / float64(len(q.Blanks))
	if per <= 0 || per != math.Round(per*100)/100 {
		ir.note("each blank is worth 1 point (the item's %s points do not share evenly among its %d blanks)", fmtPoints(total), len(q.Blanks))
		return
	}
	for i := range q.Blanks {
		q.Blanks[i].Points = per
	}
}

// maxScore is the item's MAXSCORE, when it declares one.
func (ir *itemReader) maxScore() (float64, bool) {
	for _, o := range ir.root.children("outcomeDeclaration") {
		if o.attr("identifier") != "MAXSCORE" {
			continue
		}
		if dv := o.child("defaultValue"); dv != nil && dv.child("value") != nil {
			v, err := strconv.ParseFloat(strings.TrimSpace(dv.child("value").textContent()), 64)
			return v, err == nil && v >= 0 && v <= 1000
		}
	}
	return 0, false
}

// blankPoints are a blank's points: the value its response's condition
// adds to SCORE in the response processing, else the best its mapping
// gives, else 1; explicit is whether any blank so far had its own.
func (ir *itemReader) blankPoints(respID string, decl *node, explicit bool) (float64, bool) {
	if rp := ir.root.child("responseProcessing"); rp != nil {
		for _, rif := range rp.find(func(n *node) bool { return n.Name == "responseIf" || n.Name == "responseElseIf" }) {
			var cond *node
			for _, k := range rif.Kids {
				if k.Name != "" {
					cond = k
					break
				}
			}
			if cond == nil || !onlyRefersTo(cond, respID) {
				continue
			}
			for _, so := range rif.children("setOutcomeValue") {
				if so.attr("identifier") != "SCORE" {
					continue
				}
				for _, bv := range so.find(func(n *node) bool { return n.Name == "baseValue" }) {
					if v, err := strconv.ParseFloat(strings.TrimSpace(bv.textContent()), 64); err == nil && v > 0 && v <= 1000 {
						return v, true
					}
				}
			}
		}
	}
	entries, _, _ := mappingOf(decl)
	best := 0.0
	for _, e := range entries {
		best = max(best, e.value)
	}
	if best > 0 && best <= 1000 {
		return best, true
	}
	return 1, explicit
}

// onlyRefersTo reports whether the variables an expression reads are
// the response respID alone.
func onlyRefersTo(expr *node, respID string) bool {
	refs := expr.find(func(n *node) bool {
		return n.Name == "variable" || n.Name == "correct" || n.Name == "mapResponse"
	})
	for _, r := range refs {
		if r.attr("identifier") != respID {
			return false
		}
	}
	return len(refs) > 0
}

// entryKey reads a text entry's key into b: a number blank's (baseType
// float or integer, or only numbers accepted) with its tolerance, else a
// text blank's.
func (ir *itemReader) entryKey(b *exam.Blank, respID string, decl *node) error {
	answers := ir.entryAnswers(respID, decl)
	if len(answers) == 0 {
		return refuse(codeInvalidItem, "the text entry %s has no accepted answer (correctResponse or mapping)", respID)
	}
	numeric := decl.attr("baseType") == "float" || decl.attr("baseType") == "integer"
	if !numeric {
		numeric = true
		for _, a := range answers {
			if _, ok := exam.ParseNumber(a); !ok {
				numeric = false
			}
		}
	}
	if !numeric {
		b.Kind, b.Answer = exam.BlankText, answers
		return nil
	}
	b.Kind = exam.BlankNumber
	for _, a := range answers {
		n, ok := exam.ParseNumber(a)
		if !ok {
			return refuse(codeInvalidItem, "the answer %q of %s is not a number", clip(a, 40), respID)
		}
		b.Answer = append(b.Answer, exam.FormatNumber(n))
	}
	b.Tolerance, b.ToleranceMode = ir.tolerance(respID)
	return nil
}

// entryAnswers are the answers a text entry accepts: its correct values,
// the entries its mapping gives points, the values its response
// processing compares it with (equal, match).
func (ir *itemReader) entryAnswers(respID string, decl *node) []string {
	var answers []string
	seen := map[string]bool{}
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && !seen[strings.ToLower(s)] {
			seen[strings.ToLower(s)] = true
			answers = append(answers, s)
		}
	}
	for _, v := range correctValues(decl) {
		add(v)
	}
	entries, _, _ := mappingOf(decl)
	for _, e := range entries {
		if e.value > 0 {
			add(e.key)
		}
	}
	for _, cmp := range ir.comparisons(respID) {
		for _, bv := range cmp.children("baseValue") {
			add(bv.textContent())
		}
	}
	return answers
}

// comparisons are the equal and match expressions of the response
// processing that compare the response respID.
func (ir *itemReader) comparisons(respID string) []*node {
	rp := ir.root.child("responseProcessing")
	if rp == nil {
		return nil
	}
	return rp.find(func(n *node) bool {
		if n.Name != "equal" && n.Name != "match" {
			return false
		}
		for _, v := range n.children("variable") {
			if v.attr("identifier") == respID {
				return true
			}
		}
		return false
	})
}

// tolerance is the tolerance of the response processing's equal with
// toleranceMode absolute or relative (a percentage) comparing respID: its
// larger bound when it has two.
func (ir *itemReader) tolerance(respID string) (float64, string) {
	for _, cmp := range ir.comparisons(respID) {
		mode := cmp.attr("toleranceMode")
		if cmp.Name != "equal" || (mode != "absolute" && mode != "relative") {
			continue
		}
		t := 0.0
		bounds := strings.Fields(cmp.attr("tolerance"))
		for _, s := range bounds {
			if v, err := strconv.ParseFloat(s, 64); err == nil && v >= 0 {
				t = max(t, v)
			}
		}
		if len(bounds) == 2 && bounds[0] != bounds[1] {
			ir.note("the tolerance of %s was %s below and %s above: ±%s is kept", respID, bounds[0], bounds[1], fmtPoints(t))
		}
		if mode == "relative" {
			return min(t, 100), exam.ToleranceRelative
		}
		return t, exam.ToleranceAbsolute
	}
	return 0, exam.ToleranceAbsolute
}

// numericEntry reads an item whose one text entry takes a number
// (baseType float or integer) as a numeric question.
func (ir *itemReader) numericEntry(q *exam.Question, body, in, decl *node) error {
	respID := in.attr("responseIdentifier")
	b := exam.Blank{}
	if err := ir.entryKey(&b, respID, decl); err != nil {
		return err
	}
	q.Type, q.Answer, q.Tolerance, q.ToleranceMode = exam.Numeric, b.Answer, b.Tolerance, b.ToleranceMode
	q.Points = ir.points(decl, true)
	if p, ok := ir.blankPoints(respID, decl, false); ok && ir.root.child("responseProcessing") != nil {
		if _, declared := ir.maxScore(); !declared {
			q.Points = p
		}
	}
	_, err := ir.questionTexts(q, body, bodyWith(body, in, true), nil)
	return err
}

// Export of numeric and cloze questions.

// numberCondition is the response processing's test of a number: equal
// to one of the values, within the tolerance.
func numberCondition(respID string, values []string, tol float64, mode string) string {
	tm := "exact"
	attrs := ""
	switch {
	case mode == exam.ToleranceRelative:
		tm = "relative"
	case tol > 0:
		tm = "absolute"
	}
	if tm != "exact" {
		attrs = fmt.Sprintf(` tolerance="%s"`, fmtPoints(tol))
	}
	var b strings.Builder
	b.WriteString("<qti-or>")
	for _, v := range values {
		fmt.Fprintf(&b, `<qti-equal tolerance-mode="%s"%s><qti-variable identifier="%s"/><qti-base-value base-type="float">%s</qti-base-value></qti-equal>`,
			tm, attrs, esc(respID), esc(v))
	}
	b.WriteString("</qti-or>")
	return b.String()
}

// addScore is a response condition adding points to SCORE when cond holds.
func addScore(cond string, points float64) string {
	return fmt.Sprintf(`<qti-response-condition><qti-response-if>%s<qti-set-outcome-value identifier="SCORE"><qti-sum>`+
		`<qti-variable identifier="SCORE"/><qti-base-value base-type="float">%s</qti-base-value></qti-sum></qti-set-outcome-value>`+
		`</qti-response-if></qti-response-condition>`, cond, fmtPoints(points))
}

// resetScore sets SCORE to 0 before the conditions add to it.
const resetScore = `<qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">0</qti-base-value></qti-set-outcome-value>`

// numeric writes a numeric question's declaration, interaction and
// response processing.
func (ex *exporter) numeric(q exam.Question, points float64, decl, interaction, rp *strings.Builder) {
	fmt.Fprintf(decl, `<qti-response-declaration identifier="%s" cardinality="single" base-type="float"><qti-correct-response><qti-value>%s</qti-value></qti-correct-response></qti-response-declaration>`,
		responseID, esc(q.Answer[0]))
	fmt.Fprintf(interaction, `<p><qti-text-entry-interaction response-identifier="%s"/></p>`, responseID)
	rp.WriteString(resetScore + addScore(numberCondition(responseID, q.Answer, q.Tolerance, q.ToleranceMode), points))
}

// cloze writes a cloze question's declarations (one a blank) and response
// processing, and sets the interactions the text's blanks become.
func (ex *exporter) cloze(q exam.Question, decl, rp *strings.Builder) error {
	ex.blanks = map[string]string{}
	rp.WriteString(resetScore)
	for _, b := range q.Blanks {
		id := xmlID(b.ID)
		switch b.Kind {
		case exam.BlankText:
			fmt.Fprintf(decl, `<qti-response-declaration identifier="%s" cardinality="single" base-type="string"><qti-correct-response><qti-value>%s</qti-value></qti-correct-response><qti-mapping default-value="0">`,
				esc(id), esc(b.Answer[0]))
			for _, a := range b.Answer {
				fmt.Fprintf(decl, `<qti-map-entry map-key="%s" mapped-value="%s" case-sensitive="false"/>`, esc(a), fmtPoints(b.Points))
			}
			decl.WriteString("</qti-mapping></qti-response-declaration>")
			fmt.Fprintf(rp, `<qti-set-outcome-value identifier="SCORE"><qti-sum><qti-variable identifier="SCORE"/><qti-map-response identifier="%s"/></qti-sum></qti-set-outcome-value>`, esc(id))
			ex.blanks[b.ID] = fmt.Sprintf(`<qti-text-entry-interaction response-identifier="%s"/>`, esc(id))
		case exam.BlankNumber:
			fmt.Fprintf(decl, `<qti-response-declaration identifier="%s" cardinality="single" base-type="float"><qti-correct-response><qti-value>%s</qti-value></qti-correct-response></qti-response-declaration>`,
				esc(id), esc(b.Answer[0]))
			rp.WriteString(addScore(numberCondition(id, b.Answer, b.Tolerance, b.ToleranceMode), b.Points))
			ex.blanks[b.ID] = fmt.Sprintf(`<qti-text-entry-interaction response-identifier="%s"/>`, esc(id))
		case exam.BlankChoice:
			fmt.Fprintf(decl, `<qti-response-declaration identifier="%s" cardinality="single" base-type="identifier"><qti-correct-response><qti-value>%s</qti-value></qti-correct-response></qti-response-declaration>`,
				esc(id), esc(xmlID(b.Answer[0])))
			rp.WriteString(addScore(fmt.Sprintf(`<qti-match><qti-variable identifier="%s"/><qti-correct identifier="%s"/></qti-match>`, esc(id), esc(id)), b.Points))
			var s strings.Builder
			fmt.Fprintf(&s, `<qti-inline-choice-interaction response-identifier="%s">`, esc(id))
			for _, o := range b.Options {
				t, err := ex.xhtml(q.Format, o.Text)
				if err != nil {
					return err
				}
				t = strings.TrimSuffix(strings.TrimPrefix(t, "<p>"), "</p>")
				fmt.Fprintf(&s, `<qti-inline-choice identifier="%s">%s</qti-inline-choice>`, esc(xmlID(o.ID)), t)
			}
			s.WriteString("</qti-inline-choice-interaction>")
			ex.blanks[b.ID] = s.String()
		}
	}
	return nil
}
