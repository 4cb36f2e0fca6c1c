package irt

import (
	"context"
	"math"
	"runtime"
	"slices"
	"sync"
)

// grid is a quadrature over the ability: nodes and weights summing to one.
type grid struct {
	nodes, weights []float64
	logWeights     []float64
}

func newGrid(nodes, weights []float64) grid {
	g := grid{nodes: nodes, weights: weights, logWeights: make([]float64, len(weights))}
	for q, w := range weights {
		g.logWeights[q] = math.Log(w)
	}
	return g
}

// logistic returns 1/(1+e^-z).
func logistic(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// softplus returns log(1+e^z) without overflow.
func softplus(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

// tables hold what a row's posterior over a grid needs, at given item
// parameters, indexed j*Q+q for question j and node q: a row's log
// posterior (unnormalized) is base, plus diff for each question answered
// right, minus logQ for each question not answered. The questions left
// out of the calibration have zero tables: they count for nothing.
type tables struct {
	g    grid
	base []float64
	diff []float64
	logQ []float64
}

// newTables builds the tables of the questions for which use is true,
// P = logistic(a_j θ_q + c_j).
func newTables(g grid, slopes, intercepts []float64, use []bool) tables {
	nq := len(g.nodes)
	t := tables{g: g, base: slices.Clone(g.logWeights), diff: make([]float64, len(slopes)*nq), logQ: make([]float64, len(slopes)*nq)}
	for j := range slopes {
		if !use[j] {
			continue
		}
		for q, th := range g.nodes {
			z := slopes[j]*th + intercepts[j]
			// log σ(z) = -log(1+e^-z), log(1-σ(z)) = -log(1+e^z).
			lp, lq := -softplus(-z), -softplus(z)
			t.diff[j*nq+q] = lp - lq
			t.logQ[j*nq+q] = lq
			t.base[q] += lq
		}
	}
	return t
}

// posterior writes into post the posterior weights over the grid of a row
// and returns the log of its marginal likelihood.
func (t tables) posterior(post []float64, row []int8) float64 {
	nq := len(post)
	copy(post, t.base)
	for j, x := range row {
		switch x {
		case 1:
			for q, d := range t.diff[j*nq : (j+1)*nq] {
				post[q] += d
			}
		case Missing:
			for q, l := range t.logQ[j*nq : (j+1)*nq] {
				post[q] -= l
			}
		}
	}
	m := post[0]
	for _, v := range post[1:] {
		m = max(m, v)
	}
	var sum float64
	for q, v := range post {
		post[q] = math.Exp(v - m)
		sum += post[q]
	}
	for q := range post {
		post[q] /= sum
	}
	return m + math.Log(sum)
}

// expected is what one pass over the responses gives at given item
// parameters: the marginal log-likelihood and, per item and node, the
// expected number of students who answered the item (n) and who answered
// it right (r), each at index j*Q+q.
type expected struct {
	logLik float64
	n, r   []float64
}

// estep makes one pass over the responses, split between the CPUs. Each
// row adds its posterior to a total and to r for the questions it answered
// right, and to a count of the missing for those it did not answer; n is
// the total less the missing.
func estep(ctx context.Context, data *Responses, t tables) (expected, error) {
	nq, items, rows := len(t.g.nodes), data.items, data.Rows()
	workers := min(runtime.GOMAXPROCS(0), max(1, rows/2048))
	type part struct {
		logLik       float64
		total        []float64
		right, unans []float64
		err          error
	}
	parts := make([]part, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := part{total: make([]float64, nq), right: make([]float64, items*nq), unans: make([]float64, items*nq)}
			post := make([]float64, nq)
			lo, hi := rows*w/workers, rows*(w+1)/workers
			for i := lo; i < hi; i++ {
				if (i-lo)%65536 == 0 && ctx.Err() != nil {
					parts[w].err = ctx.Err()
					return
				}
				row, count := data.row(i), data.counts[i]
				p.logLik += count * t.posterior(post, row)
				for q, v := range post {
					post[q] = count * v
					p.total[q] += post[q]
				}
				for j, x := range row {
					var acc []float64
					switch x {
					case 1:
						acc = p.right[j*nq : (j+1)*nq]
					case Missing:
						acc = p.unans[j*nq : (j+1)*nq]
					default:
						continue
					}
					for q, v := range post {
						acc[q] += v
					}
				}
			}
			parts[w] = p
		}()
	}
	wg.Wait()
	e := expected{n: make([]float64, items*nq), r: make([]float64, items*nq)}
	for _, p := range parts {
		if p.err != nil {
			return expected{}, p.err
		}
		e.logLik += p.logLik
		for k := range e.n {
			e.n[k] += p.total[k%nq] - p.unans[k]
			e.r[k] += p.right[k]
		}
	}
	return e, nil
}
