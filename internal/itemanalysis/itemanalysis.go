// Package itemanalysis computes the classical item analysis of an exam
// paper ("analisis butir soal"): the distribution of the students' total
// scores, the paper's reliability (KR-20, Cronbach's alpha) and standard
// error of measurement, and for each item its facility, its discrimination
// (the upper-lower 27 % index and the corrected item-total correlation),
// the table of the options chosen, overall and in the upper and lower
// groups, and the flags a teacher acts on.
//
// The analysis is one pass over the students, in any order, keeping sums
// per total score rather than the students: its memory grows with the
// number of distinct total scores, never with the number of students, and
// two analyses of the same paper merge (Merge), so that schools, portals or
// batches can be analysed apart and added up. docs/item-analysis.md gives
// every formula, threshold and choice made where the textbooks differ.
package itemanalysis

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Item is one question of the paper, as it is scored.
type Item struct {
	// ID names the item in the report.
	ID string
	// MaxPoints is what a full answer earns; more than 0.
	MaxPoints float64
	// Options are a choice item's options, in the paper's order; nil for
	// an item without options (short answer, numeric, essay, grids).
	Options []string
	// Key holds the options of the answer key of a choice item.
	Key []string
}

// Answer is one student's answer to one item.
type Answer struct {
	// Points earned, from 0 to the item's MaxPoints; partial credit is a
	// fraction of it.
	Points float64
	// Omitted is an item the student left blank (or never reached): it
	// earns 0 points and has a column of its own in the option table.
	Omitted bool
	// Chosen are the options chosen, for a choice item.
	Chosen []string
}

// Errors of Add and Merge.
var (
	ErrAnswers = errors.New("itemanalysis: a student needs one answer per item")
	ErrPoints  = errors.New("itemanalysis: points outside 0 to the item's maximum")
	ErrOption  = errors.New("itemanalysis: an option the item does not have")
	ErrPaper   = errors.New("itemanalysis: analyses of different papers")
)

// scale keeps totals as integers of hundredths of a point, the precision
// of the portal's scores, so that equal totals share one level.
const scale = 100

// level holds the sums over the students of one total score.
type level struct {
	n       float64
	points  []float64   // per item: Σ points
	chosen  [][]float64 // per item, per option: students who chose it
	omitted []float64   // per item: students who left it blank
}

// Analysis accumulates students' answers to one paper. The zero value is
// not usable: call New.
type Analysis struct {
	items  []Item
	option []map[string]int // per item: option → index
	key    []map[string]bool

	n                  float64
	sumX, sumX2        float64   // totals
	sumI, sumI2, sumIX []float64 // per item: Σx, Σx², Σx·total
	partial            []bool    // per item: a score other than 0 or the maximum was seen
	levels             map[int64]*level
}

// New returns an empty analysis of the paper made of items.
func New(items []Item) (*Analysis, error) {
	if len(items) == 0 {
		return nil, errors.New("itemanalysis: a paper needs at least one item")
	}
	a := &Analysis{
		items:   slices.Clone(items),
		option:  make([]map[string]int, len(items)),
		key:     make([]map[string]bool, len(items)),
		sumI:    make([]float64, len(items)),
		sumI2:   make([]float64, len(items)),
		sumIX:   make([]float64, len(items)),
		partial: make([]bool, len(items)),
		levels:  map[int64]*level{},
	}
	ids := make(map[string]bool, len(items))
	for i, it := range items {
		if ids[it.ID] {
			return nil, fmt.Errorf("itemanalysis: item %q given twice", it.ID)
		}
		ids[it.ID] = true
		if !(it.MaxPoints > 0) || math.IsInf(it.MaxPoints, 0) {
			return nil, fmt.Errorf("itemanalysis: item %q: maximum points %v, want more than 0", it.ID, it.MaxPoints)
		}
		a.option[i] = make(map[string]int, len(it.Options))
		for j, o := range it.Options {
			if _, dup := a.option[i][o]; dup {
				return nil, fmt.Errorf("itemanalysis: item %q: option %q given twice", it.ID, o)
			}
			a.option[i][o] = j
		}
		a.key[i] = make(map[string]bool, len(it.Key))
		for _, k := range it.Key {
			if _, ok := a.option[i][k]; !ok {
				return nil, fmt.Errorf("itemanalysis: item %q: key %q is not one of its options", it.ID, k)
			}
			a.key[i][k] = true
		}
	}
	return a, nil
}

// Add counts one student's answers, one per item in the paper's order. A
// refused student changes nothing.
func (a *Analysis) Add(answers []Answer) error {
	if len(answers) != len(a.items) {
		return fmt.Errorf("%w: got %d for %d items", ErrAnswers, len(answers), len(a.items))
	}
	var total float64
	for i, ans := range answers {
		it := a.items[i]
		if math.IsNaN(ans.Points) || ans.Points < 0 || ans.Points > it.MaxPoints {
			return fmt.Errorf("%w: item %q: %v of %v", ErrPoints, it.ID, ans.Points, it.MaxPoints)
		}
		if ans.Omitted && ans.Points != 0 {
			return fmt.Errorf("%w: item %q: an omitted answer earns 0, not %v", ErrPoints, it.ID, ans.Points)
		}
		for _, c := range ans.Chosen {
			if _, ok := a.option[i][c]; !ok {
				return fmt.Errorf("%w: item %q: %q", ErrOption, it.ID, c)
			}
		}
		total += ans.Points
	}
	key := int64(math.Round(total * scale))
	lv := a.levels[key]
	if lv == nil {
		lv = a.newLevel()
		a.levels[key] = lv
	}
	a.n++
	a.sumX += total
	a.sumX2 += total * total
	lv.n++
	for i, ans := range answers {
		x := ans.Points
		a.sumI[i] += x
		a.sumI2[i] += x * x
		a.sumIX[i] += x * total
		if x != 0 && x != a.items[i].MaxPoints {
			a.partial[i] = true
		}
		lv.points[i] += x
		if ans.Omitted {
			lv.omitted[i]++
		}
		for _, c := range ans.Chosen {
			lv.chosen[i][a.option[i][c]]++
		}
	}
	return nil
}

func (a *Analysis) newLevel() *level {
	lv := &level{points: make([]float64, len(a.items)), chosen: make([][]float64, len(a.items)), omitted: make([]float64, len(a.items))}
	for i, it := range a.items {
		lv.chosen[i] = make([]float64, len(it.Options))
	}
	return lv
}

// Merge adds what b counted to a; b must analyse the same paper (the same
// items, maxima, options and keys, in the same order).
func (a *Analysis) Merge(b *Analysis) error {
	if len(a.items) != len(b.items) {
		return ErrPaper
	}
	for i := range a.items {
		x, y := a.items[i], b.items[i]
		if x.ID != y.ID || x.MaxPoints != y.MaxPoints || !slices.Equal(x.Options, y.Options) || !slices.Equal(x.Key, y.Key) {
			return fmt.Errorf("%w: item %d is %q in one and %q in the other", ErrPaper, i+1, x.ID, y.ID)
		}
	}
	a.n += b.n
	a.sumX += b.sumX
	a.sumX2 += b.sumX2
	for i := range a.items {
		a.sumI[i] += b.sumI[i]
		a.sumI2[i] += b.sumI2[i]
		a.sumIX[i] += b.sumIX[i]
		a.partial[i] = a.partial[i] || b.partial[i]
	}
	for k, bl := range b.levels {
		al := a.levels[k]
		if al == nil {
			al = a.newLevel()
			a.levels[k] = al
		}
		al.n += bl.n
		for i := range a.items {
			al.points[i] += bl.points[i]
			al.omitted[i] += bl.omitted[i]
			for j := range bl.chosen[i] {
				al.chosen[i][j] += bl.chosen[i][j]
			}
		}
	}
	return nil
}
