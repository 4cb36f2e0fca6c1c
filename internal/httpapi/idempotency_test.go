package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/banksheet"
)

// creatingCall is one creating call of the three APIs, with two different
// bodies that each create something.
type creatingCall struct {
	path        string
	contentType string
	as          string // whose credential: op, link, owner, customer
	body, other string
}

// postsWithoutKeys are the POST routes that honour no Idempotency-Key of
// the middleware, each with its reason; every other POST route must be in
// the table of TestIdempotencyKeyOnCreatingCalls.
var postsWithoutKeys = map[string]string{
	"/api/v1/auth/login":                              "signs in; creates nothing a retry could double",
	"/api/v1/sync/verify-server":                      "the handshake binds a server once; a repeat answers the same binding",
	"/api/v1/sync/push-answers":                       "honours Idempotency-Key itself, stored with the answers in one transaction",
	"/api/v1/sync/heartbeat":                          "the latest heartbeat replaces the previous one",
	"/api/v1/admin/answers/import":                    "each batch carries its own idempotency key, stored with its answers",
	"/api/v1/admin/media":                             "media are stored by their SHA-256: the same bytes again are the same media",
	"/api/v1/licenses/{id}/revoke":                    "revoking twice is revoking once",
	"/api/v1/admin/members/{id}/reset-exam-password":  "each call is meant to issue a new password",
	"/api/v1/admin/academic-years/{id}/activate":      "activating twice is activating once",
	"/api/v1/admin/exams/{id}/calibration":            "keeping a calibration again keeps the same parameters, the answers unchanged",
	"/api/v1/admin/link-users/{id}/rotate-key":        "each call is meant to issue a new key",
	"/api/v1/admin/blobs/gc":                          "a collection run again deletes nothing more; runs are one at a time across instances",
	"/api/v1/admin/ordering/bans/{id}/lift":           "lifting twice is lifting once",
	"/api/campaign/{campaignid}/assign/{linkid}":      "assigning twice is assigning once",
	"/api/channel/{channelid}/assign/{type}/{itemid}": "assigning twice is assigning once",
	"/api/auth/login":                                 "no credential to scope a key by; a second login token is harmless",
	"/api/auth/gateway-webhook":                       "deduplicated by the webhook's id",
	"/api/payments/provider-webhook":                  "deduplicated by the notification's content",
	"/api/orders/{id}/status":                         "a move the order has made is refused the second time",
	"/api/orders/{id}/cancel":                         "cancelling twice is cancelling once",
	"/api/payments/upload-proof":                      "a proof replaces the previous one",
	"/api/payments/{orderId}/verify":                  "a decision taken is refused the second time",
	"/api/gateway/consent":                            "recording consent twice is recording it once",
	"/api/bans/{id}/lift":                             "lifting twice is lifting once",
	"/sandbox/messenger":                              "the built-in gateway stand-in, for trying the login by hand",
	"/sandbox/pay/{invoice}":                          "the built-in payment stand-in, for trying payments by hand",
}

// TestIdempotencyKeyOnCreatingCalls sends every creating call of the three
// APIs twice with one Idempotency-Key: the second gets the first answer
// again, marked Idempotent-Replayed, and creates nothing; the key with
// another body is refused 422; the key of another caller is another key.
func TestIdempotencyKeyOnCreatingCalls(t *testing.T) {
	for _, so := range httpapitest.StoreOpeners() {
		t.Run(so.Name, func(t *testing.T) {
			clk := testkit.NewClock(time.Now().UTC().Truncate(time.Second))
			var linkSvc *links.Service
			h := httpapitest.OrderingHarness(t, so.Open, "628110000001", httpapitest.WithLinks(clk, &linkSvc))
			lh := &httpapitest.LinksHarness{Harness: h, Links: linkSvc}
			u := lh.NewLinkUser("marketer", 1<<20)
			other := lh.NewLinkUser("another", 1<<20)
			jwts := h.OrderingUsers()
			var cat struct{ Category struct{ ID string } }
			h.Req("POST", "/api/menu/categories", map[string]any{"name": "Makanan"}, httpapitest.Bearer(jwts["OWNER"])...).Expect(201).Decode(&cat)
			var item struct{ Item struct{ ID string } }
			h.Req("POST", "/api/menu/items", map[string]any{"categoryId": cat.Category.ID, "name": "Nasi", "price": 15000, "available": true},
				httpapitest.Bearer(jwts["OWNER"])...).Expect(201).Decode(&item)
			exam1, _ := json.Marshal(httpapitest.ExamFixture(httpapitest.NPSNA))
			exam2 := strings.Replace(string(exam1), "Matematika Dasar", "Matematika Lanjut", 1)
			lic1, _ := json.Marshal(httpapitest.ValidLicenseReq("20100009", "HW-9"))
			lic2, _ := json.Marshal(httpapitest.ValidLicenseReq("20100008", "HW-8"))
			order := func(q int) string {
				return fmt.Sprintf(`{"shippingType":"PICKUP","items":[{"menuId":%q,"quantity":%d}]}`, item.Item.ID, q)
			}
			pos := func(q int) string {
				return fmt.Sprintf(`{"items":[{"menuId":%q,"quantity":%d}],"paymentMethod":"CASH"}`, item.Item.ID, q)
			}
			const js, csv = "application/json", "text/csv"
			calls := []creatingCall{
				{"/api/v1/licenses/generate", js, "op", string(lic1), string(lic2)},
				{"/api/v1/admin/exams", js, "op", string(exam1), exam2},
				{"/api/v1/admin/members/import", js, "op", `{"members":[{"npsn":"20100001","nama":"Siti","nisn":"0099999999","kelas":"X"}]}`,
					`{"members":[{"npsn":"20100001","nama":"Budi","nisn":"0099999998","kelas":"X"}]}`},
				{"/api/v1/admin/academic-years", js, "op", `{"name":"2026/2027"}`, `{"name":"2027/2028"}`},
				{"/api/v1/admin/api-keys", js, "op", `{"name":"dapodik"}`, `{"name":"rapor"}`},
				{"/api/v1/admin/graders", js, "op", `{"username":"guru.satu","password":"rahasia-guru"}`, `{"username":"guru.dua","password":"rahasia-guru"}`},
				{"/api/v1/admin/link-users", js, "op", `{"email":"u2@example.com","username":"user2","plan":"free","rate_limit":10}`,
					`{"email":"u3@example.com","username":"user3","plan":"free","rate_limit":10}`},
				{"/api/v1/admin/link-overlays", js, "op", fmt.Sprintf(`{"user_id":%d,"type":"message","name":"Promo"}`, u.ID),
					fmt.Sprintf(`{"user_id":%d,"type":"message","name":"Sale"}`, u.ID)},
				{"/api/v1/admin/link-splashes", js, "op", fmt.Sprintf(`{"user_id":%d,"name":"Welcome"}`, u.ID),
					fmt.Sprintf(`{"user_id":%d,"name":"Hello"}`, u.ID)},
				{"/api/v1/admin/exams/import", "application/octet-stream", "op",
					string(banksheet.XLSX(t, []string{"q1", "essay", "", "Jelaskan fotosintesis."})),
					string(banksheet.XLSX(t, []string{"q1", "essay", "", "Jelaskan respirasi."}))},
				{"/api/v1/admin/ordering/menu/import", csv, "op", "category,name,price\nMinuman,Es Teh,4000\n", "category,name,price\nMinuman,Kopi,6000\n"},
				{"/api/domain/add", js, "link", `{"domain":"https://go.example.com"}`, `{"domain":"https://go2.example.com"}`},
				{"/api/campaign/add", js, "link", `{"name":"Promo","slug":"promo","public":true}`, `{"name":"Promo 2","slug":"promo-2"}`},
				{"/api/channel/add", js, "link", `{"name":"Social","color":"#112233"}`, `{"name":"Mail","color":"#112244"}`},
				{"/api/pixel/add", js, "link", `{"type":"gtmpixel","name":"GTM","tag":"GTM-ABC123"}`, `{"type":"fbpixel","name":"FB","tag":"123456789012345"}`},
				{"/api/qr/add", js, "link", `{"type":"text","data":"hello"}`, `{"type":"text","data":"world"}`},
				{"/api/url/add", js, "link", `{"url":"https://example.com/a"}`, `{"url":"https://example.com/b"}`},
				{"/api/menu/categories", js, "owner", `{"name":"Minuman"}`, `{"name":"Camilan"}`},
				{"/api/menu/items", js, "owner", fmt.Sprintf(`{"categoryId":%q,"name":"Teh","price":5000}`, cat.Category.ID),
					fmt.Sprintf(`{"categoryId":%q,"name":"Kopi","price":7000}`, cat.Category.ID)},
				{"/api/orders", js, "customer", order(1), order(2)},
				{"/api/pos/orders", js, "owner", pos(1), pos(2)},
			}
			creds := map[string][]string{"op": httpapitest.Bearer(h.Operator()), "link": httpapitest.Bearer(u.Key), "owner": httpapitest.Bearer(jwts["OWNER"]),
				"customer": httpapitest.Bearer(jwts["CUSTOMER"])}
			for _, c := range calls {
				send := func(body, key string, cred []string) *httpapitest.Response {
					t.Helper()
					return h.Req("POST", c.path, body, append([]string{"Content-Type", c.contentType, "Idempotency-Key", key}, cred...)...)
				}
				key := "key-" + c.path
				first := send(c.body, key, creds[c.as])
				if first.Status/100 != 2 || first.Header.Get("Idempotent-Replayed") != "" {
					t.Fatalf("POST %s: first call %d %s (Idempotent-Replayed %q)", c.path, first.Status, first.Body,
						first.Header.Get("Idempotent-Replayed"))
				}
				again := send(c.body, key, creds[c.as])
				if again.Status != first.Status || !bytes.Equal(again.Body, first.Body) || again.Header.Get("Idempotent-Replayed") != "true" ||
					again.Header.Get("Content-Type") != first.Header.Get("Content-Type") {
					t.Fatalf("POST %s: retry answered %d %s (Idempotent-Replayed %q), want the first answer %d %s again",
						c.path, again.Status, again.Body, again.Header.Get("Idempotent-Replayed"), first.Status, first.Body)
				}
				// The draft's quoted form names the same key.
				if q := send(c.body, `"`+key+`"`, creds[c.as]); q.Header.Get("Idempotent-Replayed") != "true" {
					t.Fatalf("POST %s: the quoted key was not the same key: %d %s", c.path, q.Status, q.Body)
				}
				reused := send(c.other, key, creds[c.as])
				if c.as == "link" {
					reused.ExpectLinkError(422)
				} else {
					reused.ExpectError(422, "IDEMPOTENCY_KEY_REUSED")
				}
				if !strings.Contains(string(reused.Body), "IDEMPOTENCY_KEY_REUSED") {
					t.Fatalf("POST %s: key reused: %s", c.path, reused.Body)
				}
				// Another body under a new key creates.
				if r := send(c.other, key+"-2", creds[c.as]); r.Status/100 != 2 || r.Header.Get("Idempotent-Replayed") != "" {
					t.Fatalf("POST %s: another body under a new key: %d %s", c.path, r.Status, r.Body)
				}
			}

			// The replays created nothing: one of each record per key.
			countIn := func(path, field string, cred []string) int {
				t.Helper()
				var res map[string]any
				if err := json.Unmarshal(h.Req("GET", path, nil, cred...).Expect(200).Body, &res); err != nil {
					t.Fatal(err)
				}
				if d, ok := res["data"].(map[string]any); ok {
					res = d
				}
				list, ok := res[field].([]any)
				if !ok {
					t.Fatalf("GET %s: no list %q in %v", path, field, httpapitest.Keys(res))
				}
				return len(list)
			}
			if n := countIn("/api/urls?limit=100", "urls", creds["link"]); n != 2 {
				t.Errorf("%d short links, want 2 (one per key)", n)
			}
			if n := countIn("/api/orders", "orders", creds["customer"]); n != 2 {
				t.Errorf("%d orders of the customer, want 2 (one per key)", n)
			}
			if n := countIn("/api/v1/admin/exams", "data", creds["op"]); n != 2 {
				t.Errorf("%d exams, want 2 (one per key)", n)
			}

			// Keys are the caller's own: another user's same key creates.
			r := h.Req("POST", "/api/url/add", `{"url":"https://example.com/a"}`, append([]string{"Content-Type", js,
				"Idempotency-Key", "key-/api/url/add"}, httpapitest.Bearer(other.Key)...)...)
			if r.Status != 200 || r.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("another user's call with the same key: %d %s (replayed %q)", r.Status, r.Body, r.Header.Get("Idempotent-Replayed"))
			}

			// A refused call keeps nothing: corrected, it runs under the same key.
			send := func(body, key string) *httpapitest.Response {
				return h.Req("POST", "/api/orders", body, append([]string{"Content-Type", js, "Idempotency-Key", key}, creds["customer"]...)...)
			}
			send(order(0), "fix-me").ExpectError(400, "INVALID_ORDER")
			if r := send(order(3), "fix-me").Expect(201); r.Header.Get("Idempotent-Replayed") != "" {
				t.Fatal("a corrected call under the key of a refused one was answered as a replay")
			}

			// Bad keys are refused before anything runs.
			for _, k := range []string{" ", strings.Repeat("k", 201), "caf\u00e9", "a\tb"} {
				send(order(1), k).ExpectError(400, "INVALID_IDEMPOTENCY_KEY")
			}
			req, _ := http.NewRequest("POST", h.Server.URL+"/api/orders", strings.NewReader(order(1)))
			req.Header.Set("Content-Type", js)
			req.Header.Set("Authorization", creds["customer"][1])
			req.Header.Add("Idempotency-Key", "one")
			req.Header.Add("Idempotency-Key", "two")
			resp, err := h.Client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 400 {
				t.Fatalf("two Idempotency-Key headers: %d, want 400", resp.StatusCode)
			}
			if n := countIn("/api/orders", "orders", creds["customer"]); n != 3 {
				t.Errorf("%d orders after the refusals, want 3", n)
			}

			// Every POST route is either in the table or has its reason.
			in := map[string]bool{}
			for _, c := range calls {
				in[strings.Split(c.path, "?")[0]] = true
			}
			var missing []string
			chi.Walk(h.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
				if method == "POST" && !in[route] && postsWithoutKeys[route] == "" {
					missing = append(missing, route)
				}
				return nil
			})
			if slices.Sort(missing); len(missing) > 0 {
				t.Errorf("POST routes neither honouring Idempotency-Key in this test nor listed in postsWithoutKeys: %v", missing)
			}
		})
	}
}
