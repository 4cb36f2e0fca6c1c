package labwire

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// testLicenseKey is a fixed key so that fuzz corpora stay meaningful.
func testLicenseKey() ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
}

func sampleLicense() LicensePayload {
	return LicensePayload{
		V: 1, LicenseID: "01jabcdefghjkmnpqrstvwxyz0", NPSN: "20100001", SchoolName: "SMA Negeri 1 Contoh",
		HardwareID: "hw-1234", MaxStudents: 500, OperatingMode: "OFFLINE",
		IssuedAt:  time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		ExpiresAt: time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC),
	}
}

// mustSignLicense signs p with key or fails the test.
func mustSignLicense(tb testing.TB, key ed25519.PrivateKey, p LicensePayload) string {
	tb.Helper()
	token, _, err := SignLicense(key, p)
	if err != nil {
		tb.Fatalf("SignLicense: %v", err)
	}
	return token
}

func equalPayload(a, b LicensePayload) bool {
	return a.V == b.V && a.LicenseID == b.LicenseID && a.NPSN == b.NPSN && a.SchoolName == b.SchoolName &&
		a.HardwareID == b.HardwareID && a.MaxStudents == b.MaxStudents && a.OperatingMode == b.OperatingMode &&
		a.IssuedAt.Equal(b.IssuedAt) && a.ExpiresAt.Equal(b.ExpiresAt)
}

func TestLicenseRoundTrip(t *testing.T) {
	key, err := GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	p := sampleLicense()
	token, sig, err := SignLicense(key, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(sig) != ed25519.SignatureSize {
		t.Fatalf("signature is %d bytes", len(sig))
	}
	if strings.ContainsAny(token, "=+/") || strings.Count(token, ".") != 1 {
		t.Fatalf("token is not two unpadded base64url parts: %q", token)
	}
	got, err := ParseLicenseToken(key.Public().(ed25519.PublicKey), token)
	if err != nil {
		t.Fatal(err)
	}
	if !equalPayload(got, p) {
		t.Fatalf("got %+v, want %+v", got, p)
	}

	// The format of the docs: the signature is over the exact payload bytes,
	// and the payload carries the documented field names.
	payloadPart, sigPart, _ := strings.Cut(token, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(payloadPart)
	if s, _ := base64.RawURLEncoding.DecodeString(sigPart); !bytes.Equal(s, sig) {
		t.Fatal("token signature differs from the returned signature")
	}
	if !ed25519.Verify(key.Public().(ed25519.PublicKey), payload, sig) {
		t.Fatal("signature does not verify over the payload bytes")
	}
	var fields map[string]any
	if err := json.Unmarshal(payload, &fields); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"v", "license_id", "npsn", "school_name", "hardware_id", "max_students", "operating_mode", "issued_at", "expires_at"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("payload lacks %q: %s", k, payload)
		}
	}
	if fields["issued_at"] != "2026-01-02T03:04:05Z" {
		t.Errorf("issued_at = %v, want RFC 3339 UTC", fields["issued_at"])
	}
}

func TestSignLicenseDefaultsAndRefusals(t *testing.T) {
	key := testLicenseKey()
	p := sampleLicense()
	p.V = 0
	p.IssuedAt = p.IssuedAt.In(time.FixedZone("WIB", 7*3600))
	got, err := ParseLicenseToken(key.Public().(ed25519.PublicKey), mustSignLicense(t, key, p))
	if err != nil {
		t.Fatal(err)
	}
	if got.V != LicenseVersion || got.IssuedAt.Location() != time.UTC || !got.IssuedAt.Equal(p.IssuedAt) {
		t.Fatalf("got V=%d issued_at=%v", got.V, got.IssuedAt)
	}

	p = sampleLicense()
	p.V = 2
	if _, _, err := SignLicense(key, p); err == nil {
		t.Error("version 2 signed")
	}
	p = sampleLicense()
	p.LicenseID = ""
	if _, _, err := SignLicense(key, p); err == nil {
		t.Error("empty license_id signed")
	}
	if _, _, err := SignLicense(key[:10], sampleLicense()); err == nil {
		t.Error("short key accepted")
	}
	p = sampleLicense()
	p.SchoolName = strings.Repeat("x", MaxLicenseTokenSize)
	if _, _, err := SignLicense(key, p); err == nil {
		t.Error("oversized token signed")
	}
}

func TestParseLicenseTokenRejects(t *testing.T) {
	key := testLicenseKey()
	pub := key.Public().(ed25519.PublicKey)
	token := mustSignLicense(t, key, sampleLicense())
	payloadPart, sigPart, _ := strings.Cut(token, ".")
	other, _ := GenerateSigningKey()

	signRaw := func(payload string) string {
		return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." +
			base64.RawURLEncoding.EncodeToString(ed25519.Sign(key, []byte(payload)))
	}
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}

	// nonCanonical sets a trailing bit that a strict decoder must refuse.
	nonCanonical := func(s string) string {
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		v := strings.IndexByte(alphabet, s[len(s)-1])
		return s[:len(s)-1] + string(alphabet[v|1])
	}

	cases := map[string]string{
		"empty":               "",
		"no dot":              payloadPart + sigPart,
		"three parts":         token + ".x",
		"empty payload":       "." + sigPart,
		"empty signature":     payloadPart + ".",
		"padded signature":    payloadPart + "." + base64.URLEncoding.EncodeToString(ed25519.Sign(key, []byte("x"))),
		"std alphabet":        strings.NewReplacer("-", "+", "_", "/").Replace(token) + "+/",
		"short signature":     payloadPart + "." + sigPart[:len(sigPart)-4],
		"long signature":      payloadPart + "." + sigPart + "AAAA",
		"tampered payload":    flip(token, 5),
		"tampered signature":  flip(token, len(token)-5),
		"other key":           mustSignLicense(t, other, sampleLicense()),
		"swapped signature":   payloadPart + "." + strings.SplitN(mustSignLicense(t, key, LicensePayload{V: 1, LicenseID: "x"}), ".", 2)[1],
		"spaces":              " " + token,
		"too long":            strings.Repeat("A", MaxLicenseTokenSize+1) + "." + sigPart,
		"signed non-json":     signRaw("hello"),
		"signed array":        signRaw(`[1,2]`),
		"signed null":         signRaw(`null`),
		"signed version 2":    signRaw(`{"v":2,"license_id":"a"}`),
		"signed no id":        signRaw(`{"v":1}`),
		"signed wrong types":  signRaw(`{"v":"1","license_id":"a"}`),
		"signed trailing":     signRaw(`{"v":1,"license_id":"a"} {}`),
		"signed bad time":     signRaw(`{"v":1,"license_id":"a","expires_at":"tomorrow"}`),
		"non-canonical b64":   payloadPart + "." + nonCanonical(sigPart),
		"newline in payload":  payloadPart[:4] + "\n" + payloadPart[4:] + "." + sigPart,
		"unicode in payload":  "é" + token,
		"dot only":            ".",
		"signature only part": sigPart,
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseLicenseToken(pub, tok)
			if !errors.Is(err, ErrLicenseInvalid) {
				t.Fatalf("err = %v, want ErrLicenseInvalid", err)
			}
		})
	}

	if _, err := ParseLicenseToken(pub[:5], token); err == nil || errors.Is(err, ErrLicenseInvalid) {
		t.Errorf("bad public key: err = %v, want an internal error", err)
	}
}

// TestParseLicenseTokenIgnoresExpiry documents that expiry is the caller's check.
func TestParseLicenseTokenIgnoresExpiry(t *testing.T) {
	key := testLicenseKey()
	p := sampleLicense()
	p.ExpiresAt = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	got, err := ParseLicenseToken(key.Public().(ed25519.PublicKey), mustSignLicense(t, key, p))
	if err != nil || !got.ExpiresAt.Equal(p.ExpiresAt) {
		t.Fatalf("got %v, %v", got.ExpiresAt, err)
	}
}

func FuzzParseLicenseToken(f *testing.F) {
	key := testLicenseKey()
	pub := key.Public().(ed25519.PublicKey)
	valid := mustSignLicense(f, key, sampleLicense())
	minimal := mustSignLicense(f, key, LicensePayload{LicenseID: "a"})
	f.Add(valid)
	f.Add(minimal)
	f.Add(valid[:len(valid)-1])
	f.Add(valid + "A")
	f.Add("")
	f.Add(".")
	f.Add("..")
	f.Add("e30.AAAA")
	f.Add(strings.Replace(valid, ".", "..", 1))

	f.Fuzz(func(t *testing.T, token string) {
		p, err := ParseLicenseToken(pub, token)
		if err != nil {
			if !errors.Is(err, ErrLicenseInvalid) {
				t.Fatalf("error does not wrap ErrLicenseInvalid: %v", err)
			}
			return
		}
		// Whatever parses must be an authentic token: two canonical parts
		// whose signature verifies over the exact payload bytes.
		payloadPart, sigPart, ok := strings.Cut(token, ".")
		if !ok {
			t.Fatal("parsed a token without a dot")
		}
		payload, err1 := base64.RawURLEncoding.Strict().DecodeString(payloadPart)
		sig, err2 := base64.RawURLEncoding.Strict().DecodeString(sigPart)
		if err1 != nil || err2 != nil || !ed25519.Verify(pub, payload, sig) {
			t.Fatalf("parsed a token that does not verify: %q", token)
		}
		if p.V != LicenseVersion || p.LicenseID == "" {
			t.Fatalf("parsed an unsupported payload: %+v", p)
		}
		// And re-signing what was parsed yields a token that parses to the same payload.
		again, err := ParseLicenseToken(pub, mustSignLicense(t, key, p))
		if err != nil || !equalPayload(again, p) {
			t.Fatalf("re-signed payload: %+v, %v; want %+v", again, err, p)
		}
	})
}
