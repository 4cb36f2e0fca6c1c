package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/webhook"
)

var (
	// newKey is the current key, given in its whsec_ form as newSecret.
	newKey    = []byte("current-gateway-key-0123456789")
	newSecret = "whsec_" + base64.StdEncoding.EncodeToString(newKey)
	// oldSecret is a raw secret being rotated out.
	oldSecret = "previous-gateway-secret-abcdef"
	msgID     = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W"
	body      = []byte(`{"from":"+6281234567890","message":"VERIFY_abc123"}`)
	now       = time.Unix(1_700_000_000, 0)
)

// MustHeaders returns the Standard Webhooks headers for body signed with secret.
func MustHeaders(t testing.TB, secret, id string, ts time.Time, body []byte) http.Header {
	t.Helper()
	h := http.Header{}
	if err := webhook.SetHeaders(h, secret, id, ts, body); err != nil {
		t.Fatalf("SetHeaders: %v", err)
	}
	return h
}

// MustVerifier returns a Verifier for secrets.
func MustVerifier(t testing.TB, secrets []string, opts ...webhook.Option) *webhook.Verifier {
	t.Helper()
	v, err := webhook.NewVerifier(secrets, opts...)
	if err != nil {
		t.Fatalf("NewVerifier: %v", err)
	}
	return v
}

func TestVerify(t *testing.T) {
	// nonCanonical encodes the same bytes as sig with non-zero padding bits,
	// which a lenient base64 decoder would accept.
	nonCanonical := func(sig string) string {
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
		i := len(sig) - 2 // the last data character, before "="
		return sig[:i] + string(alphabet[strings.IndexByte(alphabet, sig[i])+1]) + sig[i+1:]
	}
	tol := webhook.DefaultTolerance

	tests := []struct {
		name    string
		secrets []string          // the verifier's; default newSecret and oldSecret
		signer  string            // the secret that signs; default newSecret
		ts      time.Time         // signing time; default now
		body    []byte            // body presented to Verify; default body
		edit    func(http.Header) // applied to the signed headers
		want    error
	}{
		{name: "whsec secret"},
		{name: "raw secret", secrets: []string{oldSecret}, signer: oldSecret},
		{name: "rotation: new secret", secrets: []string{newSecret, oldSecret}},
		{name: "rotation: old secret", secrets: []string{newSecret, oldSecret}, signer: oldSecret},
		{name: "retired secret", secrets: []string{newSecret}, signer: oldSecret, want: webhook.ErrBadSignature},
		{name: "wrong secret", signer: "whsec_" + base64.StdEncoding.EncodeToString([]byte("someone else's key")), want: webhook.ErrBadSignature},
		{
			name: "raw secret is not base64-decoded", secrets: []string{base64.StdEncoding.EncodeToString(newKey)},
			want: webhook.ErrBadSignature,
		},
		{name: "tampered body", body: []byte(`{"from":"+6289999999999","message":"VERIFY_abc123"}`), want: webhook.ErrBadSignature},
		{name: "tampered id", edit: func(h http.Header) { h.Set(webhook.HeaderID, "msg_other") }, want: webhook.ErrBadSignature},
		{
			name: "tampered timestamp",
			edit: func(h http.Header) { h.Set(webhook.HeaderTimestamp, strconv.FormatInt(now.Unix()+1, 10)) },
			want: webhook.ErrBadSignature,
		},
		{name: "missing id", edit: func(h http.Header) { h.Del(webhook.HeaderID) }, want: webhook.ErrMissingHeaders},
		{name: "missing timestamp", edit: func(h http.Header) { h.Del(webhook.HeaderTimestamp) }, want: webhook.ErrMissingHeaders},
		{name: "missing signature", edit: func(h http.Header) { h.Del(webhook.HeaderSignature) }, want: webhook.ErrMissingHeaders},
		{name: "blank signature", edit: func(h http.Header) { h.Set(webhook.HeaderSignature, "  ") }, want: webhook.ErrMissingHeaders},
		{name: "id with a dot", edit: func(h http.Header) { h.Set(webhook.HeaderID, "msg.1") }, want: webhook.ErrMissingHeaders},
		{name: "timestamp not a number", edit: func(h http.Header) { h.Set(webhook.HeaderTimestamp, "yesterday") }, want: webhook.ErrMissingHeaders},
		{
			name: "timestamp with leading zero",
			edit: func(h http.Header) { h.Set(webhook.HeaderTimestamp, "0"+h.Get(webhook.HeaderTimestamp)) },
			want: webhook.ErrMissingHeaders,
		},
		{
			name: "timestamp with plus sign",
			edit: func(h http.Header) { h.Set(webhook.HeaderTimestamp, "+"+h.Get(webhook.HeaderTimestamp)) },
			want: webhook.ErrMissingHeaders,
		},
		{name: "negative timestamp", edit: func(h http.Header) { h.Set(webhook.HeaderTimestamp, "-1") }, want: webhook.ErrMissingHeaders},
		{name: "timestamp in milliseconds", edit: func(h http.Header) { h.Set(webhook.HeaderTimestamp, "1700000000000") }, want: webhook.ErrStaleTimestamp},
		{name: "past, just inside", ts: now.Add(-tol)},
		{name: "past, just outside", ts: now.Add(-tol - time.Second), want: webhook.ErrStaleTimestamp},
		{name: "future, just inside", ts: now.Add(tol)},
		{name: "future, just outside", ts: now.Add(tol + time.Second), want: webhook.ErrStaleTimestamp},
		{name: "a day old", ts: now.Add(-24 * time.Hour), want: webhook.ErrStaleTimestamp},
		{
			name: "several signatures, one valid",
			edit: func(h http.Header) {
				sig := h.Get(webhook.HeaderSignature)
				h.Set(webhook.HeaderSignature, "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v1a,AAAA "+sig+" v1,!!!")
			},
		},
		{
			name: "valid signature in a second header line",
			edit: func(h http.Header) {
				sig := h.Get(webhook.HeaderSignature)
				h.Set(webhook.HeaderSignature, "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=")
				h.Add(webhook.HeaderSignature, sig)
			},
		},
		{
			name: "several signatures, none valid",
			edit: func(h http.Header) {
				h.Set(webhook.HeaderSignature, "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=")
			},
			want: webhook.ErrBadSignature,
		},
		{
			name: "wrong version prefix",
			edit: func(h http.Header) {
				h.Set(webhook.HeaderSignature, "v2,"+strings.TrimPrefix(h.Get(webhook.HeaderSignature), "v1,"))
			},
			want: webhook.ErrBadSignature,
		},
		{
			name: "asymmetric version prefix",
			edit: func(h http.Header) {
				h.Set(webhook.HeaderSignature, "v1a,"+strings.TrimPrefix(h.Get(webhook.HeaderSignature), "v1,"))
			},
			want: webhook.ErrBadSignature,
		},
		{
			name: "no version prefix",
			edit: func(h http.Header) {
				h.Set(webhook.HeaderSignature, strings.TrimPrefix(h.Get(webhook.HeaderSignature), "v1,"))
			},
			want: webhook.ErrBadSignature,
		},
		{name: "malformed base64", edit: func(h http.Header) { h.Set(webhook.HeaderSignature, "v1,not*base64") }, want: webhook.ErrBadSignature},
		{name: "empty signature after the prefix", edit: func(h http.Header) { h.Set(webhook.HeaderSignature, "v1,") }, want: webhook.ErrBadSignature},
		{
			name: "truncated signature",
			edit: func(h http.Header) { h.Set(webhook.HeaderSignature, h.Get(webhook.HeaderSignature)[:20]) },
			want: webhook.ErrBadSignature,
		},
		{
			name: "non-canonical base64",
			edit: func(h http.Header) { h.Set(webhook.HeaderSignature, nonCanonical(h.Get(webhook.HeaderSignature))) },
			want: webhook.ErrBadSignature,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secrets, signer, ts, b := tt.secrets, tt.signer, tt.ts, tt.body
			if secrets == nil {
				secrets = []string{newSecret, oldSecret}
			}
			if signer == "" {
				signer = newSecret
			}
			if ts.IsZero() {
				ts = now
			}
			if b == nil {
				b = body
			}
			h := MustHeaders(t, signer, msgID, ts, body)
			if tt.edit != nil {
				tt.edit(h)
			}
			id, err := MustVerifier(t, secrets).Verify(h, b, now)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
			if wantID := h.Get(webhook.HeaderID); err == nil && id != wantID {
				t.Errorf("Verify id = %q, want %q", id, wantID)
			}
		})
	}
	t.Run("sanity: nonCanonical decodes to the same bytes", func(t *testing.T) {
		sig := strings.TrimPrefix(MustHeaders(t, newSecret, msgID, now, body).Get(webhook.HeaderSignature), "v1,")
		a, errA := base64.StdEncoding.DecodeString(sig)
		b, errB := base64.StdEncoding.DecodeString(nonCanonical(sig))
		if errA != nil || errB != nil || string(a) != string(b) || sig == nonCanonical(sig) {
			t.Fatalf("nonCanonical(%q) = %q does not alias it", sig, nonCanonical(sig))
		}
	})
}

func TestWithTolerance(t *testing.T) {
	v := MustVerifier(t, []string{newSecret}, webhook.WithTolerance(time.Minute))
	if _, err := v.Verify(MustHeaders(t, newSecret, msgID, now.Add(-time.Minute), body), body, now); err != nil {
		t.Errorf("Verify at the tolerance: %v", err)
	}
	_, err := v.Verify(MustHeaders(t, newSecret, msgID, now.Add(-2*time.Minute), body), body, now)
	if !errors.Is(err, webhook.ErrStaleTimestamp) {
		t.Errorf("Verify past the tolerance = %v, want %v", err, webhook.ErrStaleTimestamp)
	}
}

func TestNewVerifierRejectsBadSecrets(t *testing.T) {
	for name, secrets := range map[string][]string{
		"no secrets":         nil,
		"empty secret":       {newSecret, ""},
		"empty whsec secret": {"whsec_"},
		"malformed base64":   {"whsec_not*base64"},
	} {
		if _, err := webhook.NewVerifier(secrets); err == nil {
			t.Errorf("%s: NewVerifier(%q) succeeded", name, secrets)
		}
	}
}

func TestSignRejectsBadInput(t *testing.T) {
	tests := []struct {
		name, secret, id string
		ts               time.Time
	}{
		{"malformed secret", "whsec_***", msgID, now},
		{"empty secret", "", msgID, now},
		{"empty id", newSecret, "", now},
		{"id with a dot", newSecret, "msg.1", now},
		{"before 1970", newSecret, msgID, time.Unix(-1, 0)},
	}
	for _, tt := range tests {
		if sig, err := webhook.Sign(tt.secret, tt.id, tt.ts, body); err == nil {
			t.Errorf("%s: Sign = %q, want an error", tt.name, sig)
		}
		if err := webhook.SetHeaders(http.Header{}, tt.secret, tt.id, tt.ts, body); err == nil {
			t.Errorf("%s: SetHeaders succeeded, want an error", tt.name)
		}
	}
}

// TestSignKnownVector checks Sign and Verify against a signature computed
// here from crypto/hmac over the content built by hand.
func TestSignKnownVector(t *testing.T) {
	m := hmac.New(sha256.New, newKey)
	m.Write([]byte("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W.1700000000." + string(body)))
	want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))

	for _, secret := range []string{newSecret, string(newKey)} {
		got, err := webhook.Sign(secret, msgID, now.Add(999*time.Millisecond), body)
		if err != nil || got != want {
			t.Errorf("Sign(%q) = %q, %v; want %q", secret, got, err, want)
		}
	}
	h := http.Header{}
	h.Set("Webhook-Id", msgID)
	h.Set("Webhook-Timestamp", "1700000000")
	h.Set("Webhook-Signature", want)
	if id, err := MustVerifier(t, []string{newSecret}).Verify(h, body, now); err != nil || id != msgID {
		t.Errorf("Verify = %q, %v; want %q, nil", id, err, msgID)
	}
}

// TestSignPublishedVector checks the example of the Standard Webhooks
// reference library's tests (libraries/go/webhook_test.go, TestWebhookSign).
func TestSignPublishedVector(t *testing.T) {
	const (
		secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
		id     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
		want   = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	)
	ts := time.Unix(1614265330, 0)
	payload := []byte(`{"test": 2432232314}`)

	got, err := webhook.Sign(secret, id, ts, payload)
	if err != nil || got != want {
		t.Fatalf("Sign = %q, %v; want %q", got, err, want)
	}
	h := http.Header{}
	h.Set(webhook.HeaderID, id)
	h.Set(webhook.HeaderTimestamp, "1614265330")
	h.Set(webhook.HeaderSignature, want)
	if _, err := MustVerifier(t, []string{secret}).Verify(h, payload, ts.Add(time.Minute)); err != nil {
		t.Errorf("Verify: %v", err)
	}
}

// FuzzVerify checks that Verify never panics, fails only with the package's
// errors, accepts only a signature entry that Sign produces under one of the
// verifier's secrets for the same id, timestamp and body, and accepts every
// message SetHeaders signs.
func FuzzVerify(f *testing.F) {
	secrets := []string{newSecret, oldSecret}
	v, err := webhook.NewVerifier(secrets)
	if err != nil {
		f.Fatal(err)
	}
	ts := strconv.FormatInt(now.Unix(), 10)
	for _, s := range secrets {
		sig, err := webhook.Sign(s, msgID, now, body)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(msgID, ts, sig, body)
		f.Add(msgID, ts, "v2,AAAA v1,!!! "+sig, body)
	}
	f.Add("", "", "", []byte(nil))
	f.Add("a.b", "0", "v1,", []byte("."))

	f.Fuzz(func(t *testing.T, id, ts, sigHeader string, body []byte) {
		signed := http.Header{}
		if webhook.SetHeaders(signed, oldSecret, id, now, body) == nil {
			if _, err := v.Verify(signed, body, now); err != nil {
				t.Fatalf("Verify of a message SetHeaders signed: %v", err)
			}
		}

		h := http.Header{}
		h.Set(webhook.HeaderID, id)
		h.Set(webhook.HeaderTimestamp, ts)
		h.Set(webhook.HeaderSignature, sigHeader)
		got, err := v.Verify(h, body, now)
		if err != nil {
			if !errors.Is(err, webhook.ErrMissingHeaders) && !errors.Is(err, webhook.ErrStaleTimestamp) && !errors.Is(err, webhook.ErrBadSignature) {
				t.Fatalf("Verify: unexpected error %v", err)
			}
			return
		}
		if got != id {
			t.Fatalf("Verify id = %q, want %q", got, id)
		}
		sec, err := strconv.ParseInt(ts, 10, 64)
		if err != nil {
			t.Fatalf("Verify accepted timestamp %q", ts)
		}
		for _, s := range secrets {
			want, err := webhook.Sign(s, id, time.Unix(sec, 0), body)
			if err == nil && strconv.FormatInt(sec, 10) == ts && slices.Contains(strings.Fields(sigHeader), want) {
				return
			}
		}
		t.Fatalf("Verify accepted id %q, timestamp %q, signature %q, which Sign did not produce", id, ts, sigHeader)
	})
}
