// Package qbanktest holds what the bank formats' round-trip tests generate
// alike.
package qbanktest

import (
	"math/rand/v2"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/irt"
)

// Calibration returns, one time in three, random item parameters (nil
// otherwise).
func Calibration(r *rand.Rand) *exam.ItemParameters {
	if r.IntN(3) != 0 {
		return nil
	}
	p := &exam.ItemParameters{Model: []irt.Model{irt.Rasch, irt.TwoPL}[r.IntN(2)],
		Difficulty: 8*r.Float64() - 4, Discrimination: 0.01 + 3.99*r.Float64(),
		Students: r.IntN(1000000), ExamID: "01JCALIBRATED",
		CalibratedAt: time.Date(2026, 11, 29, 10, r.IntN(60), r.IntN(60), r.IntN(1000000)*1000, time.UTC)}
	if r.IntN(2) == 0 {
		b, a := r.Float64()/2, r.Float64()/2
		p.DifficultySE, p.DiscriminationSE = &b, &a
	}
	return p
}
