package itemanalysis_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/seedhq/portal/internal/itemanalysis"
)

// BenchmarkAdd counts students of a 40-item paper (30 single-choice items,
// 10 partial-credit ones): the cost per student of the national analysis,
// which reads every student's answers once. It reports the report's cost
// too, which does not grow with the students.
func BenchmarkAdd(b *testing.B) {
	var items []itemanalysis.Item
	for i := range 40 {
		if i < 30 {
			items = append(items, itemanalysis.Item{ID: fmt.Sprint("q", i+1), MaxPoints: 1, Options: []string{"a", "b", "c", "d", "e"}, Key: []string{"c"}})
		} else {
			items = append(items, itemanalysis.Item{ID: fmt.Sprint("q", i+1), MaxPoints: 4})
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	students := make([][]itemanalysis.Answer, 1024)
	for s := range students {
		students[s] = make([]itemanalysis.Answer, len(items))
		for i, it := range items {
			if len(it.Options) > 0 {
				o := it.Options[r.IntN(5)]
				students[s][i] = itemanalysis.Answer{Chosen: []string{o}}
				if o == "c" {
					students[s][i].Points = 1
				}
			} else {
				students[s][i] = itemanalysis.Answer{Points: float64(r.IntN(9)) / 2}
			}
		}
	}
	a, err := itemanalysis.New(items)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := a.Add(students[i%len(students)]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if rep := a.Report(); rep.Students != b.N {
		b.Fatalf("%d students reported, %d added", rep.Students, b.N)
	}
}
