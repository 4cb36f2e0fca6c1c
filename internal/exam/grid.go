package exam

import (
	"fmt"
	"strings"
)

// Limits of a statement grid.
const (
	maxStatements = 26
	maxColumns    = 5
)

// defaultColumns are a statement grid's columns when it names none.
var defaultColumns = []Option{{ID: "true", Text: "Benar"}, {ID: "false", Text: "Salah"}}

// validateStatementGrid checks a statement grid and normalises its key to
// one "statement=column" per statement, in the statements' order.
func validateStatementGrid(q *Question) error {
	if len(q.Options) != 0 {
		return fmt.Errorf("statement_grid takes statements and columns, no options")
	}
	if len(q.Statements) < 1 || len(q.Statements) > maxStatements {
		return fmt.Errorf("statement_grid needs 1 to %d statements", maxStatements)
	}
	if len(q.Columns) == 0 {
		q.Columns = append([]Option(nil), defaultColumns...)
	}
	if len(q.Columns) < 2 || len(q.Columns) > maxColumns {
		return fmt.Errorf("statement_grid needs 2 to %d columns", maxColumns)
	}
	if q.Scoring != ScoringAll && q.Scoring != ScoringPartial {
		return fmt.Errorf(`scoring must be "partial" or absent (all or nothing)`)
	}
	for _, set := range []struct {
		name string
		opts []Option
	}{{"statement", q.Statements}, {"column", q.Columns}} {
		seen := map[string]bool{}
		for _, o := range set.opts {
			if !serverCodePattern.MatchString(o.ID) || strings.ContainsAny(o.ID, ",=") {
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
	key, err := parseGridAnswer(*q, strings.Join(q.Answer, ","))
	if err != nil {
		return fmt.Errorf("answer: %v", err)
	}
	if len(key) != len(q.Statements) {
		return fmt.Errorf(`the answer names the column of every statement, "statement=column" each`)
	}
	q.Answer = q.Answer[:0]
	for _, s := range q.Statements {
		q.Answer = append(q.Answer, s.ID+"="+key[s.ID])
	}
	return nil
}

// parseGridAnswer reads "s1=true,s2=false" (statements in any order, each
// at most once) into statement id -> column id.
func parseGridAnswer(q Question, answer string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(answer) == "" {
		return out, nil
	}
	for _, pair := range strings.Split(answer, ",") {
		sid, cid, ok := strings.Cut(strings.TrimSpace(pair), "=")
		sid, cid = strings.TrimSpace(sid), strings.TrimSpace(cid)
		switch {
		case !ok:
			return nil, fmt.Errorf("%q is not statement=column", pair)
		case !hasID(q.Statements, sid):
			return nil, fmt.Errorf("%q is not a statement of the question", sid)
		case !hasID(gridColumns(q), cid):
			return nil, fmt.Errorf("%q is not a column of the question", cid)
		case out[sid] != "":
			return nil, fmt.Errorf("statement %q is answered twice", sid)
		}
		out[sid] = cid
	}
	return out, nil
}

// gridColumns are q's columns, or the default ones.
func gridColumns(q Question) []Option {
	if len(q.Columns) == 0 {
		return defaultColumns
	}
	return q.Columns
}

func hasID(opts []Option, id string) bool {
	for _, o := range opts {
		if o.ID == id {
			return true
		}
	}
	return false
}

// scoreGrid scores a statement grid: every statement right for the points
// (ScoringAll), or each right statement its share (ScoringPartial).
func scoreGrid(q Question, answer string) (correct bool, points float64) {
	given, err := parseGridAnswer(q, answer)
	if err != nil {
		return false, 0
	}
	key, _ := parseGridAnswer(q, strings.Join(q.Answer, ","))
	right := 0
	for sid, cid := range key {
		if given[sid] == cid {
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
