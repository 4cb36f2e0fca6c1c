package httpapi_test

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/challenge"
	"github.com/seedhq/portal/internal/webhook"
)

// gatewaySecret signs the test gateway's webhooks.
const gatewaySecret = "whsec_dGVzdC1nYXRld2F5LXNlY3JldC0zMi1ieXRlcyEh"

// withOrdering serves the ordering API over the harness's store, with the
// built-in proof-of-work challenge and the harness clock; ownerNumber's
// first login makes the owner.
func withOrdering(clk *clock, ownerNumber string) harnessOption {
	return func(c *harnessConfig) {
		prev := c.wrapStore
		c.wrapStore = func(st exam.Store) exam.Store {
			if prev != nil {
				st = prev(st)
			}
			os := st.(ordering.Store)
			key := []byte("ordering-test-key-of-32-bytes!!!")
			pow, err := challenge.NewPoW(key, challenge.WithMaxNumber(1000), challenge.WithClock(clk.Now), challenge.WithSpentStore(os))
			if err != nil {
				panic(err)
			}
			svc, err := ordering.NewService(os, ordering.Config{JWTKey: key, MessengerLinkBase: "https://wa.me/6281100000000",
				OwnerNumber: ownerNumber, Challenge: pow, Payments: ordering.SandboxPayments{BaseURL: "http://portal.test"}, Now: clk.Now}, nil)
			if err != nil {
				panic(err)
			}
			gw, err := webhook.NewVerifier([]string{gatewaySecret})
			if err != nil {
				panic(err)
			}
			c.opts.Ordering = &ordhttp.Options{Service: svc, PoW: pow, Gateway: gw, Now: clk.Now}
			return st
		}
	}
}

// orderingHarness returns a harness serving the ordering API.
func orderingHarness(t *testing.T, open func(*testing.T) exam.Store, owner string) *harness {
	t.Helper()
	clk := &clock{}
	h := newHarness(t, open, withOrdering(clk, owner))
	clk.now = h.clock.Now()
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
