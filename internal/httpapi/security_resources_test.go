package httpapi_test

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

// TestSecurityHugeBodies (OWASP API4, unrestricted resource consumption):
// a body over the route's limit is answered 413 with the code
// BODY_TOO_LARGE on every API, with and without credentials (the limit is
// applied before a handler reads a byte, so no route decodes more than its
// limit).
func TestSecurityHugeBodies(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		lab := h.NewLabServer("LAB-A", httpapitest.NPSNA)
		u := h.NewLinkUser("alice", 1000)
		customer := h.OrderingLogin("6281234567891", "6281234567891")
		big := `{"pad":"` + strings.Repeat("x", 2<<20) + `"}`
		for _, rq := range []struct {
			method, path string
			hdr          []string
		}{
			{"POST", "/api/v1/auth/login", nil},
			{"POST", "/api/v1/sync/verify-server", nil},
			{"POST", "/api/v1/sync/heartbeat", httpapitest.Bearer(lab.Token)},
			{"POST", "/api/v1/licenses/generate", httpapitest.Bearer(h.Operator())},
			{"POST", "/api/v1/admin/api-keys", httpapitest.Bearer(h.Operator())},
			{"POST", "/api/url/add", httpapitest.Bearer(u.Key)},
			{"PUT", "/api/account/update", httpapitest.Bearer(u.Key)},
			{"POST", "/api/qr/add", httpapitest.Bearer(u.Key)},
			{"POST", "/api/auth/login", nil},
			{"POST", "/api/auth/gateway-webhook", nil},
			{"POST", "/api/payments/provider-webhook", nil},
			{"POST", "/api/orders", httpapitest.Bearer(customer)},
		} {
			r := h.Req(rq.method, rq.path, big, append([]string{"Content-Type", "application/json"}, rq.hdr...)...)
			if r.Status != 413 || !strings.Contains(string(r.Body), "BODY_TOO_LARGE") {
				t.Errorf("%s %s with 2 MiB: %d %.200s, want 413 BODY_TOO_LARGE", rq.method, rq.path, r.Status, r.Body)
			}
		}
	})
}

// TestSecurityDeepJSON (API4): JSON nested 100,000 levels deep (inside
// the body limit) is refused 400 by every API's decoder, on a known field
// and on an unknown one, and the portal keeps serving.
func TestSecurityDeepJSON(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		u := h.NewLinkUser("alice", 1000)
		customer := h.OrderingLogin("6281234567891", "6281234567891")
		const depth = 100_000
		deep := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		deepObj := strings.Repeat(`{"a":`, depth/5) + "1" + strings.Repeat("}", depth/5)
		for _, rq := range []struct {
			method, path, field string
			hdr                 []string
		}{
			{"POST", "/api/v1/auth/login", "username", nil},
			{"POST", "/api/v1/licenses/generate", "npsn", httpapitest.Bearer(h.Operator())},
			{"POST", "/api/v1/admin/exams", "questions", httpapitest.Bearer(h.Operator())},
			{"POST", "/api/url/add", "url", httpapitest.Bearer(u.Key)},
			{"POST", "/api/qr/add", "data", httpapitest.Bearer(u.Key)},
			{"POST", "/api/auth/login", "messengerNumber", nil},
			{"POST", "/api/orders", "items", httpapitest.Bearer(customer)},
		} {
			for _, body := range []string{
				`{"` + rq.field + `":` + deep + `}`,
				`{"` + rq.field + `":` + deepObj + `}`,
				`{"unknown":` + deep + `}`,
				deep,
			} {
				r := h.Req(rq.method, rq.path, body, append([]string{"Content-Type", "application/json"}, rq.hdr...)...)
				if r.Status != 400 {
					t.Errorf("%s %s with %d-deep JSON: %d %.200s, want 400", rq.method, rq.path, depth, r.Status, r.Body)
				}
			}
		}
		h.Req("GET", "/healthz", nil).Expect(200)
	})
}

// TestSecurityPageSizes (API4): every page-size and page parameter is
// bounded: out of range, negative, not a number or past int64 is 400; the
// largest allowed size is served. Lists without a size parameter are
// bounded by what they list (docs/security.md).
func TestSecurityPageSizes(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		u := h.NewLinkUser("alice", 1000)
		owner := h.OrderingLogin("08110000001", secOwnerNumber)
		dirKey, _ := h.NewAPIKey("sis")
		examID := h.CreateExam(httpapitest.NPSNA)
		type call func(q string) *httpapitest.Response
		linkList := func(path string) call {
			return func(q string) *httpapitest.Response { return h.As(u, "GET", path+"?"+q, nil) }
		}
		op := func(path string) call {
			return func(q string) *httpapitest.Response { return h.Op("GET", path+"?"+q, nil) }
		}
		for _, c := range []struct {
			name       string
			call       call
			size, page string // parameter names; page may be empty
			max        int
		}{
			{"links", linkList("/api/urls"), "limit", "page", 1000},
			{"domains", linkList("/api/domains"), "limit", "page", 1000},
			{"campaigns", linkList("/api/campaigns"), "limit", "page", 1000},
			{"qr", linkList("/api/qr"), "limit", "page", 1000},
			{"members", func(q string) *httpapitest.Response {
				return h.Req("GET", "/api/v1/members?"+q, nil, "X-API-Key", dirKey)
			}, "per_page", "page", 100},
			{"answers", op("/api/v1/admin/exams/" + examID + "/answers"), "per_page", "page", 1000},
			{"sync logs", op("/api/v1/admin/sync-logs"), "limit", "", 1000},
			{"messages", func(q string) *httpapitest.Response {
				return h.Req("GET", "/api/gateway/messages?"+q, nil, httpapitest.Bearer(owner)...)
			}, "limit", "", 1000},
		} {
			bad := []string{"0", "-1", "1001000", "99999999999999999999", "1e3", "abc", "1;DROP TABLE x", strings.Repeat("9", 400)}
			for _, v := range append(bad, strconv.Itoa(c.max+1)) {
				if r := c.call(c.size + "=" + url.QueryEscape(v)); r.Status != 400 {
					t.Errorf("%s: %s=%s: %d %.200s, want 400", c.name, c.size, v, r.Status, r.Body)
				}
			}
			if r := c.call(c.size + "=" + strconv.Itoa(c.max)); r.Status != 200 {
				t.Errorf("%s: %s=%d: %d %.200s, want 200", c.name, c.size, c.max, r.Status, r.Body)
			}
			if c.page != "" {
				for _, v := range []string{"0", "-5", "99999999999999999999", "x"} {
					if r := c.call(c.page + "=" + url.QueryEscape(v)); r.Status != 400 {
						t.Errorf("%s: %s=%s: %d %.200s, want 400", c.name, c.page, v, r.Status, r.Body)
					}
				}
				// A far page is an empty page, not an error or a scan.
				if r := c.call(c.page + "=1000000"); r.Status != 200 {
					t.Errorf("%s: page 1000000: %d %.200s", c.name, r.Status, r.Body)
				}
			}
		}
	})
}
