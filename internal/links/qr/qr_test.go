package qr_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/seedhq/portal/internal/links/qr"
)

// MustPayload returns the payload for t and data, failing the test on error.
func MustPayload(t testing.TB, typ qr.Type, data string) string {
	t.Helper()
	p, err := qr.Payload(typ, json.RawMessage(data))
	if err != nil {
		t.Fatalf("Payload(%s, %s): %v", typ, data, err)
	}
	return p
}

// MustDecodeQR decodes the QR code in a PNG and returns its text.
func MustDecodeQR(t testing.TB, b []byte) string {
	t.Helper()
	text, err := decodeQR(b)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// decodeQR decodes the QR code in a PNG with gozxing's QR reader.
func decodeQR(b []byte) (string, error) {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return "", fmt.Errorf("png.Decode: %w", err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		return "", fmt.Errorf("NewBinaryBitmapFromImage: %w", err)
	}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		return "", fmt.Errorf("decode QR: %w", err)
	}
	return res.GetText(), nil
}

// wantValidation checks err is a *ValidationError on field whose message
// contains msg.
func wantValidation(t *testing.T, err error, field, msg string) {
	t.Helper()
	var ve *qr.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v (%T), want *qr.ValidationError", err, err)
	}
	if ve.Field != field {
		t.Errorf("Field = %q, want %q (message %q)", ve.Field, field, ve.Message)
	}
	if !strings.Contains(ve.Message, msg) {
		t.Errorf("Message = %q, want it to contain %q", ve.Message, msg)
	}
}

func TestParseType(t *testing.T) {
	for _, typ := range qr.Types() {
		got, err := qr.ParseType(" " + strings.ToUpper(string(typ)) + " ")
		if err != nil || got != typ {
			t.Errorf("ParseType(%q) = %q, %v", typ, got, err)
		}
	}
	if len(qr.Types()) != 7 {
		t.Errorf("Types() has %d entries, want 7", len(qr.Types()))
	}
	_, err := qr.ParseType("url")
	wantValidation(t, err, "type", "must be one of")
	_, err = qr.ParseType("")
	wantValidation(t, err, "type", "required")
}

func TestPayloadValid(t *testing.T) {
	tests := []struct {
		name string
		typ  qr.Type
		data string
		want string
	}{
		{"text", qr.TypeText, `"Hello, world"`, "Hello, world"},
		{"text multiline unicode", qr.TypeText, `"Grüße\n🌍\ttab"`, "Grüße\n🌍\ttab"},
		{"link", qr.TypeLink, `" https://example.com/a?b=c#d "`, "https://example.com/a?b=c#d"},
		{"link http port", qr.TypeLink, `"http://example.com:8080/x"`, "http://example.com:8080/x"},
		{"link ip", qr.TypeLink, `"https://[2001:db8::1]/"`, "https://[2001:db8::1]/"},
		{"link idn", qr.TypeLink, `"https://bücher.example/"`, "https://bücher.example/"},
		{"phone string", qr.TypePhone, `"+1 (555) 123-4567"`, "tel:+15551234567"},
		{"phone object", qr.TypePhone, `{"phone":"020.7946.0018"}`, "tel:02079460018"},
		{"phone array", qr.TypePhone, `["112"]`, "tel:112"},
		{"email string", qr.TypeEmail, `"ada@example.com"`, "mailto:ada@example.com"},
		{"email object", qr.TypeEmail, `{"email":"ada+qr@example.com","subject":"Hi & bye?","body":"Line 1\nLine 2 = 100%"}`,
			"mailto:ada+qr@example.com?subject=Hi%20%26%20bye%3F&body=Line%201%0D%0ALine%202%20%3D%20100%25"},
		{"email array", qr.TypeEmail, `["ada@example.com","Grüße"]`, "mailto:ada@example.com?subject=Gr%C3%BC%C3%9Fe"},
		{"email body only", qr.TypeEmail, `{"email":"ada@example.com","body":"x"}`, "mailto:ada@example.com?body=x"},
		{"email local part encoded", qr.TypeEmail, `"a/b=c@example.com"`, "mailto:a%2Fb%3Dc@example.com"},
		{"sms object", qr.TypeSMS, `{"phone":"+44 7700 900123","message":"Call me: now"}`, "SMSTO:+447700900123:Call me: now"},
		{"sms array", qr.TypeSMS, `["5551234","hi"]`, "SMSTO:5551234:hi"},
		{"sms no message", qr.TypeSMS, `{"phone":"5551234"}`, "SMSTO:5551234:"},
		{"sms string", qr.TypeSMS, `"5551234"`, "SMSTO:5551234:"},
		{"wifi wpa", qr.TypeWiFi, `{"ssid":"Home","password":"secret123","encryption":"WPA"}`, "WIFI:T:WPA;S:Home;P:secret123;;"},
		{"wifi escaping hidden", qr.TypeWiFi, `{"ssid":"My;Net,\"x\":y\\z","password":"p;a:s,s\\\"w","encryption":"wpa2","hidden":true}`,
			`WIFI:T:WPA;S:My\;Net\,\"x\"\:y\\z;P:p\;a\:s\,s\\\"w;H:true;;`},
		{"wifi default wpa", qr.TypeWiFi, `{"ssid":"Home","password":"secret123"}`, "WIFI:T:WPA;S:Home;P:secret123;;"},
		{"wifi open", qr.TypeWiFi, `{"ssid":"Cafe"}`, "WIFI:T:nopass;S:Cafe;;"},
		{"wifi nopass explicit", qr.TypeWiFi, `{"ssid":"Cafe","encryption":"nopass","hidden":"false"}`, "WIFI:T:nopass;S:Cafe;;"},
		{"wifi wep", qr.TypeWiFi, `["Old","0123456789","WEP","true"]`, "WIFI:T:WEP;S:Old;P:0123456789;H:true;;"},
		{"wifi wpa hex psk", qr.TypeWiFi, `{"ssid":"K","password":"` + strings.Repeat("ab", 32) + `"}`,
			"WIFI:T:WPA;S:K;P:" + strings.Repeat("ab", 32) + ";;"},
		{"vcard full", qr.TypeVCard, `{"first_name":"Ada","last_name":"Lovelace","org":"Analytical, Engines; Ltd","title":"Countess",
			"phone":"+44 20 7946 0018","mobile":"+44 7700 900123","email":"ada@example.com","url":"https://example.com/ada",
			"address":"12 St James's Sq\nFlat 3","city":"London","region":"","postal_code":"SW1Y 4JH","country":"UK","note":"a\\b"}`,
			"BEGIN:VCARD\r\nVERSION:3.0\r\nN:Lovelace;Ada;;;\r\nFN:Ada Lovelace\r\nORG:Analytical\\, Engines\\; Ltd\r\nTITLE:Countess\r\n" +
				"TEL;TYPE=VOICE:+442079460018\r\nTEL;TYPE=CELL:+447700900123\r\nEMAIL;TYPE=INTERNET:ada@example.com\r\n" +
				"URL:https://example.com/ada\r\nADR:;;12 St James's Sq\\nFlat 3;London;;SW1Y 4JH;UK\r\nNOTE:a\\\\b\r\nEND:VCARD"},
		{"vcard org only", qr.TypeVCard, `{"org":"ACME"}`, "BEGIN:VCARD\r\nVERSION:3.0\r\nN:;;;;\r\nFN:ACME\r\nORG:ACME\r\nEND:VCARD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := qr.Payload(tt.typ, json.RawMessage(tt.data))
			if err != nil {
				t.Fatalf("Payload: %v", err)
			}
			if got != tt.want {
				t.Errorf("Payload =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestPayloadInvalid(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name  string
		typ   qr.Type
		data  string
		field string
		msg   string
	}{
		{"bad type", qr.Type("url"), `"x"`, "type", "must be one of"},
		{"missing", qr.TypeText, ``, "data", "required"},
		{"null", qr.TypeText, `null`, "data", "required"},
		{"text not string", qr.TypeText, `{"text":"x"}`, "data", "must be a string"},
		{"text blank", qr.TypeText, `"   "`, "data", "required"},
		{"text control", qr.TypeText, `"a\u0000b"`, "data", "control characters"},
		{"text too long for any QR", qr.TypeText, `"` + long(3000) + `"`, "data", "data too long for a QR code"},
		{"text too long at M", qr.TypeText, `"` + long(2400) + `"`, "data", "data too long for a QR code"},
		{"link not string", qr.TypeLink, `["https://example.com"]`, "data", "must be a string"},
		{"link ftp", qr.TypeLink, `"ftp://example.com/"`, "data", "http or https"},
		{"link javascript", qr.TypeLink, `"javascript:alert(1)"`, "data", "http or https"},
		{"link relative", qr.TypeLink, `"/path"`, "data", "http or https"},
		{"link no host", qr.TypeLink, `"https:///x"`, "data", "host name"},
		{"link opaque", qr.TypeLink, `"http:example.com"`, "data", "absolute URL"},
		{"link userinfo", qr.TypeLink, `"https://bank.com@evil.example/"`, "data", "user name or password"},
		{"link space", qr.TypeLink, `"https://example.com/a b"`, "data", "spaces"},
		{"link bad host", qr.TypeLink, `"https://exa_mple.com/"`, "data", "invalid host"},
		{"link bad port", qr.TypeLink, `"https://example.com:99999/"`, "data", "port"},
		{"link too long", qr.TypeLink, `"https://example.com/` + long(2100) + `"`, "data", "at most 2048"},
		{"phone letters", qr.TypePhone, `"555-CALL"`, "data", "only digits"},
		{"phone short", qr.TypePhone, `"12"`, "data", "3 to 15 digits"},
		{"phone long", qr.TypePhone, `"+1234567890123456"`, "data", "3 to 15 digits"},
		{"phone plus inside", qr.TypePhone, `"12+34"`, "data", "only digits"},
		{"phone empty object", qr.TypePhone, `{"phone":""}`, "data.phone", "required"},
		{"phone number type", qr.TypePhone, `{"phone":5551234}`, "data.phone", "must be a string"},
		{"email bad", qr.TypeEmail, `"not-an-email"`, "data", "not valid"},
		{"email display name", qr.TypeEmail, `{"email":"Ada <ada@example.com>"}`, "data.email", "not valid"},
		{"email no dot", qr.TypeEmail, `"ada@localhost"`, "data", "not valid"},
		{"email unknown field", qr.TypeEmail, `{"email":"ada@example.com","cc":"x@example.com"}`, "data", `unknown field "cc"`},
		{"email too many items", qr.TypeEmail, `["a@example.com","s","b","x"]`, "data", "at most 3 items"},
		{"email subject newline", qr.TypeEmail, `{"email":"ada@example.com","subject":"a\nb"}`, "data.subject", "control characters"},
		{"email subject long", qr.TypeEmail, `{"email":"ada@example.com","subject":"` + long(256) + `"}`, "data.subject", "at most 255"},
		{"email number", qr.TypeEmail, `42`, "data", "an object or an array"},
		{"sms no phone", qr.TypeSMS, `{"message":"hi"}`, "data.phone", "required"},
		{"sms long", qr.TypeSMS, `{"phone":"5551234","message":"` + long(1001) + `"}`, "data.message", "at most 1000"},
		{"sms empty array", qr.TypeSMS, `[]`, "data", "required"},
		{"wifi string", qr.TypeWiFi, `"Home"`, "data", "an object or an array"},
		{"wifi no ssid", qr.TypeWiFi, `{"password":"secret123"}`, "data.ssid", "required"},
		{"wifi long ssid", qr.TypeWiFi, `{"ssid":"` + long(33) + `"}`, "data.ssid", "at most 32 bytes"},
		{"wifi short wpa", qr.TypeWiFi, `{"ssid":"H","password":"short","encryption":"WPA"}`, "data.password", "8 to 63"},
		{"wifi bad wep", qr.TypeWiFi, `{"ssid":"H","password":"123456","encryption":"WEP"}`, "data.password", "WEP key"},
		{"wifi nopass with password", qr.TypeWiFi, `{"ssid":"H","password":"secret123","encryption":"nopass"}`, "data.password", "must be empty"},
		{"wifi bad encryption", qr.TypeWiFi, `{"ssid":"H","encryption":"WPA9"}`, "data.encryption", "WPA, WEP or nopass"},
		{"wifi bad hidden", qr.TypeWiFi, `{"ssid":"H","hidden":"maybe"}`, "data.hidden", "true or false"},
		{"wifi unknown", qr.TypeWiFi, `{"ssid":"H","pass":"x"}`, "data", `unknown field "pass"`},
		{"wifi trailing garbage", qr.TypeWiFi, `{"ssid":"H"} {}`, "data", "not valid JSON"},
		{"wifi broken json", qr.TypeWiFi, `{"ssid":`, "data", "not valid JSON"},
		{"vcard array", qr.TypeVCard, `["Ada","Lovelace"]`, "data", "must be an object"},
		{"vcard no name", qr.TypeVCard, `{"phone":"5551234"}`, "data", "at least one of first_name"},
		{"vcard bad email", qr.TypeVCard, `{"first_name":"Ada","email":"ada"}`, "data.email", "not valid"},
		{"vcard bad url", qr.TypeVCard, `{"first_name":"Ada","url":"example.com"}`, "data.url", "http or https"},
		{"vcard bad phone", qr.TypeVCard, `{"first_name":"Ada","mobile":"x"}`, "data.mobile", "only digits"},
		{"vcard long name", qr.TypeVCard, `{"first_name":"` + long(201) + `"}`, "data.first_name", "at most 200"},
		{"vcard newline in name", qr.TypeVCard, `{"first_name":"Ada\nEND:VCARD"}`, "data.first_name", "control characters"},
		{"vcard unknown", qr.TypeVCard, `{"first_name":"Ada","fax":"1"}`, "data", `unknown field "fax"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := qr.Payload(tt.typ, json.RawMessage(tt.data))
			if err == nil {
				t.Fatalf("Payload = %q, want an error", got)
			}
			wantValidation(t, err, tt.field, tt.msg)
		})
	}
}

func TestPayloadTooLongWrapsSentinel(t *testing.T) {
	_, err := qr.Payload(qr.TypeText, json.RawMessage(`"`+strings.Repeat("x", 2400)+`"`))
	if !errors.Is(err, qr.ErrDataTooLong) {
		t.Fatalf("err = %v, want ErrDataTooLong", err)
	}
	// 1500 bytes fit at M but not at H, which a logo needs.
	p := strings.Repeat("x", 1500)
	if err := qr.Fits(p, false); err != nil {
		t.Fatalf("Fits(1500, no logo) = %v", err)
	}
	err = qr.Fits(p, true)
	if !errors.Is(err, qr.ErrDataTooLong) {
		t.Fatalf("Fits(1500, logo) = %v, want ErrDataTooLong", err)
	}
	wantValidation(t, err, "data", "with a logo")
	_, err = qr.PNG(p, qr.Options{Logo: solid(10, 10, color.RGBA{255, 0, 0, 255})})
	if !errors.Is(err, qr.ErrDataTooLong) {
		t.Fatalf("PNG with logo = %v, want ErrDataTooLong", err)
	}
}

func TestValidateLink(t *testing.T) {
	for _, s := range []string{"https://example.com", "HTTP://EXAMPLE.COM/x", "https://127.0.0.1:8443/p?q=1"} {
		if err := qr.ValidateLink(s); err != nil {
			t.Errorf("ValidateLink(%q) = %v", s, err)
		}
	}
	for _, s := range []string{"", "example.com", "mailto:a@example.com", "https://", "https://a..b/", "https://-a.com/", "data:text/html,x"} {
		if err := qr.ValidateLink(s); err == nil {
			t.Errorf("ValidateLink(%q) = nil, want an error", s)
		}
	}
}

func TestParseRGB(t *testing.T) {
	valid := map[string]color.RGBA{
		"rgb(0,0,0)":              {0, 0, 0, 255},
		"rgb(255,255,255)":        {255, 255, 255, 255},
		" rgb( 12 , 34 ,56 ) ":    {12, 34, 56, 255},
		"rgb (1,2,3)":             {1, 2, 3, 255},
		"rgb(007,000,255)":        {7, 0, 255, 255},
		"rgb(  255,  0,   128  )": {255, 0, 128, 255},
	}
	for in, want := range valid {
		got, err := qr.ParseRGB(in)
		if err != nil || got != want {
			t.Errorf("ParseRGB(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{
		"", "rgb()", "rgb(1,2)", "rgb(1,2,3,4)", "rgb(256,0,0)", "rgb(-1,0,0)", "rgb(+1,0,0)",
		"rgb(1.5,0,0)", "rgba(1,2,3)", "RGB(1,2,3)", "#ffffff", "rgb(1,2,3", "rgb(1,2,3)x", "rgb(1 2 3)", "rgb(0x1,2,3)",
		"rgb(1,,3)", "rgb(1000,0,0)", "rgb(1,2,3);fill:url(#x)",
	} {
		_, err := qr.ParseRGB(in)
		if err == nil {
			t.Errorf("ParseRGB(%q) = nil error", in)
			continue
		}
		wantValidation(t, err, "color", "rgb(r,g,b)")
	}
}

func TestParseColors(t *testing.T) {
	fg, bg, err := qr.ParseColors("", "")
	if err != nil || fg != qr.DefaultForeground || bg != qr.DefaultBackground {
		t.Fatalf("defaults = %v %v %v", fg, bg, err)
	}
	fg, bg, err = qr.ParseColors("rgb(0,0,128)", "rgb(255,255,200)")
	if err != nil || fg != (color.RGBA{0, 0, 128, 255}) || bg != (color.RGBA{255, 255, 200, 255}) {
		t.Fatalf("custom = %v %v %v", fg, bg, err)
	}
	_, _, err = qr.ParseColors("red", "")
	wantValidation(t, err, "foreground", "foreground \"red\" must be of the form")
	_, _, err = qr.ParseColors("", "rgb(1,2)")
	wantValidation(t, err, "background", "rgb(r,g,b)")
	_, _, err = qr.ParseColors("rgb(200,200,200)", "")
	wantValidation(t, err, "foreground", "too close to scan")
}

func TestCheckContrast(t *testing.T) {
	black, white := color.RGBA{0, 0, 0, 255}, color.RGBA{255, 255, 255, 255}
	tests := []struct {
		name   string
		fg, bg color.RGBA
		msg    string // empty: accepted
	}{
		{"black on white", black, white, ""},
		{"navy on white", color.RGBA{0, 0, 128, 255}, white, ""},
		{"red on white", color.RGBA{255, 0, 0, 255}, white, ""},
		{"dark green on light yellow", color.RGBA{0, 100, 0, 255}, color.RGBA{255, 255, 200, 255}, ""},
		{"mid grey on white", color.RGBA{153, 153, 153, 255}, white, "too close to scan"},
		{"yellow on white", color.RGBA{255, 255, 0, 255}, white, "too close to scan"},
		{"same colour", color.RGBA{10, 120, 200, 255}, color.RGBA{10, 120, 200, 255}, "too close to scan"},
		{"blue on red", color.RGBA{0, 0, 255, 255}, color.RGBA{255, 0, 0, 255}, "too close to scan"},
		{"white on black", white, black, "darker than background"},
		{"yellow on navy", color.RGBA{255, 255, 0, 255}, color.RGBA{0, 0, 128, 255}, "darker than background"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := qr.CheckContrast(tt.fg, tt.bg)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("CheckContrast = %v (ratio %.2f)", err, qr.ContrastRatio(tt.fg, tt.bg))
				}
				return
			}
			wantValidation(t, err, "foreground", tt.msg)
		})
	}
	if r := qr.ContrastRatio(black, white); r < 20.99 || r > 21.01 {
		t.Errorf("ContrastRatio(black, white) = %v, want 21", r)
	}
	if r := qr.ContrastRatio(white, white); r != 1 {
		t.Errorf("ContrastRatio(white, white) = %v, want 1", r)
	}
}

func solid(w, h int, c color.Color) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	return img
}

// logoImage is a small two-colour picture with a transparent corner.
func logoImage(w, h int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			switch {
			case x < w/4 && y < h/4:
				img.Set(x, y, color.NRGBA{0, 0, 0, 0})
			case (x/8+y/8)%2 == 0:
				img.Set(x, y, color.NRGBA{220, 30, 30, 255})
			default:
				img.Set(x, y, color.NRGBA{30, 30, 220, 255})
			}
		}
	}
	return img
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bombPNG is a tiny valid PNG whose header claims w×h pixels.
func bombPNG(t testing.TB, w, h uint32) []byte {
	t.Helper()
	b := encodePNG(t, solid(1, 1, color.White))
	// Signature (8), IHDR length (4), "IHDR" (4), then width and height.
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

func TestDecodeLogo(t *testing.T) {
	pngBytes := encodePNG(t, logoImage(40, 20))
	jpegBytes := encodeJPEG(t, logoImage(30, 30))
	var gifBuf bytes.Buffer
	if err := gif.Encode(&gifBuf, logoImage(10, 10), nil); err != nil {
		t.Fatal(err)
	}
	wide := encodePNG(t, solid(1100, 2, color.White))
	oversize := append(append([]byte{}, pngBytes[:8]...), make([]byte, qr.MaxLogoBytes)...)

	img, err := qr.DecodeLogo(pngBytes)
	if err != nil || img.Bounds().Dx() != 40 || img.Bounds().Dy() != 20 {
		t.Fatalf("png: %v, %v", img, err)
	}
	img, err = qr.DecodeLogo(jpegBytes)
	if err != nil || img.Bounds().Dx() != 30 {
		t.Fatalf("jpeg: %v, %v", img, err)
	}

	tests := []struct {
		name string
		in   []byte
		msg  string
	}{
		{"empty", nil, "empty"},
		{"gif", gifBuf.Bytes(), "PNG or JPEG"},
		{"text", []byte("hello world"), "PNG or JPEG"},
		{"http url", []byte("https://example.com/logo.png"), "not fetched"},
		{"png magic then junk", append(append([]byte{}, pngBytes[:8]...), "junk"...), "not a readable"},
		{"truncated png", pngBytes[:len(pngBytes)-20], "not a readable"},
		{"bomb dimensions", bombPNG(t, 100000, 100000), "at most 1024×1024"},
		{"too wide", wide, "1100×2"},
		{"oversize", oversize, "at most 512 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := qr.DecodeLogo(tt.in)
			wantValidation(t, err, "logo", tt.msg)
		})
	}
	if _, err := qr.DecodeLogo(oversize); !errors.Is(err, qr.ErrTooLarge) {
		t.Errorf("oversize: %v, want ErrTooLarge", err)
	}
}

func TestDecodeDataURI(t *testing.T) {
	pngBytes := encodePNG(t, logoImage(16, 16))
	jpegBytes := encodeJPEG(t, logoImage(16, 16))
	b64 := base64.StdEncoding.EncodeToString

	for name, in := range map[string]string{
		"png":            "data:image/png;base64," + b64(pngBytes),
		"png upper":      "DATA:IMAGE/PNG;BASE64," + b64(pngBytes),
		"png wrapped":    "data:image/png;base64," + b64(pngBytes)[:20] + "\n" + b64(pngBytes)[20:],
		"png unpadded":   "data:image/png;base64," + base64.RawStdEncoding.EncodeToString(pngBytes),
		"jpeg":           "data:image/jpeg;base64," + b64(jpegBytes),
		"jpg alias":      " data:image/jpg;base64," + b64(jpegBytes) + " ",
		"jpeg in spaces": "data:image/jpeg; base64," + b64(jpegBytes),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := qr.DecodeDataURI(in)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := qr.DecodeLogo(got); err != nil {
				t.Fatalf("DecodeLogo: %v", err)
			}
		})
	}

	var gifBuf bytes.Buffer
	if err := gif.Encode(&gifBuf, logoImage(10, 10), nil); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, qr.MaxLogoBytes+1)
	copy(big, pngBytes)
	tests := []struct {
		name, in, msg string
	}{
		{"empty", "", "empty"},
		{"http url", "http://example.com/logo.png", "not fetched"},
		{"https url", " HTTPS://example.com/logo.png", "not fetched"},
		{"protocol relative", "//example.com/logo.png", "not fetched"},
		{"file path", "/var/www/logo.png", "data URI"},
		{"file url", "file:///etc/passwd", "data URI"},
		{"gif", "data:image/gif;base64," + b64(gifBuf.Bytes()), "data:image/png;base64"},
		{"svg", "data:image/svg+xml;base64,PHN2Zy8+", "data:image/png;base64"},
		{"not base64 flag", "data:image/png," + string(pngBytes), "data:image/png;base64"},
		{"no comma", "data:image/png;base64", "no data"},
		{"bad base64", "data:image/png;base64,!!!!", "not valid base64"},
		{"mismatch", "data:image/png;base64," + b64(jpegBytes), "does not match"},
		{"oversize", "data:image/png;base64," + b64(big), "at most 512 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := qr.DecodeDataURI(tt.in)
			wantValidation(t, err, "logo", tt.msg)
		})
	}
	if _, err := qr.DecodeDataURI("data:image/png;base64," + b64(big)); !errors.Is(err, qr.ErrTooLarge) {
		t.Errorf("oversize: %v, want ErrTooLarge", err)
	}
}

func TestPNGRoundTrip(t *testing.T) {
	logo, err := qr.DecodeLogo(encodePNG(t, logoImage(120, 80)))
	if err != nil {
		t.Fatal(err)
	}
	jpegLogo, err := qr.DecodeLogo(encodeJPEG(t, logoImage(64, 64)))
	if err != nil {
		t.Fatal(err)
	}
	wifi := MustPayload(t, qr.TypeWiFi, `{"ssid":"Café;Net","password":"p:a\\ss;w,rd","hidden":true}`)
	vcard := MustPayload(t, qr.TypeVCard, `{"first_name":"José","last_name":"Müller","org":"A, B; C","phone":"+49 30 1234567",
		"email":"jose@example.com","url":"https://example.com","address":"Hauptstraße 1\nHof","city":"Berlin","country":"DE"}`)
	navy, cream := color.RGBA{0, 0, 128, 255}, color.RGBA{255, 250, 220, 255}
	tests := []struct {
		name    string
		payload string
		opts    qr.Options
	}{
		{"text", MustPayload(t, qr.TypeText, `"Hello, world"`), qr.Options{}},
		{"unicode text", MustPayload(t, qr.TypeText, `"Grüße 🌍 こんにちは"`), qr.Options{}},
		{"tracking link", "https://go.example.com/q/AbC123", qr.Options{Size: 256}},
		{"wifi", wifi, qr.Options{}},
		{"vcard", vcard, qr.Options{Size: 600}},
		{"email", MustPayload(t, qr.TypeEmail, `{"email":"ada@example.com","subject":"Hi","body":"a\nb"}`), qr.Options{}},
		{"sms", MustPayload(t, qr.TypeSMS, `["+15551234567","Meet at 10:30"]`), qr.Options{}},
		{"phone", MustPayload(t, qr.TypePhone, `"+1 555 123 4567"`), qr.Options{Size: qr.MinSize}},
		{"custom colours", wifi, qr.Options{Foreground: navy, Background: cream}},
		{"red on white", "https://example.com/r", qr.Options{Foreground: color.RGBA{255, 0, 0, 255}}},
		{"long text", strings.Repeat("The quick brown fox. ", 50), qr.Options{Size: 1024}},
		{"logo", "https://go.example.com/q/AbC123", qr.Options{Logo: logo}},
		{"logo short", "hi", qr.Options{Logo: logo, Size: 200}},
		{"logo vcard colours", vcard, qr.Options{Logo: logo, Foreground: navy, Background: cream, Size: 800}},
		{"logo jpeg wifi", wifi, qr.Options{Logo: jpegLogo}},
		{"logo tall", "https://example.com/tall", qr.Options{Logo: logoImage(20, 90)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := qr.PNG(tt.payload, tt.opts)
			if err != nil {
				t.Fatalf("PNG: %v", err)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			size := tt.opts.Size
			if size == 0 {
				size = qr.DefaultSize
			}
			if cfg.Width != size || cfg.Height != size {
				t.Errorf("image is %d×%d, want %d×%d", cfg.Width, cfg.Height, size, size)
			}
			if got := MustDecodeQR(t, b); got != tt.payload {
				t.Errorf("decoded %q, want %q", got, tt.payload)
			}
		})
	}
}

// TestPNGColoursAndQuietZone checks the corners are background (the quiet
// zone) and that both colours appear.
func TestPNGColoursAndQuietZone(t *testing.T) {
	fg, bg := color.RGBA{0, 0, 128, 255}, color.RGBA{255, 250, 220, 255}
	b, err := qr.PNG("hello", qr.Options{Foreground: fg, Background: bg, Size: 290})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	// "hello" is a version 1 code: 21 modules + 8 of quiet zone = 29, 10 px each.
	at := func(x, y int) color.RGBA { return color.RGBAModel.Convert(img.At(x, y)).(color.RGBA) }
	for _, p := range []image.Point{{0, 0}, {39, 39}, {289, 0}, {0, 289}, {250, 250}} {
		if got := at(p.X, p.Y); got != bg {
			t.Errorf("pixel %v = %v, want background %v", p, got, bg)
		}
	}
	// The top-left finder pattern starts at module 4: pixel 40.
	if got := at(40, 40); got != fg {
		t.Errorf("finder pixel = %v, want foreground %v", got, fg)
	}
}

// TestRandomRoundTrip guards against encoder bugs on mixed content (numeric,
// alphanumeric and byte segments).
func TestRandomRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabets := []string{"0123456789", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 $%*+-./:", "abcxyz019 ;:,\\\"'?&=é€"}
	for i := range 40 {
		n := 1 + rng.IntN(300)
		var sb strings.Builder
		for sb.Len() < n {
			a := []rune(alphabets[rng.IntN(len(alphabets))])
			for range 1 + rng.IntN(12) {
				sb.WriteRune(a[rng.IntN(len(a))])
			}
		}
		p := sb.String()
		opts := qr.Options{Size: 400}
		if i%3 == 0 {
			opts.Logo = logoImage(32, 32)
		}
		b, err := qr.PNG(p, opts)
		if err != nil {
			t.Fatalf("PNG(%q): %v", p, err)
		}
		if got := MustDecodeQR(t, b); got != p {
			t.Fatalf("decoded %q, want %q", got, p)
		}
	}
}

func TestRenderOptionsInvalid(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		opts    qr.Options
		field   string
		msg     string
	}{
		{"empty payload", "", qr.Options{}, "data", "required"},
		{"size too small", "x", qr.Options{Size: 10}, "size", "from 64 to 2048"},
		{"size too big", "x", qr.Options{Size: 5000}, "size", "from 64 to 2048"},
		{"low contrast", "x", qr.Options{Foreground: color.RGBA{200, 200, 200, 255}}, "foreground", "too close"},
		{"inverted", "x", qr.Options{Foreground: color.RGBA{255, 255, 255, 255}, Background: color.RGBA{0, 0, 0, 255}}, "foreground", "darker"},
		{"empty logo", "x", qr.Options{Logo: image.NewRGBA(image.Rect(0, 0, 0, 0))}, "logo", "no pixels"},
		{"too long", strings.Repeat("x", 2400), qr.Options{}, "data", "too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := qr.PNG(tt.payload, tt.opts)
			wantValidation(t, err, tt.field, tt.msg)
			_, err = qr.SVG(tt.payload, tt.opts)
			wantValidation(t, err, tt.field, tt.msg)
		})
	}
}

type svgDoc struct {
	XMLName xml.Name `xml:"svg"`
	ViewBox string   `xml:"viewBox,attr"`
	Width   string   `xml:"width,attr"`
	Rects   []struct {
		Fill   string `xml:"fill,attr"`
		Width  string `xml:"width,attr"`
		Height string `xml:"height,attr"`
	} `xml:"rect"`
	Paths []struct {
		Fill string `xml:"fill,attr"`
		D    string `xml:"d,attr"`
	} `xml:"path"`
	Images []struct {
		Href string `xml:"http://www.w3.org/1999/xlink href,attr"`
	} `xml:"image"`
}

func TestSVG(t *testing.T) {
	for _, tt := range []struct {
		name    string
		payload string
		opts    qr.Options
		level   qrcode.RecoveryLevel
	}{
		{"plain", "https://go.example.com/q/AbC123", qr.Options{}, qrcode.Medium},
		{"colours", MustPayload(t, qr.TypeWiFi, `{"ssid":"<Home&>","password":"\"]]></svg>"}`),
			qr.Options{Foreground: color.RGBA{0, 0, 128, 255}, Background: color.RGBA{255, 250, 220, 255}, Size: 300}, qrcode.Medium},
		{"logo", "https://go.example.com/q/AbC123", qr.Options{Logo: logoImage(100, 50)}, qrcode.Highest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := qr.SVG(tt.payload, tt.opts)
			if err != nil {
				t.Fatalf("SVG: %v", err)
			}
			// Well-formed: the whole document tokenises.
			dec := xml.NewDecoder(bytes.NewReader(b))
			for {
				_, err := dec.Token()
				if err != nil {
					if err.Error() != "EOF" {
						t.Fatalf("SVG is not well-formed: %v", err)
					}
					break
				}
			}
			var doc svgDoc
			if err := xml.Unmarshal(b, &doc); err != nil {
				t.Fatalf("xml.Unmarshal: %v", err)
			}
			q, err := qrcode.New(tt.payload, tt.level)
			if err != nil {
				t.Fatal(err)
			}
			total := 17 + 4*q.VersionNumber + 2*qr.QuietZone
			if want := fmt.Sprintf("0 0 %d %d", total, total); doc.ViewBox != want {
				t.Errorf("viewBox = %q, want %q", doc.ViewBox, want)
			}
			size := tt.opts.Size
			if size == 0 {
				size = qr.DefaultSize
			}
			if doc.Width != fmt.Sprint(size) {
				t.Errorf("width = %q, want %d", doc.Width, size)
			}
			if len(doc.Paths) != 1 || !strings.HasPrefix(doc.Paths[0].D, "M4 4h7v1h-7z") {
				t.Fatalf("want one path starting with the finder row, got %+v", doc.Paths)
			}
			fg, bg := tt.opts.Foreground, tt.opts.Background
			if fg.A == 0 {
				fg = qr.DefaultForeground
			}
			if bg.A == 0 {
				bg = qr.DefaultBackground
			}
			if want := fmt.Sprintf("#%02x%02x%02x", fg.R, fg.G, fg.B); doc.Paths[0].Fill != want {
				t.Errorf("path fill = %q, want %q", doc.Paths[0].Fill, want)
			}
			if want := fmt.Sprintf("#%02x%02x%02x", bg.R, bg.G, bg.B); doc.Rects[0].Fill != want || doc.Rects[0].Width != fmt.Sprint(total) {
				t.Errorf("background rect = %+v, want fill %q width %d", doc.Rects[0], want, total)
			}
			if bytes.Contains(b, []byte("Home")) {
				t.Error("SVG contains user data")
			}
			if tt.opts.Logo != nil {
				if len(doc.Images) != 1 || len(doc.Rects) != 2 {
					t.Fatalf("want a pad and one image, got %d rects and %d images", len(doc.Rects), len(doc.Images))
				}
				data, err := qr.DecodeDataURI(doc.Images[0].Href)
				if err != nil {
					t.Fatalf("embedded logo: %v", err)
				}
				if _, err := qr.DecodeLogo(data); err != nil {
					t.Fatalf("embedded logo: %v", err)
				}
			} else if len(doc.Images) != 0 {
				t.Errorf("unexpected image without a logo")
			}
		})
	}
}

// TestSVGMatchesPNG checks the SVG path draws exactly the PNG's dark modules.
func TestSVGMatchesPNG(t *testing.T) {
	const payload = "WIFI:T:WPA;S:Home;P:secret123;;"
	q, err := qrcode.New(payload, qrcode.Medium)
	if err != nil {
		t.Fatal(err)
	}
	total := 17 + 4*q.VersionNumber + 2*qr.QuietZone
	size := total * 10 // 10 px a module, no extra margin
	b, err := qr.PNG(payload, qr.Options{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	s, err := qr.SVG(payload, qr.Options{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	var doc svgDoc
	if err := xml.Unmarshal(s, &doc); err != nil {
		t.Fatal(err)
	}
	dark := map[image.Point]bool{}
	for _, seg := range strings.Split(strings.TrimSuffix(doc.Paths[0].D, "z"), "z") {
		var x, y, w, w2 int
		if _, err := fmt.Sscanf(seg, "M%d %dh%dv1h-%d", &x, &y, &w, &w2); err != nil || w != w2 {
			t.Fatalf("segment %q: %v", seg, err)
		}
		for i := range w {
			dark[image.Pt(x+i, y)] = true
		}
	}
	if doc.ViewBox != fmt.Sprintf("0 0 %d %d", total, total) {
		t.Fatalf("viewBox = %q", doc.ViewBox)
	}
	for y := range total {
		for x := range total {
			r, _, _, _ := img.At(x*10+5, y*10+5).RGBA()
			if pngDark := r < 0x8000; pngDark != dark[image.Pt(x, y)] {
				t.Fatalf("module (%d,%d): png dark %v, svg dark %v", x, y, pngDark, dark[image.Pt(x, y)])
			}
		}
	}
}

func TestConcurrentRender(t *testing.T) {
	logo := logoImage(50, 50)
	t.Parallel()
	done := make(chan error, 8)
	for i := range 8 {
		go func() {
			p := fmt.Sprintf("https://go.example.com/q/%d", i)
			b, err := qr.PNG(p, qr.Options{Logo: logo, Size: 300})
			if err == nil {
				_, err = qr.SVG(p, qr.Options{Logo: logo})
			}
			if err == nil {
				var got string
				if got, err = decodeQR(b); err == nil && got != p {
					err = fmt.Errorf("decoded %q, want %q", got, p)
				}
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func BenchmarkPNG(b *testing.B) {
	const link = "https://go.example.com/q/AbC123"
	logo := logoImage(256, 256)
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			if _, err := qr.PNG(link, qr.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("logo", func(b *testing.B) {
		for b.Loop() {
			if _, err := qr.PNG(link, qr.Options{Logo: logo}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("svg", func(b *testing.B) {
		for b.Loop() {
			if _, err := qr.SVG(link, qr.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
