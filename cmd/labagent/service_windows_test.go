package main

import (
	"os"
	"testing"
)

// TestUnderWineWindows checks the Wine detection that decides which
// service-manager shortcomings install tolerates: true under Wine (make
// test-windows runs this with WINEPREFIX set, which Wine passes on to
// Windows programs), false on a real Windows.
func TestUnderWineWindows(t *testing.T) {
	want := os.Getenv("WINEPREFIX") != ""
	if got := underWine(); got != want {
		t.Fatalf("underWine() = %v with WINEPREFIX=%q; want %v", got, os.Getenv("WINEPREFIX"), want)
	}
}
