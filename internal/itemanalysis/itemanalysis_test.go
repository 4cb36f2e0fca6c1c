package itemanalysis_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/seedhq/portal/internal/itemanalysis"
)

// choiceItem is a single-choice item worth 1 point with options a to d.
func choiceItem(id, key string) itemanalysis.Item {
	return itemanalysis.Item{ID: id, MaxPoints: 1, Options: []string{"a", "b", "c", "d"}, Key: []string{key}}
}

// chose is the answer of a student who chose option o of an item keyed key.
func chose(o, key string) itemanalysis.Answer {
	if o == "" {
		return itemanalysis.Answer{Omitted: true}
	}
	a := itemanalysis.Answer{Chosen: []string{o}}
	if o == key {
		a.Points = 1
	}
	return a
}

func mustNew(t *testing.T, items ...itemanalysis.Item) *itemanalysis.Analysis {
	t.Helper()
	a, err := itemanalysis.New(items)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func mustAdd(t *testing.T, a *itemanalysis.Analysis, answers ...itemanalysis.Answer) {
	t.Helper()
	if err := a.Add(answers); err != nil {
		t.Fatal(err)
	}
}

func near(t *testing.T, what string, got *float64, want, tol float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s is undefined, want %.4f", what, want)
		return
	}
	if math.Abs(*got-want) > tol {
		t.Errorf("%s = %.6f, want %.6f (±%g)", what, *got, want, tol)
	}
}

func undefined(t *testing.T, what string, got *float64) {
	t.Helper()
	if got != nil {
		t.Errorf("%s = %v, want undefined", what, *got)
	}
}

// TestSmallPaper works a paper of three choice items taken by ten students
// through by hand: the groups are the top and bottom 2.7 students, so the
// tie at the edge of each group counts for 0.7 of a student.
func TestSmallPaper(t *testing.T) {
	items := []itemanalysis.Item{choiceItem("q1", "a"), choiceItem("q2", "b"), choiceItem("q3", "c")}
	a := mustNew(t, items...)
	// Each row: the options chosen for q1, q2, q3 ("" left blank).
	rows := [][3]string{
		{"a", "b", "c"}, // 3
		{"a", "b", "c"}, // 3
		{"a", "b", "d"}, // 2
		{"a", "c", "c"}, // 2
		{"a", "b", ""},  // 2
		{"b", "b", "c"}, // 2
		{"a", "d", "a"}, // 1
		{"c", "b", "a"}, // 1
		{"b", "a", "a"}, // 0
		{"d", "", "a"},  // 0
	}
	for _, r := range rows {
		mustAdd(t, a, chose(r[0], "a"), chose(r[1], "b"), chose(r[2], "c"))
	}
	rep := a.Report()
	if rep.Students != 10 || rep.MaxScore != 3 {
		t.Fatalf("students %d, max %v", rep.Students, rep.MaxScore)
	}
	// Totals 3 3 2 2 2 2 1 1 0 0: mean 1.6, SD √(10.4/9).
	near(t, "mean", rep.Scores.Mean, 1.6, 1e-12)
	near(t, "sd", rep.Scores.SD, math.Sqrt(10.4/9), 1e-12)
	// Type 7: Q1 at h = 2.25 (1 + 0.25·(1−1)) = 1, median at 4.5 → 2, Q3 at 6.75 → 2.
	near(t, "q1", rep.Scores.Q1, 1, 1e-12)
	near(t, "median", rep.Scores.Median, 2, 1e-12)
	near(t, "q3", rep.Scores.Q3, 2, 1e-12)
	near(t, "min", rep.Scores.Min, 0, 0)
	near(t, "max", rep.Scores.Max, 3, 0)
	wantHist := []itemanalysis.Bin{{From: 0, To: 0, Students: 2}, {From: 1, To: 1, Students: 2}, {From: 2, To: 2, Students: 4}, {From: 3, To: 3, Students: 2}}
	if !reflect.DeepEqual(rep.Scores.Histogram, wantHist) {
		t.Errorf("histogram = %+v", rep.Scores.Histogram)
	}
	// Item variances (n−1): q1 p=.6 → 2.4/9; q2 p=.6 → 2.4/9; q3 p=.4 → 2.4/9.
	alpha := 1.5 * (1 - (3*2.4/9)/(10.4/9))
	near(t, "alpha", rep.Alpha, alpha, 1e-12)
	near(t, "kr20", rep.KR20, alpha, 1e-12)
	near(t, "sem", rep.SEM, math.Sqrt(10.4/9)*math.Sqrt(1-alpha), 1e-12)

	q1 := rep.Items[0]
	near(t, "q1 facility", q1.Facility, 0.6, 1e-12)
	// Upper group: the two 3s and 0.7 of the four 2s (three of whom got
	// q1 right): (2 + 0.7·3/4)/2.7. Lower: the two 0s (none right) and 0.7
	// of the two 1s (one right): (0.7·1/2)/2.7.
	up, low := (2+0.7*3.0/4)/2.7, (0.7*1.0/2)/2.7
	near(t, "q1 upper", q1.Upper, up, 1e-12)
	near(t, "q1 lower", q1.Lower, low, 1e-12)
	near(t, "q1 D", q1.UpperLower, up-low, 1e-12)
	if q1.Discrimination != itemanalysis.Excellent || q1.Difficulty != itemanalysis.Medium { // D = 2.175/2.7 ≈ 0.81
		t.Errorf("q1 bands %s, %s", q1.Discrimination, q1.Difficulty)
	}
	// Options of q1: a 6, b 2, c 1, d 1 of 10; in the lower group b is
	// chosen by one 0 and d by the other.
	wantShare := map[string]float64{"a": 0.6, "b": 0.2, "c": 0.1, "d": 0.1}
	for _, o := range q1.Options {
		near(t, "q1 share of "+o.Option, o.Share, wantShare[o.Option], 1e-12)
		if o.Key != (o.Option == "a") {
			t.Errorf("q1 option %s key = %v", o.Option, o.Key)
		}
	}
	near(t, "q1 lower share of d", q1.Options[3].Lower, 1/2.7, 1e-12)
	near(t, "q1 omitted", q1.Omitted.Share, 0, 0)
	near(t, "q3 omitted", rep.Items[2].Omitted.Share, 0.1, 1e-12)

	// Corrected item-total of q1: Pearson r of q1 with q2+q3.
	var q1s, rest []float64
	for _, r := range rows {
		x := b2f(r[0] == "a")
		q1s = append(q1s, x)
		rest = append(rest, b2f(r[1] == "b")+b2f(r[2] == "c"))
	}
	near(t, "q1 item-rest", q1.ItemRest, pearson(q1s, rest), 1e-12)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// pearson is the textbook Pearson correlation of x and y.
func pearson(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

// TestFlags: a key the upper group avoids, a lower group that does better,
// a distractor nobody chose, an item everyone got right.
func TestFlags(t *testing.T) {
	a := mustNew(t, choiceItem("wrong-key", "a"), choiceItem("easy", "a"), choiceItem("anchor", "a"), choiceItem("anchor2", "a"))
	// The strong students (anchors right) choose b on the first item, whose
	// key says a; everyone gets the second right with a.
	for range 5 {
		mustAdd(t, a, chose("b", "a"), chose("a", "a"), chose("a", "a"), chose("a", "a"))
	}
	for range 5 {
		mustAdd(t, a, chose("a", "a"), chose("a", "a"), chose("c", "a"), chose("c", "a"))
	}
	rep := a.Report()
	wrong, easy := rep.Items[0], rep.Items[1]
	if want := []itemanalysis.Flag{itemanalysis.KeyDoubtful, itemanalysis.NegativeDiscrimination, itemanalysis.UnchosenDistractor}; !reflect.DeepEqual(wrong.Flags, want) {
		t.Errorf("wrong-key flags = %v, want %v", wrong.Flags, want)
	}
	if wrong.Discrimination != itemanalysis.Negative {
		t.Errorf("wrong-key discrimination = %s", wrong.Discrimination)
	}
	if want := []itemanalysis.Flag{itemanalysis.UnchosenDistractor, itemanalysis.AllCorrect}; !reflect.DeepEqual(easy.Flags, want) {
		t.Errorf("easy flags = %v, want %v", easy.Flags, want)
	}
	if easy.Difficulty != itemanalysis.VeryEasy {
		t.Errorf("easy difficulty = %s", easy.Difficulty)
	}
	undefined(t, "item-rest of an item without variance", easy.ItemRest)
}

// TestUndefined: one student, and every student with the same total, leave
// the spread-based statistics undefined (nil), never NaN; the JSON says
// null.
func TestUndefined(t *testing.T) {
	one := mustNew(t, choiceItem("q1", "a"), choiceItem("q2", "b"))
	mustAdd(t, one, chose("a", "a"), chose("c", "b"))
	rep := one.Report()
	near(t, "mean of one", rep.Scores.Mean, 1, 0)
	near(t, "median of one", rep.Scores.Median, 1, 0)
	undefined(t, "sd of one", rep.Scores.SD)
	undefined(t, "alpha of one", rep.Alpha)
	undefined(t, "kr20 of one", rep.KR20)
	undefined(t, "sem of one", rep.SEM)
	undefined(t, "D of one", rep.Items[0].UpperLower)
	undefined(t, "item-rest of one", rep.Items[0].ItemRest)

	same := mustNew(t, choiceItem("q1", "a"), choiceItem("q2", "b"))
	mustAdd(t, same, chose("a", "a"), chose("c", "b"))
	mustAdd(t, same, chose("b", "a"), chose("b", "b"))
	rep = same.Report()
	near(t, "sd of equal totals", rep.Scores.SD, 0, 0)
	undefined(t, "alpha of equal totals", rep.Alpha)
	undefined(t, "D of equal totals", rep.Items[0].UpperLower)
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil || back["alpha"] != nil {
		t.Fatalf("alpha in JSON = %v (%v): %s", back["alpha"], err, data)
	}

	empty := mustNew(t, choiceItem("q1", "a"))
	rep = empty.Report()
	if rep.Students != 0 || rep.Scores.Mean != nil || rep.Items[0].Facility != nil || rep.Items[0].Options[0].Share != nil {
		t.Errorf("an analysis of nobody: %+v", rep)
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Fatal(err)
	}
}

// TestNobodyAnswered: an item every student left blank has facility 0, no
// item-rest correlation, and every student in its omitted row.
func TestNobodyAnswered(t *testing.T) {
	a := mustNew(t, choiceItem("q1", "a"), choiceItem("blank", "b"))
	for i := range 6 {
		o := "a"
		if i%2 == 1 {
			o = "c"
		}
		mustAdd(t, a, chose(o, "a"), chose("", "b"))
	}
	blank := a.Report().Items[1]
	near(t, "facility", blank.Facility, 0, 0)
	undefined(t, "item-rest", blank.ItemRest)
	near(t, "omitted", blank.Omitted.Share, 1, 0)
	near(t, "D", blank.UpperLower, 0, 0)
}

// TestOrderAndMerge: the report is the same whatever order the students
// come in, and when halves counted apart are merged.
func TestOrderAndMerge(t *testing.T) {
	items := []itemanalysis.Item{choiceItem("q1", "a"), choiceItem("q2", "b"),
		{ID: "essay", MaxPoints: 10}, {ID: "grid", MaxPoints: 2}}
	r := rand.New(rand.NewPCG(1, 2))
	var students [][]itemanalysis.Answer
	for range 200 {
		opts := []string{"a", "b", "c", "d", ""}
		o1, o2 := opts[r.IntN(5)], opts[r.IntN(5)]
		students = append(students, []itemanalysis.Answer{chose(o1, "a"), chose(o2, "b"),
			{Points: float64(r.IntN(21)) / 2}, {Points: float64(r.IntN(3))}})
	}
	whole := mustNew(t, items...)
	for _, s := range students {
		mustAdd(t, whole, s...)
	}
	shuffled, half1, half2 := mustNew(t, items...), mustNew(t, items...), mustNew(t, items...)
	perm := r.Perm(len(students))
	for i, p := range perm {
		mustAdd(t, shuffled, students[p]...)
		if i%2 == 0 {
			mustAdd(t, half1, students[p]...)
		} else {
			mustAdd(t, half2, students[p]...)
		}
	}
	if err := half1.Merge(half2); err != nil {
		t.Fatal(err)
	}
	want := whole.Report()
	for name, got := range map[string]itemanalysis.Report{"shuffled": shuffled.Report(), "merged": half1.Report()} {
		if !sameReport(want, got) {
			t.Errorf("%s report differs:\n%s\nwant\n%s", name, js(got), js(want))
		}
	}
	if want.KR20 != nil {
		t.Error("KR-20 given for a paper with partial credit")
	}
	if want.Alpha == nil {
		t.Error("alpha undefined")
	}
	other := mustNew(t, choiceItem("q1", "a"))
	if err := whole.Merge(other); !errors.Is(err, itemanalysis.ErrPaper) {
		t.Errorf("merging another paper: %v", err)
	}
}

// sameReport compares two reports, numbers to 1e-9 (sums in another order).
func sameReport(a, b itemanalysis.Report) bool {
	var x, y any
	json.Unmarshal([]byte(js(a)), &x)
	json.Unmarshal([]byte(js(b)), &y)
	return approxEqual(x, y)
}

func approxEqual(x, y any) bool {
	switch x := x.(type) {
	case float64:
		y, ok := y.(float64)
		return ok && math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(x))
	case map[string]any:
		y, ok := y.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k := range x {
			if !approxEqual(x[k], y[k]) {
				return false
			}
		}
		return true
	case []any:
		y, ok := y.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !approxEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(x, y)
}

func js(v any) string {
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

// TestRefused: a student with the wrong number of answers, points out of
// range or an option the item lacks changes nothing.
func TestRefused(t *testing.T) {
	a := mustNew(t, choiceItem("q1", "a"), itemanalysis.Item{ID: "essay", MaxPoints: 5})
	for _, tc := range []struct {
		answers []itemanalysis.Answer
		want    error
	}{
		{[]itemanalysis.Answer{chose("a", "a")}, itemanalysis.ErrAnswers},
		{[]itemanalysis.Answer{chose("a", "a"), {Points: 5.5}}, itemanalysis.ErrPoints},
		{[]itemanalysis.Answer{chose("a", "a"), {Points: -1}}, itemanalysis.ErrPoints},
		{[]itemanalysis.Answer{chose("a", "a"), {Points: math.NaN()}}, itemanalysis.ErrPoints},
		{[]itemanalysis.Answer{chose("a", "a"), {Points: 2, Omitted: true}}, itemanalysis.ErrPoints},
		{[]itemanalysis.Answer{chose("e", "a"), {Points: 2}}, itemanalysis.ErrOption},
	} {
		if err := a.Add(tc.answers); !errors.Is(err, tc.want) {
			t.Errorf("Add(%+v) = %v, want %v", tc.answers, err, tc.want)
		}
	}
	if n := a.Report().Students; n != 0 {
		t.Fatalf("%d students counted after refusals", n)
	}
	for _, items := range [][]itemanalysis.Item{
		nil,
		{{ID: "q", MaxPoints: 0}},
		{{ID: "q", MaxPoints: 1}, {ID: "q", MaxPoints: 2}},
		{{ID: "q", MaxPoints: 1, Options: []string{"a", "a"}}},
		{{ID: "q", MaxPoints: 1, Options: []string{"a"}, Key: []string{"b"}}},
	} {
		if _, err := itemanalysis.New(items); err == nil {
			t.Errorf("New(%+v) accepted", items)
		}
	}
}

// TestFigure: two decimals, rounded; a tiny negative is 0.00, never
// -0.00; nil is the caller's dash.
func TestFigure(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	for _, tc := range []struct {
		v    *float64
		want string
	}{
		{v(0.456), "0.46"}, {v(-0.454), "-0.45"}, {v(-0.004), "0.00"}, {v(math.Copysign(0, -1)), "0.00"},
		{v(0.004), "0.00"}, {v(16.3649), "16.36"}, {nil, "–"},
	} {
		if got := itemanalysis.Figure(tc.v, "–"); got != tc.want {
			t.Errorf("Figure(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
