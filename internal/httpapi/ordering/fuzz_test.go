package ordering_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/webhook"
)

// checkEnvelope fails unless r is a JSON answer below 500: a success, or an
// error in the envelope with a code.
func checkEnvelope(t *testing.T, r *httpapitest.Response) {
	t.Helper()
	if r.Status >= 500 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	var body struct {
		Success *bool   `json:"success"`
		Code    *string `json:"code"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || body.Success == nil || !*body.Success && (body.Code == nil || *body.Code == "") {
		t.Fatalf("status %d, not the envelope: %s", r.Status, r.Body)
	}
}

// FuzzOrderingLogin: any body of POST /api/auth/login is answered in the
// envelope, never a 500; a messengerNumber with a letter or a digit other
// than 0-9 (which the phone-number library would read as another number:
// keypad letters, other scripts' digits) is refused INVALID_NUMBER, unless
// the body itself is refused first.
func FuzzOrderingLogin(f *testing.F) {
	for _, s := range []string{`{"messengerNumber":"081234567890","challengeToken":"eyJ9"}`, `{}`, `[]`, `{"messengerNumber":1}`,
		`{"messengerNumber":"+62 812","challengeToken":"` + "\x00" + `"}`, ``, `null`,
		`{"messengerNumber":"62812abc345","challengeToken":"eyJ9"}`,
		`{"messengerNumber":"0812-FOOD-BAR","challengeToken":"eyJ9"}`,
		`{"messengerNumber":"+1 (800) FLOWERS","challengeToken":"eyJ9"}`,
		`{"messengerNumber":"+62 812 3456 7890 ext 12","challengeToken":"eyJ9"}`,
		`{"messengerNumber":"tel:+62-812-3456-7890","challengeToken":"eyJ9"}`,
		`{"messengerNumber":"62812abc345@c.us","challengeToken":"eyJ9"}`,
		`{"messengerNumber":"\uff10\uff18\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19\uff10","challengeToken":"eyJ9"}`,
		`{"messengerNumber":"\u0660\u0668\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669\u0660","challengeToken":"eyJ9"}`,
		`{"messengerNumber":"\u0966\u096e\u0967\u0968\u0969\u096a\u096b\u096c\u096d\u096e\u096f\u0966","challengeToken":"eyJ9"}`,
		`{"messengerNumber":"0812-3456-789O","challengeToken":"eyJ9"}`} {
		f.Add([]byte(s))
	}
	h := httpapitest.OrderingHarness(f, httpapitest.OpenBoltNoSync, "", httpapitest.WithQuietLogs())
	f.Fuzz(func(t *testing.T, body []byte) {
		h.Use(t)
		r := h.Req("POST", "/api/auth/login", body, "Content-Type", "application/json")
		checkEnvelope(t, r)
		var req struct {
			MessengerNumber string `json:"messengerNumber"`
		}
		if json.Unmarshal(body, &req) != nil || !hasForeignCharacter(req.MessengerNumber) {
			return
		}
		var e struct{ Code string }
		json.Unmarshal(r.Body, &e)
		if e.Code != "INVALID_NUMBER" && e.Code != "INVALID_JSON" {
			t.Fatalf("messengerNumber %q: %d %s, want 400 INVALID_NUMBER", req.MessengerNumber, r.Status, r.Body)
		}
	})
}

// hasForeignCharacter reports whether the number part of a messenger number
// (before any "@" suffix) holds a letter or a digit other than 0-9.
func hasForeignCharacter(number string) bool {
	number, _, _ = strings.Cut(number, "@")
	return strings.IndexFunc(number, func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r) && (r < '0' || r > '9')
	}) >= 0
}

// FuzzOrderingOrder: any body of POST /api/orders by a customer is answered
// in the envelope; a created order is priced by the portal.
func FuzzOrderingOrder(f *testing.F) {
	for _, s := range []string{`{"shippingType":"PICKUP","items":[{"menuId":"x","quantity":1}]}`,
		`{"shippingType":"DELIVERY","shippingLat":1e308,"shippingLng":-1e308,"items":[{"menuId":"x","quantity":99999999999}]}`,
		`{"items":null}`, `{"shippingType":"PICKUP","items":[{"menuId":"","quantity":-1,"notes":"\u0000"}]}`} {
		f.Add([]byte(s))
	}
	h := httpapitest.OrderingHarness(f, httpapitest.OpenBoltNoSync, "", httpapitest.WithQuietLogs())
	jwt := h.OrderingLogin("081234567890", "6281234567890")
	f.Fuzz(func(t *testing.T, body []byte) {
		h.Use(t)
		checkEnvelope(t, h.Req("POST", "/api/orders", body, append(httpapitest.Bearer(jwt), "Content-Type", "application/json")...))
	})
}

// FuzzGatewayWebhook: a gateway call with any body, signed or not, is
// answered in the envelope; an unsigned one is always 401.
func FuzzGatewayWebhook(f *testing.F) {
	for _, s := range []string{`{"from":"6281234567890","message":"VERIFY_tok_AAAAAAAAAAAAAAAAAAAAAAAAAA"}`, `{"from":1}`, `{}`, `x`} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	h := httpapitest.OrderingHarness(f, httpapitest.OpenBoltNoSync, "", httpapitest.WithQuietLogs())
	n := 0
	f.Fuzz(func(t *testing.T, body []byte, signed bool) {
		h.Use(t)
		n++
		id := "fuzz_" + strconv.Itoa(n)
		hdr := []string{"Content-Type", "application/json", "webhook-id", id, "webhook-timestamp", strconv.FormatInt(time.Now().Unix(), 10)}
		if signed {
			sig, err := webhook.Sign(httpapitest.GatewaySecret, id, time.Now(), body)
			if err != nil {
				t.Fatal(err)
			}
			hdr = append(hdr, "webhook-signature", sig)
		}
		r := h.Req("POST", "/api/auth/gateway-webhook", body, hdr...)
		if !signed && r.Status != 401 {
			t.Fatalf("unsigned call: %d %s", r.Status, r.Body)
		}
		checkEnvelope(t, r)
	})
}
