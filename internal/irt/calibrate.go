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
// normal population (standard normal unless anchored), answers question j right with probability
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
	// Anchors, by question index (nil or shorter than the questions: the
	// rest are estimated), fix questions at parameters from an earlier
	// calibration, so that this one reports on that calibration's scale
	// (fixed item parameter calibration). The abilities are then not
	// standard normal: the population's mean and standard deviation on
	// that scale are estimated with the other questions' parameters.
	Anchors []*Anchor
	// Progress, when set, is called as the calibration goes: at each
	// stage and at each quasi-Newton iteration of the fit, from the
	// goroutine that called Calibrate.
	Progress func(Progress)
}

// Stage is a step of a calibration.
type Stage string

// The stages of a calibration, in order.
const (
	// StageFit is the quasi-Newton iterations of the fit.
	StageFit Stage = "fit"
	// StageErrors is the observed information and the standard errors.
	StageErrors Stage = "errors"
	// StageItemFit is every question's infit and outfit.
	StageItemFit Stage = "item-fit"
)

// Progress is how far a calibration has got: its stage and, in StageFit,
// the iterations done.
type Progress struct {
	Stage     Stage
	Iteration int
}

// progressRecorder passes the fit's major iterations to Options.Progress.
type progressRecorder func(Progress)

func (progressRecorder) Init() error { return nil }

func (r progressRecorder) Record(_ *optimize.Location, op optimize.Operation, st *optimize.Stats) error {
	if op == optimize.MajorIteration {
		r(Progress{Stage: StageFit, Iteration: st.MajorIterations})
	}
	return nil
}

// Anchor is a question's difficulty and discrimination from an earlier
// calibration.
type Anchor struct {
	Difficulty, Discrimination float64
}

// Item is one question's calibration.
type Item struct {
	// Calibrated is false for a question the model cannot place: nobody
	// answered it, or everybody who did was right, or everybody wrong (its
	// difficulty would be infinite). Reason then says which, and the other
	// figures are zero. An anchored question that somebody answered is
	// calibrated whatever its answers: its parameters are known.
	Calibrated bool
	Reason     string
	// Anchored is true for a question fixed at its Options.Anchors entry:
	// its Difficulty and Discrimination are the anchor's, with no standard
	// errors.
	Anchored bool
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
	// Anchored is the number of questions fixed at their anchors. Mean and
	// SD are the ability population's on the scale reported: 0 and 1 when
	// nothing is anchored (the scale's definition), else estimated, with
	// their standard errors (nil then, or when the information matrix is
	// not invertible).
	Anchored     int
	Mean, SD     float64
	MeanSE, SDSE *float64
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
	// ErrBadAnchor is returned for an anchor whose parameters are not
	// finite or whose discrimination is not positive.
	ErrBadAnchor = errors.New("irt: bad anchor")
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
// a normal ability (standard normal, or with anchors of mean and SD
// estimated with the rest) with Gauss-Hermite quadrature and the sum
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
	if len(opt.Anchors) > data.items {
		return nil, fmt.Errorf("%w: %d anchors for %d questions", ErrBadAnchor, len(opt.Anchors), data.items)
	}
	anchors := make([]*Anchor, data.items)
	copy(anchors, opt.Anchors)
	c := &Calibration{Model: opt.Model, Items: make([]Item, data.items), Students: data.Students(), SD: 1}
	answered, right := proportions(data)
	var kept, anchored []int
	for j := range c.Items {
		it := &c.Items[j]
		it.Answered = answered[j]
		switch an := anchors[j]; {
		case an != nil && (math.IsNaN(an.Difficulty) || math.IsInf(an.Difficulty, 0) ||
			!(an.Discrimination > 0) || math.IsInf(an.Discrimination, 0)):
			return nil, fmt.Errorf("%w: question %d: difficulty %v, discrimination %v", ErrBadAnchor, j+1, an.Difficulty, an.Discrimination)
		case answered[j] == 0:
			it.Reason = ReasonNoAnswers
		case an != nil:
			it.Calibrated, it.Anchored = true, true
			anchored = append(anchored, j)
		case right[j] == answered[j]:
			it.Reason = ReasonAllRight
		case right[j] == 0:
			it.Reason = ReasonAllWrong
		default:
			it.Calibrated = true
			kept = append(kept, j)
		}
	}
	if len(kept)+len(anchored) < 2 {
		return nil, ErrTooFewItems
	}
	c.Anchored = len(anchored)

	f := newObjective(ctx, data, hermite(opt.QuadraturePoints), opt.Model, kept, anchors, anchored)
	x0 := make([]float64, f.dim())
	for k, j := range kept {
		x0[k] = math.Log(right[j] / (answered[j] - right[j]))
	}
	for k := len(kept); k < f.populationIndex(); k++ {
		x0[k] = 1
	}
	progress := opt.Progress
	if progress == nil {
		progress = func(Progress) {}
	}
	progress(Progress{Stage: StageFit})
	// The population starts standard normal: x0's mean and log SD are 0.
	res, err := optimize.Minimize(optimize.Problem{
		Func:   f.value,
		Grad:   f.gradient,
		Status: f.status,
	}, x0, &optimize.Settings{
		GradientThreshold: opt.GradientTolerance,
		MajorIterations:   opt.MaxIterations,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-14, Relative: 1e-14, Iterations: 100},
		Recorder:          progressRecorder(progress),
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
	c.Mean, c.SD = f.population(x)
	c.slopes, c.intercepts = f.scaled(x)
	c.scoring = hermite(scoringPoints).shifted(c.Mean, c.SD)
	for _, j := range kept {
		if math.Abs(c.slopes[j]) > maxDiscrimination {
			return nil, &UnboundedError{Item: j}
		}
	}

	progress(Progress{Stage: StageErrors, Iteration: c.Iterations})
	hf := f
	if data.Rows() > hessianRows {
		hf = newObjective(ctx, sample(data, hessianRows), f.g, f.model, f.kept, anchors, anchored)
	}
	cov, err := hf.covariance(x, data.Students())
	if err != nil {
		return nil, err
	}
	for _, j := range anchored {
		it := &c.Items[j]
		it.Difficulty, it.Discrimination = anchors[j].Difficulty, anchors[j].Discrimination
	}
	for k, j := range kept {
		it := &c.Items[j]
		a, cj := c.slopes[j], c.intercepts[j]
		it.Discrimination, it.Difficulty = a, -cj/a
		if cov != nil {
			da, db := f.itemDerivatives(x, k)
			it.DifficultySE = deltaSE(cov, db)
			if da != nil {
				it.DiscriminationSE = deltaSE(cov, da)
			}
		}
	}
	if cov != nil && f.anchored() {
		pm := f.populationIndex()
		c.MeanSE = deltaSE(cov, map[int]float64{pm: 1})
		c.SDSE = deltaSE(cov, map[int]float64{pm + 1: c.SD})
	}
	progress(Progress{Stage: StageItemFit, Iteration: c.Iterations})
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

// deltaSE returns the standard error of a function of the estimates whose
// gradient (by index in the estimates, the rest zero) is grad: the square
// root of gradᵀ Σ grad, nil when that is negative (a covariance matrix
// only nearly positive definite).
func deltaSE(cov *mat.SymDense, grad map[int]float64) *float64 {
	var v float64
	for i, gi := range grad {
		for k, gk := range grad {
			v += gi * gk * cov.At(i, k)
		}
	}
	if v < 0 {
		return nil
	}
	return ptr(math.Sqrt(v))
}

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

// shifted returns g's rule for an ability of the given mean and standard
// deviation instead of a standard normal one: the nodes moved, the same
// weights.
func (g grid) shifted(mean, sd float64) grid {
	nodes := make([]float64, len(g.nodes))
	for q, z := range g.nodes {
		nodes[q] = mean + sd*z
	}
	return newGrid(nodes, g.weights)
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
// (logit = a z + c over the standard normal z), then their slopes, one
// shared in the Rasch model; with anchors, then the population's mean μ
// and the log of its standard deviation σ. An anchored Rasch model has no
// free slope: every question shares one discrimination, so the kept ones
// take the anchors' (their mean, should calibrations disagree), whose
// slope over z is that times σ. An ability θ is μ + σ z: an anchored item of difficulty b
// and discrimination a has the logit a(μ + σz - b), slope aσ and intercept
// a(μ - b) over z, and a kept item of slope and intercept (a', c') over z
// has on θ's scale the discrimination a'/σ and difficulty μ - c'σ/a'.
// Value and gradient of one x come from one pass, kept until x changes.
type objective struct {
	ctx     context.Context
	data    *Responses
	g       grid
	model   Model
	kept    []int
	anchors []*Anchor // by item; nil for the items not anchored
	// fixed are the anchored items that somebody answered.
	fixed []int
	// raschA is the anchored Rasch model's discrimination, 0 otherwise.
	raschA float64

	use []bool

	x    []float64
	val  float64
	grad []float64
	err  error
}

// newObjective returns the objective of the kept items' parameters and,
// when fixed (items of anchors) is not empty, of the population's.
func newObjective(ctx context.Context, data *Responses, g grid, model Model, kept []int, anchors []*Anchor, fixed []int) *objective {
	f := &objective{ctx: ctx, data: data, g: g, model: model, kept: kept, anchors: anchors, fixed: fixed, use: make([]bool, data.items)}
	for _, j := range slices.Concat(kept, fixed) {
		f.use[j] = true
	}
	if model == Rasch && len(fixed) > 0 {
		for _, j := range fixed {
			f.raschA += anchors[j].Discrimination / float64(len(fixed))
		}
	}
	return f
}

// freeSlopes reports whether the kept items' slopes are parameters.
func (f *objective) freeSlopes() bool { return f.raschA == 0 }

// anchored reports whether the population's mean and SD are estimated.
func (f *objective) anchored() bool { return len(f.fixed) > 0 }

// populationIndex is the index in x of the population's mean (its log SD
// follows), which is also the number of item parameters.
func (f *objective) populationIndex() int {
	switch {
	case f.model != Rasch:
		return 2 * len(f.kept)
	case len(f.kept) == 0 || !f.freeSlopes():
		return len(f.kept)
	default:
		return len(f.kept) + 1
	}
}

func (f *objective) dim() int {
	if f.anchored() {
		return f.populationIndex() + 2
	}
	return f.populationIndex()
}

// population returns the population's mean and standard deviation at x.
func (f *objective) population(x []float64) (mean, sd float64) {
	if !f.anchored() {
		return 0, 1
	}
	pm := f.populationIndex()
	return x[pm], math.Exp(x[pm+1])
}

// slopeIndex is the index in x of kept item k's slope.
func (f *objective) slopeIndex(k int) int {
	if f.model == Rasch {
		return len(f.kept)
	}
	return len(f.kept) + k
}

// params returns every question's slope and intercept over z at x, zero
// for the questions left out.
func (f *objective) params(x []float64) (slopes, intercepts []float64) {
	slopes, intercepts = make([]float64, f.data.items), make([]float64, f.data.items)
	mean, sd := f.population(x)
	for k, j := range f.kept {
		intercepts[j] = x[k]
		if f.freeSlopes() {
			slopes[j] = x[f.slopeIndex(k)]
		} else {
			slopes[j] = f.raschA * sd
		}
	}
	for _, j := range f.fixed {
		a, b := f.anchors[j].Discrimination, f.anchors[j].Difficulty
		slopes[j], intercepts[j] = a*sd, a*(mean-b)
	}
	return slopes, intercepts
}

// scaled returns every question's slope and intercept over θ at x (logit
// = a θ + c), zero for the questions left out.
func (f *objective) scaled(x []float64) (slopes, intercepts []float64) {
	slopes, intercepts = f.params(x)
	mean, sd := f.population(x)
	for j := range slopes {
		if f.use[j] {
			slopes[j] /= sd
			intercepts[j] -= slopes[j] * mean
		}
	}
	return slopes, intercepts
}

// itemDerivatives returns the derivatives of kept item k's discrimination
// and difficulty on θ's scale with respect to x, by index: a = a'/σ and
// b = μ - c'σ/a' (with μ = 0 and σ = 1 when nothing is anchored); da is
// nil in the anchored Rasch model, whose discrimination is the anchors'
// (b = μ - c'/a there).
func (f *objective) itemDerivatives(x []float64, k int) (da, db map[int]float64) {
	if !f.freeSlopes() {
		return nil, map[int]float64{k: -1 / f.raschA, f.populationIndex(): 1}
	}
	ka := f.slopeIndex(k)
	ap, cp := x[ka], x[k]
	_, sd := f.population(x)
	da = map[int]float64{ka: 1 / sd}
	db = map[int]float64{k: -sd / ap, ka: cp * sd / (ap * ap)}
	if f.anchored() {
		pm := f.populationIndex()
		da[pm+1] = -ap / sd
		db[pm], db[pm+1] = 1, -cp*sd/ap
	}
	return da, db
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
	// sums returns item j's residuals (right less expected) summed over
	// the nodes, and weighted by the node.
	sums := func(j int) (gc, ga float64) {
		for q, z := range f.g.nodes {
			resid := e.r[j*nq+q] - e.n[j*nq+q]*logistic(slopes[j]*z+intercepts[j])
			gc += resid
			ga += z * resid
		}
		return gc, ga
	}
	_, sd := f.population(x)
	pm := f.populationIndex()
	for k, j := range f.kept {
		gc, ga := sums(j)
		grad[k] -= gc / n
		if f.freeSlopes() {
			grad[f.slopeIndex(k)] -= ga / n
		} else {
			// The anchored Rasch model's slope over z, raschA·σ.
			grad[pm+1] -= f.raschA * sd * ga / n
		}
	}
	if f.anchored() {
		// An anchored item's slope aσ and intercept a(μ - b) over z:
		// d/dμ = a·gc, d/d(log σ) = aσ·ga.
		for _, j := range f.fixed {
			gc, ga := sums(j)
			a := f.anchors[j].Discrimination
			grad[pm] -= a * gc / n
			grad[pm+1] -= a * sd * ga / n
		}
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
