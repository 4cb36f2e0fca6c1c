package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/pkg/labwire"
)

// TestSecurityMassAssignment (OWASP API3, broken object property-level
// authorisation): no body can set a property its sender may not set. A
// customer cannot give itself a role (the role route is the owner's, 403;
// a role in the login or order body is an unknown field, 400 INVALID_JSON);
// order bodies cannot carry prices, statuses or owners; a link user cannot
// set its plan, rate limit, id or status, nor a link's clicks or owner; a
// lab server cannot add fields to its heartbeat. Afterwards the customer is
// still a CUSTOMER and the link account unchanged.
func TestSecurityMassAssignment(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		owner := h.OrderingLogin("08110000001", secOwnerNumber)
		customer := h.OrderingLogin("6281234567891", "6281234567891")
		var me struct{ User struct{ ID, Role string } }
		h.Req("GET", "/api/auth/me", nil, httpapitest.Bearer(customer)...).Expect(200).Decode(&me)
		id, _, _ := h.secOrder(owner, customer)
		_ = id

		h.Req("PUT", "/api/users/"+me.User.ID+"/role", map[string]any{"role": "OWNER"}, httpapitest.Bearer(customer)...).ExpectError(403, "FORBIDDEN")
		h.Req("PUT", "/api/users/"+me.User.ID+"/role", map[string]any{"role": "ADMIN", "allowedMenus": []string{"kitchen"}}, httpapitest.Bearer(customer)...).
			ExpectError(403, "FORBIDDEN")
		h.Req("POST", "/api/auth/login", map[string]any{"messengerNumber": "6281234567891", "challengeToken": h.SolvedChallenge(), "role": "OWNER"}).
			ExpectError(400, "INVALID_JSON")
		for _, extra := range []map[string]any{
			{"role": "OWNER"}, {"userId": "someone"}, {"status": "PAID"}, {"totalPrice": 1}, {"shippingCost": 0},
			{"paymentMethod": "CASH"}, {"__proto__": map[string]any{"role": "OWNER"}}, {"Role": "OWNER"},
		} {
			body := map[string]any{"shippingType": "PICKUP", "items": []any{}}
			for k, v := range extra {
				body[k] = v
			}
			h.Req("POST", "/api/orders", body, httpapitest.Bearer(customer)...).ExpectError(400, "INVALID_JSON")
		}
		h.Req("GET", "/api/auth/me", nil, httpapitest.Bearer(customer)...).Expect(200).Decode(&me)
		if me.User.Role != "CUSTOMER" {
			t.Fatalf("the customer's role is %s after its attempts", me.User.Role)
		}
		h.Req("GET", "/api/users", nil, httpapitest.Bearer(customer)...).ExpectError(403, "FORBIDDEN")

		// Link API.
		u := h.NewLinkUser("alice", 1000)
		before := string(h.As(u, "GET", "/api/account", nil).Expect(200).Body)
		for _, body := range []map[string]any{
			{"plan": "enterprise"}, {"rate_limit": 100000}, {"id": 1}, {"status": "admin"}, {"username": "root"},
			{"expires": ""}, {"key": "lk_x"}, {"email": "alice2@example.com", "plan": "enterprise"},
		} {
			h.As(u, "PUT", "/api/account/update", body).ExpectLinkError(400)
		}
		if after := string(h.As(u, "GET", "/api/account", nil).Expect(200).Body); after != before {
			t.Fatalf("account changed by refused updates:\n%s\n%s", before, after)
		}
		for _, extra := range []map[string]any{{"clicks": 1000}, {"uniqueClicks": 5}, {"owner": 2}, {"id": 7}, {"user_id": 2}} {
			body := map[string]any{"url": "https://example.com"}
			for k, v := range extra {
				body[k] = v
			}
			h.As(u, "POST", "/api/url/add", body).ExpectLinkError(400)
		}
		if n := len(httpapitest.Items(h.As(u, "GET", "/api/urls", nil).ExpectList("urls"), "urls")); n != 0 {
			t.Fatalf("refused link bodies made %d links", n)
		}

		// Exam API.
		lab := h.NewLabServer("LAB-A", httpapitest.NPSNA)
		h.Harness.As(lab, "POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-A", "npsn": httpapitest.NPSNB}).ExpectError(400, "INVALID_JSON")
		h.Req("POST", "/api/v1/auth/login", map[string]any{"username": httpapitest.AdminUser, "password": httpapitest.AdminPassword, "role": "SUPER_ADMIN"}).
			ExpectError(400, "INVALID_JSON")
		req := httpapitest.ValidLicenseReq(httpapitest.NPSNA, "HW-X")
		body, _ := json.Marshal(req)
		h.Op("POST", "/api/v1/licenses/generate", strings.TrimSuffix(string(body), "}")+`,"license_id":"chosen","revoked":false}`,
			"Content-Type", "application/json").ExpectError(400, "INVALID_JSON")
	})
}

// TestSecurityNoSecretsInResponses (API3): the routes most likely to leak
// answer as they should and, like every response of the suite, carry no
// password or key hash and no secret (the scanning transport of the
// harness): operator sign-in and me, the link users and API keys lists, the
// link account, the member directory and lookup, the ordering users lists.
// The lab server's package, decrypted, holds no answer key: it is all a lab
// server (and through it a student) ever receives of an exam.
func TestSecurityNoSecretsInResponses(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		students := h.ImportStudents(httpapitest.NPSNA, "Ani Lestari", "Budi Santoso")
		examID := h.CreateExam(httpapitest.NPSNA)
		lab := h.NewLabServer("LAB-A", httpapitest.NPSNA)
		dirKey, _ := h.NewAPIKey("sis")
		u := h.NewLinkUser("alice", 1000)
		h.Op("PUT", "/api/v1/admin/link-users/"+strconv.FormatInt(u.ID, 10)+"/password", map[string]any{"password": "a-long-link-password"}).Expect(200)
		h.As(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com", "password": "link-password-1"}).ExpectOK()
		owner := h.OrderingLogin("08110000001", secOwnerNumber)
		h.OrderingLogin("6281234567891", "6281234567891")
		start := h.scan.seen

		h.Req("POST", "/api/v1/auth/login", map[string]string{"username": httpapitest.AdminUser, "password": httpapitest.AdminPassword}).Expect(200)
		h.Op("GET", "/api/v1/auth/me", nil).Expect(200)
		h.Op("GET", "/api/v1/admin/link-users", nil).Expect(200)
		h.Op("GET", "/api/v1/admin/api-keys", nil).Expect(200)
		h.Op("GET", "/api/v1/admin/servers", nil).Expect(200)
		h.Op("GET", "/api/v1/licenses", nil).Expect(200)
		h.Op("GET", "/api/v1/admin/ordering/users", nil).Expect(200)
		h.As(u, "GET", "/api/account", nil).Expect(200)
		h.As(u, "GET", "/api/urls", nil).ExpectList("urls")
		h.Req("GET", "/api/v1/members?per_page=100", nil, "X-API-Key", dirKey).Expect(200)
		h.Req("GET", "/api/v1/members/lookup?id="+students["ani.lestari"], nil, "X-API-Key", dirKey).Expect(200)
		h.Req("GET", "/api/users", nil, httpapitest.Bearer(owner)...).Expect(200)
		h.Req("GET", "/api/auth/me", nil, httpapitest.Bearer(owner)...).Expect(200)
		h.Req("GET", "/api/v1/licenses/public-key", nil).Expect(200)
		if h.scan.seen-start != 14 {
			t.Fatalf("the scanner saw %d responses, want 14", h.scan.seen-start)
		}

		// The package.
		var p httpapitest.PullJSON
		h.Harness.As(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-A", nil).Expect(200).Decode(&p)
		dec, err := labwire.NewPackageDecrypter(bytes.NewReader(p.Package), lab.PackageKey)
		if err != nil {
			t.Fatalf("decrypter: %v", err)
		}
		plain, err := io.ReadAll(dec)
		if err != nil {
			t.Fatalf("decrypt: %v", err)
		}
		var pkg struct {
			Exams []struct {
				ID        string           `json:"id"`
				Questions []map[string]any `json:"questions"`
			} `json:"exams"`
		}
		if err := json.Unmarshal(plain, &pkg); err != nil {
			t.Fatalf("package: %v", err)
		}
		if len(pkg.Exams) != 1 || pkg.Exams[0].ID != examID || len(pkg.Exams[0].Questions) != 5 {
			t.Fatalf("package exams: %s", plain)
		}
		for _, q := range pkg.Exams[0].Questions {
			for _, k := range []string{"answer", "answers", "answer_key", "correct", "key"} {
				if _, ok := q[k]; ok {
					t.Errorf("question %v of the package carries %q", q["id"], k)
				}
			}
		}
		// The one short answer's text ("Jakarta") is nowhere in the package.
		if bytes.Contains(plain, []byte("Jakarta")) {
			t.Error("the package holds the short answer's key")
		}
	})
}
