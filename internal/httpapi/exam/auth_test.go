package exam_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

func TestLogin(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		token := h.Operator() // creates the admin and signs in once

		res := h.Req("POST", "/api/v1/auth/login", map[string]string{"username": "ADMIN", "password": httpapitest.AdminPassword}).Expect(200).M()
		httpapitest.HasFields(t, res, "success", "token", "expires_at", "user")
		if res["success"] != true || res["token"] == "" {
			t.Fatalf("login = %v", res)
		}
		user := res["user"].(map[string]any)
		if httpapitest.Keys(user) != "id,name,role,username" || user["username"] != httpapitest.AdminUser || user["role"] != "SUPER_ADMIN" {
			t.Fatalf("user = %v", user)
		}

		me := h.Req("GET", "/api/v1/auth/me", nil, httpapitest.Bearer(token)...).Expect(200).M()
		if me["user"].(map[string]any)["id"] != user["id"] {
			t.Fatalf("me = %v, want user %v", me, user["id"])
		}

		wrong := h.Req("POST", "/api/v1/auth/login", map[string]string{"username": httpapitest.AdminUser, "password": "wrong-password"}).
			ExpectError(401, "INVALID_CREDENTIALS")
		unknown := h.Req("POST", "/api/v1/auth/login", map[string]string{"username": "nobody", "password": "wrong-password"}).
			ExpectError(401, "INVALID_CREDENTIALS")
		if string(wrong.Body) != string(unknown.Body) {
			t.Fatalf("wrong password %s and unknown user %s answer differently", wrong.Body, unknown.Body)
		}

		h.Req("GET", "/api/v1/auth/me", nil).ExpectError(401, "UNAUTHORIZED")
		h.Req("GET", "/api/v1/auth/me", nil, httpapitest.Bearer("not-a-jwt")...).ExpectError(401, "UNAUTHORIZED")
	})
}

func TestLoginRateLimit(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		h.Operator()
		from := func(ip string) []string { return []string{"X-Forwarded-For", ip} }
		bad := map[string]string{"username": httpapitest.AdminUser, "password": "wrong-password"}
		good := map[string]string{"username": httpapitest.AdminUser, "password": httpapitest.AdminPassword}
		for i := 0; i < 5; i++ {
			h.Req("POST", "/api/v1/auth/login", bad, from("203.0.113.7")...).ExpectError(401, "INVALID_CREDENTIALS")
		}
		// The sixth attempt is refused even with the right password.
		res := h.Req("POST", "/api/v1/auth/login", good, from("203.0.113.7")...).ExpectError(429, "TOO_MANY_ATTEMPTS")
		secs, err := strconv.Atoi(res.Header.Get("Retry-After"))
		if err != nil || secs < 1 || secs > 15*60 {
			t.Fatalf("Retry-After = %q, want seconds up to 15 minutes", res.Header.Get("Retry-After"))
		}
		// Another client address (resolved through the trusted proxy) is not affected.
		h.Req("POST", "/api/v1/auth/login", good, from("203.0.113.8")...).Expect(200)
		// A forged header from an untrusted peer would not help either: the
		// proxy appends the real address, which is the right-most one.
		h.Req("POST", "/api/v1/auth/login", good, from("198.51.100.1, 203.0.113.7")...).ExpectError(429, "TOO_MANY_ATTEMPTS")

		// The window passes.
		h.Clock.Add(15*time.Minute + time.Second)
		h.Req("POST", "/api/v1/auth/login", good, from("203.0.113.7")...).Expect(200)
	}, httpapitest.WithTrustedProxies("127.0.0.0/8", "::1/128"))
}

func TestLoginIgnoresForwardedForFromUntrustedPeer(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		h.Operator()
		bad := map[string]string{"username": httpapitest.AdminUser, "password": "wrong-password"}
		for i := 0; i < 5; i++ {
			// Each claims another address; without trusted proxies they all count for the peer.
			h.Req("POST", "/api/v1/auth/login", bad, "X-Forwarded-For", "203.0.113."+strconv.Itoa(i)).
				ExpectError(401, "INVALID_CREDENTIALS")
		}
		h.Req("POST", "/api/v1/auth/login", bad, "X-Forwarded-For", "203.0.113.99").ExpectError(429, "TOO_MANY_ATTEMPTS")
	})
}
