package qti

import (
	"strconv"
	"strings"

	"github.com/seedhq/portal/internal/exam"
)

// bodyWith is the replacements of a question's text: the interaction
// replaced by its prompt (a block interaction) or a blank (an inline one:
// none when it stands alone in its paragraph).
func bodyWith(body, in *node, inline bool) replacements {
	repl := replacements{}
	if !inline {
		if p := in.child("prompt"); p != nil {
			repl[in] = []*node{p}
		} else {
			repl[in] = nil
		}
		return repl
	}
	parent := parentOf(body, in)
	alone := parent != nil && strings.TrimFunc(textWithout(parent, in), isXMLSpace) == ""
	if alone {
		repl[in] = nil
	} else {
		repl[in] = []*node{textNode(blank)}
	}
	return repl
}

// parentOf is the parent of n under root.
func parentOf(root, n *node) *node {
	var found *node
	root.find(func(m *node) bool {
		for _, k := range m.Kids {
			if k == n {
				found = m
			}
		}
		return found != nil
	})
	return found
}

// textWithout is n's text, leaving out skip.
func textWithout(n, skip *node) string {
	if n == skip {
		return ""
	}
	if n.Name == "" {
		return n.Text
	}
	if n.Name == "img" || n.Name == "math" || n.Name == "object" {
		return "x"
	}
	var b strings.Builder
	for _, k := range n.Kids {
		b.WriteString(textWithout(k, skip))
	}
	return b.String()
}

// choiceOptions reads choices (simpleChoice, inlineChoice) with the
// question's text, in one format, and maps their QTI identifiers to the
// options' ids.
func (ir *itemReader) questionTexts(q *exam.Question, body *node, repl replacements, choices []*node) ([]string, error) {
	parts := append([]*node{body}, choices...)
	format, texts, err := ir.texts(parts, repl)
	if err != nil {
		return nil, err
	}
	q.Format, q.Text = format, texts[0]
	return texts[1:], nil
}

func (ir *itemReader) options(choices []*node, texts []string) ([]exam.Option, map[string]string) {
	ids := map[string]string{}
	var opts []exam.Option
	used := map[string]bool{}
	for i, c := range choices {
		id := cleanID(c.attr("identifier"))
		if id == "" || used[id] {
			id = "o" + strconv.Itoa(i+1)
		}
		used[id] = true
		ids[c.attr("identifier")] = id
		opts = append(opts, exam.Option{ID: id, Text: texts[i]})
	}
	return opts, ids
}

// mapKey maps a key's QTI identifiers to option ids; one that is not an
// option's refuses the item.
func mapKey(key []string, ids map[string]string) ([]string, error) {
	var out []string
	for _, k := range key {
		id, ok := ids[k]
		if !ok {
			return nil, refuse(codeKeyNotAnOption, "the key %q is not one of the choices", k)
		}
		out = append(out, id)
	}
	return out, nil
}

func (ir *itemReader) choice(q *exam.Question, body, in, decl *node) error {
	if decl == nil {
		return refuse(codeInvalidItem, "the interaction's response %q is not declared", in.attr("responseIdentifier"))
	}
	choices := in.find(func(n *node) bool { return n.Name == "simpleChoice" })
	maxChoices := 1
	if s := strings.TrimSpace(in.attr("maxChoices")); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			return refuse(codeInvalidItem, "maxChoices %q is not a number", s)
		}
		maxChoices = v
	}
	single := maxChoices == 1 && decl.attr("cardinality") != "multiple"
	key := keyFrom(decl, single)
	if len(key) == 0 {
		return refuse(codeInvalidItem, "the item has no answer key (correctResponse or mapping)")
	}
	q.Points = ir.points(decl, single)
	// Two choices named true and false: a true/false question.
	if single && len(choices) == 2 && len(key) == 1 {
		a, b := choices[0].attr("identifier"), choices[1].attr("identifier")
		if (a == "true" && b == "false") || (a == "false" && b == "true") {
			q.Type = exam.TrueFalse
			q.Answer = key
			_, err := ir.questionTexts(q, body, bodyWith(body, in, false), nil)
			return err
		}
	}
	texts, err := ir.questionTexts(q, body, bodyWith(body, in, false), choices)
	if err != nil {
		return err
	}
	var ids map[string]string
	q.Options, ids = ir.options(choices, texts)
	if q.Answer, err = mapKey(key, ids); err != nil {
		return err
	}
	q.Type = exam.MultipleChoice
	if single {
		q.Type = exam.SingleChoice
		if len(q.Answer) > 1 {
			return refuse(codeInvalidItem, "one choice is allowed but the key names %d", len(q.Answer))
		}
	} else if partialMapping(decl) {
		ir.note("the item's partial credit (a mapping) dropped: a multiple_choice question is scored all or nothing")
	}
	if in.attr("minChoices") != "" && in.attr("minChoices") != "0" && in.attr("minChoices") != "1" {
		ir.note("dropped minChoices %s", in.attr("minChoices"))
	}
	return nil
}

func (ir *itemReader) inlineChoice(q *exam.Question, body, in, decl *node) error {
	if decl == nil {
		return refuse(codeInvalidItem, "the interaction's response %q is not declared", in.attr("responseIdentifier"))
	}
	choices := in.children("inlineChoice")
	key := keyFrom(decl, true)
	if len(key) != 1 {
		return refuse(codeInvalidItem, "an inline choice needs one correct choice")
	}
	q.Points = ir.points(decl, true)
	repl := replacements{in: []*node{textNode(blank)}}
	texts, err := ir.questionTexts(q, body, repl, choices)
	if err != nil {
		return err
	}
	var ids map[string]string
	q.Options, ids = ir.options(choices, texts)
	if q.Answer, err = mapKey(key, ids); err != nil {
		return err
	}
	q.Type = exam.SingleChoice
	ir.note("the inline choice became a single choice question, its place in the text a blank")
	return nil
}

func (ir *itemReader) textEntry(q *exam.Question, body, in, decl *node) error {
	if decl == nil {
		return refuse(codeInvalidItem, "the interaction's response %q is not declared", in.attr("responseIdentifier"))
	}
	switch decl.attr("baseType") {
	case "float", "integer":
		return ir.numericEntry(q, body, in, decl)
	}
	answers := ir.entryAnswers(in.attr("responseIdentifier"), decl)
	if len(answers) == 0 {
		return refuse(codeInvalidItem, "the item has no accepted answer (correctResponse or mapping)")
	}
	q.Type, q.Answer = exam.ShortAnswer, answers
	q.Points = ir.points(decl, true)
	if m := decl.child("mapping"); m != nil && m.find(func(n *node) bool { return n.attr("caseSensitive") == "true" }) != nil {
		ir.note("answers are compared ignoring case and spaces")
	}
	_, err := ir.questionTexts(q, body, bodyWith(body, in, true), nil)
	return err
}

func (ir *itemReader) extendedText(q *exam.Question, body, in *node) error {
	q.Type = exam.Essay
	q.Points = ir.points(nil, true)
	repl := bodyWith(body, in, false)
	var rubric []string
	for _, r := range body.find(func(n *node) bool { return n.Name == "rubricBlock" }) {
		view := r.attr("view")
		if strings.Contains(view, "scorer") || strings.Contains(view, "tutor") {
			rubric = append(rubric, plainText(r, nil))
		} else {
			ir.note("dropped a rubric block for %q", view)
		}
		repl[r] = nil
	}
	q.Rubric = strings.TrimSpace(strings.Join(rubric, "\n\n"))
	if len(q.Rubric) > 8<<10 {
		q.Rubric = clip(q.Rubric, 8<<10)
		ir.note("the rubric cut to 8 KiB")
	}
	_, err := ir.questionTexts(q, body, repl, nil)
	return err
}

func (ir *itemReader) match(q *exam.Question, body, in, decl *node) error {
	if decl == nil {
		return refuse(codeInvalidItem, "the interaction's response %q is not declared", in.attr("responseIdentifier"))
	}
	sets := in.children("simpleMatchSet")
	if len(sets) != 2 {
		return refuse(codeInvalidItem, "a matchInteraction needs two simpleMatchSets")
	}
	sources, targets := sets[0].children("simpleAssociableChoice"), sets[1].children("simpleAssociableChoice")
	key := keyFrom(decl, false)
	if len(key) == 0 {
		return refuse(codeInvalidItem, "the item has no answer key (correctResponse or mapping)")
	}
	texts, err := ir.questionTexts(q, body, bodyWith(body, in, false), append(append([]*node{}, sources...), targets...))
	if err != nil {
		return err
	}
	rows, rowIDs := ir.options(sources, texts[:len(sources)])
	cols, colIDs := ir.options(targets, texts[len(sources):])
	pairs := map[string]string{}
	for _, k := range key {
		f := strings.Fields(k)
		if len(f) != 2 {
			return refuse(codeInvalidItem, "the key %q is not a pair", k)
		}
		r, ok1 := rowIDs[f[0]]
		c, ok2 := colIDs[f[1]]
		if !ok1 || !ok2 {
			// A pair written target first.
			r, ok1 = rowIDs[f[1]]
			c, ok2 = colIDs[f[0]]
		}
		if !ok1 || !ok2 {
			return refuse(codeKeyNotAnOption, "the key %q does not pair a choice of the first set with one of the second", k)
		}
		if pairs[r] != "" {
			return refuse(codeUnsupportedType, "the key pairs %q with several choices; a premise has one response", f[0])
		}
		pairs[r] = c
	}
	for _, r := range rows {
		if pairs[r.ID] == "" {
			return refuse(codeInvalidItem, "the key pairs %q with nothing; each premise needs its response", r.ID)
		}
		q.Answer = append(q.Answer, r.ID+"="+pairs[r.ID])
	}
	reuse := false
	for _, t := range targets {
		if mm := strings.TrimSpace(t.attr("matchMax")); mm != "1" {
			reuse = true
		}
	}
	q.Points = ir.points(decl, false)
	partial := decl.child("mapping") != nil
	if partial && partialMapping(decl) && !evenMapping(decl, len(rows)) {
		ir.note("the item's partial credit read as each right pair earning its share of the points")
	}
	if partial {
		q.Scoring = exam.ScoringPartial
	}
	if strings.Contains(" "+in.attr("class")+" ", " qti-match-tabular ") && len(cols) <= 5 {
		q.Type, q.Statements, q.Columns = exam.StatementGrid, rows, cols
		return nil
	}
	q.Type, q.Premises, q.Responses, q.ReuseResponses = exam.Matching, rows, cols, reuse
	return nil
}

// evenMapping reports whether a mapping gives each of n pairs the same
// share, and nothing else: Export's own.
func evenMapping(decl *node, n int) bool {
	entries, _, _ := mappingOf(decl)
	if len(entries) != n {
		return false
	}
	for _, e := range entries {
		if e.value != entries[0].value || e.value <= 0 {
			return false
		}
	}
	return true
}
