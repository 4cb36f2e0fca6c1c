package irt

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// simulate draws students from a standard normal ability answering
// questions of the given difficulties and discriminations under the 2PL,
// each answer missing with probability missing.
func simulate(seed uint64, students int, b, a []float64, missing float64) *Responses {
	return simulateFrom(seed, students, 0, 1, b, a, missing)
}

// simulateFrom is simulate with abilities drawn from a normal population of
// the given mean and standard deviation.
func simulateFrom(seed uint64, students int, mean, sd float64, b, a []float64, missing float64) *Responses {
	rng := rand.New(rand.NewPCG(seed, 1))
	r := NewResponses(len(b))
	row := make([]int8, len(b))
	for range students {
		theta := mean + sd*rng.NormFloat64()
		for j := range row {
			switch {
			case rng.Float64() < missing:
				row[j] = Missing
			case rng.Float64() < logistic(a[j]*(theta-b[j])):
				row[j] = 1
			default:
				row[j] = 0
			}
		}
		if err := r.Add(row, 1); err != nil {
			panic(err)
		}
	}
	return r
}

// TestRecoversSimulatedItems fits 10,000 simulated students, a fifth of
// whose answers are missing (students who did not finish, questions
// skipped), and finds each question's parameters within four standard
// errors of the truth; the standard errors are themselves near the spread
// such a sample gives.
func TestRecoversSimulatedItems(t *testing.T) {
	b := []float64{-2, -1.2, -0.5, 0, 0.3, 0.8, 1.5, 2.2}
	a := []float64{0.6, 1.4, 1, 0.8, 2, 1.1, 0.7, 1.6}
	data := simulate(7, 10000, b, a, 0.2)
	c, err := Calibrate(t.Context(), data, Options{Model: TwoPL})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Converged {
		t.Fatalf("not converged after %d iterations", c.Iterations)
	}
	for j, it := range c.Items {
		zb := (it.Difficulty - b[j]) / *it.DifficultySE
		za := (it.Discrimination - a[j]) / *it.DiscriminationSE
		t.Logf("item %d: b %.3f (%.2f) ± %.3f, a %.3f (%.2f) ± %.3f, infit %.3f outfit %.3f",
			j, it.Difficulty, b[j], *it.DifficultySE, it.Discrimination, a[j], *it.DiscriminationSE, *it.Infit, *it.Outfit)
		if math.Abs(zb) > 4 || math.Abs(za) > 4 {
			t.Errorf("item %d: %.1f and %.1f standard errors from the truth", j, zb, za)
		}
		if *it.DifficultySE <= 0 || *it.DifficultySE > 0.2 || *it.DiscriminationSE <= 0 || *it.DiscriminationSE > 0.2 {
			t.Errorf("item %d: standard errors %.3f %.3f out of range for 8,000 answers", j, *it.DifficultySE, *it.DiscriminationSE)
		}
	}
	if c.Students != 10000 {
		t.Errorf("students %v", c.Students)
	}
}

// TestFitStatistics: on a 40-question Rasch test the questions drawn from
// the model have infit and outfit near 1; the last question, answered at
// random whatever the ability, stands out above every other, and the 2PL
// gives it a discrimination near 0.
func TestFitStatistics(t *testing.T) {
	var b, a []float64
	for j := range 39 {
		b, a = append(b, -2+4*float64(j)/38), append(a, 1)
	}
	b, a = append(b, 0), append(a, 0)
	data := simulate(3, 1500, b, a, 0)
	c, err := Calibrate(t.Context(), data, Options{Model: Rasch})
	if err != nil {
		t.Fatal(err)
	}
	noisy := c.Items[39]
	t.Logf("random question: infit %.3f outfit %.3f", *noisy.Infit, *noisy.Outfit)
	for j, it := range c.Items[:39] {
		if math.Abs(*it.Infit-1) > 0.1 || math.Abs(*it.Outfit-1) > 0.25 {
			t.Errorf("item %d drawn from the model: infit %.3f outfit %.3f", j, *it.Infit, *it.Outfit)
		}
		if *noisy.Infit <= *it.Infit+0.05 || *noisy.Outfit <= *it.Outfit+0.05 {
			t.Errorf("the random question does not stand out from question %d: infit %.3f, %.3f; outfit %.3f, %.3f",
				j, *noisy.Infit, *it.Infit, *noisy.Outfit, *it.Outfit)
		}
	}
	c2, err := Calibrate(t.Context(), data, Options{Model: TwoPL})
	if err != nil {
		t.Fatal(err)
	}
	if d := c2.Items[39].Discrimination; math.Abs(d) > 0.15 {
		t.Errorf("2PL discrimination of the random question %.3f", d)
	}
}

// TestEdgeCases: one student; every student with the same answers; a
// question nobody answered, one everybody got right and one everybody got
// wrong, which are left out with the reason while the others calibrate.
func TestEdgeCases(t *testing.T) {
	one := NewResponses(3)
	if err := one.Add([]int8{1, 0, 1}, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := Calibrate(t.Context(), one, Options{}); !errors.Is(err, ErrTooFewStudents) {
		t.Errorf("one student: %v", err)
	}
	same := NewResponses(3)
	if err := same.Add([]int8{1, 0, 1}, 40); err != nil {
		t.Fatal(err)
	}
	if _, err := Calibrate(t.Context(), same, Options{}); !errors.Is(err, ErrTooFewItems) {
		t.Errorf("every student alike: %v", err)
	}

	// LSAT with three more questions: unanswered, all right, all wrong.
	wide := NewResponses(8)
	for p, n := range lsatCounts {
		if n > 0 {
			if err := wide.Add(append(lsatPattern(p), Missing, 1, 0), n); err != nil {
				t.Fatal(err)
			}
		}
	}
	c, err := Calibrate(t.Context(), wide, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for j, want := range []string{5: ReasonNoAnswers, 6: ReasonAllRight, 7: ReasonAllWrong} {
		it := c.Items[j]
		if want == "" {
			if !it.Calibrated {
				t.Errorf("item %d left out: %s", j, it.Reason)
			}
			continue
		}
		if it.Calibrated || it.Reason != want || it.DifficultySE != nil || it.Infit != nil || it.Outfit != nil {
			t.Errorf("item %d: %+v, want left out for %q", j, it, want)
		}
	}
	// The questions left out change nothing: the same fit as LSAT alone.
	alone, err := Calibrate(t.Context(), lsat(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for j := range 5 {
		if math.Abs(c.Items[j].Difficulty-alone.Items[j].Difficulty) > 1e-6 {
			t.Errorf("item %d: %.6f with the extra questions, %.6f without", j, c.Items[j].Difficulty, alone.Items[j].Difficulty)
		}
	}
	if got := c.EAP([]int8{Missing, Missing, Missing, Missing, Missing, Missing, 1, 0}); math.Abs(got.Theta) > 1e-9 || math.Abs(got.SE-1) > 1e-9 {
		t.Errorf("EAP of a student with no calibrated answer: %+v, want the prior 0 ± 1", got)
	}
}

// TestUnbounded: answers that follow the students' order perfectly (a
// Guttman pattern) have no finite 2PL estimate; the calibration says which
// question, rather than report a discrimination of hundreds.
func TestUnbounded(t *testing.T) {
	r := NewResponses(4)
	for n := range 40 {
		row := make([]int8, 4)
		for j := range row {
			if n >= 8*(j+1) {
				row[j] = 1
			}
		}
		if err := r.Add(row, 1); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Calibrate(t.Context(), r, Options{Model: TwoPL})
	var ue *UnboundedError
	if !errors.As(err, &ue) || !errors.Is(err, ErrUnbounded) || ue.Item < 0 || ue.Item > 3 {
		t.Fatalf("Guttman answers: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	r := NewResponses(2)
	for _, tc := range []struct {
		row   []int8
		count float64
	}{{[]int8{1}, 1}, {[]int8{1, 2}, 1}, {[]int8{1, 0}, 0}, {[]int8{1, 0}, math.NaN()}} {
		if err := r.Add(tc.row, tc.count); !errors.Is(err, ErrBadResponse) {
			t.Errorf("Add(%v, %v): %v", tc.row, tc.count, err)
		}
	}
	if r.Rows() != 0 {
		t.Errorf("refused rows were kept: %d", r.Rows())
	}
	if _, err := Calibrate(t.Context(), lsat(t), Options{Model: "3pl"}); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("3pl: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Calibrate(ctx, lsat(t), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestInformationCurve: the curve is the sum of the items' a²P(1-P), peaks
// near the items' difficulties and its SE is 1/sqrt(information).
func TestInformationCurve(t *testing.T) {
	c, err := Calibrate(t.Context(), lsat(t), Options{Model: TwoPL})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Information) != 81 || c.Information[0].Theta != -4 || c.Information[80].Theta != 4 {
		t.Fatalf("grid: %d points from %v", len(c.Information), c.Information[0].Theta)
	}
	peak := c.Information[0]
	for _, p := range c.Information {
		var want float64
		for _, it := range c.Items {
			pr := logistic(it.Discrimination * (p.Theta - it.Difficulty))
			want += it.Discrimination * it.Discrimination * pr * (1 - pr)
		}
		if math.Abs(p.Information-want) > 1e-12 || math.Abs(p.SE-1/math.Sqrt(want)) > 1e-12 {
			t.Errorf("θ %v: information %v SE %v, want %v", p.Theta, p.Information, p.SE, want)
		}
		if p.Information > peak.Information {
			peak = p
		}
	}
	// LSAT's questions are easy (b from -3.4 to -0.3): the test measures
	// best below average.
	if peak.Theta > -1 || peak.Theta < -3 {
		t.Errorf("information peaks at %v", peak.Theta)
	}
}
