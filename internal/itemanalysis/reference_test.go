package itemanalysis_test

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/seedhq/portal/internal/itemanalysis"
)

// reference is what R and its psych package make of a dataset
// (testdata/reference.R, which names the datasets and their sources).
type reference struct {
	Source    string    `json:"source"`
	Students  int       `json:"students"`
	MaxPoints float64   `json:"max_points"`
	Mean      float64   `json:"mean"`
	SD        float64   `json:"sd"`
	Quantiles []float64 `json:"quantiles"`
	Alpha     float64   `json:"alpha"`
	SEM       float64   `json:"sem"`
	Facility  []float64 `json:"facility"`
	ItemRest  []float64 `json:"item_rest"`
	Upper     []float64 `json:"upper"`
	Lower     []float64 `json:"lower"`
}

// referenceTolerance is how far a figure may be from R's: the same
// formulas on the same numbers, summed in another order.
const referenceTolerance = 1e-9

// TestReference compares the analysis of two public datasets with the
// figures R 4.2 and psych 2.2.9 compute for them (testdata/reference.R):
// the LSAT's five right-or-wrong items taken by 1,000 examinees (Bock &
// Lieberman 1970), where KR-20 is alpha, and R's attitude ratings, seven
// items of 0 to 100 points (partial credit) from 30 departments.
func TestReference(t *testing.T) {
	for _, name := range []string{"lsat", "attitude"} {
		t.Run(name, func(t *testing.T) {
			var ref reference
			data, err := os.ReadFile("testdata/" + name + ".json")
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &ref); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open("testdata/" + name + ".csv")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			var items []itemanalysis.Item
			for _, h := range rows[0] {
				items = append(items, itemanalysis.Item{ID: h, MaxPoints: ref.MaxPoints})
			}
			a := mustNew(t, items...)
			for _, row := range rows[1:] {
				answers := make([]itemanalysis.Answer, len(row))
				for i, v := range row {
					if answers[i].Points, err = strconv.ParseFloat(v, 64); err != nil {
						t.Fatal(err)
					}
				}
				mustAdd(t, a, answers...)
			}
			rep := a.Report()
			t.Logf("compared with %s", ref.Source)
			if rep.Students != ref.Students {
				t.Fatalf("students %d, want %d", rep.Students, ref.Students)
			}
			tol := referenceTolerance
			near(t, "mean", rep.Scores.Mean, ref.Mean, tol)
			near(t, "sd", rep.Scores.SD, ref.SD, tol)
			for i, q := range []*float64{rep.Scores.Min, rep.Scores.Q1, rep.Scores.Median, rep.Scores.Q3, rep.Scores.Max} {
				near(t, "quantile "+strconv.Itoa(i), q, ref.Quantiles[i], tol)
			}
			near(t, "alpha", rep.Alpha, ref.Alpha, tol)
			near(t, "sem", rep.SEM, ref.SEM, tol)
			if name == "lsat" {
				near(t, "kr20", rep.KR20, ref.Alpha, tol)
			} else {
				undefined(t, "kr20 of partial credit", rep.KR20)
			}
			for i, it := range rep.Items {
				near(t, it.ID+" facility", it.Facility, ref.Facility[i], tol)
				near(t, it.ID+" item-rest", it.ItemRest, ref.ItemRest[i], tol)
				near(t, it.ID+" upper", it.Upper, ref.Upper[i], tol)
				near(t, it.ID+" lower", it.Lower, ref.Lower[i], tol)
			}
		})
	}
}
