package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestOrderingSettingsShopTexts: PUT /api/settings takes the shop's name,
// tagline and opening hours (trimmed, markup kept as text), GET returns
// them, and too long or multi-line names, too long taglines, hours with
// control characters and a NUL are refused with 400 INVALID_SETTINGS
// naming the field, nothing stored. Every exchange is checked against the
// OpenAPI description. On both stores.
func TestOrderingSettingsShopTexts(t *testing.T) {
	for _, so := range storeOpeners() {
		t.Run(so.name, func(t *testing.T) {
			h := orderingHarness(t, so.open, "628110000001")
			jwts := h.orderingUsers()
			admin := bearer(jwts["ADMIN"])
			var st struct {
				Success  bool           `json:"success"`
				Settings map[string]any `json:"settings"`
			}
			h.req("GET", "/api/settings", nil, admin...).expect(http.StatusOK).decode(&st)
			if st.Settings["shopName"] != "" || st.Settings["shopTagline"] != "" || st.Settings["openingHours"] != "" {
				t.Fatalf("default settings: %v", st.Settings)
			}
			st.Settings["shopName"] = `  "><img src=x onerror=alert(1)> Warung  `
			st.Settings["shopTagline"] = "Kopi ☕ & nasi"
			st.Settings["openingHours"] = "Sen–Jum 07.00–21.00\r\nSab 08.00–14.00"
			h.req("PUT", "/api/settings", st.Settings, admin...).expect(http.StatusOK).decode(&st)
			want := map[string]string{"shopName": `"><img src=x onerror=alert(1)> Warung`, "shopTagline": "Kopi ☕ & nasi",
				"openingHours": "Sen–Jum 07.00–21.00\nSab 08.00–14.00"}
			for k, v := range want {
				if st.Settings[k] != v {
					t.Errorf("PUT answered %s %q, want %q", k, st.Settings[k], v)
				}
			}
			h.req("GET", "/api/settings", nil, admin...).expect(http.StatusOK).decode(&st)
			for k, v := range want {
				if st.Settings[k] != v {
					t.Errorf("GET answered %s %q, want %q", k, st.Settings[k], v)
				}
			}

			for _, tc := range []struct {
				field, value, msg string
			}{
				{"shopName", strings.Repeat("é", 61), "shopName is 61 characters long; at most 60 are allowed"},
				{"shopName", "Warung\nBu Tini", "shopName must be one line"},
				{"shopTagline", strings.Repeat("x", 141), "shopTagline is 141 characters long; at most 140"},
				{"shopTagline", "kopi\u0000", "shopTagline must be one line"},
				{"openingHours", strings.Repeat("x", 301), "openingHours is 301 characters long"},
				{"openingHours", "Sen\t07.00", "openingHours must not hold control characters"},
				{"openingHours", strings.Repeat("a\n", 10) + "a", "openingHours has more than 10 lines"},
			} {
				body := map[string]any{}
				for k, v := range st.Settings {
					body[k] = v
				}
				body[tc.field] = tc.value
				r := h.req("PUT", "/api/settings", body, admin...).expectError(http.StatusBadRequest, "INVALID_SETTINGS")
				if msg, _ := r.m()["error"].(string); !strings.Contains(msg, tc.msg) {
					t.Errorf("%s %q: message %q, want %q", tc.field, tc.value, msg, tc.msg)
				}
			}
			var after struct {
				Success  bool           `json:"success"`
				Settings map[string]any `json:"settings"`
			}
			h.req("GET", "/api/settings", nil, admin...).expect(http.StatusOK).decode(&after)
			if after.Settings["shopName"] != want["shopName"] {
				t.Fatalf("a refused PUT changed the name: %q", after.Settings["shopName"])
			}
			// A customer may not change them.
			h.req("PUT", "/api/settings", st.Settings, bearer(jwts["CUSTOMER"])...).expectError(http.StatusForbidden, "FORBIDDEN")
		})
	}
}
