package irt

import (
	"context"
	"math"
)

// Ability is a student's ability estimate and its standard error.
type Ability struct {
	Theta, SE float64
}

// Probability returns the chance that a student of ability theta answers
// question j right; 0 for a question left out of the calibration.
func (c *Calibration) Probability(j int, theta float64) float64 {
	if !c.Items[j].Calibrated {
		return 0
	}
	return logistic(c.slopes[j]*theta + c.intercepts[j])
}

// TestInformation returns the test's Fisher information at theta, the sum
// over the calibrated questions of a_j² P_j (1-P_j).
func (c *Calibration) TestInformation(theta float64) float64 {
	var info float64
	for j, it := range c.Items {
		if it.Calibrated {
			p := c.Probability(j, theta)
			info += c.slopes[j] * c.slopes[j] * p * (1 - p)
		}
	}
	return info
}

// EAP returns the expected a posteriori ability of a student whose scores
// are row (in the calibration's question order; Missing where unanswered,
// questions left out of the calibration are ignored): the mean of the
// posterior under the population's normal prior (standard normal unless
// the calibration was anchored: Mean and SD), and its standard deviation
// as the standard error. A student with no answer gets the prior.
func (c *Calibration) EAP(row []int8) Ability {
	post := make([]float64, len(c.scoring.nodes))
	return c.eap(post, c.scoringTables(), row)
}

// scoringTables are the calibration's tables on its scoring grid.
func (c *Calibration) scoringTables() tables {
	use := make([]bool, len(c.Items))
	for j, it := range c.Items {
		use[j] = it.Calibrated
	}
	return newTables(c.scoring, c.slopes, c.intercepts, use)
}

func (c *Calibration) eap(post []float64, t tables, row []int8) Ability {
	t.posterior(post, row)
	var mean, sq float64
	for q, p := range post {
		mean += p * c.scoring.nodes[q]
	}
	for q, p := range post {
		d := c.scoring.nodes[q] - mean
		sq += p * d * d
	}
	return Ability{Theta: mean, SE: math.Sqrt(sq)}
}

// fit computes every calibrated question's infit and outfit mean squares
// at the students' WLE abilities, in one pass over the responses.
func (c *Calibration) fit(ctx context.Context, data *Responses) error {
	n := len(c.Items)
	outfit, infitNum, infitDen, answered := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range data.Rows() {
		if i%65536 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		row, count := data.row(i), data.counts[i]
		wle, ok := c.WLE(row)
		if !ok {
			continue
		}
		theta := wle.Theta
		for j, x := range row {
			if x == Missing || !c.Items[j].Calibrated {
				continue
			}
			// A probability of 0 or 1 in floating point (a student far
			// from the question) would divide 0 by 0.
			p := min(max(c.Probability(j, theta), 1e-12), 1-1e-12)
			w := p * (1 - p)
			r := float64(x) - p
			outfit[j] += count * r * r / w
			infitNum[j] += count * r * r
			infitDen[j] += count * w
			answered[j] += count
		}
	}
	for j := range c.Items {
		if answered[j] > 0 {
			c.Items[j].Outfit = ptr(outfit[j] / answered[j])
			c.Items[j].Infit = ptr(infitNum[j] / infitDen[j])
		}
	}
	return nil
}

// WLE returns Warm's weighted likelihood estimate of a student's ability
// (Warm, 1989): the root of the likelihood's score plus the correction
// I'(θ)/2I(θ), which removes the maximum likelihood estimate's bias and is
// finite for every pattern, all right or all wrong included. Its standard
// error is 1/sqrt(I(θ)). ok is false when the student answered no
// calibrated question.
func (c *Calibration) WLE(row []int8) (a Ability, ok bool) {
	var answered bool
	for j, x := range row {
		answered = answered || (x != Missing && c.Items[j].Calibrated)
	}
	if !answered {
		return Ability{}, false
	}
	theta := c.warmRoot(row)
	info, _ := c.answeredInformation(row, theta)
	return Ability{Theta: theta, SE: 1 / math.Sqrt(info)}, true
}

// warmRoot returns the root of warm in [-10, 10] (an end when there is
// none inside), by the Illinois variant of false position, to 1e-10: about
// ten evaluations where bisection takes thirty-five.
func (c *Calibration) warmRoot(row []int8) float64 {
	lo, hi := -10.0, 10.0
	flo, fhi := c.warm(row, lo), c.warm(row, hi)
	if flo <= 0 {
		return lo
	}
	if fhi >= 0 {
		return hi
	}
	side, prev := 0, math.Inf(1)
	for range 200 {
		m := (lo*fhi - hi*flo) / (fhi - flo)
		fm := c.warm(row, m)
		switch {
		case fm > 0:
			lo, flo = m, fm
			if side > 0 {
				fhi /= 2
			}
			side = 1
		case fm < 0:
			hi, fhi = m, fm
			if side < 0 {
				flo /= 2
			}
			side = -1
		default:
			return m
		}
		if math.Abs(m-prev) < 1e-10 {
			return m
		}
		prev = m
	}
	return (lo + hi) / 2
}

// warm is the weighted likelihood's estimating function at theta; it
// falls as theta rises.
func (c *Calibration) warm(row []int8, theta float64) float64 {
	var score float64
	for j, x := range row {
		if x != Missing && c.Items[j].Calibrated {
			score += c.slopes[j] * (float64(x) - c.Probability(j, theta))
		}
	}
	info, slope := c.answeredInformation(row, theta)
	return score + slope/(2*info)
}

// answeredInformation returns the information of the questions a student
// answered at theta, and its derivative.
func (c *Calibration) answeredInformation(row []int8, theta float64) (info, slope float64) {
	for j, x := range row {
		if x != Missing && c.Items[j].Calibrated {
			p, a := c.Probability(j, theta), c.slopes[j]
			info += a * a * p * (1 - p)
			slope += a * a * a * p * (1 - p) * (1 - 2*p)
		}
	}
	return info, slope
}
