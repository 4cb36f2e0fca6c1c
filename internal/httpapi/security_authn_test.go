package httpapi_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/webhook"
)

// TestSecurityForgedJWTs (OWASP API2, broken authentication): for each of
// the three kinds of JWT (exam operator, lab server, ordering user) a token
// forged with the harness's own key and the right claims is accepted (so
// the claims are right), and every variant is refused 401: alg none, another
// key, HS384, expired, not yet valid, another audience or issuer, none, no
// expiry, the signature cut, the payload edited.
func TestSecurityForgedJWTs(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		now := h.Clock.Now()
		exp := now.Add(time.Hour).Unix()

		var me struct{ User struct{ ID string } }
		h.Op("GET", "/api/v1/auth/me", nil).Expect(200).Decode(&me)
		lab := h.NewLabServer("LAB-A", httpapitest.NPSNA)
		owner := h.OrderingLogin("08110000001", secOwnerNumber)
		var ome struct{ User struct{ ID string } }
		h.Req("GET", "/api/auth/me", nil, httpapitest.Bearer(owner)...).Expect(200).Decode(&ome)

		for _, k := range []struct {
			name, key string
			claims    jwt.MapClaims
			call      func(tok string) *httpapitest.Response
			code      string
		}{
			{"exam operator", examJWTSecret,
				jwt.MapClaims{"sub": me.User.ID, "aud": "portal-operator", "iss": "seedhq-portal", "iat": now.Unix(), "exp": exp},
				func(tok string) *httpapitest.Response {
					return h.Req("GET", "/api/v1/auth/me", nil, httpapitest.Bearer(tok)...)
				}, "UNAUTHORIZED"},
			{"lab server", examJWTSecret,
				jwt.MapClaims{"sub": lab.Code, "npsn": lab.NPSN, "aud": "portal-server", "iss": "seedhq-portal", "iat": now.Unix(), "exp": exp},
				func(tok string) *httpapitest.Response {
					return h.Req("POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": lab.Code}, httpapitest.Bearer(tok)...)
				}, "UNAUTHORIZED"},
			{"ordering user", orderingJWTKey,
				jwt.MapClaims{"sub": ome.User.ID, "role": "OWNER", "aud": "ordering", "iss": "portal", "iat": now.Unix(), "exp": exp},
				func(tok string) *httpapitest.Response {
					return h.Req("GET", "/api/users", nil, httpapitest.Bearer(tok)...)
				}, "UNAUTHORIZED"},
		} {
			t.Run(k.name, func(t *testing.T) {
				k.call(forgeJWT(t, jwt.SigningMethodHS256, []byte(k.key), k.claims)).Expect(200)
				for name, tok := range jwtVariants(t, k.key, k.claims, now) {
					r := k.call(tok)
					if r.Status != 401 {
						t.Errorf("%s: %d %s, want 401", name, r.Status, r.Body)
						continue
					}
					code := k.code
					if name == "expired" && k.name != "ordering user" {
						code = "TOKEN_EXPIRED"
					}
					r.ExpectError(401, code)
				}
			})
		}

		// Real tokens past their lifetime: the operator's 12 hours, the
		// ordering JWT's 7 days.
		op := h.Operator()
		h.advanceAll(13 * time.Hour)
		h.Req("GET", "/api/v1/auth/me", nil, httpapitest.Bearer(op)...).ExpectError(401, "TOKEN_EXPIRED")
		h.Req("GET", "/api/auth/me", nil, httpapitest.Bearer(owner)...).Expect(200)
		h.advanceAll(7 * 24 * time.Hour)
		h.Req("GET", "/api/auth/me", nil, httpapitest.Bearer(owner)...).ExpectError(401, "UNAUTHORIZED")
	})
}

// TestSecurityCrossAPICredentials (API2): every credential of the portal is
// accepted by the routes it is for and refused 401 by every other API: the
// exam operator JWT, the lab server's token, the ordering JWT, a link API
// key, a directory API key and a licence token.
func TestSecurityCrossAPICredentials(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		lic, _ := h.IssueLicense(httpapitest.NPSNA, "HW-LAB-A", 365)
		lab := h.Verify("LAB-A", httpapitest.NPSNA, "HW-LAB-A", lic)
		dirKey, _ := h.NewAPIKey("sis")
		linkKey := h.NewLinkUser("alice", 1000).Key
		creds := map[string][]string{
			"operator JWT":            httpapitest.Bearer(h.Operator()),
			"lab-server token":        httpapitest.Bearer(lab.Token),
			"ordering JWT":            httpapitest.Bearer(h.OrderingLogin("08110000001", secOwnerNumber)),
			"link API key":            httpapitest.Bearer(linkKey),
			"directory key":           {"X-API-Key", dirKey},
			"directory key as bearer": httpapitest.Bearer(dirKey),
			"licence token":           httpapitest.Bearer(lic),
			"link key as X-API-Key":   {"X-API-Key", linkKey},
		}
		for _, rt := range []struct {
			method, path string
			body         any
			ok           string // the one credential accepted
			status       int    // its status
		}{
			{"GET", "/api/v1/auth/me", nil, "operator JWT", 200},
			{"GET", "/api/v1/admin/exams", nil, "operator JWT", 200},
			{"GET", "/api/v1/admin/servers", nil, "operator JWT", 200},
			{"GET", "/api/v1/admin/link-users", nil, "operator JWT", 200},
			{"GET", "/api/v1/admin/ordering/users", nil, "operator JWT", 200},
			{"POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-A"}, "lab-server token", 200},
			{"GET", "/api/v1/sync/pull-questions?serverCode=LAB-A", nil, "lab-server token", 200},
			{"GET", "/api/v1/members", nil, "directory key", 200},
			{"GET", "/api/auth/me", nil, "ordering JWT", 200},
			{"GET", "/api/users", nil, "ordering JWT", 200},
			{"GET", "/api/orders", nil, "ordering JWT", 200},
			{"GET", "/api/account", nil, "link API key", 200},
			{"GET", "/api/urls", nil, "link API key", 200},
		} {
			for name, hdr := range creds {
				r := h.Req(rt.method, rt.path, rt.body, hdr...)
				want := 401
				if name == rt.ok {
					want = rt.status
				}
				if r.Status != want {
					t.Errorf("%s %s with the %s: %d %.200s, want %d", rt.method, rt.path, name, r.Status, r.Body, want)
				}
			}
		}
	})
}

// TestSecurityEditedLicences (API2): a licence token whose payload or
// signature has any one byte changed, whose payload is re-encoded with
// better terms under the old signature, or that is signed by another
// Ed25519 key is refused 401 LICENSE_INVALID at the handshake; the real
// one is accepted.
func TestSecurityEditedLicences(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		lic, _ := h.IssueLicense(httpapitest.NPSNA, "HW-1", 30)
		hs := func(token string) *httpapitest.Response {
			t.Helper()
			return h.Req("POST", "/api/v1/sync/verify-server", httpapitest.HandshakeReq{ServerCode: "LAB-01", NPSN: httpapitest.NPSNA, HardwareID: "HW-1", LicenseToken: token})
		}
		payload, sig, ok := strings.Cut(lic, ".")
		if !ok {
			t.Fatalf("licence %q is not payload.signature", lic)
		}
		flip := func(s string, i int) string {
			b := []byte(s)
			if b[i] == 'A' {
				b[i] = 'B'
			} else {
				b[i] = 'A'
			}
			return string(b)
		}
		var edited []string
		for _, i := range []int{0, 1, len(payload) / 3, len(payload) / 2, len(payload) - 2} {
			edited = append(edited, flip(payload, i)+"."+sig)
		}
		for _, i := range []int{0, len(sig) / 2, len(sig) - 2} {
			edited = append(edited, payload+"."+flip(sig, i))
		}
		raw, err := base64.RawURLEncoding.DecodeString(payload)
		if err != nil {
			t.Fatalf("payload is not base64url: %v", err)
		}
		var claims map[string]any
		if err := json.Unmarshal(raw, &claims); err != nil {
			t.Fatalf("payload is not JSON: %v", err)
		}
		better := maps.Clone(claims)
		better["max_students"] = 100000
		betterJSON, _ := json.Marshal(better)
		_, foreignKey, _ := ed25519.GenerateKey(rand.Reader)
		foreignSig := ed25519.Sign(foreignKey, betterJSON)
		edited = append(edited,
			base64.RawURLEncoding.EncodeToString(betterJSON)+"."+sig,
			base64.RawURLEncoding.EncodeToString(betterJSON)+"."+base64.RawURLEncoding.EncodeToString(foreignSig),
			payload+".",
			payload,
			"."+sig,
			payload+"."+sig+"."+sig,
		)
		for _, tok := range edited {
			hs(tok).ExpectError(401, "LICENSE_INVALID")
		}
		hs(lic).Expect(200)
	})
}

// TestSecurityGatewayWebhook (API2): the messaging gateway's Standard
// Webhooks are refused 401 INVALID_SIGNATURE unsigned, signed with another
// secret, with the body or id changed after signing, and with a timestamp
// outside the 5-minute tolerance either way; a replay of an accepted one
// (same webhook-id) changes nothing.
func TestSecurityGatewayWebhook(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		const from = "6281234567890"
		tok := h.StartLogin("081234567890")
		body, _ := json.Marshal(map[string]string{"from": from, "message": "VERIFY_" + tok})
		now := h.Clock.Now()
		signed := func(secret, id string, ts time.Time, b []byte) []string {
			sig, err := webhook.Sign(secret, id, ts, b)
			if err != nil {
				t.Fatal(err)
			}
			return []string{"Content-Type", "application/json", "webhook-id", id,
				"webhook-timestamp", strconv.FormatInt(ts.Unix(), 10), "webhook-signature", sig}
		}
		tampered := signed(httpapitest.GatewaySecret, "msg_1", now, body)
		tampered[3] = "msg_other" // the id is part of what is signed
		for name, hdr := range map[string][]string{
			"unsigned":          {"Content-Type", "application/json"},
			"another secret":    signed("whsec_"+base64.StdEncoding.EncodeToString([]byte("another-secret-of-32-bytes!!!!!!")), "msg_1", now, body),
			"id changed":        tampered,
			"six minutes old":   signed(httpapitest.GatewaySecret, "msg_1", now.Add(-6*time.Minute), body),
			"six minutes ahead": signed(httpapitest.GatewaySecret, "msg_1", now.Add(6*time.Minute), body),
			"empty signature":   {"Content-Type", "application/json", "webhook-id", "msg_1", "webhook-timestamp", strconv.FormatInt(now.Unix(), 10), "webhook-signature", ""},
			"v0 scheme":         {"Content-Type", "application/json", "webhook-id", "msg_1", "webhook-timestamp", strconv.FormatInt(now.Unix(), 10), "webhook-signature", "v0,AAAA"},
		} {
			r := h.Req("POST", "/api/auth/gateway-webhook", body, hdr...)
			if r.Status != 401 {
				t.Fatalf("%s: %d %s, want 401", name, r.Status, r.Body)
			}
			r.ExpectError(401, "INVALID_SIGNATURE")
		}
		// The body changed after signing.
		other, _ := json.Marshal(map[string]string{"from": "6289999999999", "message": "VERIFY_" + tok})
		h.Req("POST", "/api/auth/gateway-webhook", other, signed(httpapitest.GatewaySecret, "msg_1", now, body)...).ExpectError(401, "INVALID_SIGNATURE")
		var p map[string]any
		h.Req("GET", "/api/auth/poll-status?token="+tok, nil).Expect(200).Decode(&p)
		if p["status"] != "PENDING" {
			t.Fatalf("after refused webhooks the login is %v, want PENDING", p)
		}

		// Within the tolerance it is accepted once; the replay changes nothing.
		var g map[string]any
		h.Req("POST", "/api/auth/gateway-webhook", body, signed(httpapitest.GatewaySecret, "msg_1", now.Add(-4*time.Minute), body)...).Expect(200).Decode(&g)
		if g["status"] != "VERIFIED" {
			t.Fatalf("webhook: %v", g)
		}
		h.Req("POST", "/api/auth/gateway-webhook", body, signed(httpapitest.GatewaySecret, "msg_1", now.Add(-4*time.Minute), body)...).Expect(200).Decode(&g)
		if g["status"] != "ALREADY_PROCESSED" {
			t.Fatalf("replayed webhook: %v", g)
		}
	})
}

// TestSecurityProviderWebhook (API2): the payment provider's HMAC webhook
// is refused 401 INVALID_SIGNATURE unsigned, with another secret, with a
// signature of another body, or one not in hex; an accepted PAID notice
// replayed answers DUPLICATE and pays nothing twice; a replayed PAID after a
// REFUNDED does not make the order paid again.
func TestSecurityProviderWebhook(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		owner := h.OrderingLogin("08110000001", secOwnerNumber)
		customer := h.OrderingLogin("6281234567891", "6281234567891")
		id, invoice, total := h.secOrder(owner, customer)
		n := map[string]any{"invoiceId": invoice, "merchantId": "M-1", "amount": total, "status": "PAID", "paidAt": "2026-11-25T10:00:00Z"}
		body, _ := json.Marshal(n)
		other, _ := json.Marshal(map[string]any{"invoiceId": invoice, "merchantId": "M-1", "amount": total, "status": "EXPIRED"})
		for name, hdr := range map[string][]string{
			"unsigned":           nil,
			"another secret":     {"x-provider-signature", webhook.SignHex("another-secret", body)},
			"another body's sig": {"x-provider-signature", webhook.SignHex(httpapitest.ProviderSecret, other)},
			"not hex":            {"x-provider-signature", "zz" + webhook.SignHex(httpapitest.ProviderSecret, body)[2:]},
			"upper-case prefix":  {"x-provider-signature", "sha256=" + webhook.SignHex(httpapitest.ProviderSecret, body)},
		} {
			r := h.Req("POST", "/api/payments/provider-webhook", body, append([]string{"Content-Type", "application/json"}, hdr...)...)
			if r.Status != 401 {
				t.Fatalf("%s: %d %s, want 401", name, r.Status, r.Body)
			}
			r.ExpectError(401, "INVALID_SIGNATURE")
		}
		status := func() (string, int) {
			var o struct {
				Order struct {
					Status   string
					Payments []struct{ Accepted bool }
				}
			}
			h.Req("GET", "/api/orders/"+id, nil, httpapitest.Bearer(customer)...).Expect(200).Decode(&o)
			accepted := 0
			for _, p := range o.Order.Payments {
				if p.Accepted {
					accepted++
				}
			}
			return o.Order.Status, accepted
		}
		if s, _ := status(); s != "PENDING_PAYMENT" {
			t.Fatalf("after refused notices the order is %s", s)
		}
		var res struct{ Result string }
		h.ProviderCall(httpapitest.ProviderSecret, n).Expect(200).Decode(&res)
		if res.Result != "APPLIED" {
			t.Fatalf("PAID: %+v", res)
		}
		h.ProviderCall(httpapitest.ProviderSecret, n).Expect(200).Decode(&res)
		if s, paid := status(); res.Result != "DUPLICATE" || s != "PAID" || paid != 1 {
			t.Fatalf("replayed PAID: %s, order %s with %d accepted payments", res.Result, s, paid)
		}
		refund := maps.Clone(n)
		refund["status"] = "REFUNDED"
		h.ProviderCall(httpapitest.ProviderSecret, refund).Expect(200)
		h.ProviderCall(httpapitest.ProviderSecret, n).Expect(200).Decode(&res)
		if s, _ := status(); s != "REFUNDED" || res.Result == "APPLIED" {
			t.Fatalf("PAID replayed after the refund: %s, order %s", res.Result, s)
		}
	})
}

// secOrder makes a menu item as the owner and places an order of it as
// customer; it returns the order's id, invoice and total.
func (h *secHarness) secOrder(owner, customer string) (id, invoice string, total int64) {
	h.T.Helper()
	var cat struct{ Category struct{ ID string } }
	h.Req("POST", "/api/menu/categories", map[string]any{"name": "Kopi " + strconv.Itoa(h.Seq)}, httpapitest.Bearer(owner)...).Expect(201).Decode(&cat)
	h.Seq++
	var item struct{ Item struct{ ID string } }
	h.Req("POST", "/api/menu/items", map[string]any{"categoryId": cat.Category.ID, "name": "Kopi susu", "price": 18000},
		httpapitest.Bearer(owner)...).Expect(201).Decode(&item)
	var out struct {
		Order struct {
			ID, InvoiceID string
			TotalPrice    int64
		}
	}
	h.Req("POST", "/api/orders", map[string]any{"shippingType": "PICKUP", "notes": "SECRET-NOTE-" + customer[len(customer)-6:],
		"items": []map[string]any{{"menuId": item.Item.ID, "quantity": 2}}}, httpapitest.Bearer(customer)...).Expect(201).Decode(&out)
	return out.Order.ID, out.Order.InvoiceID, out.Order.TotalPrice
}
