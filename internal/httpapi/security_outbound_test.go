package httpapi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

// TestSecuritySSRF (OWASP API7, server-side request forgery): the portal
// fetches no URL a user gives. Every input that takes a URL (short-link
// targets on creation and update, branded domains and their root and 404
// redirects, QR codes of type link, QR logos, link users' avatars, menu
// item images) is given the address of a canary server on 127.0.0.1, and
// also the cloud metadata address and private ranges; the records are then
// read, listed and their statistics asked for, an order is placed; the
// canary must never be contacted. A logo given as a URL instead of a data
// URI is refused 400 (logos are never fetched). The outbound calls the
// portal does make (payment provider, messaging gateway, captcha
// siteverify) go to URLs from the operator's configuration only, never
// from a request (docs/security.md).
func TestSecuritySSRF(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		var hits atomic.Int64
		canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Write([]byte("<html><title>canary</title></html>"))
		}))
		defer canary.Close()
		c := canary.URL // http://127.0.0.1:port
		targets := []string{c + "/target", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://192.168.1.1/",
			"http://172.16.0.1/", "http://[::1]:" + strings.TrimPrefix(c[strings.LastIndexByte(c, ':'):], ":") + "/", "http://localhost" + c[strings.LastIndexByte(c, ':'):] + "/"}

		u := h.NewLinkUser("alice", 1000)
		var lids []int64
		for i, target := range targets {
			id, _ := h.AddLink(u, map[string]any{"url": target, "custom": fmt.Sprintf("ssrf%d", i)})
			lids = append(lids, id)
		}
		h.As(u, "PUT", fmt.Sprintf("/api/url/%d/update", lids[0]), map[string]any{"url": c + "/updated"}).ExpectOK()
		did := httpapitest.Num(h.As(u, "POST", "/api/domain/add", map[string]any{"domain": c, "redirectroot": c + "/root", "redirect404": c + "/404"}).ExpectOK()["id"])
		h.As(u, "PUT", fmt.Sprintf("/api/domain/%d/update", did), map[string]any{"redirectroot": "http://169.254.169.254/"}).ExpectOK()
		qid := httpapitest.Num(h.As(u, "POST", "/api/qr/add", map[string]any{"type": "link", "data": c + "/qr"}).ExpectOK()["id"])
		h.As(u, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "x", "logo": c + "/logo.png"}).ExpectLinkError(400)
		h.As(u, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "x", "logo": "http://169.254.169.254/logo.png"}).ExpectLinkError(400)
		h.As(u, "PUT", fmt.Sprintf("/api/qr/%d/update", qid), map[string]any{"data": c + "/qr2", "logo": c + "/logo.png"}).ExpectLinkError(400)
		h.Op("POST", "/api/v1/admin/link-users", map[string]any{"email": "bob@example.com", "username": "bob", "avatar": c + "/avatar.png"}).Expect(201)

		for _, id := range lids {
			h.As(u, "GET", fmt.Sprintf("/api/url/%d", id), nil).ExpectOK()
		}
		h.As(u, "GET", fmt.Sprintf("/api/qr/%d", qid), nil).Expect(200)
		for _, l := range []struct{ path, name string }{{"/api/urls", "urls"}, {"/api/domains", "domains"}, {"/api/qr", "qrs"}} {
			h.As(u, "GET", l.path, nil).ExpectList(l.name)
		}
		h.Op("GET", "/api/v1/admin/link-users", nil).Expect(200)

		owner := h.OrderingLogin("08110000001", secOwnerNumber)
		var cat struct{ Category struct{ ID string } }
		h.Req("POST", "/api/menu/categories", map[string]any{"name": "Kopi"}, httpapitest.Bearer(owner)...).Expect(201).Decode(&cat)
		var item struct{ Item struct{ ID string } }
		h.Req("POST", "/api/menu/items", map[string]any{"categoryId": cat.Category.ID, "name": "Kopi", "price": 1000, "imageUrl": c + "/img.png"},
			httpapitest.Bearer(owner)...).Expect(201).Decode(&item)
		h.Req("GET", "/api/menu", nil, httpapitest.Bearer(owner)...).Expect(200)
		h.Req("POST", "/api/orders", map[string]any{"shippingType": "PICKUP", "items": []map[string]any{{"menuId": item.Item.ID, "quantity": 1}}},
			httpapitest.Bearer(owner)...).Expect(201)

		if n := hits.Load(); n != 0 {
			t.Fatalf("the portal contacted the canary %d times: it fetched a URL a user gave", n)
		}
	})
}

// openRedirectTargets are targets that would make a short link, a branded
// domain's redirect or a QR code an open redirect to script, to data, to a
// protocol-relative or backslash-confused host, or carry credentials.
var openRedirectTargets = []string{
	"javascript:alert(1)", "JavaScript:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)", "javascript://%0aalert(1)",
	"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", "vbscript:msgbox(1)", "file:///etc/passwd", "ftp://evil.example.com/",
	"//evil.example.com", "///evil.example.com", `\\evil.example.com`, `/\evil.example.com`, `https:\\evil.example.com`,
	`https:/\evil.example.com`, `https://good.example.com\@evil.example.com`, `https://evil.example.com\.good.example.com`,
	"https:evil.example.com", "http:///evil.example.com", "https://user:pass@evil.example.com/", "/relative/path", "evil.example.com",
	"https://evil.example.com/\r\nSet-Cookie: a=b", "", "   ",
}

// TestSecurityOpenRedirects (OWASP API8/API10, unsafe redirects): every
// input that becomes a redirect target (a short link's url on creation and
// update, a domain's redirectroot and redirect404 on creation and update, a
// QR code of type link) refuses each dangerous target with 400
// VALIDATION_FAILED, and nothing is stored.
func TestSecurityOpenRedirects(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		u := h.NewLinkUser("alice", 1000)
		lid, _ := h.AddLink(u, map[string]any{"url": "https://example.com/ok", "custom": "okay"})
		did := httpapitest.Num(h.As(u, "POST", "/api/domain/add", map[string]any{"domain": "https://go.example.com"}).ExpectOK()["id"])
		qid := httpapitest.Num(h.As(u, "POST", "/api/qr/add", map[string]any{"type": "link", "data": "https://example.com/qr"}).ExpectOK()["id"])
		for _, target := range openRedirectTargets {
			for _, rq := range []struct {
				method, path string
				body         map[string]any
			}{
				{"POST", "/api/url/add", map[string]any{"url": target}},
				{"PUT", fmt.Sprintf("/api/url/%d/update", lid), map[string]any{"url": target}},
				{"POST", "/api/domain/add", map[string]any{"domain": "https://other.example.com", "redirectroot": target}},
				{"POST", "/api/domain/add", map[string]any{"domain": "https://other.example.com", "redirect404": target}},
				{"POST", "/api/domain/add", map[string]any{"domain": target}},
				{"PUT", fmt.Sprintf("/api/domain/%d/update", did), map[string]any{"redirectroot": target}},
				{"PUT", fmt.Sprintf("/api/domain/%d/update", did), map[string]any{"redirect404": target}},
				{"POST", "/api/qr/add", map[string]any{"type": "link", "data": target}},
				{"PUT", fmt.Sprintf("/api/qr/%d/update", qid), map[string]any{"data": target}},
			} {
				if strings.TrimSpace(target) == "" && strings.HasPrefix(rq.path, "/api/domain/") && rq.body["domain"] == "https://other.example.com" {
					continue // an empty redirect is "none", documented
				}
				if strings.TrimSpace(target) == "" && strings.Contains(rq.path, "/update") && rq.method == "PUT" && strings.HasPrefix(rq.path, "/api/domain/") {
					continue // an empty string clears the redirect, documented
				}
				r := h.As(u, rq.method, rq.path, rq.body)
				if r.Status != 400 {
					t.Errorf("%s %s with %q: %d %.200s, want 400", rq.method, rq.path, target, r.Status, r.Body)
					continue
				}
				r.ExpectLinkError(400)
			}
		}
		if n := len(httpapitest.Items(h.As(u, "GET", "/api/urls", nil).ExpectList("urls"), "urls")); n != 1 {
			t.Fatalf("%d links stored, want 1", n)
		}
		if d := h.As(u, "GET", fmt.Sprintf("/api/url/%d", lid), nil).ExpectOK()["details"].(map[string]any); d["longurl"] != "https://example.com/ok" {
			t.Fatalf("the link's target is now %v", d["longurl"])
		}
		dom := httpapitest.Items(h.As(u, "GET", "/api/domains", nil).ExpectList("domains"), "domains")
		if len(dom) != 1 || dom[0].(map[string]any)["redirectroot"] != "" || dom[0].(map[string]any)["redirect404"] != "" {
			t.Fatalf("domains after refused redirects: %v", dom)
		}
		if q := string(h.As(u, "GET", fmt.Sprintf("/api/qr/%d", qid), nil).Expect(200).Body); !strings.Contains(q, "https://example.com/qr") {
			t.Fatalf("the QR code's target changed: %s", q)
		}
	})
}
