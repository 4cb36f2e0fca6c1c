package exam

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/seedhq/portal/internal/richtext"
	"github.com/seedhq/portal/pkg/labwire"
)

// maxBlanks is the most blanks a cloze question has.
const maxBlanks = 50

// validateCloze checks a cloze question: markdown text whose blank markers
// name each blank once, in the blanks' order; each blank's kind, options,
// key and points. A blank's points default to 1 and the question's points
// are the blanks' added up.
func validateCloze(q *Question) error {
	switch {
	case q.Format != string(richtext.Markdown):
		return fmt.Errorf(`cloze is written in markdown ("format": "markdown"), its blanks marked [[id]] in the text`)
	case len(q.Options) != 0 || len(q.Answer) != 0:
		return fmt.Errorf("cloze takes no options and no answer: each blank has its own")
	case len(q.Blanks) < 1 || len(q.Blanks) > maxBlanks:
		return fmt.Errorf("cloze needs 1 to %d blanks", maxBlanks)
	}
	ids := make([]string, len(q.Blanks))
	q.Points = 0
	for i := range q.Blanks {
		b := &q.Blanks[i]
		if err := validateBlank(b); err != nil {
			return fmt.Errorf("blank %q: %v", b.ID, err)
		}
		if slices.Contains(ids[:i], b.ID) {
			return fmt.Errorf("duplicate blank id %q", b.ID)
		}
		ids[i] = b.ID
		q.Points += b.Points
	}
	if q.Points > 1000 {
		return fmt.Errorf("the blanks' points add up to at most 1000")
	}
	marked := richtext.Blanks(q.Text)
	for _, id := range marked {
		if !slices.Contains(ids, id) {
			return fmt.Errorf("the text marks [[%s]], which is not a blank of the question", id)
		}
	}
	if !slices.Equal(marked, ids) {
		return fmt.Errorf("the text must mark every blank once, in the blanks' order: [[%s]] (it marks %s)",
			strings.Join(ids, "]], [["), markedList(marked))
	}
	return nil
}

func markedList(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return "[[" + strings.Join(ids, "]], [[") + "]]"
}

// validateBlank checks one blank and normalises its key.
func validateBlank(b *Blank) error {
	b.ID = strings.TrimSpace(b.ID)
	switch {
	case !labwire.ValidServerCode(b.ID):
		return fmt.Errorf("id must be 1 to 64 letters, digits, dots, dashes or underscores")
	case b.Points < 0 || b.Points > 1000:
		return fmt.Errorf("points must be between 0 and 1000")
	case b.Kind != BlankNumber && (b.Tolerance != 0 || b.ToleranceMode != ""):
		return fmt.Errorf("only a number blank has a tolerance")
	case b.Kind != BlankChoice && len(b.Options) != 0:
		return fmt.Errorf("only a choice blank has options")
	}
	if b.Points == 0 {
		b.Points = 1
	}
	switch b.Kind {
	case BlankText:
		b.Answer = slices.DeleteFunc(b.Answer, func(a string) bool { return strings.TrimSpace(a) == "" })
		if len(b.Answer) == 0 {
			return fmt.Errorf("a text blank needs at least one accepted answer")
		}
	case BlankNumber:
		k := b.numberKey()
		return k.validate()
	case BlankChoice:
		if len(b.Options) < 2 || len(b.Options) > maxOptions || len(b.Answer) != 1 {
			return fmt.Errorf("a choice blank needs 2 to %d options and exactly one answer", maxOptions)
		}
		seen := map[string]bool{}
		for _, o := range b.Options {
			switch {
			case !labwire.ValidServerCode(o.ID):
				return fmt.Errorf("option id %q must be 1 to 64 letters, digits, dots, dashes or underscores", o.ID)
			case strings.TrimSpace(o.Text) == "":
				return fmt.Errorf("option %q needs a text", o.ID)
			case seen[o.ID]:
				return fmt.Errorf("duplicate option id %q", o.ID)
			}
			seen[o.ID] = true
		}
		if !seen[b.Answer[0]] {
			return fmt.Errorf("answer %q is not an option id", b.Answer[0])
		}
	default:
		return fmt.Errorf(`kind must be "text", "number" or "choice"`)
	}
	return nil
}

// ParseClozeAnswer reads a cloze question's answer, a JSON object of blank
// id to what the student gave ({"b1": "Jakarta", "b2": "2,5"}); an empty
// answer gives nothing.
func ParseClozeAnswer(answer string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(answer) == "" {
		return out, nil
	}
	if err := json.Unmarshal([]byte(answer), &out); err != nil {
		return nil, fmt.Errorf(`a cloze answer is a JSON object of blank id to text ({"b1": "..."})`)
	}
	return out, nil
}

// scoreBlank reports whether given is right for b.
func scoreBlank(b Blank, given string) bool {
	switch b.Kind {
	case BlankText:
		return textMatches(b.Answer, given)
	case BlankNumber:
		return b.numberKey().Matches(given)
	case BlankChoice:
		return len(b.Answer) == 1 && strings.TrimSpace(given) == b.Answer[0]
	}
	return false
}

// scoreCloze gives each right blank its points; the answer is correct when
// every blank is right. An answer that does not parse earns nothing.
func scoreCloze(q Question, answer string) (correct bool, points float64) {
	given, err := ParseClozeAnswer(answer)
	if err != nil {
		return false, 0
	}
	right := 0
	for _, b := range q.Blanks {
		if scoreBlank(b, given[b.ID]) {
			right++
			points += b.Points
		}
	}
	return len(q.Blanks) > 0 && right == len(q.Blanks), points
}
