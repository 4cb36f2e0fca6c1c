package irt

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"
)

// ltmCalibration is a calibration holding ltm's published 2PL estimates of
// LSAT.
func ltmCalibration() *Calibration {
	want := ltmLSAT[TwoPL]
	c := &Calibration{Model: TwoPL, Items: make([]Item, 5), scoring: hermite(scoringPoints)}
	for j := range c.Items {
		c.Items[j] = Item{Calibrated: true, Difficulty: want.difficulty[j], Discrimination: want.discrimination[j]}
		c.slopes = append(c.slopes, want.discrimination[j])
		c.intercepts = append(c.intercepts, -want.discrimination[j]*want.difficulty[j])
	}
	return c
}

// readReference returns the rows of a reference file written by R, its
// header left out, failing t unless there are rows of them.
func readReference(t *testing.T, path string, rows int) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != rows+1 {
		t.Fatalf("%s: %d rows, want a header and %d", path, len(recs), rows)
	}
	return recs[1:]
}

// TestAbilitiesAgreeWithR scores the 32 LSAT patterns under ltm's 2PL
// estimates and compares the EAP and WLE abilities and their standard
// errors with testdata/abilities.csv, computed in base R by adaptive
// quadrature and root finding (testdata/abilities.R): within 1e-6.
func TestAbilitiesAgreeWithR(t *testing.T) {
	c := ltmCalibration()
	for _, rec := range readReference(t, "testdata/abilities.csv", 32) {
		row := make([]int8, 5)
		for j, ch := range rec[0] {
			row[j] = int8(ch - '0')
		}
		var ref [4]float64
		for k := range ref {
			var err error
			if ref[k], err = strconv.ParseFloat(rec[k+1], 64); err != nil {
				t.Fatal(err)
			}
		}
		eap := c.EAP(row)
		wle, ok := c.WLE(row)
		if !ok {
			t.Fatalf("%s: no WLE", rec[0])
		}
		got := [4]float64{eap.Theta, eap.SE, wle.Theta, wle.SE}
		for k, name := range []string{"EAP", "EAP SE", "WLE", "WLE SE"} {
			if math.Abs(got[k]-ref[k]) > 1e-6 {
				t.Errorf("%s: %s %.9f, R %.9f", rec[0], name, got[k], ref[k])
			}
		}
	}
}
