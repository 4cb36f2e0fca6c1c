package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// HeaderProviderSignature carries the payment provider's signature.
const HeaderProviderSignature = "x-provider-signature"

// SignHex returns the x-provider-signature value for body: the lower-case hex
// HMAC-SHA256 of the raw body, keyed with the bytes of secret as they are.
func SignHex(secret string, body []byte) string {
	return hex.EncodeToString(bodyMAC([]byte(secret), body))
}

// VerifyHex checks sig, an x-provider-signature value in either case of hex,
// against body under each of secrets, in constant time. It fails with
// [ErrMissingHeaders] when sig is empty and [ErrBadSignature] when it matches
// under none of the secrets; empty secrets are skipped, so that an unset
// secret never makes a signature anyone can compute.
func VerifyHex(secrets []string, sig string, body []byte) error {
	if sig == "" {
		return fmt.Errorf("%w: no %s", ErrMissingHeaders, HeaderProviderSignature)
	}
	got, err := hex.DecodeString(sig)
	if err != nil {
		return fmt.Errorf("%w: %s is not hex: %w", ErrBadSignature, HeaderProviderSignature, err)
	}
	for _, s := range secrets {
		if s != "" && hmac.Equal(got, bodyMAC([]byte(s), body)) {
			return nil
		}
	}
	return fmt.Errorf("%w: %s matches none of %d secrets", ErrBadSignature, HeaderProviderSignature, len(secrets))
}

// bodyMAC is the HMAC-SHA256 of body under key.
func bodyMAC(key, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return m.Sum(nil)
}
