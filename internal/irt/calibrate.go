package irt

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// Model names an item response model.
type Model string

// The models Calibrate fits. In both, a student of ability θ, drawn from a
// standard normal population, answers question j right with probability
// 1/(1+exp(-a_j(θ-b_j))): b_j is its difficulty and a_j its
// discrimination, shared by every question in the Rasch model.
const (
	Rasch Model = "rasch"
	TwoPL Model = "2pl"
)

// Options tune Calibrate; the zero value fits the Rasch model with the
// defaults below.
type Options struct {
	// Model is Rasch or TwoPL; empty is Rasch.
	Model Model
	// QuadraturePoints is the number of Gauss-Hermite nodes over the
	// ability for the likelihood (default 21, as ltm's default).
	QuadraturePoints int
	// MaxIterations bounds the quasi-Newton iterations (default 500).
	MaxIterations int
	// GradientTolerance ends the fit once no component of the gradient of
	// the mean log-likelihood per student exceeds it (default 1e-7).
	GradientTolerance float64
}

// Item is one question's calibration.
type Item struct {
	// Calibrated is false for a question the model cannot place: nobody
	// answered it, or everybody who did was right, or everybody wrong (its
	// difficulty would be infinite). Reason then says which, and the other
	// figures are zero.
	Calibrated bool
	Reason     string
	// Answered is the number of students who answered it.
	Answered float64
	// Difficulty (b) and Discrimination (a), on the ability's scale.
	Difficulty, Discrimination float64
	// DifficultySE and DiscriminationSE are their standard errors from the
	// observed information; nil when that matrix is not invertible (a
	// model the data cannot identify).
	DifficultySE, DiscriminationSE *float64
	// Infit and Outfit are the information-weighted and unweighted mean
	// squares of the standardized residuals at each student's WLE
	// ability: near 1 when the question fits the model, above when its
	// answers are noisier than the model expects, below when they are more
	// predictable. On a short test they sit below 1 even for questions that
	// fit, as each ability is estimated from the same few answers. Nil for
	// a question left out.
	Infit, Outfit *float64
}

// Why a question is left out of the calibration.
const (
	ReasonNoAnswers = "no answers"
	ReasonAllRight  = "every answer right"
	ReasonAllWrong  = "every answer wrong"
)

// InfoPoint is one point of the test information curve.
type InfoPoint struct {
	Theta       float64
	Information float64
	// SE is the standard error of an ability estimate at Theta,
	// 1/sqrt(Information).
	SE float64
}

// Calibration is a fitted model.
type Calibration struct {
	Model Model
	// Items are in the order of the responses' questions.
	Items []Item
	// Students is the number of students fitted.
	Students float64
	// LogLik is the marginal log-likelihood at the estimates.
	LogLik float64
	// Iterations is the number of quasi-Newton iterations, Converged
	// whether the gradient tolerance was reached.
	Iterations int
	Converged  bool
	// Information is the test information curve from -4 to 4 in steps of
	// 0.1.
	Information []InfoPoint

	slopes, intercepts []float64
	scoring            grid
}

// Errors of Calibrate.
var (
	ErrTooFewItems    = errors.New("irt: fewer than two questions that some students got right and some wrong")
	ErrTooFewStudents = errors.New("irt: fewer than two students")
	ErrUnknownModel   = errors.New("irt: unknown model")
	// ErrUnbounded is wrapped by an UnboundedError.
	ErrUnbounded = errors.New("irt: a discrimination has no finite estimate")
)

// maxDiscrimination is the largest discrimination a calibration reports.
// Beyond it the likelihood is still rising: the question's answers split
// the students (nearly) perfectly by their other answers, and its maximum
// likelihood estimate is infinite. Fitted discriminations rarely pass 4.
const maxDiscrimination = 10

// UnboundedError is returned when the answers have no finite estimate:
// Item is the question (index in the responses) whose discrimination grew
// past maxDiscrimination, the first when several did. The Rasch model, or
// more students, usually gives one.
type UnboundedError struct {
	Item int
}

func (e *UnboundedError) Error() string {
	return fmt.Sprintf("%v: question %d separates the students perfectly", ErrUnbounded, e.Item+1)
}

// Unwrap makes errors.Is(err, ErrUnbounded) true.
func (e *UnboundedError) Unwrap() error { return ErrUnbounded }

// scoringPoints is the number of Gauss-Hermite nodes of the EAP scores:
// more than the likelihood's, since one student's posterior is narrower
// than the population.
const scoringPoints = 61

// Calibrate fits the model to the responses by marginal maximum
// likelihood: the likelihood of each student's answers is integrated over
// a standard normal ability with Gauss-Hermite quadrature and the sum
// maximized by BFGS with its analytic gradient. Standard errors come from
// the observed information (the Hessian, by central differences of the
// gradient).
func Calibrate(ctx context.Context, data *Responses, opt Options) (*Calibration, error) {
	if opt.Model == "" {
		opt.Model = Rasch
	}
	if opt.Model != Rasch && opt.Model != TwoPL {
		return nil, fmt.Errorf("%w %q (rasch or 2pl)", ErrUnknownModel, opt.Model)
	}
	if opt.QuadraturePoints <= 0 {
		opt.QuadraturePoints = 21
	}
	if opt.MaxIterations <= 0 {
		opt.MaxIterations = 500
	}
	if opt.GradientTolerance <= 0 {
		opt.GradientTolerance = 1e-7
	}
	if data.Students() < 2 {
		return nil, ErrTooFewStudents
	}
	c := &Calibration{Model: opt.Model, Items: make([]Item, data.items), Students: data.Students(),
		scoring: hermite(scoringPoints)}
	answered, right := proportions(data)
	var kept []int
	for j := range c.Items {
		it := &c.Items[j]
		it.Answered = answered[j]
		switch {
		case answered[j] == 0:
			it.Reason = ReasonNoAnswers
		case right[j] == answered[j]:
			it.Reason = ReasonAllRight
		case right[j] == 0:
			it.Reason = ReasonAllWrong
		default:
			it.Calibrated = true
			kept = append(kept, j)
		}
	}
	if len(kept) < 2 {
		return nil, ErrTooFewItems
	}

	f := newObjective(ctx, data, hermite(opt.QuadraturePoints), opt.Model, kept)
	x0 := make([]float64, f.dim())
	for k, j := range kept {
		x0[k] = math.Log(right[j] / (answered[j] - right[j]))
	}
	for k := len(kept); k < len(x0); k++ {
		x0[k] = 1
	}
	res, err := optimize.Minimize(optimize.Problem{
		Func:   f.value,
		Grad:   f.gradient,
		Status: f.status,
	}, x0, &optimize.Settings{
		GradientThreshold: opt.GradientTolerance,
		MajorIterations:   opt.MaxIterations,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-14, Relative: 1e-14, Iterations: 100},
	}, &optimize.BFGS{})
	if f.err != nil {
		return nil, f.err
	}
	if err != nil && res == nil {
		return nil, fmt.Errorf("irt: fit: %w", err)
	}
	c.Iterations = res.Stats.MajorIterations
	c.Converged = res.Status == optimize.GradientThreshold
	x := res.X
	c.LogLik = -f.value(x) * data.Students()
	if f.err != nil {
		return nil, f.err
	}
	c.slopes, c.intercepts = f.params(x)
	for _, j := range kept {
		if math.Abs(c.slopes[j]) > maxDiscrimination {
			return nil, &UnboundedError{Item: j}
		}
	}

	hf := f
	if data.Rows() > hessianRows {
		hf = newObjective(ctx, sample(data, hessianRows), f.g, f.model, f.kept)
	}
	cov, err := hf.covariance(x, data.Students())
	if err != nil {
		return nil, err
	}
	for k, j := range kept {
		it := &c.Items[j]
		a, cj := c.slopes[j], c.intercepts[j]
		it.Discrimination, it.Difficulty = a, -cj/a
		if cov == nil {
			continue
		}
		ka := f.slopeIndex(k)
		va, vc, vac := cov.At(ka, ka), cov.At(k, k), cov.At(ka, k)
		b := it.Difficulty
		if va >= 0 {
			it.DiscriminationSE = ptr(math.Sqrt(va))
		}
		if vb := (vc + b*b*va + 2*b*vac) / (a * a); vb >= 0 {
			it.DifficultySE = ptr(math.Sqrt(vb))
		}
	}
	if err := c.fit(ctx, data); err != nil {
		return nil, err
	}
	for t := -40; t <= 40; t++ {
		theta := float64(t) / 10
		info := c.TestInformation(theta)
		c.Information = append(c.Information, InfoPoint{Theta: theta, Information: info, SE: 1 / math.Sqrt(info)})
	}
	return c, nil
}

func ptr(v float64) *float64 { return &v }

// hessianRows is the most rows the observed information is computed over.
// It costs two passes over the data per parameter (80 for a 2PL of 40
// questions); beyond hessianRows students it is computed over an even
// sample of that many and scaled to the whole: the information is a sum
// over students, and a sample of 50,000 gives it within about 1 %.
const hessianRows = 50000

// sample returns every k-th row of data, about n rows in all.
func sample(data *Responses, n int) *Responses {
	k := (data.Rows() + n - 1) / n
	s := NewResponses(data.items)
	for i := 0; i < data.Rows(); i += k {
		s.cells = append(s.cells, data.row(i)...)
		s.counts = append(s.counts, data.counts[i])
		s.total += data.counts[i]
	}
	return s
}

// hermite returns the n-point Gauss-Hermite rule for a standard normal
// ability.
func hermite(n int) grid {
	x, w := make([]float64, n), make([]float64, n)
	quad.Hermite{}.FixedLocations(x, w, math.Inf(-1), math.Inf(1))
	for q := range x {
		x[q] *= math.Sqrt2
		w[q] /= math.SqrtPi
	}
	return newGrid(x, w)
}

// proportions returns the students who answered each question and who
// answered it right.
func proportions(data *Responses) (answered, right []float64) {
	answered, right = make([]float64, data.items), make([]float64, data.items)
	for i := range data.Rows() {
		for j, x := range data.row(i) {
			if x != Missing {
				answered[j] += data.counts[i]
			}
			if x == 1 {
				right[j] += data.counts[i]
			}
		}
	}
	return answered, right
}

// objective is minus the mean marginal log-likelihood per student and its
// gradient, over the parameters x: the intercepts c_k of the kept items
// (logit = a θ + c), then their slopes, one shared in the Rasch model.
// Value and gradient of one x come from one pass, kept until x changes.
type objective struct {
	ctx   context.Context
	data  *Responses
	g     grid
	model Model
	kept  []int

	use []bool

	x    []float64
	val  float64
	grad []float64
	err  error
}

func newObjective(ctx context.Context, data *Responses, g grid, model Model, kept []int) *objective {
	use := make([]bool, data.items)
	for _, j := range kept {
		use[j] = true
	}
	return &objective{ctx: ctx, data: data, g: g, model: model, kept: kept, use: use}
}

func (f *objective) dim() int {
	if f.model == Rasch {
		return len(f.kept) + 1
	}
	return 2 * len(f.kept)
}

// slopeIndex is the index in x of kept item k's slope.
func (f *objective) slopeIndex(k int) int {
	if f.model == Rasch {
		return len(f.kept)
	}
	return len(f.kept) + k
}

// params returns every question's slope and intercept at x, zero for the
// questions left out.
func (f *objective) params(x []float64) (slopes, intercepts []float64) {
	slopes, intercepts = make([]float64, f.data.items), make([]float64, f.data.items)
	for k, j := range f.kept {
		intercepts[j] = x[k]
		slopes[j] = x[f.slopeIndex(k)]
	}
	return slopes, intercepts
}

func (f *objective) eval(x []float64) {
	if f.err != nil || (f.x != nil && slices.Equal(f.x, x)) {
		return
	}
	slopes, intercepts := f.params(x)
	t := newTables(f.g, slopes, intercepts, f.use)
	e, err := estep(f.ctx, f.data, t)
	if err != nil {
		f.err = err
		return
	}
	nq := len(f.g.nodes)
	n := f.data.Students()
	grad := make([]float64, len(x))
	for k, j := range f.kept {
		var gc, ga float64
		for q, th := range f.g.nodes {
			resid := e.r[j*nq+q] - e.n[j*nq+q]*logistic(slopes[j]*th+intercepts[j])
			gc += resid
			ga += th * resid
		}
		grad[k] -= gc / n
		grad[f.slopeIndex(k)] -= ga / n
	}
	f.x, f.val, f.grad = slices.Clone(x), -e.logLik/n, grad
}

func (f *objective) value(x []float64) float64 {
	f.eval(x)
	if f.err != nil {
		return math.NaN()
	}
	return f.val
}

func (f *objective) gradient(grad, x []float64) {
	f.eval(x)
	if f.err != nil {
		for i := range grad {
			grad[i] = math.NaN()
		}
		return
	}
	copy(grad, f.grad)
}

func (f *objective) status() (optimize.Status, error) {
	if f.err != nil {
		return optimize.Failure, f.err
	}
	return optimize.NotTerminated, nil
}

// covariance returns the estimates' covariance matrix, the inverse of the
// observed information at x of students students: the Hessian of minus
// the log-likelihood, by central differences of its analytic gradient. The
// information of the objective's data is scaled to students, the whole
// data's when the objective holds a sample. It returns nil when that
// matrix is not positive definite.
func (f *objective) covariance(x []float64, students float64) (*mat.SymDense, error) {
	d := len(x)
	jac := mat.NewDense(d, d, nil)
	fd.Jacobian(jac, func(y, x []float64) { f.gradient(y, x) }, x, &fd.JacobianSettings{Formula: fd.Central})
	if f.err != nil {
		return nil, f.err
	}
	n := students
	info := mat.NewSymDense(d, nil)
	for i := range d {
		for k := i; k < d; k++ {
			info.SetSym(i, k, n*(jac.At(i, k)+jac.At(k, i))/2)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(info) {
		return nil, nil
	}
	cov := mat.NewSymDense(d, nil)
	if err := chol.InverseTo(cov); err != nil {
		return nil, nil
	}
	return cov, nil
}
