package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/webhook"
)

const (
	providerSecret    = "provider-current-secret"
	providerOldSecret = "provider-previous-secret"
)

var payment = []byte(`{"invoiceId":"INV-1","merchantId":"M-1","amount":125000,"status":"PAID","paidAt":"2025-01-02T03:04:05Z"}`)

func TestVerifyHex(t *testing.T) {
	sig := webhook.SignHex(providerSecret, payment)
	oldSig := webhook.SignHex(providerOldSecret, payment)
	both := []string{providerSecret, providerOldSecret}

	tests := []struct {
		name    string
		secrets []string
		sig     string
		body    []byte
		want    error
	}{
		{"valid", both, sig, payment, nil},
		{"upper-case hex", both, strings.ToUpper(sig), payment, nil},
		{"rotation: old secret", both, oldSig, payment, nil},
		{"retired secret", []string{providerSecret}, oldSig, payment, webhook.ErrBadSignature},
		{"wrong secret", both, webhook.SignHex("attacker", payment), payment, webhook.ErrBadSignature},
		{"tampered body", both, sig, []byte(strings.Replace(string(payment), "125000", "1", 1)), webhook.ErrBadSignature},
		{"missing signature", both, "", payment, webhook.ErrMissingHeaders},
		{"not hex", both, "zz" + sig[2:], payment, webhook.ErrBadSignature},
		{"odd length", both, sig[1:], payment, webhook.ErrBadSignature},
		{"truncated", both, sig[:32], payment, webhook.ErrBadSignature},
		{"prefixed", both, "sha256=" + sig, payment, webhook.ErrBadSignature},
		{"no secrets", nil, sig, payment, webhook.ErrBadSignature},
		{"empty secret is never a key", []string{""}, webhook.SignHex("", payment), payment, webhook.ErrBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := webhook.VerifyHex(tt.secrets, tt.sig, tt.body); !errors.Is(err, tt.want) {
				t.Fatalf("VerifyHex = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestSignHexKnownVectors checks SignHex against RFC 4231 test case 2 and a
// value computed here from crypto/hmac.
func TestSignHexKnownVectors(t *testing.T) {
	const rfc4231 = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
	if got := webhook.SignHex("Jefe", []byte("what do ya want for nothing?")); got != rfc4231 {
		t.Errorf("SignHex(RFC 4231 case 2) = %s, want %s", got, rfc4231)
	}

	m := hmac.New(sha256.New, []byte(providerSecret))
	m.Write(payment)
	if want, got := hex.EncodeToString(m.Sum(nil)), webhook.SignHex(providerSecret, payment); got != want {
		t.Errorf("SignHex = %s, want %s", got, want)
	}
}

// FuzzVerifyHex checks that VerifyHex never panics, accepts only what SignHex
// produces under one of the secrets (in either case), and accepts every
// signature SignHex makes.
func FuzzVerifyHex(f *testing.F) {
	secrets := []string{providerSecret, providerOldSecret}
	f.Add(webhook.SignHex(providerSecret, payment), payment)
	f.Add(strings.ToUpper(webhook.SignHex(providerOldSecret, payment)), payment)
	f.Add("", []byte(nil))
	f.Add("0", []byte("x"))

	f.Fuzz(func(t *testing.T, sig string, body []byte) {
		if err := webhook.VerifyHex(secrets, webhook.SignHex(providerOldSecret, body), body); err != nil {
			t.Fatalf("VerifyHex of SignHex's signature: %v", err)
		}
		err := webhook.VerifyHex(secrets, sig, body)
		if err != nil {
			if !errors.Is(err, webhook.ErrMissingHeaders) && !errors.Is(err, webhook.ErrBadSignature) {
				t.Fatalf("VerifyHex: unexpected error %v", err)
			}
			return
		}
		for _, s := range secrets {
			if strings.ToLower(sig) == webhook.SignHex(s, body) {
				return
			}
		}
		t.Fatalf("VerifyHex accepted %q, which SignHex did not produce", sig)
	})
}
