package ordering_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

// TestOrderingSettingsShopTexts: PUT /api/settings takes the shop's name,
// tagline and opening hours (trimmed, markup kept as text), GET returns
// them, and too long or multi-line names, too long taglines, hours with
// control characters and a NUL are refused with 400 INVALID_SETTINGS
// naming the field, nothing stored. Every exchange is checked against the
// OpenAPI description. On both stores.
func TestOrderingSettingsShopTexts(t *testing.T) {
	for _, so := range httpapitest.StoreOpeners() {
		t.Run(so.Name, func(t *testing.T) {
			h := httpapitest.OrderingHarness(t, so.Open, "628110000001")
			jwts := h.OrderingUsers()
			admin := httpapitest.Bearer(jwts["ADMIN"])
			var st struct {
				Success  bool           `json:"success"`
				Settings map[string]any `json:"settings"`
			}
			h.Req("GET", "/api/settings", nil, admin...).Expect(http.StatusOK).Decode(&st)
			if st.Settings["shopName"] != "" || st.Settings["shopTagline"] != "" || st.Settings["openingHours"] != "" {
				t.Fatalf("default settings: %v", st.Settings)
			}
			st.Settings["shopName"] = `  "><img src=x onerror=alert(1)> Warung  `
			st.Settings["shopTagline"] = "Kopi ☕ & nasi"
			st.Settings["openingHours"] = "Sen–Jum 07.00–21.00\r\nSab 08.00–14.00"
			h.Req("PUT", "/api/settings", st.Settings, admin...).Expect(http.StatusOK).Decode(&st)
			want := map[string]string{"shopName": `"><img src=x onerror=alert(1)> Warung`, "shopTagline": "Kopi ☕ & nasi",
				"openingHours": "Sen–Jum 07.00–21.00\nSab 08.00–14.00"}
			for k, v := range want {
				if st.Settings[k] != v {
					t.Errorf("PUT answered %s %q, want %q", k, st.Settings[k], v)
				}
			}
			h.Req("GET", "/api/settings", nil, admin...).Expect(http.StatusOK).Decode(&st)
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
				r := h.Req("PUT", "/api/settings", body, admin...).ExpectError(http.StatusBadRequest, "INVALID_SETTINGS")
				if msg, _ := r.M()["error"].(string); !strings.Contains(msg, tc.msg) {
					t.Errorf("%s %q: message %q, want %q", tc.field, tc.value, msg, tc.msg)
				}
			}
			var after struct {
				Success  bool           `json:"success"`
				Settings map[string]any `json:"settings"`
			}
			h.Req("GET", "/api/settings", nil, admin...).Expect(http.StatusOK).Decode(&after)
			if after.Settings["shopName"] != want["shopName"] {
				t.Fatalf("a refused PUT changed the name: %q", after.Settings["shopName"])
			}
			// A customer may not change them.
			h.Req("PUT", "/api/settings", st.Settings, httpapitest.Bearer(jwts["CUSTOMER"])...).ExpectError(http.StatusForbidden, "FORBIDDEN")
		})
	}
}
