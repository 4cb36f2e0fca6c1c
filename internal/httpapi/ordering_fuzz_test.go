package httpapi_test

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/webhook"
)

// checkEnvelope fails unless r is a JSON answer below 500: a success, or an
// error in the envelope with a code.
func checkEnvelope(t *testing.T, r *response) {
	t.Helper()
	if r.status >= 500 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var body struct {
		Success *bool   `json:"success"`
		Code    *string `json:"code"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil || body.Success == nil || !*body.Success && (body.Code == nil || *body.Code == "") {
		t.Fatalf("status %d, not the envelope: %s", r.status, r.body)
	}
}

// FuzzOrderingLogin: any body of POST /api/auth/login is answered in the
// envelope, never a 500.
func FuzzOrderingLogin(f *testing.F) {
	for _, s := range []string{`{"messengerNumber":"081234567890","challengeToken":"eyJ9"}`, `{}`, `[]`, `{"messengerNumber":1}`,
		`{"messengerNumber":"+62 812","challengeToken":"` + "\x00" + `"}`, ``, `null`} {
		f.Add([]byte(s))
	}
	h := orderingHarness(f, openBoltNoSync, "", withQuietLogs())
	f.Fuzz(func(t *testing.T, body []byte) {
		h.use(t)
		checkEnvelope(t, h.req("POST", "/api/auth/login", body, "Content-Type", "application/json"))
	})
}

// FuzzOrderingOrder: any body of POST /api/orders by a customer is answered
// in the envelope; a created order is priced by the portal.
func FuzzOrderingOrder(f *testing.F) {
	for _, s := range []string{`{"shippingType":"PICKUP","items":[{"menuId":"x","quantity":1}]}`,
		`{"shippingType":"DELIVERY","shippingLat":1e308,"shippingLng":-1e308,"items":[{"menuId":"x","quantity":99999999999}]}`,
		`{"items":null}`, `{"shippingType":"PICKUP","items":[{"menuId":"","quantity":-1,"notes":"\u0000"}]}`} {
		f.Add([]byte(s))
	}
	h := orderingHarness(f, openBoltNoSync, "", withQuietLogs())
	jwt := h.orderingLogin("081234567890", "6281234567890")
	f.Fuzz(func(t *testing.T, body []byte) {
		h.use(t)
		checkEnvelope(t, h.req("POST", "/api/orders", body, append(bearer(jwt), "Content-Type", "application/json")...))
	})
}

// FuzzGatewayWebhook: a gateway call with any body, signed or not, is
// answered in the envelope; an unsigned one is always 401.
func FuzzGatewayWebhook(f *testing.F) {
	for _, s := range []string{`{"from":"6281234567890","message":"VERIFY_tok_AAAAAAAAAAAAAAAAAAAAAAAAAA"}`, `{"from":1}`, `{}`, `x`} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	h := orderingHarness(f, openBoltNoSync, "", withQuietLogs())
	n := 0
	f.Fuzz(func(t *testing.T, body []byte, signed bool) {
		h.use(t)
		n++
		id := "fuzz_" + strconv.Itoa(n)
		hdr := []string{"Content-Type", "application/json", "webhook-id", id, "webhook-timestamp", strconv.FormatInt(time.Now().Unix(), 10)}
		if signed {
			sig, err := webhook.Sign(gatewaySecret, id, time.Now(), body)
			if err != nil {
				t.Fatal(err)
			}
			hdr = append(hdr, "webhook-signature", sig)
		}
		r := h.req("POST", "/api/auth/gateway-webhook", body, hdr...)
		if !signed && r.status != 401 {
			t.Fatalf("unsigned call: %d %s", r.status, r.body)
		}
		checkEnvelope(t, r)
	})
}
