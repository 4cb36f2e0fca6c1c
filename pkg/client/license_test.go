package client_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/pkg/client"
)

// signLicense makes a token as the portal does: base64url(payload) "."
// base64url(Ed25519 signature of the payload bytes), no padding.
func signLicense(priv ed25519.PrivateKey, payload string) string {
	sig := ed25519.Sign(priv, []byte(payload))
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(sig)
}

const testPayload = `{"v":1,"license_id":"L1","npsn":"20100001","school_name":"SMA 1","hardware_id":"HW-1",` +
	`"max_students":300,"operating_mode":"SEMI_OFFLINE","issued_at":"2026-11-23T08:00:00Z","expires_at":"2027-11-23T08:00:00Z"}`

func TestVerifyLicenseToken(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	token := signLicense(priv, testPayload)
	p, err := client.VerifyLicenseToken(token, pub)
	if err != nil {
		t.Fatal(err)
	}
	want := client.LicensePayload{V: 1, LicenseID: "L1", NPSN: "20100001", SchoolName: "SMA 1", HardwareID: "HW-1",
		MaxStudents: 300, OperatingMode: "SEMI_OFFLINE", IssuedAt: t0, ExpiresAt: t0.AddDate(1, 0, 0)}
	if *p != want {
		t.Errorf("payload %+v", p)
	}
	if p.Expired(t0) || !p.Expired(want.ExpiresAt) || !p.Expired(want.ExpiresAt.Add(time.Second)) {
		t.Error("Expired")
	}
	// Surrounding white space (a token pasted from a file) is accepted.
	if _, err := client.VerifyLicenseToken(" "+token+"\n", pub); err != nil {
		t.Errorf("token with white space: %v", err)
	}

	// The public key as the portal publishes it.
	key, err := client.ParseLicensePublicKey(base64.StdEncoding.EncodeToString(pub))
	if err != nil || !key.Equal(pub) {
		t.Errorf("ParseLicensePublicKey: %v", err)
	}
	for _, bad := range []string{"", "not base64!", base64.StdEncoding.EncodeToString(pub[:31])} {
		if _, err := client.ParseLicensePublicKey(bad); err == nil {
			t.Errorf("ParseLicensePublicKey(%q): nil error", bad)
		}
	}
}

func TestVerifyLicenseTokenRejects(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	otherPub, otherPriv, _ := ed25519.GenerateKey(nil)
	good := signLicense(priv, testPayload)
	encPayload, encSig, _ := strings.Cut(good, ".")

	tampered := []byte(testPayload)
	tampered[strings.Index(testPayload, "300")] = '9' // max_students 900
	flipSig, _ := base64.RawURLEncoding.DecodeString(encSig)
	flipSig[0] ^= 1

	cases := map[string]struct {
		token string
		key   ed25519.PublicKey
	}{
		"other key":            {good, otherPub},
		"signed by other key":  {signLicense(otherPriv, testPayload), pub},
		"tampered payload":     {base64.RawURLEncoding.EncodeToString(tampered) + "." + encSig, pub},
		"tampered signature":   {encPayload + "." + base64.RawURLEncoding.EncodeToString(flipSig), pub},
		"empty":                {"", pub},
		"no dot":               {encPayload, pub},
		"three parts":          {good + ".x", pub},
		"empty signature":      {encPayload + ".", pub},
		"empty payload":        {"." + encSig, pub},
		"padded base64":        {base64.URLEncoding.EncodeToString([]byte(testPayload)) + "." + encSig, pub},
		"standard base64 sig":  {encPayload + "." + strings.NewReplacer("-", "+", "_", "/").Replace(encSig) + "+/", pub},
		"short signature":      {encPayload + "." + base64.RawURLEncoding.EncodeToString(flipSig[:10]), pub},
		"short key":            {good, pub[:16]},
		"nil key":              {good, nil},
		"payload not JSON":     {signLicense(priv, "not json"), pub},
		"payload version 2":    {signLicense(priv, strings.Replace(testPayload, `"v":1`, `"v":2`, 1)), pub},
		"payload no version":   {signLicense(priv, strings.Replace(testPayload, `"v":1,`, ``, 1)), pub},
		"payload no expiry":    {signLicense(priv, strings.Replace(testPayload, `,"expires_at":"2027-11-23T08:00:00Z"`, ``, 1)), pub},
		"payload trailing":     {signLicense(priv, testPayload+"{}"), pub},
		"payload bad time":     {signLicense(priv, strings.Replace(testPayload, "2027-11-23T08:00:00Z", "tomorrow", 1)), pub},
		"payload no hardware":  {signLicense(priv, strings.Replace(testPayload, `"hardware_id":"HW-1",`, ``, 1)), pub},
		"payload no licenseID": {signLicense(priv, strings.Replace(testPayload, `"license_id":"L1",`, ``, 1)), pub},
	}
	for name, tc := range cases {
		p, err := client.VerifyLicenseToken(tc.token, tc.key)
		if !errors.Is(err, client.ErrInvalidLicense) || p != nil {
			t.Errorf("%s: %+v, %v; want ErrInvalidLicense", name, p, err)
		}
	}
}
