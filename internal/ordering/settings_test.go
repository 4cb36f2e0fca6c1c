package ordering_test

import (
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/ordering"
)

// TestSettingsShopTexts: the shop's name, tagline and opening hours are
// trimmed (the hours' line breaks written as \n), kept as typed otherwise
// (markup included: escaping is the pages' job), and refused with
// INVALID_SETTINGS when too long, not UTF-8 or holding control characters.
func TestSettingsShopTexts(t *testing.T) {
	svc, _ := newService(t, "628110000001")
	ctx := t.Context()
	st := ordering.DefaultSettings()
	st.ShopName, st.ShopTagline = "  Warung Bu Tini  ", " Nasi & kopi sejak 1998 "
	st.OpeningHours = " Sen–Jum 07.00–21.00\r\nSab 08.00–14.00\r\n"
	got, err := svc.SetSettings(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if got.ShopName != "Warung Bu Tini" || got.ShopTagline != "Nasi & kopi sejak 1998" ||
		got.OpeningHours != "Sen–Jum 07.00–21.00\nSab 08.00–14.00" {
		t.Fatalf("normalised: %q %q %q", got.ShopName, got.ShopTagline, got.OpeningHours)
	}
	if read, err := svc.Settings(ctx); err != nil || read != got {
		t.Fatalf("read back %+v (%v), want %+v", read, err, got)
	}

	// Untrusted text is kept as it was typed: the pages escape it.
	for _, name := range []string{`<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`, `javascript:alert(1)`} {
		st := ordering.DefaultSettings()
		st.ShopName = name
		if got, err := svc.SetSettings(ctx, st); err != nil || got.ShopName != name {
			t.Fatalf("shop name %q: %q %v", name, got.ShopName, err)
		}
	}

	// At the limits, counted in characters, not bytes.
	st = ordering.DefaultSettings()
	st.ShopName = strings.Repeat("é", ordering.MaxShopNameLen)
	st.ShopTagline = strings.Repeat("☕", ordering.MaxShopTaglineLen)
	st.OpeningHours = strings.Repeat("a\n", ordering.MaxOpeningHoursLines-1) + "a"
	if _, err := svc.SetSettings(ctx, st); err != nil {
		t.Fatalf("texts at their limits: %v", err)
	}

	for _, tc := range []struct {
		field, value, msg string
	}{
		{"shopName", strings.Repeat("x", ordering.MaxShopNameLen+1), "shopName is 61 characters long; at most 60"},
		{"shopTagline", strings.Repeat("x", ordering.MaxShopTaglineLen+1), "shopTagline is 141"},
		{"openingHours", strings.Repeat("x", ordering.MaxOpeningHoursLen+1), "openingHours is 301"},
		{"openingHours", strings.Repeat("a\n", ordering.MaxOpeningHoursLines) + "a", "more than 10 lines"},
		{"shopName", "Warung\nBu Tini", "shopName must be one line"},
		{"shopTagline", "kopi\x00", "shopTagline must be one line"},
		{"openingHours", "Sen\t07.00", "openingHours must not hold control characters"},
		{"shopName", "Warung \xff", "shopName is not UTF-8"},
	} {
		st := ordering.DefaultSettings()
		*map[string]*string{"shopName": &st.ShopName, "shopTagline": &st.ShopTagline, "openingHours": &st.OpeningHours}[tc.field] = tc.value
		_, err := svc.SetSettings(ctx, st)
		if apperr.CodeOf(err) != "INVALID_SETTINGS" || apperr.KindOf(err) != apperr.Invalid || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s %q: %v, want INVALID_SETTINGS saying %q", tc.field, tc.value, err, tc.msg)
		}
	}
	if read, _ := svc.Settings(ctx); read.ShopName != strings.Repeat("é", ordering.MaxShopNameLen) {
		t.Fatalf("a refused change was stored: %q", read.ShopName)
	}
}
