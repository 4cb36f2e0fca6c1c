package httpapi_test

// The security suite (docs/security.md) drives the real router, serving the
// exam, link and ordering APIs at once over one store, on every store. Every
// response of the suite passes through a scanning transport that fails the
// test when a body carries a forbidden field name or value (a password or
// key hash, a secret of the portal's configuration, an answer key).

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/testkit"
)

// secOwnerNumber is the messenger number whose first login makes the
// ordering API's owner in the security harness.
const secOwnerNumber = "628110000001"

// Keys the harnesses sign with (internal/httpapi/httpapitest): the
// suite forges tokens with them to prove that a validly signed token is
// still refused when its algorithm, audience, issuer or expiry is wrong.
const (
	examJWTSecret  = "test-secret-of-at-least-32-bytes!!"
	orderingJWTKey = "ordering-test-key-of-32-bytes!!!"
)

// secHarness serves the three APIs from one router over one store.
type secHarness struct {
	*httpapitest.LinksHarness
	scan *bodyScanner
	// examClock is the exam service's clock; h.clock is the one of the
	// link and ordering services.
	examClock *testkit.Clock
}

// advanceAll moves the clocks of the three APIs forward by d.
func (h *secHarness) advanceAll(d time.Duration) {
	h.examClock.Add(d)
	h.Clock.Add(d)
}

// newSecHarness builds a portal router with the exam, link and ordering
// APIs over a store from open, whose every response is scanned.
func newSecHarness(t *testing.T, open func(testing.TB) exam.Store) *secHarness {
	t.Helper()
	clk := testkit.NewClock(time.Time{})
	var linkSvc *links.Service
	h := httpapitest.New(t, func(t testing.TB) exam.Store {
		st := open(t)
		if _, ok := st.(links.Store); !ok {
			t.Fatalf("the store %T does not serve the link API", st)
		}
		return st
	}, httpapitest.WithOrdering(clk, secOwnerNumber, t.TempDir()), httpapitest.WithLinks(clk, &linkSvc))
	examClock := h.Clock
	clk.Set(h.Clock.Now())
	h.Clock = clk
	scan := &bodyScanner{t: t, base: h.Server.Client().Transport}
	h.Client = &http.Client{Transport: scan}
	return &secHarness{LinksHarness: &httpapitest.LinksHarness{Harness: h, Links: linkSvc}, scan: scan, examClock: examClock}
}

// forEachSecStore runs fn against a security harness on every store.
func forEachSecStore(t *testing.T, fn func(t *testing.T, h *secHarness)) {
	for _, so := range httpapitest.StoreOpeners() {
		t.Run(so.Name, func(t *testing.T) {
			fn(t, newSecHarness(t, so.Open))
		})
	}
}

// forbiddenInBodies are field names and values no response body of any API
// may carry: hashes of passwords and keys (bcrypt, the PBKDF2 exam password
// hashes), answer keys, and the secrets the harness configures.
var forbiddenInBodies = []string{
	`"password_hash"`, `"passwordHash"`, `"PasswordHash"`, `"exam_password_hash"`, `"ExamPasswordHash"`,
	`"key_hash"`, `"keyHash"`, `"KeyHash"`, `"answer_key"`, `"answerKey"`,
	"$2a$", "$2b$", "$2y$", "pbkdf2-sha256$",
	examJWTSecret, orderingJWTKey, httpapitest.GatewaySecret, httpapitest.ProviderSecret, httpapitest.ProviderOldSecret, httpapitest.AdminPassword,
}

// bodyScanner is an http.RoundTripper that reads every response body,
// fails the test when it holds a forbidden string, and hands the body on.
type bodyScanner struct {
	t    *testing.T
	base http.RoundTripper
	// extra are strings forbidden from now on (another user's markers).
	extra []string
	seen  int
}

// RoundTrip implements http.RoundTripper.
func (s *bodyScanner) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	s.seen++
	for _, f := range append(forbiddenInBodies, s.extra...) {
		if bytes.Contains(body, []byte(f)) {
			s.t.Errorf("%s %s answered %d with a body holding the forbidden %q: %.300s", req.Method, req.URL.RequestURI(),
				resp.StatusCode, f, body)
		}
	}
	return resp, nil
}

// forbid adds strings that no later response may carry.
func (s *bodyScanner) forbid(values ...string) { s.extra = append(s.extra, values...) }

// allow removes strings added by forbid.
func (s *bodyScanner) allow() { s.extra = nil }

// forgeJWT signs claims with method and key; with jwt.SigningMethodNone it
// makes an unsigned token.
func forgeJWT(t testing.TB, method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	if method == jwt.SigningMethodNone {
		key = jwt.UnsafeAllowNoneSignatureType
	}
	tok, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatalf("forge a token: %v", err)
	}
	return tok
}

// jwtVariants returns tokens that must all be refused where good (the
// claims of a valid token) would be accepted: unsigned (alg none), signed
// with another key, HS384 with the right key, expired, not yet valid, of
// another audience and issuer, without expiry, and with the signature cut.
func jwtVariants(t testing.TB, key string, good jwt.MapClaims, now time.Time) map[string]string {
	t.Helper()
	with := func(k string, v any) jwt.MapClaims {
		c := jwt.MapClaims{}
		for kk, vv := range good {
			c[kk] = vv
		}
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	valid := forgeJWT(t, jwt.SigningMethodHS256, []byte(key), good)
	return map[string]string{
		"alg none":            forgeJWT(t, jwt.SigningMethodNone, nil, good),
		"alg none, signature": strings.Join(strings.Split(forgeJWT(t, jwt.SigningMethodNone, nil, good), ".")[:2], ".") + "." + strings.Split(valid, ".")[2],
		"wrong key":           forgeJWT(t, jwt.SigningMethodHS256, []byte("another-secret-of-at-least-32-bytes"), good),
		"HS384 right key":     forgeJWT(t, jwt.SigningMethodHS384, []byte(key), good),
		"expired":             forgeJWT(t, jwt.SigningMethodHS256, []byte(key), with("exp", now.Add(-time.Minute).Unix())),
		"not yet valid":       forgeJWT(t, jwt.SigningMethodHS256, []byte(key), with("nbf", now.Add(time.Hour).Unix())),
		"wrong audience":      forgeJWT(t, jwt.SigningMethodHS256, []byte(key), with("aud", "someone-else")),
		"no audience":         forgeJWT(t, jwt.SigningMethodHS256, []byte(key), with("aud", nil)),
		"wrong issuer":        forgeJWT(t, jwt.SigningMethodHS256, []byte(key), with("iss", "evil")),
		"no expiry":           forgeJWT(t, jwt.SigningMethodHS256, []byte(key), with("exp", nil)),
		"signature cut":       valid[:strings.LastIndexByte(valid, '.')+1],
		"payload edited":      editJWTPayload(valid),
	}
}

// editJWTPayload flips one character in the middle of a token's payload.
func editJWTPayload(tok string) string {
	parts := strings.Split(tok, ".")
	p := []byte(parts[1])
	i := len(p) / 2
	if p[i] == 'A' {
		p[i] = 'B'
	} else {
		p[i] = 'A'
	}
	parts[1] = string(p)
	return strings.Join(parts, ".")
}
