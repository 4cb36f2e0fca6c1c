package qr

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
	"unicode/utf8"
)

// validationField returns the field of err, failing unless err is a
// *ValidationError with a message.
func validationField(t *testing.T, err error) string {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Message == "" {
		t.Fatalf("error %T %v, want a *ValidationError with a message", err, err)
	}
	return ve.Field
}

// FuzzParseRGB: an accepted colour is opaque and its canonical form
// rgb(r,g,b) parses back to it; a refusal is a *ValidationError on "color".
func FuzzParseRGB(f *testing.F) {
	for _, s := range []string{"rgb(0,0,0)", "rgb(255,255,255)", " rgb ( 12 , 34 , 56 ) ", "rgb(256,0,0)", "rgb(-1,0,0)",
		"rgb(0,0)", "rgb(0,0,0,0)", "rgb(1,2,3", "rgb1,2,3)", "RGB(1,2,3)", "rgb(+1,2,3)", "rgb(0001,2,3)", "rgb(1e2,0,0)",
		"rgb(\t1,2,3)", "rgb(１,2,3)", "#ffffff", "", "rgb()", "rgb(,,)", "rgba(1,2,3,4)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseRGB(s)
		if err != nil {
			if field := validationField(t, err); field != "color" {
				t.Fatalf("field %q, want color", field)
			}
			return
		}
		if c.A != 255 {
			t.Fatalf("%q parsed to a transparent colour %v", s, c)
		}
		if !strings.HasPrefix(strings.TrimSpace(s), "rgb") {
			t.Fatalf("accepted %q", s)
		}
		again, err := ParseRGB(formatRGB(c))
		if err != nil || again != c {
			t.Fatalf("%q: %s parses to %v, %v", s, formatRGB(c), again, err)
		}
	})
}

// FuzzParseColors: an accepted pair scans (contrast at least MinContrast,
// foreground not lighter than background) and empty fields take the
// defaults; a refusal names the field at fault.
func FuzzParseColors(f *testing.F) {
	for _, p := range [][2]string{{"", ""}, {"rgb(0,0,0)", "rgb(255,255,255)"}, {"rgb(255,255,255)", "rgb(0,0,0)"},
		{"rgb(128,128,128)", "rgb(255,255,255)"}, {"rgb(255,0,0)", ""}, {"", "rgb(0,0,128)"}, {"x", ""}, {"", "y"}, {" ", "\t"}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, fgs, bgs string) {
		fg, bg, err := ParseColors(fgs, bgs)
		if err != nil {
			switch field := validationField(t, err); field {
			case "foreground", "background":
			default:
				t.Fatalf("field %q", field)
			}
			return
		}
		if r := ContrastRatio(fg, bg); r < MinContrast || luminance(fg) > luminance(bg) {
			t.Fatalf("accepted %v on %v (contrast %.2f)", fg, bg, r)
		}
		if strings.TrimSpace(fgs) == "" && fg != DefaultForeground || strings.TrimSpace(bgs) == "" && bg != DefaultBackground {
			t.Fatalf("an empty field did not take its default: %v %v", fg, bg)
		}
		if fg.A != 255 || bg.A != 255 {
			t.Fatal("transparent colour accepted")
		}
	})
}

// FuzzPayload: the payload of an accepted type and data is UTF-8 text that
// fits a QR code and is the same on every call; a refusal is a
// *ValidationError on type, data or a member of data.
func FuzzPayload(f *testing.F) {
	seeds := []struct{ t, data string }{
		{"text", `"hello"`}, {"link", `"https://example.com/a?b=c"`}, {"link", `"https://user:pw@example.com"`},
		{"phone", `"+62 812-3456-7890"`}, {"email", `"a@example.com"`},
		{"email", `{"email":"a@example.com","subject":"hi","body":"x&y"}`}, {"sms", `{"phone":"+6281234567890","message":"hi"}`},
		{"sms", `["+6281234567890","hi"]`}, {"wifi", `{"ssid":"net;1","password":"p:w","encryption":"WPA","hidden":"true"}`},
		{"wifi", `{"ssid":"open","encryption":"nopass"}`}, {"wifi", `{"ssid":"x","encryption":"WEP","password":"0123456789"}`},
		{"vcard", `{"first_name":"A","last_name":"B","org":"C;D","phone":"+62 1","email":"a@b.co","note":"1\n2"}`},
		{"vcard", `{"x":1}`}, {"text", `null`}, {"text", ``}, {"text", `1`}, {"text", `"` + strings.Repeat("a", 3000) + `"`},
		{"bogus", `"x"`}, {"text", `"\u0000"`}, {"email", `{"email":1}`}, {"sms", `[]`}, {"wifi", `"WIFI:S:x;;"`},
	}
	for _, s := range seeds {
		f.Add(s.t, []byte(s.data))
	}
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		p, err := Payload(Type(typ), json.RawMessage(data))
		if err != nil {
			field := validationField(t, err)
			if field != "type" && field != "data" && !strings.HasPrefix(field, "data.") {
				t.Fatalf("field %q of %v", field, err)
			}
			return
		}
		if !Type(typ).Valid() {
			t.Fatalf("accepted type %q", typ)
		}
		if p == "" || !utf8.ValidString(p) {
			t.Fatalf("payload %q", p)
		}
		if err := Fits(p, false); err != nil {
			t.Fatalf("accepted payload does not fit: %v", err)
		}
		if again, err := Payload(Type(typ), json.RawMessage(data)); err != nil || again != p {
			t.Fatalf("second call: %q, %v", again, err)
		}
	})
}

// smallImage is a 2×2 PNG or JPEG.
func smallImage(f *testing.F, jpg bool) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	var err error
	if jpg {
		err = jpeg.Encode(&buf, img, nil)
	} else {
		err = png.Encode(&buf, img)
	}
	if err != nil {
		f.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzDecodeDataURI: accepted bytes are at most MaxLogoBytes and start
// with the declared type's magic, and their canonical data URI decodes to
// the same bytes; a refusal is a *ValidationError on "logo".
func FuzzDecodeDataURI(f *testing.F) {
	pngb, jpgb := smallImage(f, false), smallImage(f, true)
	for _, s := range []string{
		"data:image/png;base64," + base64.StdEncoding.EncodeToString(pngb),
		"data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpgb),
		"DATA:image/JPG ; base64," + base64.RawStdEncoding.EncodeToString(jpgb),
		"data:image/png;base64,\n" + base64.StdEncoding.EncodeToString(pngb)[:8] + "\r\n" + base64.StdEncoding.EncodeToString(pngb)[8:],
		"data:image/png;base64," + base64.StdEncoding.EncodeToString(jpgb), "data:image/gif;base64,R0lGODlh",
		"https://example.com/logo.png", "//example.com/x.png", "data:", "data:image/png;base64", "data:image/png;base64,!!!",
		"", "file:///etc/passwd", "data:image/png,abc",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := DecodeDataURI(s)
		if err != nil {
			if field := validationField(t, err); field != "logo" {
				t.Fatalf("field %q", field)
			}
			return
		}
		if len(b) > MaxLogoBytes || !bytes.HasPrefix(b, pngMagic) && !bytes.HasPrefix(b, jpegMagic) {
			t.Fatalf("accepted %d bytes starting %x", len(b), b[:min(len(b), 8)])
		}
		typ := "image/png"
		if bytes.HasPrefix(b, jpegMagic) {
			typ = "image/jpeg"
		}
		again, err := DecodeDataURI("data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(b))
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("canonical data URI: %v", err)
		}
	})
}

// FuzzDecodeLogo: an accepted logo has pixels and is within MaxLogoPixels
// each way; a refusal is a *ValidationError on "logo" (ErrTooLarge only
// over MaxLogoBytes).
func FuzzDecodeLogo(f *testing.F) {
	pngb, jpgb := smallImage(f, false), smallImage(f, true)
	f.Add(pngb)
	f.Add(jpgb)
	f.Add(pngb[:len(pngb)-4])
	f.Add(jpgb[:20])
	f.Add([]byte("https://example.com/x.png"))
	f.Add([]byte("GIF89a"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := DecodeLogo(b)
		if err != nil {
			if field := validationField(t, err); field != "logo" {
				t.Fatalf("field %q", field)
			}
			if errors.Is(err, ErrTooLarge) != (len(b) > MaxLogoBytes) {
				t.Fatalf("ErrTooLarge for %d bytes: %v", len(b), err)
			}
			return
		}
		r := img.Bounds()
		if r.Dx() < 1 || r.Dy() < 1 || r.Dx() > MaxLogoPixels || r.Dy() > MaxLogoPixels {
			t.Fatalf("accepted a logo of %v", r)
		}
	})
}
