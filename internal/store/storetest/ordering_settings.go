package storetest

import (
	"testing"

	"github.com/seedhq/portal/internal/ordering"
)

func testOrderingSettings(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	if _, ok, err := s.GetSettings(ctx); err != nil || ok {
		t.Fatalf("GetSettings before: %v %v", ok, err)
	}
	st := ordering.DefaultSettings()
	st.ShopLat, st.ShopLng, st.DeliveryPerKm = -6.2, 106.8, 2500
	mustOK(t, "PutSettings", s.PutSettings(ctx, st))
	st.OrderPrefix = "WRG"
	// The shop's texts come back exactly: markup, quotes, line breaks and
	// characters beyond ASCII, as the pages must escape them.
	st.ShopName, st.ShopTagline = `"><img src=x onerror=alert(1)> Warung Bu Tini's`, "Kopi ☕ & <b>nasi</b>"
	st.OpeningHours = "Sen–Jum 07.00–21.00\nSab 08.00–14.00"
	mustOK(t, "PutSettings", s.PutSettings(ctx, st))
	got, ok, err := s.GetSettings(ctx)
	mustOK(t, "GetSettings", err)
	if !ok {
		t.Fatal("GetSettings: none")
	}
	check(t, "settings", got, st)
	got, ok, items, err := s.OrderInputs(ctx, nil)
	mustOK(t, "OrderInputs", err)
	if !ok || len(items) != 0 {
		t.Fatalf("OrderInputs: %v %d items", ok, len(items))
	}
	check(t, "settings of OrderInputs", got, st)
}
