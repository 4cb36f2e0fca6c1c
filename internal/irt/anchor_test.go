package irt

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// anchorsFrom returns anchors at c's estimates for the questions in which.
func anchorsFrom(c *Calibration, which ...int) []*Anchor {
	anchors := make([]*Anchor, len(c.Items))
	for _, j := range which {
		anchors[j] = &Anchor{Difficulty: c.Items[j].Difficulty, Discrimination: c.Items[j].Discrimination}
	}
	return anchors
}

// TestAnchorsAtOwnEstimatesKeepTheScale: a free fit's estimates maximize
// the likelihood with the population standard normal, so anchoring some or
// all of its questions at those estimates must give back the same fit: a
// mean of 0, an SD of 1, the free questions' estimates and the
// log-likelihood unchanged (the Rasch model's free questions sharing the
// anchors' discrimination). Any error in the anchored parametrization or
// its gradient moves them.
func TestAnchorsAtOwnEstimatesKeepTheScale(t *testing.T) {
	b := []float64{-1.8, -1, -0.4, 0, 0.2, 0.7, 1.1, 1.9}
	a := []float64{0.7, 1.3, 1, 0.9, 1.8, 1.2, 0.8, 1.5}
	data := simulate(11, 4000, b, a, 0.1)
	for _, model := range []Model{TwoPL, Rasch} {
		free, err := Calibrate(t.Context(), data, Options{Model: model})
		if err != nil {
			t.Fatal(err)
		}
		for _, which := range [][]int{{0, 3, 6}, {0, 1, 2, 3, 4, 5, 6, 7}} {
			c, err := Calibrate(t.Context(), data, Options{Model: model, Anchors: anchorsFrom(free, which...)})
			if err != nil {
				t.Fatalf("%s, anchors %v: %v", model, which, err)
			}
			if c.Anchored != len(which) {
				t.Errorf("%s: Anchored = %d, want %d", model, c.Anchored, len(which))
			}
			if math.Abs(c.Mean) > 1e-4 || math.Abs(c.SD-1) > 1e-4 {
				t.Errorf("%s, anchors %v: population %.6f, %.6f; want 0, 1", model, which, c.Mean, c.SD)
			}
			if c.MeanSE == nil || c.SDSE == nil || *c.MeanSE <= 0 || *c.SDSE <= 0 {
				t.Errorf("%s, anchors %v: no standard errors for the population", model, which)
			}
			if math.Abs(c.LogLik-free.LogLik) > 1e-6*math.Abs(free.LogLik) {
				t.Errorf("%s, anchors %v: log-likelihood %.6f, free fit %.6f", model, which, c.LogLik, free.LogLik)
			}
			for j, it := range c.Items {
				want := free.Items[j]
				if math.Abs(it.Difficulty-want.Difficulty) > 1e-3 || math.Abs(it.Discrimination-want.Discrimination) > 1e-3 {
					t.Errorf("%s, anchors %v: question %d: b %.4f a %.4f, free fit b %.4f a %.4f",
						model, which, j, it.Difficulty, it.Discrimination, want.Difficulty, want.Discrimination)
				}
				// Under the 2PL a free question's standard errors add the
				// uncertainty of the population's mean and SD, which the
				// free fit fixes by definition: they are not smaller. (The
				// anchored Rasch model fixes the discrimination the free
				// fit estimates, so there they may be.)
				switch {
				case it.Anchored && (it.DifficultySE != nil || it.DiscriminationSE != nil):
					t.Errorf("%s: anchored question %d has standard errors", model, j)
				case !it.Anchored && (it.DifficultySE == nil || *it.DifficultySE <= 0):
					t.Errorf("%s: question %d has no difficulty SE", model, j)
				case !it.Anchored && model == TwoPL && *it.DifficultySE < *want.DifficultySE-1e-6:
					t.Errorf("%s: question %d: difficulty SE %.4f, free fit %.4f", model, j, *it.DifficultySE, *want.DifficultySE)
				case !it.Anchored && model == TwoPL && it.DiscriminationSE == nil:
					t.Errorf("%s: question %d has no discrimination SE", model, j)
				case !it.Anchored && model == Rasch && it.DiscriminationSE != nil:
					t.Errorf("%s: question %d: the anchored Rasch model's discrimination is the anchors', with no SE", model, j)
				}
				if it.Infit == nil {
					t.Errorf("%s: question %d has no infit", model, j)
				}
			}
		}
	}
}

// TestAnchorsRecoverAShiftedPopulation: a later paper taken by an abler,
// more spread population, with ten of its twenty questions anchored at
// their true parameters, is reported on the anchors' scale: the
// population's mean and SD and the ten new questions' parameters are found
// within four standard errors of the truth. A free fit would put the new
// questions on the new population's own standard scale, 0.6 lower and
// 1.3 times narrower.
func TestAnchorsRecoverAShiftedPopulation(t *testing.T) {
	var b, a []float64
	for j := range 20 {
		b = append(b, -1.5+3*float64(j%10)/9+0.05*float64(j/10))
		a = append(a, 0.7+0.1*float64((j*7)%10))
	}
	const mean, sd = 0.6, 1.3
	data := simulateFrom(5, 8000, mean, sd, b, a, 0.15)
	anchors := make([]*Anchor, 20)
	for j := range 10 {
		anchors[j] = &Anchor{Difficulty: b[j], Discrimination: a[j]}
	}
	c, err := Calibrate(t.Context(), data, Options{Model: TwoPL, Anchors: anchors})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Converged {
		t.Errorf("not converged after %d iterations", c.Iterations)
	}
	t.Logf("population %.3f ± %.3f, SD %.3f ± %.3f", c.Mean, *c.MeanSE, c.SD, *c.SDSE)
	if z := (c.Mean - mean) / *c.MeanSE; math.Abs(z) > 4 {
		t.Errorf("mean %.3f, %.1f standard errors from %v", c.Mean, z, mean)
	}
	if z := (c.SD - sd) / *c.SDSE; math.Abs(z) > 4 {
		t.Errorf("SD %.3f, %.1f standard errors from %v", c.SD, z, sd)
	}
	for j := 10; j < 20; j++ {
		it := c.Items[j]
		zb, za := (it.Difficulty-b[j]) / *it.DifficultySE, (it.Discrimination-a[j]) / *it.DiscriminationSE
		if math.Abs(zb) > 4 || math.Abs(za) > 4 {
			t.Errorf("question %d: b %.3f (%.3f), a %.3f (%.3f): %.1f and %.1f standard errors off",
				j, it.Difficulty, b[j], it.Discrimination, a[j], zb, za)
		}
	}
	// A student who answered nothing gets the population, not 0 and 1.
	none := make([]int8, 20)
	for j := range none {
		none[j] = Missing
	}
	if got := c.EAP(none); math.Abs(got.Theta-c.Mean) > 1e-6 || math.Abs(got.SE-c.SD) > 1e-3 {
		t.Errorf("EAP of no answers = %+v, want the population %.3f, %.3f", got, c.Mean, c.SD)
	}
}

// TestBadAnchors: anchors that cannot be parameters are refused, naming
// the question.
func TestBadAnchors(t *testing.T) {
	data := simulate(2, 200, []float64{-1, 0, 1}, []float64{1, 1, 1}, 0)
	for _, an := range []Anchor{{math.NaN(), 1}, {math.Inf(1), 1}, {0, 0}, {0, -1}, {0, math.Inf(1)}} {
		_, err := Calibrate(t.Context(), data, Options{Model: TwoPL, Anchors: []*Anchor{nil, &an}})
		if !errors.Is(err, ErrBadAnchor) {
			t.Errorf("anchor %+v: err = %v", an, err)
		}
	}
	if _, err := Calibrate(t.Context(), data, Options{Anchors: make([]*Anchor, 4)}); !errors.Is(err, ErrBadAnchor) {
		t.Errorf("four anchors for three questions: err = %v", err)
	}
}

// TestAnchoredAgreesWithR calibrates LSAT with its first two questions
// anchored at parameters off its own scale, under the 2PL and the Rasch
// model, and compares the population's mean and SD, the three free
// questions' parameters and the log-likelihood with testdata/anchored.csv:
// the same marginal likelihood maximised in base R with its own
// parametrization and optimiser (testdata/anchored.R). Within 1e-4.
func TestAnchoredAgreesWithR(t *testing.T) {
	for _, rec := range readReference(t, "testdata/anchored.csv", 2) {
		model := Model(strings.TrimSpace(rec[0]))
		// A Rasch bank has one discrimination.
		anchors := []*Anchor{{Difficulty: -3, Discrimination: 0.9}, {Difficulty: -1, Discrimination: 0.8}}
		if model == Rasch {
			anchors = []*Anchor{{Difficulty: -3, Discrimination: 0.85}, {Difficulty: -1, Discrimination: 0.85}}
		}
		var ref [9]float64
		for k := range ref {
			var err error
			if ref[k], err = strconv.ParseFloat(strings.TrimSpace(rec[k+1]), 64); err != nil {
				t.Fatal(err)
			}
		}
		c, err := Calibrate(t.Context(), lsat(t), Options{Model: model, Anchors: anchors})
		if err != nil {
			t.Fatal(err)
		}
		got := [9]float64{c.Mean, c.SD, c.Items[2].Difficulty, c.Items[3].Difficulty, c.Items[4].Difficulty,
			c.Items[2].Discrimination, c.Items[3].Discrimination, c.Items[4].Discrimination, c.LogLik}
		for k, name := range []string{"mean", "SD", "b3", "b4", "b5", "a3", "a4", "a5", "log-likelihood"} {
			if math.Abs(got[k]-ref[k]) > 1e-4 {
				t.Errorf("%s: %s %.6f, R %.6f", model, name, got[k], ref[k])
			}
		}
		if c.Anchored != 2 || !c.Items[0].Anchored || c.Items[2].Anchored || c.Items[0].Difficulty != -3 {
			t.Errorf("%s: anchors %d, items %+v", model, c.Anchored, c.Items[:3])
		}
	}
}
