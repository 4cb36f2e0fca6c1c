package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/exam"
	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/challenge"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/webhook"
)

// providerSecret and providerOldSecret sign the test provider's webhooks
// (a rotation in progress).
const (
	providerSecret    = "provider-secret-new"
	providerOldSecret = "provider-secret-old"
)

// gatewaySecret signs the test gateway's webhooks.
const gatewaySecret = "whsec_dGVzdC1nYXRld2F5LXNlY3JldC0zMi1ieXRlcyEh"

// withOrdering serves the ordering API over the harness's store, with the
// built-in proof-of-work challenge and the harness clock; ownerNumber's
// first login makes the owner; receipts go to proofDir.
func withOrdering(clk *testkit.Clock, ownerNumber, proofDir string) harnessOption {
	return func(c *harnessConfig) {
		prev := c.wrapStore
		c.wrapStore = func(st exam.Store) exam.Store {
			if prev != nil {
				st = prev(st)
			}
			ost := st.(ordering.Store)
			key := []byte("ordering-test-key-of-32-bytes!!!")
			pow, err := challenge.NewPoW(key, challenge.WithMaxNumber(1000), challenge.WithClock(clk.Now), challenge.WithSpentStore(ost))
			if err != nil {
				panic(err)
			}
			svc, err := ordering.NewService(ost, ordering.Config{JWTKey: key, MessengerLinkBase: "https://wa.me/6281100000000",
				OwnerNumber: ownerNumber, Challenge: pow, Payments: ordering.SandboxPayments{BaseURL: "http://portal.test"},
				Blobs: st.(interface{ Blobs() blobstore.Store }).Blobs(), ProofDir: proofDir,
				MerchantID: "M-1", Now: clk.Now}, nil)
			if err != nil {
				panic(err)
			}
			gw, err := webhook.NewVerifier([]string{gatewaySecret})
			if err != nil {
				panic(err)
			}
			c.opts.Ordering = &ordhttp.Options{Service: svc, PoW: pow, Gateway: gw, Now: clk.Now,
				ProviderSecrets: []string{providerSecret, providerOldSecret},
				Sandbox:         &ordhttp.Sandbox{ProviderSecret: providerSecret, MerchantID: "M-1"}}
			return st
		}
	}
}

// orderingHarness returns a harness serving the ordering API, with the
// options given.
func orderingHarness(t testing.TB, open func(testing.TB) exam.Store, owner string, options ...harnessOption) *harness {
	t.Helper()
	clk := testkit.NewClock(time.Time{})
	h := newHarness(t, open, append(options, withOrdering(clk, owner, t.TempDir()))...)
	clk.Set(h.clock.Now())
	h.clock = clk
	return h
}

// solvedChallenge fetches and solves a challenge.
func (h *harness) solvedChallenge() string {
	h.t.Helper()
	var c challenge.Challenge
	h.req("GET", "/api/auth/challenge", nil).expect(200).decode(&c)
	tok, err := challenge.Solve(c)
	if err != nil {
		h.t.Fatalf("solve: %v", err)
	}
	return tok
}

// startLogin logs number in from the harness's client and returns the token.
func (h *harness) startLogin(number string) string {
	h.t.Helper()
	var ls struct {
		Success   bool   `json:"success"`
		Token     string `json:"token"`
		MagicLink string `json:"magicLink"`
		ExpiresIn int    `json:"expiresIn"`
	}
	h.req("POST", "/api/auth/login", map[string]string{"messengerNumber": number, "challengeToken": h.solvedChallenge()}).
		expect(200).decode(&ls)
	if !ls.Success || ls.ExpiresIn != 90 || !strings.HasPrefix(ls.Token, "tok_") {
		h.t.Fatalf("login: %+v", ls)
	}
	u, err := url.Parse(ls.MagicLink)
	if err != nil || u.Query().Get("text") != "VERIFY_"+ls.Token {
		h.t.Fatalf("magic link %q", ls.MagicLink)
	}
	return ls.Token
}

// gateway delivers a signed inbound message.
func (h *harness) gateway(id, from, text string, hdr ...string) *response {
	h.t.Helper()
	body, _ := json.Marshal(map[string]string{"from": from, "message": text})
	sig, err := webhook.Sign(gatewaySecret, id, h.clock.Now(), body)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.req("POST", "/api/auth/gateway-webhook", body, append([]string{"Content-Type", "application/json",
		"webhook-id", id, "webhook-timestamp", strconv.FormatInt(h.clock.Now().Unix(), 10), "webhook-signature", sig}, hdr...)...)
}

// orderingLogin completes a login of number and returns the JWT.
func (h *harness) orderingLogin(number, from string) string {
	h.t.Helper()
	tok := h.startLogin(number)
	h.gateway("msg_"+tok, from, "VERIFY_"+tok).expect(200)
	var p struct {
		Status string `json:"status"`
		Token  string `json:"token"`
	}
	h.req("GET", "/api/auth/poll-status?token="+tok, nil).expect(200).decode(&p)
	if p.Status != "VERIFIED" || p.Token == "" {
		h.t.Fatalf("poll: %+v", p)
	}
	return p.Token
}

// TestOrderingLogin drives the messenger login through the router: the
// challenge, the login, polls, the signed gateway webhook (refusals first),
// the JWT handed out once, and its audience kept apart from the exam API's.
func TestOrderingLogin(t *testing.T) {
	for _, so := range storeOpeners() {
		t.Run(so.name, func(t *testing.T) {
			h := orderingHarness(t, so.open, "")
			tok := h.startLogin("0812-3456-7890")

			var p map[string]any
			h.req("GET", "/api/auth/poll-status?token="+tok, nil).expect(200).decode(&p)
			if p["status"] != "PENDING" || p["expiresIn"] != float64(90) || p["token"] != nil {
				t.Fatalf("pending poll: %v", p)
			}

			// Unsigned, mis-signed, stale: 401, nothing changes.
			body := `{"from":"6281234567890","message":"VERIFY_` + tok + `"}`
			h.req("POST", "/api/auth/gateway-webhook", body).expectError(401, "INVALID_SIGNATURE")
			h.gateway("msg_1", "6281234567890", "VERIFY_"+tok, "webhook-signature", "v1,AAAA").expectError(401, "INVALID_SIGNATURE")
			stale, _ := json.Marshal(map[string]string{"from": "6281234567890", "message": "VERIFY_" + tok})
			old := h.clock.Now().Add(-6 * time.Minute)
			sig, _ := webhook.Sign(gatewaySecret, "msg_old", old, stale)
			h.req("POST", "/api/auth/gateway-webhook", stale, "webhook-id", "msg_old",
				"webhook-timestamp", strconv.FormatInt(old.Unix(), 10), "webhook-signature", sig).expectError(401, "INVALID_SIGNATURE")
			h.gateway("msg_2", "6289999999999", "VERIFY_"+tok).expectError(422, "NUMBER_MISMATCH")
			h.req("GET", "/api/auth/poll-status?token="+tok, nil).expect(200).decode(&p)
			if p["status"] != "PENDING" {
				t.Fatalf("poll after refused webhooks: %v", p)
			}

			var g map[string]any
			h.gateway("msg_3", "6281234567890", "VERIFY_"+tok).expect(200).decode(&g)
			if g["status"] != "VERIFIED" || g["success"] != true {
				t.Fatalf("webhook: %v", g)
			}
			h.gateway("msg_3", "6281234567890", "VERIFY_"+tok).expect(200).decode(&g)
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
			h.req("GET", "/api/auth/poll-status?token="+tok, nil).expect(200).decode(&v)
			if v.Status != "VERIFIED" || v.Token == "" || v.User.Role != "CUSTOMER" || v.User.MessengerNumber != "6281234567890" {
				t.Fatalf("verified poll: %+v", v)
			}
			h.req("GET", "/api/auth/poll-status?token="+tok, nil).expectError(409, "TOKEN_USED")
			h.req("GET", "/api/auth/poll-status?token=tok_AAAAAAAAAAAAAAAAAAAAAAAAAA", nil).expectError(404, "TOKEN_NOT_FOUND")
			// No token is a malformed request, not an unknown token.
			h.req("GET", "/api/auth/poll-status", nil).expectError(400, "INVALID_QUERY")
			h.req("GET", "/api/auth/poll-status?token=", nil).expectError(400, "INVALID_QUERY")

			var me struct{ User map[string]any }
			h.req("GET", "/api/auth/me", nil, bearer(v.Token)...).expect(200).decode(&me)
			if me.User["id"] != v.User.ID {
				t.Fatalf("me: %v", me)
			}
			// Audiences: the exam operator's token is refused here, the
			// ordering JWT by the exam API; a customer is not an owner.
			h.req("GET", "/api/auth/me", nil, bearer(h.operator())...).expectError(401, "UNAUTHORIZED")
			h.req("GET", "/api/v1/auth/me", nil, bearer(v.Token)...).expect(401)
			h.req("GET", "/api/auth/me", nil).expectError(401, "UNAUTHORIZED")
			h.req("GET", "/api/bans", nil, bearer(v.Token)...).expectError(403, "FORBIDDEN")
		})
	}
}

// TestOrderingLoginRefusals: bad bodies, numbers and challenges.
func TestOrderingLoginRefusals(t *testing.T) {
	h := orderingHarness(t, openBolt, "")
	h.req("POST", "/api/auth/login", `{"messengerNumber":"081234567890"`).expectError(400, "INVALID_JSON")
	h.req("POST", "/api/auth/login", map[string]any{"messengerNumber": "081234567890", "challengeToken": "x", "extra": 1}).
		expectError(400, "INVALID_JSON")
	h.req("POST", "/api/auth/login", map[string]string{"messengerNumber": "12", "challengeToken": h.solvedChallenge()}).
		expectError(400, "INVALID_NUMBER")
	// The phone-number library reads letters as keypad digits and other
	// scripts' digits as ASCII ones: 62812abc345 would log 62812222345 in.
	for _, n := range []string{"62812abc345", "0812-FOOD-BAR", "+62 812 3456 7890 ext 12", "tel:+62-812-3456-7890",
		"\u0660\u0668\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669\u0660"} {
		h.req("POST", "/api/auth/login", map[string]string{"messengerNumber": n, "challengeToken": h.solvedChallenge()}).
			expectError(400, "INVALID_NUMBER")
	}
	h.req("POST", "/api/auth/login", map[string]string{"messengerNumber": "081234567890"}).expectError(400, "CHALLENGE_REQUIRED")
	h.req("POST", "/api/auth/login", map[string]string{"messengerNumber": "081234567890", "challengeToken": "bm9wZQ=="}).
		expectError(403, "CHALLENGE_FAILED")
	solved := h.solvedChallenge()
	h.req("POST", "/api/auth/login", map[string]string{"messengerNumber": "081234567890", "challengeToken": solved}).expect(200)
	h.req("POST", "/api/auth/login", map[string]string{"messengerNumber": "081234567890", "challengeToken": solved}).
		expectError(403, "CHALLENGE_FAILED")
	h.req("POST", "/api/auth/gateway-webhook", strings.Repeat("x", 70<<10)).expectError(413, "BODY_TOO_LARGE")
}

// TestOrderingBans: the fourth unverified login of a number is 429 with
// Retry-After; the owner lists the bans and lifts one.
func TestOrderingBans(t *testing.T) {
	for _, so := range storeOpeners() {
		t.Run(so.name, func(t *testing.T) {
			h := orderingHarness(t, so.open, "628110000001")
			owner := h.orderingLogin("08110000001", "628110000001")
			for range ordering.MaxUnverified {
				h.startLogin("081234567890")
			}
			r := h.req("POST", "/api/auth/login", map[string]string{"messengerNumber": "081234567890", "challengeToken": h.solvedChallenge()}).
				expectError(429, "BAN_ACTIVE")
			if r.header.Get("Retry-After") != "3600" {
				t.Fatalf("Retry-After %q, want 3600", r.header.Get("Retry-After"))
			}
			var bans struct {
				Bans []struct {
					ID              string `json:"id"`
					Kind            string `json:"kind"`
					MessengerNumber string `json:"messengerNumber"`
					BanLevel        int    `json:"banLevel"`
				} `json:"bans"`
			}
			h.req("GET", "/api/bans", nil, bearer(owner)...).expect(200).decode(&bans)
			var id string
			for _, b := range bans.Bans {
				if b.MessengerNumber == "6281234567890" && b.BanLevel == 1 {
					id = b.ID
				}
			}
			if id == "" {
				t.Fatalf("bans: %+v, want the number at level 1", bans)
			}
			h.req("POST", "/api/bans/"+id+"/lift", nil, bearer(owner)...).expect(200)
			h.req("POST", "/api/bans/nope/lift", nil, bearer(owner)...).expectError(404, "BAN_NOT_FOUND")
		})
	}
}

// orderingUsers logs in a user of every role (the owner by the configured
// number, the others given their role by the owner) and returns their JWTs.
func (h *harness) orderingUsers() map[string]string {
	h.t.Helper()
	jwts := map[string]string{"OWNER": h.orderingLogin("08110000001", "628110000001")}
	for i, role := range []string{"CUSTOMER", "STAFF", "ADMIN"} {
		number := "62812345678" + strconv.Itoa(90+i)
		jwts[role] = h.orderingLogin(number, number)
		if role == "CUSTOMER" {
			continue
		}
		var me struct{ User struct{ ID string } }
		h.req("GET", "/api/auth/me", nil, bearer(jwts[role])...).expect(200).decode(&me)
		h.req("PUT", "/api/users/"+me.User.ID+"/role", map[string]any{"role": role}, bearer(jwts["OWNER"])...).expect(200)
	}
	return jwts
}

// TestOrderingRoleMatrix walks every route of the ordering API with every
// role and with no token: the spec's role matrix.
func TestOrderingRoleMatrix(t *testing.T) {
	h := orderingHarness(t, openBolt, "628110000001")
	jwts := h.orderingUsers()
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
		h.req(rt.method, rt.path, rt.body).expectError(401, "UNAUTHORIZED")
		for _, role := range all {
			r := h.req(rt.method, rt.path, rt.body, bearer(jwts[role])...)
			if slices.Contains(rt.roles, role) {
				if r.status == 401 || r.status == 403 {
					t.Errorf("%s %s as %s: %d %s, want allowed", rt.method, rt.path, role, r.status, r.body)
				}
			} else if r.status != 403 {
				t.Errorf("%s %s as %s: %d %s, want 403", rt.method, rt.path, role, r.status, r.body)
			}
		}
	}
}

// TestOrderingOrdersHTTP: an admin makes the menu, a customer orders
// (prices from the catalogue), reads it, another customer cannot; the
// kitchen moves it.
func TestOrderingOrdersHTTP(t *testing.T) {
	for _, so := range storeOpeners() {
		t.Run(so.name, func(t *testing.T) {
			h := orderingHarness(t, so.open, "628110000001")
			jwts := h.orderingUsers()
			var cat struct{ Category struct{ ID string } }
			h.req("POST", "/api/menu/categories", map[string]any{"name": "Minuman"}, bearer(jwts["ADMIN"])...).expect(201).decode(&cat)
			var item struct{ Item struct{ ID string } }
			h.req("POST", "/api/menu/items", map[string]any{"categoryId": cat.Category.ID, "name": "Es teh", "price": 5000},
				bearer(jwts["ADMIN"])...).expect(201).decode(&item)
			h.req("POST", "/api/menu/items", map[string]any{"categoryId": "nope", "name": "X", "price": 1},
				bearer(jwts["ADMIN"])...).expectError(404, "CATEGORY_NOT_FOUND")
			h.req("POST", "/api/menu/items", map[string]any{"categoryId": cat.Category.ID, "name": "X", "price": -1},
				bearer(jwts["ADMIN"])...).expectError(400, "INVALID_MENU_ITEM")

			var menu struct {
				Categories []struct {
					Name  string
					Items []struct {
						ID    string
						Price int64
					}
				}
			}
			h.req("GET", "/api/menu", nil, bearer(jwts["CUSTOMER"])...).expect(200).decode(&menu)
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
			h.req("POST", "/api/orders", map[string]any{"shippingType": "DELIVERY", "shippingAddress": "Jl. Asia Afrika 8",
				"shippingCity": "Bandung", "shippingPhone": "0812", "notes": "cepat",
				"items": []map[string]any{{"menuId": item.Item.ID, "quantity": 3, "notes": "less sugar"}}},
				bearer(jwts["CUSTOMER"])...).expect(201).decode(&created)
			o := created.Order
			if !created.Success || o.Status != "PENDING_PAYMENT" || o.TotalPrice != 25000 || o.ShippingCost != 10000 ||
				!strings.HasPrefix(o.OrderNumber, "ORD-") || !strings.Contains(o.ProviderPaymentURL, "/sandbox/pay/inv_") {
				t.Fatalf("order: %+v", created)
			}
			h.req("POST", "/api/orders", map[string]any{"shippingType": "PICKUP", "items": []map[string]any{{"menuId": item.Item.ID, "quantity": 0}}},
				bearer(jwts["CUSTOMER"])...).expectError(400, "INVALID_ORDER")
			h.req("POST", "/api/orders", map[string]any{"shippingType": "PICKUP", "items": []map[string]any{{"menuId": "nope", "quantity": 1}}},
				bearer(jwts["CUSTOMER"])...).expectError(422, "UNKNOWN_MENU_ITEM")
			h.req("POST", "/api/orders", map[string]any{"shippingType": "PICKUP", "items": []any{}},
				bearer(jwts["CUSTOMER"])...).expectError(400, "EMPTY_ORDER")
			h.req("POST", "/api/orders", map[string]any{"shippingType": "PICKUP", "totalPrice": 1, "items": []map[string]any{{"menuId": item.Item.ID, "quantity": 1}}},
				bearer(jwts["CUSTOMER"])...).expectError(400, "INVALID_JSON")

			var list struct{ Orders []struct{ ID string } }
			h.req("GET", "/api/orders", nil, bearer(jwts["CUSTOMER"])...).expect(200).decode(&list)
			if len(list.Orders) != 1 || list.Orders[0].ID != o.ID {
				t.Fatalf("orders: %+v", list)
			}
			// Another customer (the staff member, before its role) cannot
			// read it; the staff can.
			h.req("GET", "/api/orders/"+o.ID, nil, bearer(jwts["CUSTOMER"])...).expect(200)
			h.req("GET", "/api/orders/"+o.ID, nil, bearer(jwts["STAFF"])...).expect(200)
			other := h.orderingLogin("6281299999999", "6281299999999")
			h.req("GET", "/api/orders/"+o.ID, nil, bearer(other)...).expectError(404, "ORDER_NOT_FOUND")
			h.req("POST", "/api/orders/"+o.ID+"/cancel", nil, bearer(other)...).expectError(404, "ORDER_NOT_FOUND")

			h.req("POST", "/api/orders/"+o.ID+"/status", map[string]any{"status": "PREPARING"}, bearer(jwts["STAFF"])...).
				expectError(409, "INVALID_TRANSITION")
			h.req("POST", "/api/orders/"+o.ID+"/cancel", nil, bearer(jwts["CUSTOMER"])...).expect(200)
			h.req("POST", "/api/orders/"+o.ID+"/cancel", nil, bearer(jwts["CUSTOMER"])...).expectError(409, "INVALID_TRANSITION")
		})
	}
}

// tinyPNG is a 1×1 PNG.
var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
	"\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

// uploadProof posts a receipt as multipart/form-data.
func (h *harness) uploadProof(jwt, orderID string, image []byte) *response {
	h.t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.WriteField("orderId", orderID)
	mw.WriteField("bankInfo", "BCA 1234567890 a.n. Ani")
	fw, _ := mw.CreateFormFile("paymentProof", "receipt.png")
	fw.Write(image)
	mw.Close()
	return h.req("POST", "/api/payments/upload-proof", b.Bytes(), append(bearer(jwt), "Content-Type", mw.FormDataContentType())...)
}

// providerCall posts a provider notification signed with secret.
func (h *harness) providerCall(secret string, n map[string]any) *response {
	h.t.Helper()
	body, _ := json.Marshal(n)
	return h.req("POST", "/api/payments/provider-webhook", body, "Content-Type", "application/json",
		"x-provider-signature", webhook.SignHex(secret, body))
}

// TestOrderingPaymentsHTTP: a receipt upload (content checked, size
// limited), its verification; the provider's webhook (signature, rotation,
// merchant, amount, repeats); the sandbox payment page.
func TestOrderingPaymentsHTTP(t *testing.T) {
	for _, so := range storeOpeners() {
		t.Run(so.name, func(t *testing.T) {
			h := orderingHarness(t, so.open, "628110000001")
			jwts := h.orderingUsers()
			var cat struct{ Category struct{ ID string } }
			h.req("POST", "/api/menu/categories", map[string]any{"name": "Kopi"}, bearer(jwts["OWNER"])...).expect(201).decode(&cat)
			var item struct{ Item struct{ ID string } }
			h.req("POST", "/api/menu/items", map[string]any{"categoryId": cat.Category.ID, "name": "Kopi susu", "price": 18000},
				bearer(jwts["OWNER"])...).expect(201).decode(&item)
			place := func() (id, invoice string, total int64) {
				var out struct {
					Order struct {
						ID, InvoiceID string
						TotalPrice    int64
					}
				}
				h.req("POST", "/api/orders", map[string]any{"shippingType": "PICKUP", "items": []map[string]any{{"menuId": item.Item.ID, "quantity": 2}}},
					bearer(jwts["CUSTOMER"])...).expect(201).decode(&out)
				return out.Order.ID, out.Order.InvoiceID, out.Order.TotalPrice
			}

			// Receipts.
			id, _, _ := place()
			h.uploadProof(jwts["CUSTOMER"], id, []byte("<html>not an image</html>")).expectError(400, "INVALID_PROOF")
			h.uploadProof(jwts["CUSTOMER"], id, append(slices.Clone(tinyPNG), make([]byte, 6<<20)...)).expect(413)
			h.uploadProof(jwts["STAFF"], id, tinyPNG).expectError(403, "FORBIDDEN")
			h.uploadProof(jwts["CUSTOMER"], id, tinyPNG).expect(200)
			r := h.req("GET", "/api/payments/"+id+"/proof", nil, bearer(jwts["ADMIN"])...).expect(200)
			if r.header.Get("Content-Type") != "image/png" || !bytes.Equal(r.body, tinyPNG) || r.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Fatalf("proof: %v %d bytes", r.header, len(r.body))
			}
			h.req("GET", "/api/payments/"+id+"/proof", nil, bearer(jwts["STAFF"])...).expectError(404, "ORDER_NOT_FOUND")
			h.req("POST", "/api/payments/"+id+"/verify", map[string]any{"approve": true}, bearer(jwts["STAFF"])...).expectError(403, "FORBIDDEN")
			var verified struct {
				Order struct{ Status, PaymentMethod string }
			}
			h.req("POST", "/api/payments/"+id+"/verify", map[string]any{"approve": true}, bearer(jwts["ADMIN"])...).expect(200).decode(&verified)
			if verified.Order.Status != "PAID" || verified.Order.PaymentMethod != "BANK_TRANSFER" {
				t.Fatalf("verified: %+v", verified)
			}

			// The provider's webhook.
			id, invoice, total := place()
			n := map[string]any{"invoiceId": invoice, "merchantId": "M-1", "amount": total, "status": "PAID", "paidAt": "2026-11-25T10:00:00Z"}
			body, _ := json.Marshal(n)
			h.req("POST", "/api/payments/provider-webhook", body).expectError(401, "INVALID_SIGNATURE")
			h.providerCall("forged", n).expectError(401, "INVALID_SIGNATURE")
			short := maps.Clone(n)
			short["amount"] = total - 1
			h.providerCall(providerSecret, short).expectError(422, "AMOUNT_MISMATCH")
			other := maps.Clone(n)
			other["merchantId"] = "M-2"
			h.providerCall(providerSecret, other).expectError(422, "MERCHANT_MISMATCH")
			var res struct{ Result string }
			h.providerCall(providerOldSecret, n).expect(200).decode(&res) // the previous secret, during a rotation
			if res.Result != "APPLIED" {
				t.Fatalf("PAID: %+v", res)
			}
			h.providerCall(providerSecret, n).expect(200).decode(&res)
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
			h.req("GET", "/api/orders/"+id, nil, bearer(jwts["CUSTOMER"])...).expect(200).decode(&got)
			if got.Order.Status != "PAID" || len(got.Order.Payments) != 3 || got.Order.Payments[0].Accepted {
				t.Fatalf("paid order: %+v", got)
			}

			// The sandbox page, from this machine.
			_, invoice, _ = place()
			pg := h.req("GET", "/sandbox/pay/"+invoice, nil).expect(200)
			if !strings.Contains(string(pg.body), "Payment sandbox") || !strings.Contains(string(pg.body), "36000") {
				t.Fatalf("sandbox page: %s", pg.body)
			}
			h.req("POST", "/sandbox/pay/"+invoice, "status=PAID", "Content-Type", "application/x-www-form-urlencoded",
				"Accept", "application/json").expect(200).decode(&res)
			if res.Result != "APPLIED" {
				t.Fatalf("sandbox pay: %+v", res)
			}
			h.req("POST", "/sandbox/pay/"+invoice, "status=PAID", "Content-Type", "application/x-www-form-urlencoded",
				"Sec-Fetch-Site", "cross-site").expect(403)
		})
	}
}

// TestOrderingKitchenHTTP: the counter's walk-in order reaches the kitchen
// display, whose event stream sends the list at once and again when the
// kitchen moves the order; the owner's ledger counts it.
func TestOrderingKitchenHTTP(t *testing.T) {
	h := orderingHarness(t, openBolt, "628110000001")
	jwts := h.orderingUsers()
	var cat struct{ Category struct{ ID string } }
	h.req("POST", "/api/menu/categories", map[string]any{"name": "Kopi"}, bearer(jwts["OWNER"])...).expect(201).decode(&cat)
	var item struct{ Item struct{ ID string } }
	h.req("POST", "/api/menu/items", map[string]any{"categoryId": cat.Category.ID, "name": "Kopi tubruk", "price": 8000},
		bearer(jwts["OWNER"])...).expect(201).decode(&item)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", h.srv.URL+"/api/kitchen/events", nil)
	req.Header.Set("Authorization", "Bearer "+jwts["STAFF"])
	resp, err := h.client.Do(req)
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
	h.req("POST", "/api/pos/orders", map[string]any{"paymentMethod": "QRIS", "customerName": "Meja 4",
		"items": []map[string]any{{"menuId": item.Item.ID, "quantity": 2}}}, bearer(jwts["STAFF"])...).expect(201).decode(&pos)
	if pos.Order.Status != "PAID" || pos.Order.PaymentMethod != "QRIS" || pos.Order.TotalPrice != 16000 {
		t.Fatalf("counter order: %+v", pos)
	}
	if list := next(); len(list) != 1 || list[0].ID != pos.Order.ID || list[0].Status != "PAID" {
		t.Fatalf("after the counter order: %+v", list)
	}
	h.req("POST", "/api/orders/"+pos.Order.ID+"/status", map[string]any{"status": "PREPARING"}, bearer(jwts["STAFF"])...).expect(200)
	if list := next(); len(list) != 1 || list[0].Status != "PREPARING" {
		t.Fatalf("after PREPARING: %+v", list)
	}
	cancel()

	today := h.clock.Now().In(time.FixedZone("WIB", 7*3600)).Format(time.DateOnly)
	var l struct {
		Total          int64
		OrderCount     int
		TotalsByMethod map[string]int64
	}
	h.req("GET", "/api/ledger?from="+today+"&to="+today, nil, bearer(jwts["OWNER"])...).expect(200).decode(&l)
	if l.Total != 16000 || l.OrderCount != 1 || l.TotalsByMethod["QRIS"] != 16000 {
		t.Fatalf("ledger: %+v", l)
	}
	csv := h.req("GET", "/api/ledger?format=csv&from="+today+"&to="+today, nil, bearer(jwts["OWNER"])...).expect(200)
	if !strings.HasPrefix(string(csv.body), "day,paid_at,order_number") || strings.Count(string(csv.body), "\n") != 2 {
		t.Fatalf("ledger CSV:\n%s", csv.body)
	}
	h.req("GET", "/api/ledger?from=nope&to="+today, nil, bearer(jwts["OWNER"])...).expectError(400, "INVALID_PERIOD")
	var c struct {
		Consent struct{ MessengerNumber, Source string }
	}
	h.req("POST", "/api/gateway/consent", map[string]any{"messengerNumber": "0812-5555-0000"}, bearer(jwts["ADMIN"])...).expect(200).decode(&c)
	if c.Consent.MessengerNumber != "6281255550000" || c.Consent.Source != "registered" {
		t.Fatalf("consent: %+v", c)
	}
}

// TestOrderingJWTRefusedByLinkAPI: an ordering JWT is not a link key.
func TestOrderingJWTRefusedByLinkAPI(t *testing.T) {
	clk := testkit.NewClock(time.Time{})
	var linkSvc *links.Service
	h := newHarness(t, openBolt, withOrdering(clk, "", t.TempDir()), withLinks(clk, &linkSvc))
	clk.Set(h.clock.Now())
	h.clock = clk
	jwt := h.orderingLogin("081234567890", "6281234567890")
	r := h.req("GET", "/api/urls", nil, bearer(jwt)...)
	if r.status != 401 {
		t.Fatalf("GET /api/urls with an ordering JWT: %d %s, want 401", r.status, r.body)
	}
}
