package links

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/links/qr"
)

// mustValidationFailed fails unless err is the link API's 422-free input
// refusal: apperr Invalid with code VALIDATION_FAILED (HTTP 400).
func mustValidationFailed(t *testing.T, err error) {
	t.Helper()
	e := apperr.From(err)
	if e == nil || e.Kind != apperr.Invalid || e.Code != "VALIDATION_FAILED" || e.Message == "" {
		t.Fatalf("refusal %T %v, want Invalid VALIDATION_FAILED", err, err)
	}
}

// FuzzNormalizeRGB: a QR colour the API stores (NormalizeRGB) is its own
// normal form and is one the renderer parses (qr.ParseRGB) to the same
// components, so that a stored colour never fails at rendering.
func FuzzNormalizeRGB(f *testing.F) {
	for _, s := range []string{"", "rgb(0,0,0)", " rgb( 1 , 2 , 3 ) ", "rgb(255,255,255)", "rgb(256,0,0)", "rgb(1,2)",
		"rgb(\t1,\n2,\r3)", "rgb(007,08,9)", "rgb (1,2,3)", "RGB(1,2,3)", "rgb(1,2,3)x", "#ffffff", "rgb(١,2,3)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := NormalizeRGB("foreground", s)
		if err != nil {
			mustValidationFailed(t, err)
			return
		}
		if s == "" {
			if n != "" {
				t.Fatalf("empty became %q", n)
			}
			return
		}
		again, err := NormalizeRGB("foreground", n)
		if err != nil || again != n {
			t.Fatalf("%q normalised to %q, which normalises to %q, %v", s, n, again, err)
		}
		c, err := qr.ParseRGB(n)
		if err != nil {
			t.Fatalf("stored colour %q (from %q) does not render: %v", n, s, err)
		}
		if c2, err := qr.ParseRGB(s); err == nil && c2 != c {
			t.Fatalf("%q: stored %v, renderer reads %v", s, c, c2)
		}
	})
}

// FuzzNormalizeColor: an accepted channel colour is #RRGGBB upper-cased,
// its own normal form.
func FuzzNormalizeColor(f *testing.F) {
	for _, s := range []string{"", "#a1b2c3", "#A1B2C3", "a1b2c3", "#abc", "#gggggg", "#a1b2c3 ", "#a1b2c3d4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := NormalizeColor(s)
		if err != nil {
			mustValidationFailed(t, err)
			return
		}
		if s != "" && (len(n) != 7 || n[0] != '#' || n != strings.ToUpper(n) || !strings.EqualFold(n, s)) {
			t.Fatalf("%q normalised to %q", s, n)
		}
		if again, err := NormalizeColor(n); err != nil || again != n {
			t.Fatalf("%q: %q, %v", n, again, err)
		}
	})
}

// FuzzNormalizeDomain: an accepted branded domain's canonical URL is its
// own canonical form, passes ValidateURL, and ends with its host.
func FuzzNormalizeDomain(f *testing.F) {
	for _, s := range []string{"https://go.example.com", "HTTP://Go.Example.COM/", " https://go.example.com:8443 ", "https://127.0.0.1",
		"https://[::1]:80", "https://go.example.com/path", "https://go.example.com?x", "https://go.example.com#f", "https://u@go.example.com",
		"https://localhost", "https://go.example.com:0", "https://go.example.com:99999", "https://-a.example.com", "ftp://go.example.com",
		"https://go.example.com:", "https://xn--bcher-kva.example", "https://go.example.com/%2e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		canonical, host, err := NormalizeDomain(s)
		if err != nil {
			mustValidationFailed(t, err)
			return
		}
		if err := ValidateURL("domain", canonical); err != nil {
			t.Fatalf("canonical %q of %q: %v", canonical, s, err)
		}
		if !strings.HasSuffix(canonical, "://"+host) || host != strings.ToLower(host) {
			t.Fatalf("%q: canonical %q, host %q", s, canonical, host)
		}
		c2, h2, err := NormalizeDomain(canonical)
		if err != nil || c2 != canonical || h2 != host {
			t.Fatalf("%q: canonical %q normalises to %q %q, %v", s, canonical, c2, h2, err)
		}
	})
}

// FuzzValidateAlias: an accepted alias is 3 to 64 of [A-Za-z0-9_-] and not
// reserved.
func FuzzValidateAlias(f *testing.F) {
	for _, s := range []string{"abc", "ab", "a-b_c", "API", "admin", strings.Repeat("x", 64), strings.Repeat("x", 65), "a b", "ünï", "../x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := ValidateAlias("custom", s)
		if err != nil {
			mustValidationFailed(t, err)
			return
		}
		if len(s) < MinAliasLength || len(s) > MaxAliasLength || strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
			t.Fatalf("accepted %q", s)
		}
		for _, r := range ReservedAliases {
			if strings.EqualFold(r, s) {
				t.Fatalf("accepted reserved %q", s)
			}
		}
	})
}

// FuzzValidateQRData: accepted QR data is compact JSON that validates
// again to itself, within MaxQRDataBytes; a string for the types that take
// one. A refusal is VALIDATION_FAILED.
func FuzzValidateQRData(f *testing.F) {
	for _, s := range []struct{ t, d string }{{"text", `"hi"`}, {"link", `"https://example.com"`}, {"link", `"javascript:alert(1)"`},
		{"email", `"a@example.com"`}, {"email", `"not an address"`}, {"phone", `"+62 812"`}, {"vcard", `{"first_name":"A"}`},
		{"sms", `["+62812","hi"]`}, {"wifi", `{"ssid":"x","password":"<&>"}`}, {"text", `1`}, {"text", `null`}, {"text", `"  "`},
		{"text", `{"a":1}`}, {"bogus", `"x"`}, {"text", `"x" "y"`}, {"vcard", `{"a":1e400}`}, {"text", "\"\xff\""},
		{"wifi", `{"ssid":"` + strings.Repeat("<", 1000) + `"}`}} {
		f.Add(s.t, []byte(s.d))
	}
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		out, err := ValidateQRData(QRType(typ), json.RawMessage(data))
		if err != nil {
			mustValidationFailed(t, err)
			return
		}
		if !json.Valid(out) {
			t.Fatalf("stored invalid JSON %q", out)
		}
		if len(out) > MaxQRDataBytes {
			t.Fatalf("stored %d bytes of data, over the limit of %d", len(out), MaxQRDataBytes)
		}
		again, err := ValidateQRData(QRType(typ), out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("stored data %s validates to %s, %v", out, again, err)
		}
		switch QRType(typ) {
		case QRText, QRLink, QREmail, QRPhone:
			if out[0] != '"' {
				t.Fatalf("type %s stored %s", typ, out)
			}
		}
	})
}

// FuzzParseAuthorization: a key is taken only from "Bearer <key>" or
// "Token <key>" (scheme in any case), never empty nor with spaces around
// it (Authenticate then refuses any key not well formed).
func FuzzParseAuthorization(f *testing.F) {
	for _, s := range []string{"Bearer abc", "Token abc", "bearer abc", "Bearer", "Bearer ", "Basic abc", "Bearer  a b", "abc", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		key, ok := ParseAuthorization(h)
		if !ok {
			return
		}
		if key == "" || key != strings.TrimSpace(key) || !strings.Contains(h, key) {
			t.Fatalf("%q gave key %q", h, key)
		}
		scheme, _, _ := strings.Cut(strings.TrimSpace(h), " ")
		scheme = strings.ToLower(scheme)
		if scheme != "bearer" && scheme != "token" {
			t.Fatalf("%q accepted with scheme %q", h, scheme)
		}
	})
}
