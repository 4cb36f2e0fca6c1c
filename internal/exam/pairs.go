package exam

import (
	"fmt"
	"strings"

	"github.com/seedhq/portal/pkg/labwire"
)

// A question answered in pairs (a statement grid, a matching question) has
// rows, each given one of the question's choices: its key and its answers
// are "row=choice" pairs joined by ",".

// pairSet is what a paired question pairs, and what its messages call them.
type pairSet struct {
	rows, choices []Option
	row, choice   string // "statement" and "column", "premise" and "response"
	// choiceOnce: a choice may be given to one row only.
	choiceOnce bool
}

// pairsOf is q's pair set; empty rows for a question not answered in pairs.
func pairsOf(q Question) pairSet {
	switch q.Type {
	case StatementGrid:
		return pairSet{rows: q.Statements, choices: gridColumns(q), row: "statement", choice: "column"}
	case Matching:
		return pairSet{rows: q.Premises, choices: q.Responses, row: "premise", choice: "response", choiceOnce: !q.ReuseResponses}
	}
	return pairSet{}
}

// parse reads "r1=c1,r2=c2" (rows in any order, each at most once; with
// choiceOnce, each choice at most once) into row id -> choice id.
func (ps pairSet) parse(answer string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(answer) == "" {
		return out, nil
	}
	given := map[string]string{} // choice id -> the row it was given to
	for _, pair := range strings.Split(answer, ",") {
		rid, cid, ok := strings.Cut(strings.TrimSpace(pair), "=")
		rid, cid = strings.TrimSpace(rid), strings.TrimSpace(cid)
		switch {
		case !ok:
			return nil, fmt.Errorf("%q is not %s=%s", pair, ps.row, ps.choice)
		case !hasID(ps.rows, rid):
			return nil, fmt.Errorf("%q is not a %s of the question", rid, ps.row)
		case !hasID(ps.choices, cid):
			return nil, fmt.Errorf("%q is not a %s of the question", cid, ps.choice)
		case out[rid] != "":
			return nil, fmt.Errorf("%s %q is answered twice", ps.row, rid)
		case ps.choiceOnce && given[cid] != "":
			return nil, fmt.Errorf("%s %q is given to %s %q and %q, and may be used once", ps.choice, cid, ps.row, given[cid], rid)
		}
		out[rid], given[cid] = cid, rid
	}
	return out, nil
}

// validateKey checks q's key, one "row=choice" per row, and normalises it
// to the rows' order.
func (ps pairSet) validateKey(q *Question) error {
	key, err := ps.parse(strings.Join(q.Answer, ","))
	if err != nil {
		return fmt.Errorf("answer: %v", err)
	}
	if len(key) != len(ps.rows) {
		return fmt.Errorf(`the answer names the %s of every %s, "%s=%s" each`, ps.choice, ps.row, ps.row, ps.choice)
	}
	q.Answer = q.Answer[:0]
	for _, r := range ps.rows {
		q.Answer = append(q.Answer, r.ID+"="+key[r.ID])
	}
	return nil
}

// validateParts checks the rows and choices of a paired question: their
// counts (rows 1 to maxRows, choices minChoices to maxChoices), ids and
// texts, and the scoring.
func (ps pairSet) validateParts(q Question, maxRows, minChoices, maxChoices int) error {
	if len(q.Options) != 0 {
		return fmt.Errorf("%s takes %ss and %ss, no options", q.Type, ps.row, ps.choice)
	}
	if len(ps.rows) < 1 || len(ps.rows) > maxRows {
		return fmt.Errorf("%s needs 1 to %d %ss", q.Type, maxRows, ps.row)
	}
	if len(ps.choices) < minChoices || len(ps.choices) > maxChoices {
		return fmt.Errorf("%s needs %d to %d %ss", q.Type, minChoices, maxChoices, ps.choice)
	}
	if q.Scoring != ScoringAll && q.Scoring != ScoringPartial {
		return fmt.Errorf(`scoring must be "partial" or absent (all or nothing)`)
	}
	for _, set := range []struct {
		name string
		opts []Option
	}{{ps.row, ps.rows}, {ps.choice, ps.choices}} {
		seen := map[string]bool{}
		for _, o := range set.opts {
			if !labwire.ValidServerCode(o.ID) || strings.ContainsAny(o.ID, ",=") {
				return fmt.Errorf("%s id %q must be 1 to 64 letters, digits, dots, dashes or underscores", set.name, o.ID)
			}
			if strings.TrimSpace(o.Text) == "" {
				return fmt.Errorf("%s %q needs a text", set.name, o.ID)
			}
			if seen[o.ID] {
				return fmt.Errorf("duplicate %s id %q", set.name, o.ID)
			}
			seen[o.ID] = true
		}
	}
	return nil
}

func hasID(opts []Option, id string) bool {
	for _, o := range opts {
		if o.ID == id {
			return true
		}
	}
	return false
}

// scorePairs scores a paired question: every row right for the points
// (ScoringAll), or each right row its share (ScoringPartial). An answer
// that does not parse (an unknown id, a once-only choice given twice)
// earns nothing.
func scorePairs(q Question, answer string) (correct bool, points float64) {
	ps := pairsOf(q)
	given, err := ps.parse(answer)
	if err != nil {
		return false, 0
	}
	key, _ := ps.parse(strings.Join(q.Answer, ","))
	right := 0
	for rid, cid := range key {
		if given[rid] == cid {
			right++
		}
	}
	correct = len(key) > 0 && right == len(key)
	switch {
	case correct:
		return true, q.Points
	case q.Scoring == ScoringPartial && len(key) > 0:
		return false, q.Points * float64(right) / float64(len(key))
	}
	return false, 0
}
