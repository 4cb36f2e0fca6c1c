package links

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	imagepng "image/png"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/apperr"
)

func TestValidateURL(t *testing.T) {
	ok := []string{"http://example.com", "https://example.com/a?b=c#d", "https://127.0.0.1:8080/x"}
	bad := []string{"", "ftp://example.com", "javascript:alert(1)", "https://", "https://user:pw@example.com",
		"example.com", "https://exa mple.com", "https://example.com/" + strings.Repeat("a", MaxURLLength)}
	for _, u := range ok {
		if err := ValidateURL("url", u); err != nil {
			t.Errorf("ValidateURL(%q) = %v, want nil", u, err)
		}
	}
	for _, u := range bad {
		if err := ValidateURL("url", u); !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidateURL(%q) = %v, want VALIDATION_FAILED", u, err)
		}
	}
}

func TestValidateAlias(t *testing.T) {
	for _, a := range []string{"abc", "My_Link-2", strings.Repeat("x", 64)} {
		if err := ValidateAlias("custom", a); err != nil {
			t.Errorf("ValidateAlias(%q) = %v", a, err)
		}
	}
	for _, a := range []string{"", "ab", strings.Repeat("x", 65), "a.b.c", "héllo", "API", "static", "qr", "Metrics"} {
		if err := ValidateAlias("custom", a); !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidateAlias(%q) = %v, want VALIDATION_FAILED", a, err)
		}
	}
}

func TestNormalizeDomain(t *testing.T) {
	cases := []struct{ in, url, host string }{
		{"https://Go.Example.com", "https://go.example.com", "go.example.com"},
		{"HTTP://go.example.com/", "http://go.example.com", "go.example.com"},
		{"https://go.example.com:8443", "https://go.example.com:8443", "go.example.com:8443"},
	}
	for _, c := range cases {
		u, h, err := NormalizeDomain(c.in)
		if err != nil || u != c.url || h != c.host {
			t.Errorf("NormalizeDomain(%q) = %q, %q, %v; want %q, %q", c.in, u, h, err, c.url, c.host)
		}
	}
	for _, in := range []string{"go.example.com", "ftp://go.example.com", "https://go.example.com/path",
		"https://go.example.com?x=1", "https://localhost", "https://-bad-.com", "https://a@go.example.com"} {
		if _, _, err := NormalizeDomain(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("NormalizeDomain(%q) = %v, want VALIDATION_FAILED", in, err)
		}
	}
}

func TestColours(t *testing.T) {
	if c, err := NormalizeColor("#a1b2c3"); err != nil || c != "#A1B2C3" {
		t.Errorf("NormalizeColor = %q, %v", c, err)
	}
	for _, c := range []string{"a1b2c3", "#abc", "#GGGGGG", "#a1b2c3d4"} {
		if _, err := NormalizeColor(c); err == nil {
			t.Errorf("NormalizeColor(%q) accepted", c)
		}
	}
	if c, err := NormalizeRGB("background", "rgb(255, 0,10)"); err != nil || c != "rgb(255,0,10)" {
		t.Errorf("NormalizeRGB = %q, %v", c, err)
	}
	for _, c := range []string{"rgb(256,0,0)", "#ffffff", "rgb(1,2)", "rgba(1,2,3,4)"} {
		if _, err := NormalizeRGB("background", c); err == nil {
			t.Errorf("NormalizeRGB(%q) accepted", c)
		}
	}
}

func TestValidatePixel(t *testing.T) {
	ok := map[PixelType][]string{
		PixelGTM:       {"GTM-ABC1234", "GTM-5XQ9"},
		PixelGA:        {"G-ABC123DEF4", "UA-12345678-1"},
		PixelFacebook:  {"123456789012345", "1234567890123456"},
		PixelAdWords:   {"AW-123456789", "AW-123456789/AbC-D_efG"},
		PixelLinkedIn:  {"123456"},
		PixelTwitter:   {"o1a2b", "ABCDE12345"},
		PixelAdRoll:    {"Q4BTWXMRKZF7HNJ2C5D8EA/LM3P6VSG9YU1TE0RAWBKXN"},
		PixelQuora:     {"0123456789abcdef0123456789abcdef"},
		PixelPinterest: {"2612345678901"},
		PixelBing:      {"12345678"},
		PixelSnapchat:  {"0A1B2C3D-4E5F-6789-ABCD-EF0123456789"},
		PixelReddit:    {"t2_abc123", "a2_xyz99"},
		PixelTikTok:    {"C1A2B3C4D5E6F7G8H9I0"},
	}
	adrollBad := []string{
		"Q4BTWXMRKZF7HNJ2C5D8EA",                         // the advertisable EID alone
		"Q4BTWXMRKZF7HNJ2C5D8EA/",                        // no pixel EID
		"/LM3P6VSG9YU1TE0RAWBKXN",                        // no advertisable EID
		"q4btwxmrkzf7hnj2c5d8ea/lm3p6vsg9yu1te0rawbkxn",  // lower case
		"Q4BTWXMRKZF7HNJ2C5D8E/LM3P6VSG9YU1TE0RAWBKXN",   // 21 characters
		"Q4BTWXMRKZF7HNJ2C5D8EA/LM3P6VSG9YU1TE0RAWBKXNX", // 23 characters
		"Q4BTWXMRKZF7HNJ2C5D8EA / LM3P6VSG9YU1TE0RAWBKXN",
		"Q4BTWXMRKZF7HNJ2C5D8EA,LM3P6VSG9YU1TE0RAWBKXN",
		"Q4BTWXMRKZF7HNJ2C5D8EA/LM3P6VSG9YU1TE0RAWBKXN/Q4BTWXMRKZF7HNJ2C5D8EA",
	}
	bad := map[PixelType][]string{
		PixelGTM:       {"", "GTM-", "gtm-abc1234", "<script>"},
		PixelGA:        {"G-", "UA-1234", "AW-123456"},
		PixelFacebook:  {"12345678901234", "12345678901234567", "abc"},
		PixelAdWords:   {"123456789", "AW-12"},
		PixelLinkedIn:  {"abc", "12"},
		PixelTwitter:   {"abcd", "abcdefghijk", "ab-cd"},
		PixelAdRoll:    adrollBad,
		PixelQuora:     {"0123456789ABCDEF0123456789ABCDEF", "0123"},
		PixelPinterest: {"123456789012", "12345678901234"},
		PixelBing:      {"abc"},
		PixelSnapchat:  {"0a1b2c3d4e5f6789abcdef0123456789"},
		PixelReddit:    {"t3_abc", "abc"},
		PixelTikTok:    {"c1a2b3c4d5e6f7g8h9i0", "C1A2B3"},
	}
	if len(ok) != 13 || len(PixelTypes) != 13 {
		t.Fatalf("want 13 pixel types")
	}
	for typ, tags := range ok {
		for _, tag := range tags {
			if _, err := ValidatePixel(typ, " "+tag+" "); err != nil {
				t.Errorf("ValidatePixel(%s, %q) = %v", typ, tag, err)
			}
		}
	}
	for typ, tags := range bad {
		for _, tag := range tags {
			if _, err := ValidatePixel(typ, tag); !errors.Is(err, ErrInvalid) {
				t.Errorf("ValidatePixel(%s, %q) accepted", typ, tag)
			}
		}
	}
	if _, err := ValidatePixel("myspace", "123"); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown pixel type accepted")
	}
}

// TestValidatePixelMessage checks that a refused tag's message names the
// shape its type expects and an example of it, and that the example passes.
func TestValidatePixelMessage(t *testing.T) {
	for _, typ := range PixelTypes {
		f := pixelFormats[typ]
		if _, err := ValidatePixel(typ, f.example); err != nil {
			t.Errorf("%s: the example %q is refused: %v", typ, f.example, err)
		}
		_, err := ValidatePixel(typ, "x!")
		if err == nil || !strings.Contains(err.Error(), f.shape) || !strings.Contains(err.Error(), f.example) {
			t.Errorf("%s: message %v lacks the shape %q or the example %q", typ, err, f.shape, f.example)
		}
	}
	_, err := ValidatePixel(PixelAdRoll, " Q4BTWXMRKZF7HNJ2C5D8EA ")
	var ae *apperr.Error
	want := `tag "Q4BTWXMRKZF7HNJ2C5D8EA" is not a valid adrollpixel tag: expected ADV_EID/PIX_EID`
	if !errors.As(err, &ae) || !strings.HasPrefix(ae.Message, want) {
		t.Errorf("single AdRoll id: %v, want a message starting %q", err, want)
	}
}

func TestValidateQRData(t *testing.T) {
	ok := []struct {
		t    QRType
		data string
	}{{QRText, `"hello"`}, {QRLink, `"https://example.com"`}, {QRVCard, `{"name":"A"}`}, {QRWiFi, `["ssid","wpa","pw"]`},
		{QREmail, `"a@example.com"`}}
	for _, c := range ok {
		if _, err := ValidateQRData(c.t, json.RawMessage(c.data)); err != nil {
			t.Errorf("ValidateQRData(%s, %s) = %v", c.t, c.data, err)
		}
	}
	bad := []struct {
		t    QRType
		data string
	}{{"video", `"x"`}, {QRText, ``}, {QRText, `""`}, {QRText, `["a"]`}, {QRLink, `"ftp://x"`}, {QRVCard, `12`}, {QREmail, `"nope"`}}
	for _, c := range bad {
		if _, err := ValidateQRData(c.t, json.RawMessage(c.data)); !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidateQRData(%s, %s) accepted", c.t, c.data)
		}
	}
	var png bytes.Buffer
	if err := imagepng.Encode(&png, image.NewRGBA(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	if err := ValidateLogo("data:image/png;base64," + base64.StdEncoding.EncodeToString(png.Bytes())); err != nil {
		t.Errorf("ValidateLogo(png data URI): %v", err)
	}
	for _, bad := range []string{"https://example.com/logo.png", "/uploads/logo.png", "data:image/gif;base64,R0lGODlhAQABAAAAACw=",
		"data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("not a png"))} {
		if err := ValidateLogo(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidateLogo(%.40q) = %v, want a validation error", bad, err)
		}
	}
}

func TestPaging(t *testing.T) {
	p, err := Page{}.Normalize()
	if err != nil || p != (Page{Number: 1, Limit: DefaultLimit}) {
		t.Fatalf("Page{}.Normalize() = %+v, %v", p, err)
	}
	for _, bad := range []Page{{Number: -1}, {Limit: -1}, {Limit: MaxLimit + 1}} {
		if _, err := bad.Normalize(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v.Normalize() accepted", bad)
		}
	}
	cases := []struct {
		total, number, limit int
		want                 Paging
	}{
		{0, 1, 10, Paging{0, 10, 1, 0, 1}},
		{25, 1, 10, Paging{25, 10, 1, 2, 3}},
		{25, 3, 10, Paging{25, 10, 3, 0, 3}},
		{30, 3, 10, Paging{30, 10, 3, 0, 3}},
		{5, 4, 10, Paging{5, 10, 4, 0, 1}},
	}
	for _, c := range cases {
		got := List[int]{Total: c.total, Page: Page{Number: c.number, Limit: c.limit}}.Paging()
		if got != c.want {
			t.Errorf("Paging(total %d, page %d, limit %d) = %+v, want %+v", c.total, c.number, c.limit, got, c.want)
		}
	}
}

func TestAPIKey(t *testing.T) {
	k1, h1, err := GenerateAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	k2, _, _ := GenerateAPIKey()
	if k1 == k2 || !strings.HasPrefix(k1, KeyPrefix) || !WellFormedAPIKey(k1) || HashAPIKey(k1) != h1 || len(h1) != 64 {
		t.Fatalf("GenerateAPIKey = %q, %q", k1, h1)
	}
	for _, bad := range []string{"", "lk_", "xx_" + k1[3:], k1 + "A", k1[:len(k1)-1]} {
		if WellFormedAPIKey(bad) {
			t.Errorf("WellFormedAPIKey(%q) = true", bad)
		}
	}
	for h, want := range map[string]string{"Bearer " + k1: k1, "token " + k1: k1, "Basic abc": "", "Bearer ": "", k1: ""} {
		got, ok := ParseAuthorization(h)
		if got != want || ok != (want != "") {
			t.Errorf("ParseAuthorization(%q) = %q, %v; want %q", h, got, ok, want)
		}
	}
}

func TestGenerateAlias(t *testing.T) {
	a, err := GenerateAlias()
	if err != nil || len(a) != GeneratedAliasLength || strings.ContainsAny(a, "0O1lI") {
		t.Fatalf("GenerateAlias = %q, %v", a, err)
	}
}

func TestEmailUsername(t *testing.T) {
	if e, err := NormalizeEmail("Ana@Example.com"); err != nil || e != "ana@example.com" {
		t.Errorf("NormalizeEmail = %q, %v", e, err)
	}
	for _, e := range []string{"", "ana", "Ana <ana@example.com>"} {
		if _, err := NormalizeEmail(e); err == nil {
			t.Errorf("NormalizeEmail(%q) accepted", e)
		}
	}
	if u, err := NormalizeUsername("Ana.B"); err != nil || u != "ana.b" {
		t.Errorf("NormalizeUsername = %q, %v", u, err)
	}
	if _, err := NormalizeUsername("a"); err == nil {
		t.Error("NormalizeUsername accepted a one-letter name")
	}
}
