package storetest

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/ordering"
)

// RunOrdering runs the ordering.Store conformance suite; open returns a
// fresh, empty store for each case.
func RunOrdering(t *testing.T, open func(t *testing.T) ordering.Store) {
	t.Helper()
	for _, tc := range orderingSuite {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
}

type orderingTest struct {
	name string
	run  func(t *testing.T, s ordering.Store)
}

var orderingSuite = []orderingTest{
	{"LoginTokens", testOrderingLogins},
	{"OneUserPerNumber", testOrderingOneUser},
	{"Bans", testOrderingBans},
	{"Consents", testOrderingConsents},
	{"MarkSpent", testOrderingSpent},
	{"Users", testOrderingUsers},
	{"PruneLogins", testOrderingPrune},
}

var ordT0 = time.Date(2026, 11, 25, 9, 0, 0, 123456000, time.UTC)
