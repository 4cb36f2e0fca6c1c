package irt

import (
	"math"
	"testing"
)

// lsatCounts are the 1,000 students of section 6 of the Law School
// Admission Test (Bock and Lieberman, 1970; R's ltm::LSAT), by response
// pattern: patterns 00000 to 11111 in binary order, the fifth question
// varying fastest.
var lsatCounts = []float64{3, 6, 2, 11, 1, 1, 3, 4, 1, 8, 0, 16, 0, 3, 2, 15, 10, 29, 14, 81, 3, 28, 15, 80, 16, 56, 21, 173, 11, 61, 28, 298}

// lsatPattern returns pattern p of five questions.
func lsatPattern(p int) []int8 {
	row := make([]int8, 5)
	for j := range row {
		row[j] = int8(p >> (4 - j) & 1)
	}
	return row
}

func lsat(t testing.TB) *Responses {
	t.Helper()
	r := NewResponses(5)
	for p, n := range lsatCounts {
		if n == 0 {
			continue
		}
		if err := r.Add(lsatPattern(p), n); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// ltm's published fits of LSAT: rasch(LSAT) and ltm(LSAT ~ z1), from
// Rizopoulos, D. (2006), "ltm: An R package for latent variable modeling
// and item response theory analyses", Journal of Statistical Software
// 17(5), sections 3.1 and 3.2, and the package's own examples.
var ltmLSAT = map[Model]struct {
	difficulty, discrimination     []float64
	difficultySE, discriminationSE []float64
	logLik                         float64
}{
	Rasch: {
		difficulty:       []float64{-3.6153, -1.3224, -0.3176, -1.7301, -2.7802},
		discrimination:   []float64{0.7551, 0.7551, 0.7551, 0.7551, 0.7551},
		difficultySE:     []float64{0.3266, 0.1422, 0.0977, 0.1691, 0.2510},
		discriminationSE: []float64{0.0694, 0.0694, 0.0694, 0.0694, 0.0694},
		logLik:           -2466.938,
	},
	TwoPL: {
		difficulty:       []float64{-3.3597341, -1.3696497, -0.2798983, -1.8659189, -3.1235725},
		discrimination:   []float64{0.8253715, 0.7229499, 0.8904748, 0.6885502, 0.6574516},
		difficultySE:     []float64{0.8669, 0.3073, 0.0997, 0.4341, 0.8700},
		discriminationSE: []float64{0.2581, 0.1867, 0.2326, 0.1852, 0.2100},
		logLik:           -2466.653,
	},
}

// TestLSATAgreesWithLtm fits both models to LSAT and compares every
// parameter and its standard error with ltm's, within 0.005, and the
// log-likelihood within 0.01.
// The 2PL's last item differs by 0.0023 (0.003 of its standard error): the
// likelihood is flat there, and ltm's optimizer stops sooner. The test
// shows it: at ltm's estimates the likelihood is no higher than at ours.
func TestLSATAgreesWithLtm(t *testing.T) {
	for _, model := range []Model{Rasch, TwoPL} {
		t.Run(string(model), func(t *testing.T) {
			c, err := Calibrate(t.Context(), lsat(t), Options{Model: model})
			if err != nil {
				t.Fatal(err)
			}
			if !c.Converged {
				t.Fatalf("not converged after %d iterations", c.Iterations)
			}
			want := ltmLSAT[model]
			for j, it := range c.Items {
				t.Logf("item %d: b %.4f (ltm %.4f), a %.4f (ltm %.4f), SE b %.4f a %.4f, infit %.3f outfit %.3f",
					j+1, it.Difficulty, want.difficulty[j], it.Discrimination, want.discrimination[j],
					*it.DifficultySE, *it.DiscriminationSE, *it.Infit, *it.Outfit)
				if math.Abs(it.Difficulty-want.difficulty[j]) > 0.005 || math.Abs(it.Discrimination-want.discrimination[j]) > 0.005 {
					t.Errorf("item %d: b %.5f a %.5f, ltm %.5f %.5f", j+1, it.Difficulty, it.Discrimination, want.difficulty[j], want.discrimination[j])
				}
				if math.Abs(*it.DifficultySE-want.difficultySE[j]) > 0.005 || math.Abs(*it.DiscriminationSE-want.discriminationSE[j]) > 0.005 {
					t.Errorf("item %d: SE b %.5f a %.5f, ltm %.4f %.4f", j+1, *it.DifficultySE, *it.DiscriminationSE, want.difficultySE[j], want.discriminationSE[j])
				}
			}
			t.Logf("log-likelihood %.4f (ltm %.3f), %d iterations", c.LogLik, want.logLik, c.Iterations)
			if math.Abs(c.LogLik-want.logLik) > 0.01 {
				t.Errorf("log-likelihood %.4f, ltm %.3f", c.LogLik, want.logLik)
			}
			atLtm := ltmLogLik(t, model, want.difficulty, want.discrimination)
			t.Logf("log-likelihood at ltm's estimates %.6f, at ours %.6f", atLtm, c.LogLik)
			if atLtm > c.LogLik+1e-9 {
				t.Errorf("ltm's estimates have the higher likelihood: %.6f > %.6f", atLtm, c.LogLik)
			}
		})
	}
}

// ltmLogLik is the log-likelihood of LSAT at the given estimates, on the
// same quadrature as Calibrate's.
func ltmLogLik(t *testing.T, model Model, difficulty, discrimination []float64) float64 {
	data := lsat(t)
	f := newObjective(t.Context(), data, hermite(21), model, []int{0, 1, 2, 3, 4}, nil, nil)
	x := make([]float64, f.dim())
	for k := range difficulty {
		x[k] = -difficulty[k] * discrimination[k]
		x[f.slopeIndex(k)] = discrimination[k]
	}
	return -f.value(x) * data.Students()
}
