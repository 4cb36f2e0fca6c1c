package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/seedhq/portal/pkg/client"
)

// TestOrderingSettingsShopTexts: Set sends the shop's name, tagline and
// opening hours with the other settings, Get reads them back, and a
// refusal is an *Error with the API's code and status.
func TestOrderingSettingsShopTexts(t *testing.T) {
	f := newFakePortal(t)
	st := client.ShopSettings{OrderPrefix: "ORD", TimeZone: "Asia/Jakarta", DeliveryBaseFee: 10000, PaymentExpiryMinutes: 60,
		ShopName: "Warung Bu Tini", ShopTagline: "Nasi & kopi", OpeningHours: "Sen–Jum 07.00–21.00\nSab 08.00–14.00"}
	f.json("GET /api/settings", 200, map[string]any{"success": true, "settings": st})
	f.handle("PUT /api/settings", func(w http.ResponseWriter, r *http.Request) {
		var got client.ShopSettings
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil || len(got.ShopName) > 60 {
			writeJSON(w, 400, map[string]any{"success": false, "error": "shopName is 61 characters long; at most 60 are allowed",
				"code": "INVALID_SETTINGS"})
			return
		}
		writeJSON(w, 200, map[string]any{"success": true, "settings": got})
	})
	c := f.client(client.WithOrderingToken("jwt"))
	ctx := context.Background()
	got, _, err := c.Ordering.Settings.Get(ctx)
	if err != nil || *got != st {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	saved, _, err := c.Ordering.Settings.Set(ctx, got)
	if err != nil || *saved != st {
		t.Fatalf("Set = %+v, %v", saved, err)
	}
	var sent map[string]any
	if err := json.Unmarshal(f.last().Body, &sent); err != nil || sent["shopName"] != "Warung Bu Tini" ||
		sent["shopTagline"] != "Nasi & kopi" || sent["openingHours"] != st.OpeningHours {
		t.Fatalf("the request body %s (%v)", f.last().Body, err)
	}
	got.ShopName = strings.Repeat("x", 61)
	_, _, err = c.Ordering.Settings.Set(ctx, got)
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != 400 || ce.Code != "INVALID_SETTINGS" || !strings.Contains(ce.Message, "shopName") {
		t.Fatalf("a refused name: %v", err)
	}
}
