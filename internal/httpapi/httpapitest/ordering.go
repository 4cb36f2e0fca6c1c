package httpapitest

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/challenge"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/webhook"
)

// ProviderSecret and ProviderOldSecret sign the test provider's webhooks
// (a rotation in progress).
const (
	ProviderSecret    = "provider-secret-new"
	ProviderOldSecret = "provider-secret-old"
)

// GatewaySecret signs the test gateway's webhooks.
const GatewaySecret = "whsec_dGVzdC1nYXRld2F5LXNlY3JldC0zMi1ieXRlcyEh"

// WithOrdering serves the ordering API over the harness's store, with the
// built-in proof-of-work challenge and the harness clock; ownerNumber's
// first login makes the owner; receipts go to proofDir.
func WithOrdering(clk *testkit.Clock, ownerNumber, proofDir string) Option {
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
			gw, err := webhook.NewVerifier([]string{GatewaySecret})
			if err != nil {
				panic(err)
			}
			c.opts.Ordering = &ordhttp.Options{Service: svc, PoW: pow, Gateway: gw, Now: clk.Now,
				ProviderSecrets: []string{ProviderSecret, ProviderOldSecret},
				Sandbox:         &ordhttp.Sandbox{ProviderSecret: ProviderSecret, MerchantID: "M-1"}}
			return st
		}
	}
}

// OrderingHarness returns a harness serving the ordering API, with the
// options given.
func OrderingHarness(t testing.TB, open func(testing.TB) exam.Store, owner string, options ...Option) *Harness {
	t.Helper()
	clk := testkit.NewClock(time.Time{})
	h := New(t, open, append(options, WithOrdering(clk, owner, t.TempDir()))...)
	clk.Set(h.Clock.Now())
	h.Clock = clk
	return h
}

// SolvedChallenge fetches and solves a challenge.
func (h *Harness) SolvedChallenge() string {
	h.T.Helper()
	var c challenge.Challenge
	h.Req("GET", "/api/auth/challenge", nil).Expect(200).Decode(&c)
	tok, err := challenge.Solve(c)
	if err != nil {
		h.T.Fatalf("solve: %v", err)
	}
	return tok
}

// StartLogin logs number in from the harness's client and returns the token.
func (h *Harness) StartLogin(number string) string {
	h.T.Helper()
	var ls struct {
		Success   bool   `json:"success"`
		Token     string `json:"token"`
		MagicLink string `json:"magicLink"`
		ExpiresIn int    `json:"expiresIn"`
	}
	h.Req("POST", "/api/auth/login", map[string]string{"messengerNumber": number, "challengeToken": h.SolvedChallenge()}).
		Expect(200).Decode(&ls)
	if !ls.Success || ls.ExpiresIn != 90 || !strings.HasPrefix(ls.Token, "tok_") {
		h.T.Fatalf("login: %+v", ls)
	}
	u, err := url.Parse(ls.MagicLink)
	if err != nil || u.Query().Get("text") != "VERIFY_"+ls.Token {
		h.T.Fatalf("magic link %q", ls.MagicLink)
	}
	return ls.Token
}

// Gateway delivers a signed inbound message.
func (h *Harness) Gateway(id, from, text string, hdr ...string) *Response {
	h.T.Helper()
	body, _ := json.Marshal(map[string]string{"from": from, "message": text})
	sig, err := webhook.Sign(GatewaySecret, id, h.Clock.Now(), body)
	if err != nil {
		h.T.Fatal(err)
	}
	return h.Req("POST", "/api/auth/gateway-webhook", body, append([]string{"Content-Type", "application/json",
		"webhook-id", id, "webhook-timestamp", strconv.FormatInt(h.Clock.Now().Unix(), 10), "webhook-signature", sig}, hdr...)...)
}

// OrderingLogin completes a login of number and returns the JWT.
func (h *Harness) OrderingLogin(number, from string) string {
	h.T.Helper()
	tok := h.StartLogin(number)
	h.Gateway("msg_"+tok, from, "VERIFY_"+tok).Expect(200)
	var p struct {
		Status string `json:"status"`
		Token  string `json:"token"`
	}
	h.Req("GET", "/api/auth/poll-status?token="+tok, nil).Expect(200).Decode(&p)
	if p.Status != "VERIFIED" || p.Token == "" {
		h.T.Fatalf("poll: %+v", p)
	}
	return p.Token
}

// OrderingUsers logs in a user of every role (the owner by the configured
// number, the others given their role by the owner) and returns their JWTs.
func (h *Harness) OrderingUsers() map[string]string {
	h.T.Helper()
	jwts := map[string]string{"OWNER": h.OrderingLogin("08110000001", "628110000001")}
	for i, role := range []string{"CUSTOMER", "STAFF", "ADMIN"} {
		number := "62812345678" + strconv.Itoa(90+i)
		jwts[role] = h.OrderingLogin(number, number)
		if role == "CUSTOMER" {
			continue
		}
		var me struct{ User struct{ ID string } }
		h.Req("GET", "/api/auth/me", nil, Bearer(jwts[role])...).Expect(200).Decode(&me)
		h.Req("PUT", "/api/users/"+me.User.ID+"/role", map[string]any{"role": role}, Bearer(jwts["OWNER"])...).Expect(200)
	}
	return jwts
}

// TinyPNG is a 1×1 PNG.
var TinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
	"\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

// UploadProof posts a receipt as multipart/form-data.
func (h *Harness) UploadProof(jwt, orderID string, image []byte) *Response {
	h.T.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.WriteField("orderId", orderID)
	mw.WriteField("bankInfo", "BCA 1234567890 a.n. Ani")
	fw, _ := mw.CreateFormFile("paymentProof", "receipt.png")
	fw.Write(image)
	mw.Close()
	return h.Req("POST", "/api/payments/upload-proof", b.Bytes(), append(Bearer(jwt), "Content-Type", mw.FormDataContentType())...)
}

// ProviderCall posts a provider notification signed with secret.
func (h *Harness) ProviderCall(secret string, n map[string]any) *Response {
	h.T.Helper()
	body, _ := json.Marshal(n)
	return h.Req("POST", "/api/payments/provider-webhook", body, "Content-Type", "application/json",
		"x-provider-signature", webhook.SignHex(secret, body))
}
