package client_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/seedhq/portal/pkg/client"
	"github.com/seedhq/portal/pkg/labwire"
)

// FuzzVerifyLicenseToken: over any signed payload, and any text around or
// instead of the token, the client's offline check accepts only tokens the
// portal's parser (labwire.ParseLicenseToken) accepts too, with the same
// content and every field a lab server needs; every refusal wraps
// ErrInvalidLicense.
func FuzzVerifyLicenseToken(f *testing.F) {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, ed25519.SeedSize))
	pub := priv.Public().(ed25519.PublicKey)
	for _, p := range []string{testPayload, `{"v":1,"license_id":"L"}`, `{"v":2,"license_id":"L","npsn":"1","hardware_id":"h","expires_at":"2027-01-01T00:00:00Z"}`,
		` ` + testPayload + ` `, `[]`, `null`, `{"v":1,"license_id":"L","npsn":"1","hardware_id":"h","expires_at":"0001-01-01T00:00:00Z"}`,
		`{"V":1,"LICENSE_ID":"L","npsn":"1","hardware_id":"h","expires_at":"2027-01-01T00:00:00Z"}`,
		`{"v":1,"license_id":"L","license_id":"","npsn":"1","hardware_id":"h","expires_at":"2027-01-01T00:00:00Z"}`,
		`{"v":1,"license_id":"L","npsn":"1","hardware_id":"h","expires_at":"2027-01-01T00:00:00Z","extra":true}`, ``} {
		f.Add([]byte(p), "", "")
		f.Add([]byte(p), " ", "\n")
		f.Add([]byte(p), "", "=")
		f.Add([]byte(p), "x.", "")
	}
	f.Add([]byte(testPayload), "", ".AAAA")
	f.Fuzz(func(t *testing.T, payload []byte, prefix, suffix string) {
		token := prefix + base64.RawURLEncoding.EncodeToString(payload) + "." +
			base64.RawURLEncoding.EncodeToString(ed25519.Sign(priv, payload)) + suffix
		p, err := client.VerifyLicenseToken(token, pub)
		if err != nil {
			if !errors.Is(err, client.ErrInvalidLicense) {
				t.Fatalf("refusal does not wrap ErrInvalidLicense: %v", err)
			}
			return
		}
		if p.V != 1 || p.LicenseID == "" || p.NPSN == "" || p.HardwareID == "" || p.ExpiresAt.IsZero() {
			t.Fatalf("accepted an incomplete licence %+v", p)
		}
		q, err := labwire.ParseLicenseToken(pub, strings.TrimSpace(token))
		if err != nil {
			t.Fatalf("the client accepts %q, the portal refuses it: %v", token, err)
		}
		if q.LicenseID != p.LicenseID || q.NPSN != p.NPSN || q.HardwareID != p.HardwareID || q.SchoolName != p.SchoolName ||
			q.MaxStudents != p.MaxStudents || q.OperatingMode != p.OperatingMode || !q.ExpiresAt.Equal(p.ExpiresAt) || !q.IssuedAt.Equal(p.IssuedAt) {
			t.Fatalf("the client reads %+v, the portal %+v", p, q)
		}
	})
}

// FuzzParseLicensePublicKey: an accepted key is 32 bytes whose standard
// base64 parses back to it.
func FuzzParseLicensePublicKey(f *testing.F) {
	for _, s := range []string{base64.StdEncoding.EncodeToString(make([]byte, 32)), " " + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 32)) + "\n",
		base64.RawStdEncoding.EncodeToString(make([]byte, 32)), base64.StdEncoding.EncodeToString(make([]byte, 31)), "", "!!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := client.ParseLicensePublicKey(s)
		if err != nil {
			return
		}
		if len(k) != ed25519.PublicKeySize {
			t.Fatalf("key of %d bytes", len(k))
		}
		again, err := client.ParseLicensePublicKey(base64.StdEncoding.EncodeToString(k))
		if err != nil || !bytes.Equal(again, k) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
