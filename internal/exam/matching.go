package exam

import "fmt"

// Limits of a matching question.
const (
	maxPremises  = 26
	maxResponses = 26
)

// validateMatching checks a matching question and normalises its key to
// one "premise=response" per premise, in the premises' order. Unless
// ReuseResponses, a response is the key of one premise at most, and there
// are at least as many responses as premises.
func validateMatching(q *Question) error {
	ps := pairsOf(*q)
	if err := ps.validateParts(*q, maxPremises, 2, maxResponses); err != nil {
		return err
	}
	if !q.ReuseResponses && len(q.Responses) < len(q.Premises) {
		return fmt.Errorf("matching needs at least as many responses as premises, unless reuse_responses is set")
	}
	return ps.validateKey(q)
}
