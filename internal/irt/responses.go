// Package irt calibrates right-or-wrong questions with item response
// theory: the Rasch model (one discrimination shared by every question) and
// the two-parameter logistic model (2PL), fitted by marginal maximum
// likelihood over a standard normal ability, as R's ltm package and BILOG do.
//
// A calibration gives each question a difficulty and a discrimination with
// their standard errors, its infit and outfit mean squares, the test
// information curve, and scores students by their expected a posteriori
// ability (EAP) with its standard error. docs/item-analysis.md says which
// estimator, prior, quadrature and convergence rule it uses and why.
package irt

import (
	"errors"
	"fmt"
)

// Missing is the score of a question a student did not answer, or whose
// score is not known yet (an essay not graded): it tells nothing about the
// student, and the calibration leaves it out.
const Missing int8 = -1

// Responses are the students' scores, one row per student: 1 right, 0
// wrong, Missing. A row may stand for several students who answered alike
// (a response pattern and its count). Rows are kept in one byte each per
// question, so a million students of 40 questions take 40 MB.
type Responses struct {
	items  int
	cells  []int8
	counts []float64
	total  float64
}

// ErrBadResponse is returned by Add for a row it cannot take.
var ErrBadResponse = errors.New("irt: bad response row")

// NewResponses returns empty responses to items questions.
func NewResponses(items int) *Responses {
	return &Responses{items: items}
}

// Add appends a row of count students; the row is copied. A row of the
// wrong length, a score other than 0, 1 or Missing, or a count that is not
// positive is refused with ErrBadResponse.
func (r *Responses) Add(row []int8, count float64) error {
	if len(row) != r.items {
		return fmt.Errorf("%w: %d scores for %d questions", ErrBadResponse, len(row), r.items)
	}
	if !(count > 0) {
		return fmt.Errorf("%w: count %v is not positive", ErrBadResponse, count)
	}
	for j, x := range row {
		if x != 0 && x != 1 && x != Missing {
			return fmt.Errorf("%w: question %d scored %d (0, 1 or Missing)", ErrBadResponse, j, x)
		}
	}
	r.cells = append(r.cells, row...)
	r.counts = append(r.counts, count)
	r.total += count
	return nil
}

// Items returns the number of questions.
func (r *Responses) Items() int { return r.items }

// Rows returns the number of rows added.
func (r *Responses) Rows() int { return len(r.counts) }

// Students returns the number of students: the rows' counts summed.
func (r *Responses) Students() float64 { return r.total }

// row returns row i, shared with r.
func (r *Responses) row(i int) []int8 { return r.cells[i*r.items : (i+1)*r.items] }
