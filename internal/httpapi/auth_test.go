package httpapi_test

import (
	"strconv"
	"testing"
	"time"
)

func TestLogin(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		token := h.operator() // creates the admin and signs in once

		res := h.req("POST", "/api/v1/auth/login", map[string]string{"username": "ADMIN", "password": adminPassword}).expect(200).m()
		hasFields(t, res, "success", "token", "expires_at", "user")
		if res["success"] != true || res["token"] == "" {
			t.Fatalf("login = %v", res)
		}
		user := res["user"].(map[string]any)
		if keys(user) != "id,name,role,username" || user["username"] != adminUser || user["role"] != "SUPER_ADMIN" {
			t.Fatalf("user = %v", user)
		}

		me := h.req("GET", "/api/v1/auth/me", nil, bearer(token)...).expect(200).m()
		if me["user"].(map[string]any)["id"] != user["id"] {
			t.Fatalf("me = %v, want user %v", me, user["id"])
		}

		wrong := h.req("POST", "/api/v1/auth/login", map[string]string{"username": adminUser, "password": "wrong-password"}).
			expectError(401, "INVALID_CREDENTIALS")
		unknown := h.req("POST", "/api/v1/auth/login", map[string]string{"username": "nobody", "password": "wrong-password"}).
			expectError(401, "INVALID_CREDENTIALS")
		if string(wrong.body) != string(unknown.body) {
			t.Fatalf("wrong password %s and unknown user %s answer differently", wrong.body, unknown.body)
		}

		h.req("GET", "/api/v1/auth/me", nil).expectError(401, "UNAUTHORIZED")
		h.req("GET", "/api/v1/auth/me", nil, bearer("not-a-jwt")...).expectError(401, "UNAUTHORIZED")
	})
}

func TestLoginRateLimit(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		h.operator()
		from := func(ip string) []string { return []string{"X-Forwarded-For", ip} }
		bad := map[string]string{"username": adminUser, "password": "wrong-password"}
		good := map[string]string{"username": adminUser, "password": adminPassword}
		for i := 0; i < 5; i++ {
			h.req("POST", "/api/v1/auth/login", bad, from("203.0.113.7")...).expectError(401, "INVALID_CREDENTIALS")
		}
		// The sixth attempt is refused even with the right password.
		res := h.req("POST", "/api/v1/auth/login", good, from("203.0.113.7")...).expectError(429, "TOO_MANY_ATTEMPTS")
		secs, err := strconv.Atoi(res.header.Get("Retry-After"))
		if err != nil || secs < 1 || secs > 15*60 {
			t.Fatalf("Retry-After = %q, want seconds up to 15 minutes", res.header.Get("Retry-After"))
		}
		// Another client address (resolved through the trusted proxy) is not affected.
		h.req("POST", "/api/v1/auth/login", good, from("203.0.113.8")...).expect(200)
		// A forged header from an untrusted peer would not help either: the
		// proxy appends the real address, which is the right-most one.
		h.req("POST", "/api/v1/auth/login", good, from("198.51.100.1, 203.0.113.7")...).expectError(429, "TOO_MANY_ATTEMPTS")

		// The window passes.
		h.clock.Add(15*time.Minute + time.Second)
		h.req("POST", "/api/v1/auth/login", good, from("203.0.113.7")...).expect(200)
	}, withTrustedProxies("127.0.0.0/8", "::1/128"))
}

func TestLoginIgnoresForwardedForFromUntrustedPeer(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		h.operator()
		bad := map[string]string{"username": adminUser, "password": "wrong-password"}
		for i := 0; i < 5; i++ {
			// Each claims another address; without trusted proxies they all count for the peer.
			h.req("POST", "/api/v1/auth/login", bad, "X-Forwarded-For", "203.0.113."+strconv.Itoa(i)).
				expectError(401, "INVALID_CREDENTIALS")
		}
		h.req("POST", "/api/v1/auth/login", bad, "X-Forwarded-For", "203.0.113.99").expectError(429, "TOO_MANY_ATTEMPTS")
	})
}
