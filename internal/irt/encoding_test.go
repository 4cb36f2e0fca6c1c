package irt

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestCalibrationJSONRoundTrip: a calibration read back from its JSON
// encoding has the same figures and scores students, gives probabilities
// and information exactly as the fitted one: an anchored fit, whose
// population is not standard normal, and a question left out.
func TestCalibrationJSONRoundTrip(t *testing.T) {
	b := []float64{-1.5, -0.5, 0, 0.6, 1.4, 60}
	a := []float64{0.8, 1.2, 1, 1.5, 0.9, 1}
	data := simulateFrom(5, 3000, 0.4, 1.3, b, a, 0.1)
	free, err := Calibrate(t.Context(), data, Options{Model: TwoPL})
	if err != nil {
		t.Fatal(err)
	}
	anchors := anchorsFrom(free, 0, 2)
	anchors[0].Difficulty -= 0.3
	c, err := Calibrate(t.Context(), data, Options{Model: TwoPL, Anchors: anchors})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.Mean) < 0.05 {
		t.Fatalf("the anchored fit's mean is %v: the test needs a shifted scale", c.Mean)
	}
	left := -1
	for j, it := range c.Items {
		if !it.Calibrated {
			left = j
		}
	}
	if left < 0 {
		t.Fatal("no question left out: the test needs one")
	}
	enc, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Calibration
	if err := json.Unmarshal(enc, &back); err != nil {
		t.Fatal(err)
	}
	if !sameExported(back, *c) {
		t.Errorf("read back:\n%+v\nfitted:\n%+v", back, *c)
	}
	rows := [][]int8{{1, 1, 0, 0, 1, 0}, {0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1}, {Missing, 1, 0, Missing, 1, Missing}}
	for _, row := range rows {
		if got, want := back.EAP(row), c.EAP(row); math.Abs(got.Theta-want.Theta) > 1e-12 || math.Abs(got.SE-want.SE) > 1e-12 {
			t.Errorf("EAP of %v: %+v read back, %+v fitted", row, got, want)
		}
		got, gok := back.WLE(row)
		want, wok := c.WLE(row)
		if gok != wok || math.Abs(got.Theta-want.Theta) > 1e-9 || math.Abs(got.SE-want.SE) > 1e-9 {
			t.Errorf("WLE of %v: %+v %v read back, %+v %v fitted", row, got, gok, want, wok)
		}
	}
	for _, theta := range []float64{-3, -0.7, 0, 1.2, 3.5} {
		if got, want := back.TestInformation(theta), c.TestInformation(theta); math.Abs(got-want) > 1e-12 {
			t.Errorf("information at %v: %v read back, %v fitted", theta, got, want)
		}
		for j := range c.Items {
			if got, want := back.Probability(j, theta), c.Probability(j, theta); math.Abs(got-want) > 1e-12 {
				t.Errorf("question %d at %v: probability %v read back, %v fitted", j, theta, got, want)
			}
		}
	}

	// A non-finite standard error is unknown (null), not an error.
	nan := math.NaN()
	c.Items[1].Infit, c.MeanSE = &nan, &nan
	if enc, err = json.Marshal(c); err != nil {
		t.Fatalf("a NaN infit: %v", err)
	}
	back = Calibration{}
	if err := json.Unmarshal(enc, &back); err != nil {
		t.Fatal(err)
	}
	if back.Items[1].Infit != nil || back.MeanSE != nil {
		t.Errorf("a NaN came back as %v, %v; want nil", back.Items[1].Infit, back.MeanSE)
	}
	for _, bad := range []string{`{"Model":"3pl","SD":1}`, `{"Model":"rasch","SD":0}`, `[1]`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
}

// sameExported compares the exported fields of two calibrations.
func sameExported(x, y Calibration) bool {
	x.slopes, x.intercepts, x.scoring = nil, nil, grid{}
	y.slopes, y.intercepts, y.scoring = nil, nil, grid{}
	return reflect.DeepEqual(x, y)
}

// TestProgress: a fit reports its stages in order and each iteration of
// the fit once, the last being the calibration's Iterations.
func TestProgress(t *testing.T) {
	data := simulate(3, 2000, []float64{-1, 0, 0.5, 1}, []float64{1, 1.2, 0.8, 1}, 0)
	var got []Progress
	c, err := Calibrate(t.Context(), data, Options{Model: TwoPL, Progress: func(p Progress) { got = append(got, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 4 || got[0] != (Progress{Stage: StageFit}) {
		t.Fatalf("progress %v", got)
	}
	n := len(got)
	if got[n-2] != (Progress{Stage: StageErrors, Iteration: c.Iterations}) || got[n-1] != (Progress{Stage: StageItemFit, Iteration: c.Iterations}) {
		t.Errorf("last stages %v, want errors and item-fit after %d iterations", got[n-2:], c.Iterations)
	}
	for i, p := range got[1 : n-2] {
		if p.Stage != StageFit || p.Iteration != i+1 {
			t.Errorf("progress %d is %+v, want iteration %d of the fit", i+1, p, i+1)
		}
	}
}
