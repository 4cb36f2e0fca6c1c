package ordering_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/webhook"
)

// TestOrderingLogin drives the messenger login through the router: the
// challenge, the login, polls, the signed gateway webhook (refusals first),
// the JWT handed out once, and its audience kept apart from the exam API's.
func TestOrderingLogin(t *testing.T) {
	for _, so := range httpapitest.StoreOpeners() {
		t.Run(so.Name, func(t *testing.T) {
			h := httpapitest.OrderingHarness(t, so.Open, "")
			tok := h.StartLogin("0812-3456-7890")

			var p map[string]any
			h.Req("GET", "/api/auth/poll-status?token="+tok, nil).Expect(200).Decode(&p)
			if p["status"] != "PENDING" || p["expiresIn"] != float64(90) || p["token"] != nil {
				t.Fatalf("pending poll: %v", p)
			}

			// Unsigned, mis-signed, stale: 401, nothing changes.
			body := `{"from":"6281234567890","message":"VERIFY_` + tok + `"}`
			h.Req("POST", "/api/auth/gateway-webhook", body).ExpectError(401, "INVALID_SIGNATURE")
			h.Gateway("msg_1", "6281234567890", "VERIFY_"+tok, "webhook-signature", "v1,AAAA").ExpectError(401, "INVALID_SIGNATURE")
			stale, _ := json.Marshal(map[string]string{"from": "6281234567890", "message": "VERIFY_" + tok})
			old := h.Clock.Now().Add(-6 * time.Minute)
			sig, _ := webhook.Sign(httpapitest.GatewaySecret, "msg_old", old, stale)
			h.Req("POST", "/api/auth/gateway-webhook", stale, "webhook-id", "msg_old",
				"webhook-timestamp", strconv.FormatInt(old.Unix(), 10), "webhook-signature", sig).ExpectError(401, "INVALID_SIGNATURE")
			h.Gateway("msg_2", "6289999999999", "VERIFY_"+tok).ExpectError(422, "NUMBER_MISMATCH")
			h.Req("GET", "/api/auth/poll-status?token="+tok, nil).Expect(200).Decode(&p)
			if p["status"] != "PENDING" {
				t.Fatalf("poll after refused webhooks: %v", p)
			}

			var g map[string]any
			h.Gateway("msg_3", "6281234567890", "VERIFY_"+tok).Expect(200).Decode(&g)
			if g["status"] != "VERIFIED" || g["success"] != true {
				t.Fatalf("webhook: %v", g)
			}
			h.Gateway("msg_3", "6281234567890", "VERIFY_"+tok).Expect(200).Decode(&g)
			if g["status"] != "ALREADY_PROCESSED" {
				t.Fatalf("replayed webhook: %v", g)
			}

			var v struct {
				Success bool   `json:"success"`
				Status  string `json:"status"`
				Token   string `json:"token"`
				User    struct {
					ID, Name, MessengerNumber, Role string
				} `json:"user"`
			}
			h.Req("GET", "/api/auth/poll-status?token="+tok, nil).Expect(200).Decode(&v)
			if v.Status != "VERIFIED" || v.Token == "" || v.User.Role != "CUSTOMER" || v.User.MessengerNumber != "6281234567890" {
				t.Fatalf("verified poll: %+v", v)
			}
			h.Req("GET", "/api/auth/poll-status?token="+tok, nil).ExpectError(409, "TOKEN_USED")
			h.Req("GET", "/api/auth/poll-status?token=tok_AAAAAAAAAAAAAAAAAAAAAAAAAA", nil).ExpectError(404, "TOKEN_NOT_FOUND")
			// No token is a malformed request, not an unknown token.
			h.Req("GET", "/api/auth/poll-status", nil).ExpectError(400, "INVALID_QUERY")
			h.Req("GET", "/api/auth/poll-status?token=", nil).ExpectError(400, "INVALID_QUERY")

			var me struct{ User map[string]any }
			h.Req("GET", "/api/auth/me", nil, httpapitest.Bearer(v.Token)...).Expect(200).Decode(&me)
			if me.User["id"] != v.User.ID {
				t.Fatalf("me: %v", me)
			}
			// Audiences: the exam operator's token is refused here, the
			// ordering JWT by the exam API; a customer is not an owner.
			h.Req("GET", "/api/auth/me", nil, httpapitest.Bearer(h.Operator())...).ExpectError(401, "UNAUTHORIZED")
			h.Req("GET", "/api/v1/auth/me", nil, httpapitest.Bearer(v.Token)...).Expect(401)
			h.Req("GET", "/api/auth/me", nil).ExpectError(401, "UNAUTHORIZED")
			h.Req("GET", "/api/bans", nil, httpapitest.Bearer(v.Token)...).ExpectError(403, "FORBIDDEN")
		})
	}
}

// TestOrderingLoginRefusals: bad bodies, numbers and challenges.
func TestOrderingLoginRefusals(t *testing.T) {
	h := httpapitest.OrderingHarness(t, httpapitest.OpenBolt, "")
	h.Req("POST", "/api/auth/login", `{"messengerNumber":"081234567890"`).ExpectError(400, "INVALID_JSON")
	h.Req("POST", "/api/auth/login", map[string]any{"messengerNumber": "081234567890", "challengeToken": "x", "extra": 1}).
		ExpectError(400, "INVALID_JSON")
	h.Req("POST", "/api/auth/login", map[string]string{"messengerNumber": "12", "challengeToken": h.SolvedChallenge()}).
		ExpectError(400, "INVALID_NUMBER")
	// The phone-number library reads letters as keypad digits and other
	// scripts' digits as ASCII ones: 62812abc345 would log 62812222345 in.
	for _, n := range []string{"62812abc345", "0812-FOOD-BAR", "+62 812 3456 7890 ext 12", "tel:+62-812-3456-7890",
		"\u0660\u0668\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669\u0660"} {
		h.Req("POST", "/api/auth/login", map[string]string{"messengerNumber": n, "challengeToken": h.SolvedChallenge()}).
			ExpectError(400, "INVALID_NUMBER")
	}
	h.Req("POST", "/api/auth/login", map[string]string{"messengerNumber": "081234567890"}).ExpectError(400, "CHALLENGE_REQUIRED")
	h.Req("POST", "/api/auth/login", map[string]string{"messengerNumber": "081234567890", "challengeToken": "bm9wZQ=="}).
		ExpectError(403, "CHALLENGE_FAILED")
	solved := h.SolvedChallenge()
	h.Req("POST", "/api/auth/login", map[string]string{"messengerNumber": "081234567890", "challengeToken": solved}).Expect(200)
	h.Req("POST", "/api/auth/login", map[string]string{"messengerNumber": "081234567890", "challengeToken": solved}).
		ExpectError(403, "CHALLENGE_FAILED")
	h.Req("POST", "/api/auth/gateway-webhook", strings.Repeat("x", 70<<10)).ExpectError(413, "BODY_TOO_LARGE")
}

// TestOrderingBans: the fourth unverified login of a number is 429 with
// Retry-After; the owner lists the bans and lifts one.
func TestOrderingBans(t *testing.T) {
	for _, so := range httpapitest.StoreOpeners() {
		t.Run(so.Name, func(t *testing.T) {
			h := httpapitest.OrderingHarness(t, so.Open, "628110000001")
			owner := h.OrderingLogin("08110000001", "628110000001")
			for range ordering.MaxUnverified {
				h.StartLogin("081234567890")
			}
			r := h.Req("POST", "/api/auth/login", map[string]string{"messengerNumber": "081234567890", "challengeToken": h.SolvedChallenge()}).
				ExpectError(429, "BAN_ACTIVE")
			if r.Header.Get("Retry-After") != "3600" {
				t.Fatalf("Retry-After %q, want 3600", r.Header.Get("Retry-After"))
			}
			var bans struct {
				Bans []struct {
					ID              string `json:"id"`
					Kind            string `json:"kind"`
					MessengerNumber string `json:"messengerNumber"`
					BanLevel        int    `json:"banLevel"`
				} `json:"bans"`
			}
			h.Req("GET", "/api/bans", nil, httpapitest.Bearer(owner)...).Expect(200).Decode(&bans)
			var id string
			for _, b := range bans.Bans {
				if b.MessengerNumber == "6281234567890" && b.BanLevel == 1 {
					id = b.ID
				}
			}
			if id == "" {
				t.Fatalf("bans: %+v, want the number at level 1", bans)
			}
			h.Req("POST", "/api/bans/"+id+"/lift", nil, httpapitest.Bearer(owner)...).Expect(200)
			h.Req("POST", "/api/bans/nope/lift", nil, httpapitest.Bearer(owner)...).ExpectError(404, "BAN_NOT_FOUND")
		})
	}
}

// TestOrderingRoleMatrix walks every route of the ordering API with every
// role and with no token: the spec's role matrix.
func TestOrderingRoleMatrix(t *testing.T) {
	h := httpapitest.OrderingHarness(t, httpapitest.OpenBolt, "628110000001")
	jwts := h.OrderingUsers()
	all := []string{"CUSTOMER", "STAFF", "ADMIN", "OWNER"}
	managers := []string{"ADMIN", "OWNER"}
	for _, rt := range []struct {
		method, path string
		body         any
		roles        []string
	}{
		{"GET", "/api/auth/me", nil, all},
		{"GET", "/api/menu", nil, all},
		{"POST", "/api/orders", map[string]any{"shippingType": "PICKUP", "items": []any{}}, all},
		{"GET", "/api/orders", nil, all},
		{"GET", "/api/orders/nope", nil, all},
		{"POST", "/api/orders/nope/status", map[string]any{"status": "PREPARING"}, all},
		{"POST", "/api/orders/nope/cancel", nil, all},
		{"POST", "/api/menu/categories", map[string]any{"name": "X"}, managers},
		{"PUT", "/api/menu/categories/nope", map[string]any{"name": "X"}, managers},
		{"DELETE", "/api/menu/categories/nope", nil, managers},
		{"POST", "/api/menu/items", map[string]any{"name": "X"}, managers},
		{"PUT", "/api/menu/items/nope", map[string]any{"name": "X"}, managers},
		{"DELETE", "/api/menu/items/nope", nil, managers},
		{"GET", "/api/kitchen/orders", nil, []string{"STAFF", "ADMIN", "OWNER"}},
		{"POST", "/api/pos/orders", map[string]any{"paymentMethod": "CASH", "items": []any{}}, []string{"STAFF", "ADMIN", "OWNER"}},
		{"GET", "/api/payments/nope/proof", nil, all},
		{"POST", "/api/payments/nope/verify", map[string]any{"approve": true}, all},
		{"POST", "/api/gateway/consent", map[string]any{"messengerNumber": "12"}, managers},
		{"GET", "/api/ledger?from=2026-11-01&to=2026-11-30", nil, []string{"OWNER"}},
		{"GET", "/api/settings", nil, managers},
		{"PUT", "/api/settings", map[string]any{"orderPrefix": "?"}, managers},
		{"GET", "/api/users", nil, []string{"OWNER"}},
		{"PUT", "/api/users/nope/role", map[string]any{"role": "STAFF"}, []string{"OWNER"}},
		{"GET", "/api/bans", nil, []string{"OWNER"}},
		{"POST", "/api/bans/nope/lift", nil, []string{"OWNER"}},
	} {
		h.Req(rt.method, rt.path, rt.body).ExpectError(401, "UNAUTHORIZED")
		for _, role := range all {
			r := h.Req(rt.method, rt.path, rt.body, httpapitest.Bearer(jwts[role])...)
			if slices.Contains(rt.roles, role) {
				if r.Status == 401 || r.Status == 403 {
					t.Errorf("%s %s as %s: %d %s, want allowed", rt.method, rt.path, role, r.Status, r.Body)
				}
			} else if r.Status != 403 {
				t.Errorf("%s %s as %s: %d %s, want 403", rt.method, rt.path, role, r.Status, r.Body)
			}
		}
	}
}

// TestOrderingOrdersHTTP: an admin makes the menu, a customer orders
// (prices from the catalogue), reads it, another customer cannot; the
// kitchen moves it.
func TestOrderingOrdersHTTP(t *testing.T) {
	for _, so := range httpapitest.StoreOpeners() {
		t.Run(so.Name, func(t *testing.T) {
			h := httpapitest.OrderingHarness(t, so.Open, "628110000001")
			jwts := h.OrderingUsers()
			var cat struct{ Category struct{ ID string } }
			h.Req("POST", "/api/menu/categories", map[string]any{"name": "Minuman"}, httpapitest.Bearer(jwts["ADMIN"])...).Expect(201).Decode(&cat)
			var item struct{ Item struct{ ID string } }
			h.Req("POST", "/api/menu/items", map[string]any{"categoryId": cat.Category.ID, "name": "Es teh", "price": 5000},
				httpapitest.Bearer(jwts["ADMIN"])...).Expect(201).Decode(&item)
			h.Req("POST", "/api/menu/items", map[string]any{"categoryId": "nope", "name": "X", "price": 1},
				httpapitest.Bearer(jwts["ADMIN"])...).ExpectError(404, "CATEGORY_NOT_FOUND")
			h.Req("POST", "/api/menu/items", map[string]any{"categoryId": cat.Category.ID, "name": "X", "price": -1},
				httpapitest.Bearer(jwts["ADMIN"])...).ExpectError(400, "INVALID_MENU_ITEM")

			var menu struct {
				Categories []struct {
					Name  string
					Items []struct {
						ID    string
						Price int64
					}
				}
			}
			h.Req("GET", "/api/menu", nil, httpapitest.Bearer(jwts["CUSTOMER"])...).Expect(200).Decode(&menu)
			if len(menu.Categories) != 1 || len(menu.Categories[0].Items) != 1 || menu.Categories[0].Items[0].Price != 5000 {
				t.Fatalf("menu: %+v", menu)
			}

			var created struct {
				Success bool
				Order   struct {
					ID, OrderNumber, Status, ProviderPaymentURL string
					TotalPrice, ShippingCost                    int64
				}
			}
			h.Req("POST", "/api/orders", map[string]any{"shippingType": "DELIVERY", "shippingAddress": "Jl. Asia Afrika 8",
				"shippingCity": "Bandung", "shippingPhone": "0812", "notes": "cepat",
				"items": []map[string]any{{"menuId": item.Item.ID, "quantity": 3, "notes": "less sugar"}}},
				httpapitest.Bearer(jwts["CUSTOMER"])...).Expect(201).Decode(&created)
			o := created.Order
			if !created.Success || o.Status != "PENDING_PAYMENT" || o.TotalPrice != 25000 || o.ShippingCost != 10000 ||
				!strings.HasPrefix(o.OrderNumber, "ORD-") || !strings.Contains(o.ProviderPaymentURL, "/sandbox/pay/inv_") {
				t.Fatalf("order: %+v", created)
			}
			h.Req("POST", "/api/orders", map[string]any{"shippingType": "PICKUP", "items": []map[string]any{{"menuId": item.Item.ID, "quantity": 0}}},
				httpapitest.Bearer(jwts["CUSTOMER"])...).ExpectError(400, "INVALID_ORDER")
			h.Req("POST", "/api/orders", map[string]any{"shippingType": "PICKUP", "items": []map[string]any{{"menuId": "nope", "quantity": 1}}},
				httpapitest.Bearer(jwts["CUSTOMER"])...).ExpectError(422, "UNKNOWN_MENU_ITEM")
			h.Req("POST", "/api/orders", map[string]any{"shippingType": "PICKUP", "items": []any{}},
				httpapitest.Bearer(jwts["CUSTOMER"])...).ExpectError(400, "EMPTY_ORDER")
			h.Req("POST", "/api/orders", map[string]any{"shippingType": "PICKUP", "totalPrice": 1, "items": []map[string]any{{"menuId": item.Item.ID, "quantity": 1}}},
				httpapitest.Bearer(jwts["CUSTOMER"])...).ExpectError(400, "INVALID_JSON")

			var list struct{ Orders []struct{ ID string } }
			h.Req("GET", "/api/orders", nil, httpapitest.Bearer(jwts["CUSTOMER"])...).Expect(200).Decode(&list)
			if len(list.Orders) != 1 || list.Orders[0].ID != o.ID {
				t.Fatalf("orders: %+v", list)
			}
			// Another customer (the staff member, before its role) cannot
			// read it; the staff can.
			h.Req("GET", "/api/orders/"+o.ID, nil, httpapitest.Bearer(jwts["CUSTOMER"])...).Expect(200)
			h.Req("GET", "/api/orders/"+o.ID, nil, httpapitest.Bearer(jwts["STAFF"])...).Expect(200)
			other := h.OrderingLogin("6281299999999", "6281299999999")
			h.Req("GET", "/api/orders/"+o.ID, nil, httpapitest.Bearer(other)...).ExpectError(404, "ORDER_NOT_FOUND")
			h.Req("POST", "/api/orders/"+o.ID+"/cancel", nil, httpapitest.Bearer(other)...).ExpectError(404, "ORDER_NOT_FOUND")

			h.Req("POST", "/api/orders/"+o.ID+"/status", map[string]any{"status": "PREPARING"}, httpapitest.Bearer(jwts["STAFF"])...).
				ExpectError(409, "INVALID_TRANSITION")
			h.Req("POST", "/api/orders/"+o.ID+"/cancel", nil, httpapitest.Bearer(jwts["CUSTOMER"])...).Expect(200)
			h.Req("POST", "/api/orders/"+o.ID+"/cancel", nil, httpapitest.Bearer(jwts["CUSTOMER"])...).ExpectError(409, "INVALID_TRANSITION")
		})
	}
}

// TestOrderingPaymentsHTTP: a receipt upload (content checked, size
// limited), its verification; the provider's webhook (signature, rotation,
// merchant, amount, repeats); the sandbox payment page.
func TestOrderingPaymentsHTTP(t *testing.T) {
	for _, so := range httpapitest.StoreOpeners() {
		t.Run(so.Name, func(t *testing.T) {
			h := httpapitest.OrderingHarness(t, so.Open, "628110000001")
			jwts := h.OrderingUsers()
			var cat struct{ Category struct{ ID string } }
			h.Req("POST", "/api/menu/categories", map[string]any{"name": "Kopi"}, httpapitest.Bearer(jwts["OWNER"])...).Expect(201).Decode(&cat)
			var item struct{ Item struct{ ID string } }
			h.Req("POST", "/api/menu/items", map[string]any{"categoryId": cat.Category.ID, "name": "Kopi susu", "price": 18000},
				httpapitest.Bearer(jwts["OWNER"])...).Expect(201).Decode(&item)
			place := func() (id, invoice string, total int64) {
				var out struct {
					Order struct {
						ID, InvoiceID string
						TotalPrice    int64
					}
				}
				h.Req("POST", "/api/orders", map[string]any{"shippingType": "PICKUP", "items": []map[string]any{{"menuId": item.Item.ID, "quantity": 2}}},
					httpapitest.Bearer(jwts["CUSTOMER"])...).Expect(201).Decode(&out)
				return out.Order.ID, out.Order.InvoiceID, out.Order.TotalPrice
			}

			// Receipts.
			id, _, _ := place()
			h.UploadProof(jwts["CUSTOMER"], id, []byte("<html>not an image</html>")).ExpectError(400, "INVALID_PROOF")
			h.UploadProof(jwts["CUSTOMER"], id, append(slices.Clone(httpapitest.TinyPNG), make([]byte, 6<<20)...)).Expect(413)
			h.UploadProof(jwts["STAFF"], id, httpapitest.TinyPNG).ExpectError(403, "FORBIDDEN")
			h.UploadProof(jwts["CUSTOMER"], id, httpapitest.TinyPNG).Expect(200)
			r := h.Req("GET", "/api/payments/"+id+"/proof", nil, httpapitest.Bearer(jwts["ADMIN"])...).Expect(200)
			if r.Header.Get("Content-Type") != "image/png" || !bytes.Equal(r.Body, httpapitest.TinyPNG) || r.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Fatalf("proof: %v %d bytes", r.Header, len(r.Body))
			}
			h.Req("GET", "/api/payments/"+id+"/proof", nil, httpapitest.Bearer(jwts["STAFF"])...).ExpectError(404, "ORDER_NOT_FOUND")
			h.Req("POST", "/api/payments/"+id+"/verify", map[string]any{"approve": true}, httpapitest.Bearer(jwts["STAFF"])...).ExpectError(403, "FORBIDDEN")
			var verified struct {
				Order struct{ Status, PaymentMethod string }
			}
			h.Req("POST", "/api/payments/"+id+"/verify", map[string]any{"approve": true}, httpapitest.Bearer(jwts["ADMIN"])...).Expect(200).Decode(&verified)
			if verified.Order.Status != "PAID" || verified.Order.PaymentMethod != "BANK_TRANSFER" {
				t.Fatalf("verified: %+v", verified)
			}

			// The provider's webhook.
			id, invoice, total := place()
			n := map[string]any{"invoiceId": invoice, "merchantId": "M-1", "amount": total, "status": "PAID", "paidAt": "2026-11-25T10:00:00Z"}
			body, _ := json.Marshal(n)
			h.Req("POST", "/api/payments/provider-webhook", body).ExpectError(401, "INVALID_SIGNATURE")
			h.ProviderCall("forged", n).ExpectError(401, "INVALID_SIGNATURE")
			short := maps.Clone(n)
			short["amount"] = total - 1
			h.ProviderCall(httpapitest.ProviderSecret, short).ExpectError(422, "AMOUNT_MISMATCH")
			other := maps.Clone(n)
			other["merchantId"] = "M-2"
			h.ProviderCall(httpapitest.ProviderSecret, other).ExpectError(422, "MERCHANT_MISMATCH")
			var res struct{ Result string }
			h.ProviderCall(httpapitest.ProviderOldSecret, n).Expect(200).Decode(&res) // the previous secret, during a rotation
			if res.Result != "APPLIED" {
				t.Fatalf("PAID: %+v", res)
			}
			h.ProviderCall(httpapitest.ProviderSecret, n).Expect(200).Decode(&res)
			if res.Result != "DUPLICATE" {
				t.Fatalf("PAID again: %+v", res)
			}
			var got struct {
				Order struct {
					Status   string
					Payments []struct {
						Accepted bool
						Reason   string
					}
				}
			}
			h.Req("GET", "/api/orders/"+id, nil, httpapitest.Bearer(jwts["CUSTOMER"])...).Expect(200).Decode(&got)
			if got.Order.Status != "PAID" || len(got.Order.Payments) != 3 || got.Order.Payments[0].Accepted {
				t.Fatalf("paid order: %+v", got)
			}

			// The sandbox page, from this machine.
			_, invoice, _ = place()
			pg := h.Req("GET", "/sandbox/pay/"+invoice, nil).Expect(200)
			if !strings.Contains(string(pg.Body), "Payment sandbox") || !strings.Contains(string(pg.Body), "36000") {
				t.Fatalf("sandbox page: %s", pg.Body)
			}
			h.Req("POST", "/sandbox/pay/"+invoice, "status=PAID", "Content-Type", "application/x-www-form-urlencoded",
				"Accept", "application/json").Expect(200).Decode(&res)
			if res.Result != "APPLIED" {
				t.Fatalf("sandbox pay: %+v", res)
			}
			h.Req("POST", "/sandbox/pay/"+invoice, "status=PAID", "Content-Type", "application/x-www-form-urlencoded",
				"Sec-Fetch-Site", "cross-site").Expect(403)
		})
	}
}

// TestOrderingKitchenHTTP: the counter's walk-in order reaches the kitchen
// display, whose event stream sends the list at once and again when the
// kitchen moves the order; the owner's ledger counts it.
func TestOrderingKitchenHTTP(t *testing.T) {
	h := httpapitest.OrderingHarness(t, httpapitest.OpenBolt, "628110000001")
	jwts := h.OrderingUsers()
	var cat struct{ Category struct{ ID string } }
	h.Req("POST", "/api/menu/categories", map[string]any{"name": "Kopi"}, httpapitest.Bearer(jwts["OWNER"])...).Expect(201).Decode(&cat)
	var item struct{ Item struct{ ID string } }
	h.Req("POST", "/api/menu/items", map[string]any{"categoryId": cat.Category.ID, "name": "Kopi tubruk", "price": 8000},
		httpapitest.Bearer(jwts["OWNER"])...).Expect(201).Decode(&item)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", h.Server.URL+"/api/kitchen/events", nil)
	req.Header.Set("Authorization", "Bearer "+jwts["STAFF"])
	resp, err := h.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := bufio.NewReader(resp.Body)
	next := func() []struct{ ID, Status string } {
		t.Helper()
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatalf("read events: %v", err)
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var list []struct{ ID, Status string }
				if err := json.Unmarshal([]byte(data), &list); err != nil {
					t.Fatalf("event data %q: %v", data, err)
				}
				return list
			}
		}
	}
	if list := next(); len(list) != 0 {
		t.Fatalf("first event: %+v, want an empty kitchen", list)
	}
	var pos struct {
		Order struct {
			ID, Status, PaymentMethod string
			TotalPrice                int64
		}
	}
	h.Req("POST", "/api/pos/orders", map[string]any{"paymentMethod": "QRIS", "customerName": "Meja 4",
		"items": []map[string]any{{"menuId": item.Item.ID, "quantity": 2}}}, httpapitest.Bearer(jwts["STAFF"])...).Expect(201).Decode(&pos)
	if pos.Order.Status != "PAID" || pos.Order.PaymentMethod != "QRIS" || pos.Order.TotalPrice != 16000 {
		t.Fatalf("counter order: %+v", pos)
	}
	if list := next(); len(list) != 1 || list[0].ID != pos.Order.ID || list[0].Status != "PAID" {
		t.Fatalf("after the counter order: %+v", list)
	}
	h.Req("POST", "/api/orders/"+pos.Order.ID+"/status", map[string]any{"status": "PREPARING"}, httpapitest.Bearer(jwts["STAFF"])...).Expect(200)
	if list := next(); len(list) != 1 || list[0].Status != "PREPARING" {
		t.Fatalf("after PREPARING: %+v", list)
	}
	cancel()

	today := h.Clock.Now().In(time.FixedZone("WIB", 7*3600)).Format(time.DateOnly)
	var l struct {
		Total          int64
		OrderCount     int
		TotalsByMethod map[string]int64
	}
	h.Req("GET", "/api/ledger?from="+today+"&to="+today, nil, httpapitest.Bearer(jwts["OWNER"])...).Expect(200).Decode(&l)
	if l.Total != 16000 || l.OrderCount != 1 || l.TotalsByMethod["QRIS"] != 16000 {
		t.Fatalf("ledger: %+v", l)
	}
	csv := h.Req("GET", "/api/ledger?format=csv&from="+today+"&to="+today, nil, httpapitest.Bearer(jwts["OWNER"])...).Expect(200)
	if !strings.HasPrefix(string(csv.Body), "day,paid_at,order_number") || strings.Count(string(csv.Body), "\n") != 2 {
		t.Fatalf("ledger CSV:\n%s", csv.Body)
	}
	h.Req("GET", "/api/ledger?from=nope&to="+today, nil, httpapitest.Bearer(jwts["OWNER"])...).ExpectError(400, "INVALID_PERIOD")
	var c struct {
		Consent struct{ MessengerNumber, Source string }
	}
	h.Req("POST", "/api/gateway/consent", map[string]any{"messengerNumber": "0812-5555-0000"}, httpapitest.Bearer(jwts["ADMIN"])...).Expect(200).Decode(&c)
	if c.Consent.MessengerNumber != "6281255550000" || c.Consent.Source != "registered" {
		t.Fatalf("consent: %+v", c)
	}
}

// TestOrderingJWTRefusedByLinkAPI: an ordering JWT is not a link key.
func TestOrderingJWTRefusedByLinkAPI(t *testing.T) {
	clk := testkit.NewClock(time.Time{})
	var linkSvc *links.Service
	h := httpapitest.New(t, httpapitest.OpenBolt, httpapitest.WithOrdering(clk, "", t.TempDir()), httpapitest.WithLinks(clk, &linkSvc))
	clk.Set(h.Clock.Now())
	h.Clock = clk
	jwt := h.OrderingLogin("081234567890", "6281234567890")
	r := h.Req("GET", "/api/urls", nil, httpapitest.Bearer(jwt)...)
	if r.Status != 401 {
		t.Fatalf("GET /api/urls with an ordering JWT: %d %s, want 401", r.Status, r.Body)
	}
}
