package storetest

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/ordering"
)

func testOrderingConsents(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	if _, ok, err := s.GetConsent(ctx, "6281234567890"); err != nil || ok {
		t.Fatalf("GetConsent before: %v %v", ok, err)
	}
	mustOK(t, "RecordConsent", s.RecordConsent(ctx, ordering.Consent{Number: "6281234567890", Source: ordering.ConsentRegistered, FirstAt: ordT0, LastAt: ordT0}))
	later := ordT0.Add(time.Hour)
	mustOK(t, "RecordConsent", s.RecordConsent(ctx, ordering.Consent{Number: "6281234567890", Source: ordering.ConsentInbound, FirstAt: later, LastAt: later}))
	c, ok, err := s.GetConsent(ctx, "6281234567890")
	mustOK(t, "GetConsent", err)
	check(t, "consent", c, ordering.Consent{Number: "6281234567890", Source: ordering.ConsentRegistered, FirstAt: ordT0, LastAt: later})
	if !ok {
		t.Fatal("GetConsent: not found")
	}
}
