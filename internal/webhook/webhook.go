// Package webhook signs and verifies the inbound webhooks of the ordering
// service. Two schemes are in use, one per caller:
//
//   - The messaging gateway (POST /api/auth/gateway-webhook) signs with
//     Standard Webhooks (https://www.standardwebhooks.com/): the headers
//     webhook-id, webhook-timestamp and webhook-signature, the last holding
//     "v1,<base64 HMAC-SHA256>" entries over id + "." + timestamp + "." + body.
//     The ordering spec leaves this caller's authentication open; a published
//     scheme with a timestamp gives freshness and lets any gateway that speaks
//     it be plugged in. Use [Verifier] to check and [Sign] or [SetHeaders] to
//     produce it.
//   - The payment provider (POST /api/payments/provider-webhook) sends
//     x-provider-signature, which the ordering spec (sections 4 and 5) names
//     as an HMAC-SHA256 value without saying more. Here it is the hex
//     HMAC-SHA256 of the raw body under the provider secret, produced by
//     [SignHex] and checked by [VerifyHex]. This scheme has no timestamp, so
//     it cannot limit replays by time.
//
// Both accept a list of secrets, the current one and those being rotated out,
// and succeed when a signature matches any of them. Every comparison is
// constant-time.
//
// Neither scheme detects replays of a message inside its tolerance. Callers
// must record the webhook-id of every accepted Standard Webhooks message (for
// at least twice the tolerance) and refuse an id seen before, and make the
// handling of a payment notification idempotent per invoice.
//
// Verify the raw body as received, before decoding it: re-encoding JSON
// changes the bytes and breaks the signature.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names of the Standard Webhooks scheme.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// DefaultTolerance is how far webhook-timestamp may lie from the time of
// verification, in either direction, unless [WithTolerance] says otherwise.
const DefaultTolerance = 5 * time.Minute

// secretPrefix marks a Standard Webhooks secret serialized as base64.
const secretPrefix = "whsec_"

// Errors returned by verification; test for them with [errors.Is].
var (
	// ErrMissingHeaders means a required header or signature is absent or
	// empty, or a Standard Webhooks header is malformed (a timestamp that is
	// not decimal Unix seconds, an id containing ".").
	ErrMissingHeaders = errors.New("webhook: missing or malformed signature headers")
	// ErrStaleTimestamp means webhook-timestamp lies further than the
	// tolerance from now, in the past or in the future.
	ErrStaleTimestamp = errors.New("webhook: timestamp outside tolerance")
	// ErrBadSignature means no signature matches the body under any secret.
	ErrBadSignature = errors.New("webhook: no valid signature")
)

// Verifier checks Standard Webhooks signatures against a set of secrets.
// It is safe for concurrent use.
type Verifier struct {
	keys      [][]byte
	tolerance time.Duration
}

// Option configures a [Verifier].
type Option func(*Verifier)

// WithTolerance sets how far webhook-timestamp may lie from now, in either
// direction; the default is [DefaultTolerance].
func WithTolerance(d time.Duration) Option {
	return func(v *Verifier) { v.tolerance = d }
}

// NewVerifier returns a Verifier that accepts a signature made with any of
// secrets; list the current secret and those still being rotated out.
//
// A secret of the form "whsec_<base64>" is the Standard Webhooks
// serialization: the key is the base64-decoded bytes. Any other string is used
// as the key byte for byte. Unlike the Standard Webhooks reference libraries,
// an unprefixed secret is not base64-decoded, so "whsec_QUJD" and "QUJD" are
// different keys ("ABC" and "QUJD"). The spec asks for keys of 24 to 64 random
// bytes; shorter ones are accepted but weak.
func NewVerifier(secrets []string, opts ...Option) (*Verifier, error) {
	if len(secrets) == 0 {
		return nil, errors.New("webhook: no secrets")
	}
	v := &Verifier{tolerance: DefaultTolerance}
	for i, s := range secrets {
		key, err := decodeSecret(s)
		if err != nil {
			return nil, fmt.Errorf("webhook: secret %d: %w", i, err)
		}
		v.keys = append(v.keys, key)
	}
	for _, opt := range opts {
		opt(v)
	}
	return v, nil
}

// Verify checks the Standard Webhooks headers in h against body at time now
// and returns the message id. It fails with [ErrMissingHeaders] when a header
// is absent or malformed, [ErrStaleTimestamp] when the timestamp lies more
// than the tolerance from now, and [ErrBadSignature] when no "v1" entry of
// webhook-signature matches under any secret; entries of other versions are
// ignored.
//
// Verify does not detect replays: the caller must refuse an id it has
// already accepted.
func (v *Verifier) Verify(h http.Header, body []byte, now time.Time) (id string, err error) {
	id, ts := h.Get(HeaderID), h.Get(HeaderTimestamp)
	sigs := strings.Fields(strings.Join(h.Values(HeaderSignature), " "))
	switch {
	case id == "":
		return "", fmt.Errorf("%w: no %s", ErrMissingHeaders, HeaderID)
	case ts == "":
		return "", fmt.Errorf("%w: no %s", ErrMissingHeaders, HeaderTimestamp)
	case len(sigs) == 0:
		return "", fmt.Errorf("%w: no %s", ErrMissingHeaders, HeaderSignature)
	case strings.Contains(id, "."):
		return "", fmt.Errorf("%w: %s contains '.'", ErrMissingHeaders, HeaderID)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sec < 0 || strconv.FormatInt(sec, 10) != ts {
		return "", fmt.Errorf("%w: %s %q is not Unix seconds", ErrMissingHeaders, HeaderTimestamp, ts)
	}
	if skew := now.Sub(time.Unix(sec, 0)); skew.Abs() > v.tolerance {
		return "", fmt.Errorf("%w: %s %s has age %s, beyond ±%s", ErrStaleTimestamp, HeaderTimestamp, ts, skew, v.tolerance)
	}
	for _, key := range v.keys {
		want := mac(key, id, ts, body)
		for _, s := range sigs {
			version, b64, ok := strings.Cut(s, ",")
			if !ok || version != "v1" {
				continue
			}
			got, err := base64.StdEncoding.Strict().DecodeString(b64)
			if err == nil && hmac.Equal(got, want) {
				return id, nil
			}
		}
	}
	return "", fmt.Errorf("%w: %d entries in %s, %d secrets", ErrBadSignature, len(sigs), HeaderSignature, len(v.keys))
}

// Sign returns the webhook-signature value "v1,<base64>" for the message id
// sent at ts with body, under secret (read as [NewVerifier] reads it). The id
// must be non-empty without "." and ts not before 1970, as [Verifier.Verify]
// requires; ts is truncated to whole seconds.
func Sign(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := decodeSecret(secret)
	if err != nil {
		return "", fmt.Errorf("webhook: sign: %w", err)
	}
	if id == "" || strings.Contains(id, ".") {
		return "", fmt.Errorf("webhook: sign: id %q is empty or contains '.'", id)
	}
	if ts.Unix() < 0 {
		return "", fmt.Errorf("webhook: sign: timestamp %s is before 1970", ts)
	}
	sum := mac(key, id, strconv.FormatInt(ts.Unix(), 10), body)
	return "v1," + base64.StdEncoding.EncodeToString(sum), nil
}

// SetHeaders signs body as [Sign] does and sets webhook-id, webhook-timestamp
// and webhook-signature on h (for a request, pass req.Header).
func SetHeaders(h http.Header, secret, id string, ts time.Time, body []byte) error {
	sig, err := Sign(secret, id, ts, body)
	if err != nil {
		return err
	}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, sig)
	return nil
}

// decodeSecret turns a secret into its HMAC key: the base64 payload of a
// "whsec_" secret, any other string as it is.
func decodeSecret(s string) ([]byte, error) {
	key := []byte(s)
	if b64, ok := strings.CutPrefix(s, secretPrefix); ok {
		var err error
		if key, err = base64.StdEncoding.DecodeString(b64); err != nil {
			return nil, fmt.Errorf("decode %s secret: %w", secretPrefix, err)
		}
	}
	if len(key) == 0 {
		return nil, errors.New("empty secret")
	}
	return key, nil
}

// mac is the HMAC-SHA256 under key of the signed content id.ts.body.
func mac(key []byte, id, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + ts + "."))
	m.Write(body)
	return m.Sum(nil)
}
