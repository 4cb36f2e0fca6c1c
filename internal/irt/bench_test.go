package irt

import (
	"fmt"
	"os"
	"testing"
)

// BenchmarkCalibrate fits the 2PL and the Rasch model to simulated
// students answering 40 questions, a tenth of the answers missing: the
// fit, the standard errors and the infit and outfit. The national scale
// (1,000,000 students) runs when PORTAL_BENCH_NATIONAL=1, once:
//
//	PORTAL_BENCH_NATIONAL=1 go test -run '^$' -bench Calibrate -benchtime 1x ./internal/irt
func BenchmarkCalibrate(b *testing.B) {
	sizes := []int{10000, 100000}
	if os.Getenv("PORTAL_BENCH_NATIONAL") == "1" {
		sizes = append(sizes, 1000000)
	}
	var diff, disc []float64
	for j := range 40 {
		diff = append(diff, -2.5+5*float64(j)/39)
		disc = append(disc, 0.5+float64(j%5)*0.3)
	}
	for _, n := range sizes {
		data := simulate(11, n, diff, disc, 0.1)
		for _, model := range []Model{TwoPL, Rasch} {
			b.Run(fmt.Sprintf("students=%d/%s", n, model), func(b *testing.B) {
				b.ReportAllocs()
				var c *Calibration
				for b.Loop() {
					var err error
					if c, err = Calibrate(b.Context(), data, Options{Model: model}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(c.Iterations), "iterations")
			})
		}
	}
}
