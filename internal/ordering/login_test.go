package ordering_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/store/bolt"
)

var errChallenge = apperr.New(apperr.Forbidden, "CHALLENGE_FAILED", "bad challenge")

// okChallenge accepts the challenge token "ok".
type okChallenge struct{}

func (okChallenge) Verify(_ context.Context, token, _ string) error {
	if token != "ok" {
		return errChallenge
	}
	return nil
}

// clock is a settable fake clock.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

var key = []byte("0123456789abcdef0123456789abcdef")

func newService(t *testing.T, owner string) (*ordering.Service, *clock) {
	t.Helper()
	svc, c, _ := newServiceStore(t, owner)
	return svc, c
}

// newServiceStore is newService that also returns the store.
func newServiceStore(t *testing.T, owner string) (*ordering.Service, *clock, *bolt.Store) {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := &clock{now: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)}
	svc, err := ordering.NewService(st, ordering.Config{JWTKey: key, MessengerLinkBase: "https://wa.me/6281100000000",
		OwnerNumber: owner, Challenge: okChallenge{}, Payments: ordering.SandboxPayments{BaseURL: "http://portal.test"},
		Blobs: st.Blobs(), MerchantID: "M-1", Now: c.Now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return svc, c, st
}

func mustLogin(t *testing.T, svc *ordering.Service, number, addr string) ordering.LoginStart {
	t.Helper()
	ls, err := svc.Login(t.Context(), number, "ok", addr)
	if err != nil {
		t.Fatalf("Login %s from %s: %v", number, addr, err)
	}
	return ls
}

// TestLoginFlow: a login, its magic link, polls before and after the
// verification message, the JWT handed out once and accepted.
func TestLoginFlow(t *testing.T) {
	ctx := t.Context()
	svc, c := newService(t, "")
	ls := mustLogin(t, svc, "0812-3456-7890", "192.0.2.1")
	if !strings.HasPrefix(ls.Token, "tok_") || ls.ExpiresIn != 90 {
		t.Fatalf("login: %+v", ls)
	}
	link, err := url.Parse(ls.MagicLink)
	if err != nil || link.Host != "wa.me" || link.Path != "/6281100000000" || link.Query().Get("text") != "VERIFY_"+ls.Token {
		t.Fatalf("magic link %q", ls.MagicLink)
	}
	c.now = c.now.Add(10 * time.Second)
	p, err := svc.Poll(ctx, ls.Token, "192.0.2.1")
	if err != nil || p.Status != ordering.LoginPending || p.ExpiresIn != 80 || p.JWT != "" {
		t.Fatalf("poll before verification: %+v %v", p, err)
	}
	if _, _, err := svc.Inbound(ctx, "6289999999999", "VERIFY_"+ls.Token); !errors.Is(err, ordering.ErrNumberMismatch) {
		t.Fatalf("inbound from another number: %v, want ErrNumberMismatch", err)
	}
	res, u, err := svc.Inbound(ctx, "6281234567890@c.us", "Hi! VERIFY_"+ls.Token)
	if err != nil || res != ordering.InboundVerified || u.Role != ordering.RoleCustomer || u.MessengerNumber != "6281234567890" {
		t.Fatalf("inbound: %s %+v %v", res, u, err)
	}
	if res, _, err := svc.Inbound(ctx, "6281234567890", "VERIFY_"+ls.Token); err != nil || res != ordering.InboundAlreadyProcessed {
		t.Fatalf("inbound again: %s %v", res, err)
	}
	p, err = svc.Poll(ctx, ls.Token, "192.0.2.1")
	if err != nil || p.Status != ordering.LoginVerified || p.JWT == "" || p.User.ID != u.ID {
		t.Fatalf("poll after verification: %+v %v", p, err)
	}
	if _, err := svc.Poll(ctx, ls.Token, "192.0.2.1"); !errors.Is(err, ordering.ErrTokenUsed) {
		t.Fatalf("second poll: %v, want ErrTokenUsed", err)
	}
	got, err := svc.Authenticate(ctx, p.JWT)
	if err != nil || got.ID != u.ID {
		t.Fatalf("Authenticate: %+v %v", got, err)
	}
	if _, err := svc.Poll(ctx, "tok_AAAAAAAAAAAAAAAAAAAAAAAAAA", "192.0.2.1"); !errors.Is(err, ordering.ErrTokenNotFound) {
		t.Fatalf("poll of an unknown token: %v", err)
	}
	if _, err := svc.Poll(ctx, "garbage", "192.0.2.1"); !errors.Is(err, ordering.ErrTokenNotFound) {
		t.Fatalf("poll of garbage: %v", err)
	}
}

// TestLoginExpiry: after 90 seconds a token polls EXPIRED and its message
// is refused.
func TestLoginExpiry(t *testing.T) {
	ctx := t.Context()
	svc, c := newService(t, "")
	ls := mustLogin(t, svc, "081234567890", "192.0.2.1")
	c.now = c.now.Add(ordering.LoginTTL)
	if p, err := svc.Poll(ctx, ls.Token, "192.0.2.1"); err != nil || p.Status != ordering.LoginExpired {
		t.Fatalf("poll: %+v %v, want EXPIRED", p, err)
	}
	if _, _, err := svc.Inbound(ctx, "6281234567890", "VERIFY_"+ls.Token); !errors.Is(err, ordering.ErrTokenExpired) {
		t.Fatalf("inbound after expiry: %v, want ErrTokenExpired", err)
	}
}

// TestLoginRefusals: invalid numbers and challenges are refused before any
// attempt counts.
func TestLoginRefusals(t *testing.T) {
	svc, _ := newService(t, "")
	if _, err := svc.Login(t.Context(), "12", "ok", "192.0.2.1"); !errors.Is(err, ordering.ErrInvalidNumber) {
		t.Fatalf("invalid number: %v", err)
	}
	if _, err := svc.Login(t.Context(), "081234567890", "bad", "192.0.2.1"); !errors.Is(err, errChallenge) {
		t.Fatalf("bad challenge: %v", err)
	}
}

// TestOwnerNumber: the configured owner number's first login makes an OWNER.
func TestOwnerNumber(t *testing.T) {
	svc, _ := newService(t, "+62 811-0000-001")
	ls := mustLogin(t, svc, "08110000001", "192.0.2.1")
	_, u, err := svc.Inbound(t.Context(), "628110000001", "VERIFY_"+ls.Token)
	if err != nil || u.Role != ordering.RoleOwner {
		t.Fatalf("owner login: %+v %v", u, err)
	}
}

// TestLoginBans: the ladder through Login, and the lock-out defence: a
// stranger's three unverified logins ban the number and the stranger's
// address; a message from the number lifts the number's ban, so the
// customer logs in from home while the stranger's address stays banned.
func TestLoginBans(t *testing.T) {
	ctx := t.Context()
	svc, c := newService(t, "")
	const victim, stranger, home = "081234567890", "198.51.100.7", "192.0.2.1"
	for range ordering.MaxUnverified {
		mustLogin(t, svc, victim, stranger)
		c.now = c.now.Add(time.Second)
	}
	_, err := svc.Login(ctx, victim, "ok", stranger)
	var be *apperr.RetryAfterError
	if !errors.As(err, &be) || !errors.Is(err, ordering.ErrBanned) || be.RetryAfter != time.Hour {
		t.Fatalf("fourth login: %v, want a ban for an hour", err)
	}
	if _, err := svc.Login(ctx, victim, "ok", home); !errors.Is(err, ordering.ErrBanned) {
		t.Fatalf("the banned number from another address: %v, want ErrBanned", err)
	}
	// The customer messages the shop: the number is proven.
	if res, _, err := svc.Inbound(ctx, "6281234567890", "Hello"); err != nil || res != ordering.InboundRecorded {
		t.Fatalf("plain inbound: %s %v", res, err)
	}
	ls := mustLogin(t, svc, victim, home)
	if _, _, err := svc.Inbound(ctx, "6281234567890", "VERIFY_"+ls.Token); err != nil {
		t.Fatalf("verify: %v", err)
	}
	// The stranger's address counted its 4 attempts, short of an
	// address's limit (it is often shared); spraying numbers bans it.
	for i := 4; i < ordering.MaxUnverifiedAddress; i++ {
		mustLogin(t, svc, fmt.Sprintf("0812%08d", i), stranger)
	}
	_, err = svc.Login(ctx, "081298765432", "ok", stranger)
	if !errors.As(err, &be) || be.RetryAfter != time.Hour {
		t.Fatalf("stranger past the address limit: %v, want a level 1 ban", err)
	}
	_, err = svc.Login(ctx, "081298765433", "ok", stranger)
	if !errors.As(err, &be) || be.RetryAfter != ordering.Level2Ban {
		t.Fatalf("stranger again: %v, want a level 2 ban", err)
	}
	c.now = c.now.Add(ordering.Level2Ban / 2)
	_, err = svc.Login(ctx, "081298765434", "ok", stranger)
	if !errors.As(err, &be) || !errors.Is(err, ordering.ErrBanned) || be.RetryAfter <= 0 {
		t.Fatalf("stranger during level 2: %v, want still level 2 (an address is never banned for good)", err)
	}
	// A number that keeps trying through its bans is banned for good.
	for range ordering.MaxUnverified {
		mustLogin(t, svc, "081234567899", home)
	}
	for _, want := range []error{ordering.ErrBanned, ordering.ErrBanned, ordering.ErrBannedPermanently} {
		if _, err := svc.Login(ctx, "081234567899", "ok", home); !errors.Is(err, want) {
			t.Fatalf("a number pushing through its bans: %v, want %v", err, want)
		}
	}
	bans, err := svc.Bans(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var permanent string
	for _, b := range bans {
		if b.Level == 3 && b.Value == "6281234567899" {
			permanent = b.ID
		}
	}
	if permanent == "" {
		t.Fatalf("Bans: no level 3 record of the number: %+v", bans)
	}
	if err := svc.LiftBan(ctx, permanent); err != nil {
		t.Fatalf("LiftBan: %v", err)
	}
	mustLogin(t, svc, "081234567899", home)
}

// TestAuthenticateRefusals: tokens of another audience, another key, an
// unpinned algorithm or past expiry are refused.
func TestAuthenticateRefusals(t *testing.T) {
	ctx := t.Context()
	svc, c := newService(t, "")
	ls := mustLogin(t, svc, "081234567890", "192.0.2.1")
	if _, _, err := svc.Inbound(ctx, "6281234567890", "VERIFY_"+ls.Token); err != nil {
		t.Fatal(err)
	}
	p, err := svc.Poll(ctx, ls.Token, "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	sub := p.User.ID
	sign := func(method jwt.SigningMethod, k any, claims jwt.MapClaims) string {
		s, err := jwt.NewWithClaims(method, claims).SignedString(k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	exp := c.now.Add(time.Hour).Unix()
	for name, tok := range map[string]string{
		"exam audience": sign(jwt.SigningMethodHS256, key, jwt.MapClaims{"iss": "portal", "aud": "operator", "sub": sub, "exp": exp}),
		"other key":     sign(jwt.SigningMethodHS256, []byte("another key of thirty-two bytes!!"), jwt.MapClaims{"iss": "portal", "aud": "ordering", "sub": sub, "exp": exp}),
		"HS512":         sign(jwt.SigningMethodHS512, key, jwt.MapClaims{"iss": "portal", "aud": "ordering", "sub": sub, "exp": exp}),
		"none":          sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, jwt.MapClaims{"iss": "portal", "aud": "ordering", "sub": sub, "exp": exp}),
		"no expiry":     sign(jwt.SigningMethodHS256, key, jwt.MapClaims{"iss": "portal", "aud": "ordering", "sub": sub}),
		"unknown user":  sign(jwt.SigningMethodHS256, key, jwt.MapClaims{"iss": "portal", "aud": "ordering", "sub": "nobody", "exp": exp}),
		"empty":         "",
	} {
		if _, err := svc.Authenticate(ctx, tok); !errors.Is(err, ordering.ErrUnauthorized) {
			t.Errorf("%s: %v, want ErrUnauthorized", name, err)
		}
	}
	c.now = c.now.Add(8 * 24 * time.Hour)
	if _, err := svc.Authenticate(ctx, p.JWT); !errors.Is(err, ordering.ErrUnauthorized) {
		t.Errorf("expired: %v, want ErrUnauthorized", err)
	}
}

// TestPollLimits: a token polled more than PollsPerToken times in a minute
// is refused with the wait until the next minute; so is an address past
// PollsPerAddress, whatever the tokens.
func TestPollLimits(t *testing.T) {
	ctx := t.Context()
	svc, c := newService(t, "")
	ls := mustLogin(t, svc, "081234567890", "192.0.2.1")
	c.now = c.now.Add(15 * time.Second)
	for i := range ordering.PollsPerToken {
		if _, err := svc.Poll(ctx, ls.Token, "192.0.2.1"); err != nil {
			t.Fatalf("poll %d: %v", i, err)
		}
	}
	_, err := svc.Poll(ctx, ls.Token, "192.0.2.1")
	var ra *apperr.RetryAfterError
	if !errors.As(err, &ra) || !errors.Is(err, ordering.ErrTooManyPolls) || ra.RetryAfter != 45*time.Second {
		t.Fatalf("poll past the limit: %v, want ErrTooManyPolls for 45s", err)
	}
	c.now = c.now.Add(45 * time.Second)
	if _, err := svc.Poll(ctx, ls.Token, "192.0.2.1"); err != nil {
		t.Fatalf("poll in the next minute: %v", err)
	}
	const b32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	for i := range ordering.PollsPerAddress - 1 {
		unknown := "tok_" + string(b32[i%32]) + string(b32[i/32]) + strings.Repeat("A", 24)
		if _, err := svc.Poll(ctx, unknown, "198.51.100.1"); !errors.Is(err, ordering.ErrTokenNotFound) {
			t.Fatalf("poll %d of unknown tokens: %v", i, err)
		}
	}
	if _, err := svc.Poll(ctx, "tok_AAAAAAAAAAAAAAAAAAAAAAAAAA", "198.51.100.1"); !errors.Is(err, ordering.ErrTokenNotFound) {
		t.Fatalf("last allowed poll: %v", err)
	}
	if _, err := svc.Poll(ctx, ls.Token, "198.51.100.1"); !errors.Is(err, ordering.ErrTooManyPolls) {
		t.Fatalf("address past the limit: %v, want ErrTooManyPolls", err)
	}
}

// TestGatewayMessageReplay: a webhook id is handled once.
func TestGatewayMessageReplay(t *testing.T) {
	ctx := t.Context()
	svc, _ := newService(t, "")
	ls := mustLogin(t, svc, "081234567890", "192.0.2.1")
	res, _, err := svc.GatewayMessage(ctx, "msg_1", "6281234567890", "VERIFY_"+ls.Token)
	if err != nil || res != ordering.InboundVerified {
		t.Fatalf("first: %s %v", res, err)
	}
	res, _, err = svc.GatewayMessage(ctx, "msg_1", "6289999999999", "VERIFY_"+ls.Token)
	if err != nil || res != ordering.InboundAlreadyProcessed {
		t.Fatalf("replay: %s %v, want ALREADY_PROCESSED and nothing done", res, err)
	}
}
