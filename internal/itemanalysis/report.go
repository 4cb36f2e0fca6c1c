package itemanalysis

import (
	"math"
	"slices"
	"strconv"
)

// GroupShare is the share of the students, by total score, in each of the
// upper and lower groups (Kelley's 27 %).
const GroupShare = 0.27

// Report is the analysis of the students counted so far. A statistic that
// the data leave undefined (too few students, every total the same) is nil,
// never NaN.
type Report struct {
	// Students counted.
	Students int `json:"students"`
	// MaxScore is the sum of the items' maxima.
	MaxScore float64 `json:"max_score"`
	// Scores is the distribution of the total scores.
	Scores Distribution `json:"scores"`
	// KR20 is the Kuder-Richardson formula 20, given when every item was
	// scored right or wrong (0 or its maximum): then it equals Alpha.
	KR20 *float64 `json:"kr20"`
	// Alpha is Cronbach's alpha, for items with partial or essay credit too.
	Alpha *float64 `json:"alpha"`
	// SEM is the standard error of measurement, SD × √(1 − Alpha), in points.
	SEM *float64 `json:"sem"`
	// Items are the items in the paper's order.
	Items []ItemReport `json:"items"`
}

// Distribution describes the students' total scores. The quartiles and
// the median interpolate between the sorted totals as R's default (type
// 7) and the spreadsheets' PERCENTILE.INC do.
type Distribution struct {
	Mean   *float64 `json:"mean"`
	SD     *float64 `json:"sd"` // with n − 1
	Min    *float64 `json:"min"`
	Q1     *float64 `json:"q1"`
	Median *float64 `json:"median"`
	Q3     *float64 `json:"q3"`
	Max    *float64 `json:"max"`
	// Histogram covers 0 to the paper's maximum: one bin per whole score
	// (From = To) when the maximum is at most 50 points and every total is
	// a whole number, otherwise 20 bins of equal width, each holding the
	// totals from From up to, not including, To (the last one including
	// the maximum).
	Histogram []Bin `json:"histogram"`
}

// Bin is one bar of the histogram.
type Bin struct {
	From     float64 `json:"from"`
	To       float64 `json:"to"`
	Students int     `json:"students"`
}

// Difficulty is the band of an item's facility.
type Difficulty string

// The difficulty bands, by facility P (docs/item-analysis.md).
const (
	VeryHard Difficulty = "very_hard" // sangat sukar: P < 0.16
	Hard     Difficulty = "hard"      // sukar: 0.16 ≤ P < 0.31
	Medium   Difficulty = "medium"    // sedang: 0.31 ≤ P < 0.71
	Easy     Difficulty = "easy"      // mudah: 0.71 ≤ P < 0.86
	VeryEasy Difficulty = "very_easy" // sangat mudah: P ≥ 0.86
)

// Discrimination is the band of an item's upper-lower index D.
type Discrimination string

// The discrimination bands, by D (docs/item-analysis.md).
const (
	Negative  Discrimination = "negative"  // D < 0: the weaker students did better
	Poor      Discrimination = "poor"      // jelek: 0 ≤ D ≤ 0.20
	Fair      Discrimination = "fair"      // cukup: 0.20 < D ≤ 0.40
	Good      Discrimination = "good"      // baik: 0.40 < D ≤ 0.70
	Excellent Discrimination = "excellent" // baik sekali: D > 0.70
)

// Flag is something about an item a teacher should look at.
type Flag string

// The flags, in the order a report lists them.
const (
	// KeyDoubtful: a distractor drew more of the upper group than the key
	// did ("kunci mungkin salah").
	KeyDoubtful Flag = "key_doubtful"
	// NegativeDiscrimination: the lower group did better than the upper.
	NegativeDiscrimination Flag = "negative_discrimination"
	// UnchosenDistractor: a distractor nobody chose.
	UnchosenDistractor Flag = "unchosen_distractor"
	// AllCorrect: every student earned the item's full points.
	AllCorrect Flag = "all_correct"
)

// ItemReport is the analysis of one item.
type ItemReport struct {
	ID        string  `json:"id"`
	MaxPoints float64 `json:"max_points"`
	// MeanPoints is the mean of the points earned.
	MeanPoints *float64 `json:"mean_points"`
	// Facility is MeanPoints / MaxPoints: the proportion correct of a
	// right-or-wrong item, the mean share of the maximum otherwise.
	Facility   *float64   `json:"facility"`
	Difficulty Difficulty `json:"difficulty,omitempty"`
	// Upper and Lower are the mean shares of the maximum in the upper and
	// lower groups; UpperLower is their difference, the index D.
	Upper          *float64       `json:"upper"`
	Lower          *float64       `json:"lower"`
	UpperLower     *float64       `json:"upper_lower"`
	Discrimination Discrimination `json:"discrimination,omitempty"`
	// ItemRest is the corrected item-total correlation: Pearson's r
	// between the item's points and the total of the other items (the
	// point-biserial with the item removed, for a right-or-wrong item).
	ItemRest *float64 `json:"item_rest"`
	// Options is a choice item's option table, in the paper's order;
	// Omitted is its row for the students who left the item blank.
	Options []OptionReport `json:"options,omitempty"`
	Omitted *OptionReport  `json:"omitted,omitempty"`
	Flags   []Flag         `json:"flags"`
}

// OptionReport is one row of a choice item's option table: the share of
// the students choosing the option, overall and in each group.
type OptionReport struct {
	Option string   `json:"option"`
	Key    bool     `json:"key"`
	Share  *float64 `json:"share"`
	Upper  *float64 `json:"upper"`
	Lower  *float64 `json:"lower"`
}

// group is the weighted sums of the upper or lower group.
type group struct {
	points  []float64
	chosen  [][]float64
	omitted []float64
}

// Report returns the analysis of the students counted so far.
func (a *Analysis) Report() Report {
	k := len(a.items)
	r := Report{Students: int(a.n), Items: make([]ItemReport, k)}
	for _, it := range a.items {
		r.MaxScore += it.MaxPoints
	}
	keys := make([]int64, 0, len(a.levels))
	for key := range a.levels {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	r.Scores = a.distribution(keys, r.MaxScore)

	n := a.n
	varX := a.totalVariance(keys)
	varI := make([]float64, k)
	for i := range a.items {
		varI[i] = variance(n, a.sumI[i], a.sumI2[i])
	}
	if n >= 2 && k >= 2 && varX > 0 {
		var sum float64
		for _, v := range varI {
			sum += v
		}
		alpha := float64(k) / float64(k-1) * (1 - sum/varX)
		r.Alpha = &alpha
		if !slices.Contains(a.partial, true) {
			r.KR20 = ptr(alpha)
		}
		if r.Scores.SD != nil {
			r.SEM = ptr(*r.Scores.SD * math.Sqrt(math.Max(0, 1-alpha)))
		}
	}

	var upper, lower group
	var g float64
	if n >= 2 && varX > 0 {
		g = GroupShare * n
		upper = a.group(keys, g, true)
		lower = a.group(keys, g, false)
	}
	for i, it := range a.items {
		ir := ItemReport{ID: it.ID, MaxPoints: it.MaxPoints, Flags: []Flag{}}
		if n > 0 {
			ir.MeanPoints = ptr(a.sumI[i] / n)
			ir.Facility = ptr(a.sumI[i] / n / it.MaxPoints)
			ir.Difficulty = difficulty(*ir.Facility)
		}
		if n >= 2 {
			cov := (a.sumIX[i] - a.sumI[i]*a.sumX/n) / (n - 1)
			covRest := cov - varI[i]
			varRest := varX + varI[i] - 2*cov
			if varI[i] > 0 && varRest > 0 {
				ir.ItemRest = ptr(clamp(covRest / math.Sqrt(varI[i]*varRest)))
			}
		}
		if g > 0 {
			ir.Upper = ptr(upper.points[i] / g / it.MaxPoints)
			ir.Lower = ptr(lower.points[i] / g / it.MaxPoints)
			ir.UpperLower = ptr(*ir.Upper - *ir.Lower)
			ir.Discrimination = discrimination(*ir.UpperLower)
		}
		if len(it.Options) > 0 {
			ir.Options = make([]OptionReport, len(it.Options))
			for j, o := range it.Options {
				ir.Options[j] = a.option1(o, a.key[i][o], a.chosenAll(i, j), upper, lower, g, func(gr group) float64 { return gr.chosen[i][j] })
			}
			omitted := a.option1("", false, a.omittedAll(i), upper, lower, g, func(gr group) float64 { return gr.omitted[i] })
			ir.Omitted = &omitted
		}
		ir.Flags = a.flags(ir)
		r.Items[i] = ir
	}
	return r
}

// option1 is one row of an option table.
func (a *Analysis) option1(option string, key bool, all float64, upper, lower group, g float64, of func(group) float64) OptionReport {
	or := OptionReport{Option: option, Key: key}
	if a.n > 0 {
		or.Share = ptr(all / a.n)
	}
	if g > 0 {
		or.Upper = ptr(of(upper) / g)
		or.Lower = ptr(of(lower) / g)
	}
	return or
}

func (a *Analysis) chosenAll(i, j int) float64 {
	var s float64
	for _, lv := range a.levels {
		s += lv.chosen[i][j]
	}
	return s
}

func (a *Analysis) omittedAll(i int) float64 {
	var s float64
	for _, lv := range a.levels {
		s += lv.omitted[i]
	}
	return s
}

// flags returns what a teacher should look at in the item.
func (a *Analysis) flags(ir ItemReport) []Flag {
	flags := []Flag{}
	if len(ir.Options) > 0 && ir.Upper != nil {
		keyLeast, distractorMost := math.Inf(1), math.Inf(-1)
		for _, o := range ir.Options {
			if o.Key {
				keyLeast = math.Min(keyLeast, *o.Upper)
			} else {
				distractorMost = math.Max(distractorMost, *o.Upper)
			}
		}
		if !math.IsInf(keyLeast, 0) && !math.IsInf(distractorMost, 0) && distractorMost > keyLeast {
			flags = append(flags, KeyDoubtful)
		}
	}
	if ir.UpperLower != nil && *ir.UpperLower < 0 {
		flags = append(flags, NegativeDiscrimination)
	}
	if a.n > 0 && slices.ContainsFunc(ir.Options, func(o OptionReport) bool { return !o.Key && *o.Share == 0 }) {
		flags = append(flags, UnchosenDistractor)
	}
	if ir.Facility != nil && *ir.Facility == 1 {
		flags = append(flags, AllCorrect)
	}
	return flags
}

// group sums the top (upper) or bottom share g of the students by total
// score. Students tied on the total at the group's edge count each for
// the same fraction of a student, so that the group is exactly g students
// and the same whatever order they came in.
func (a *Analysis) group(keys []int64, g float64, upper bool) group {
	k := len(a.items)
	gr := group{points: make([]float64, k), chosen: make([][]float64, k), omitted: make([]float64, k)}
	for i, it := range a.items {
		gr.chosen[i] = make([]float64, len(it.Options))
	}
	left := g
	for idx := range keys {
		key := keys[idx]
		if upper {
			key = keys[len(keys)-1-idx]
		}
		lv := a.levels[key]
		w := math.Min(1, left/lv.n)
		for i := range a.items {
			gr.points[i] += w * lv.points[i]
			gr.omitted[i] += w * lv.omitted[i]
			for j := range lv.chosen[i] {
				gr.chosen[i][j] += w * lv.chosen[i][j]
			}
		}
		left -= w * lv.n
		if left <= 0 {
			break
		}
	}
	return gr
}

// totalVariance is the variance of the totals (with n − 1), summed over
// the levels around the mean: no cancellation however many students.
func (a *Analysis) totalVariance(keys []int64) float64 {
	if a.n < 2 {
		return 0
	}
	mean := a.sumX / a.n
	var ss float64
	for _, key := range keys {
		d := float64(key)/scale - mean
		ss += a.levels[key].n * d * d
	}
	return ss / (a.n - 1)
}

// distribution describes the totals, whose levels are keys (sorted).
func (a *Analysis) distribution(keys []int64, maxScore float64) Distribution {
	var d Distribution
	d.Histogram = a.histogram(keys, maxScore)
	if a.n == 0 {
		return d
	}
	d.Mean = ptr(a.sumX / a.n)
	if a.n >= 2 {
		d.SD = ptr(math.Sqrt(a.totalVariance(keys)))
	}
	at := func(p float64) *float64 { return ptr(a.quantile(keys, p)) }
	d.Min, d.Q1, d.Median, d.Q3, d.Max = at(0), at(0.25), at(0.5), at(0.75), at(1)
	return d
}

// quantile is R's type 7: with the n totals sorted x[0..n-1], h = (n−1)p
// and the value x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]).
func (a *Analysis) quantile(keys []int64, p float64) float64 {
	h := (a.n - 1) * p
	lo := math.Floor(h)
	x0, x1 := a.nth(keys, lo), a.nth(keys, math.Min(lo+1, a.n-1))
	return x0 + (h-lo)*(x1-x0)
}

// nth is the total of rank j (from 0) in ascending order.
func (a *Analysis) nth(keys []int64, j float64) float64 {
	var below float64
	for _, key := range keys {
		below += a.levels[key].n
		if j < below {
			return float64(key) / scale
		}
	}
	return float64(keys[len(keys)-1]) / scale
}

// histogram counts the totals into bins over 0 to maxScore.
func (a *Analysis) histogram(keys []int64, maxScore float64) []Bin {
	perPoint := maxScore <= 50 && maxScore == math.Trunc(maxScore) &&
		!slices.ContainsFunc(keys, func(k int64) bool { return k%scale != 0 })
	var out []Bin
	var binOf func(x float64) int
	if perPoint {
		out = make([]Bin, int(maxScore)+1)
		for b := range out {
			out[b] = Bin{From: float64(b), To: float64(b)}
		}
		binOf = func(x float64) int { return int(x) }
	} else {
		width := maxScore / 20
		out = make([]Bin, 20)
		for b := range out {
			out[b] = Bin{From: float64(b) * width, To: float64(b+1) * width}
		}
		binOf = func(x float64) int { return min(int(x/width), len(out)-1) }
	}
	for _, key := range keys {
		out[binOf(float64(key)/scale)].Students += int(a.levels[key].n)
	}
	return out
}

// difficulty is the band of facility p.
func difficulty(p float64) Difficulty {
	switch {
	case p < 0.16:
		return VeryHard
	case p < 0.31:
		return Hard
	case p < 0.71:
		return Medium
	case p < 0.86:
		return Easy
	}
	return VeryEasy
}

// discrimination is the band of the index d.
func discrimination(d float64) Discrimination {
	switch {
	case d < 0:
		return Negative
	case d <= 0.20:
		return Poor
	case d <= 0.40:
		return Fair
	case d <= 0.70:
		return Good
	}
	return Excellent
}

// variance is the variance with n − 1 from the sum and the sum of squares.
func variance(n, sum, sum2 float64) float64 {
	if n < 2 {
		return 0
	}
	return math.Max(0, (sum2-sum*sum/n)/(n-1))
}

// clamp keeps a correlation that rounding pushed past ±1 within it.
func clamp(r float64) float64 { return math.Max(-1, math.Min(1, r)) }

func ptr(v float64) *float64 { return &v }

// Figure prints a statistic for people: two decimals, never a negative
// zero (a tiny negative discrimination is 0.00, not -0.00), and none when
// it is undefined (nil).
func Figure(v *float64, none string) string {
	if v == nil {
		return none
	}
	if f := strconv.FormatFloat(*v, 'f', 2, 64); f != "-0.00" {
		return f
	}
	return "0.00"
}
