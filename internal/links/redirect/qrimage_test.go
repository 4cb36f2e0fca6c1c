package redirect

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/qr"
)

// decodePNG decodes the QR code of a PNG with gozxing's reader and returns
// the image too.
func decodePNG(t *testing.T, b []byte) (string, image.Image) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("png.Decode: %v", err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_TRY_HARDER: true})
	if err != nil {
		t.Fatalf("decode QR: %v", err)
	}
	return res.GetText(), img
}

func logoURI(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 32, 32))
	for y := range 32 {
		for x := range 32 {
			img.Set(x, y, color.RGBA{200, 30, 30, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

func qrFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t, func(o *Options) { o.CacheTTL = 0 })
	data := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	f.store.qrs[1] = links.QRCode{ID: 1, UserID: owner, Type: links.QRLink, Data: data("https://example.com/long?x=1")}
	f.store.qrs[2] = links.QRCode{ID: 2, UserID: 99, Type: links.QRText, Data: data("hello, world"),
		Foreground: "rgb(0,0,128)", Background: "rgb(255,255,224)"}
	f.store.qrs[3] = links.QRCode{ID: 3, UserID: owner, Type: links.QRWiFi,
		Data: data(map[string]any{"ssid": "Lab", "password": "secret123"}), Logo: logoURI(t)}
	return f
}

func TestQRImagePNG(t *testing.T) {
	f := qrFixture(t)
	for _, tc := range []struct {
		path, want string
	}{
		// A link-type code encodes its tracking address, not the long URL.
		{"/qr/1", "https://" + short + "/q/1"},
		{"/qr/1.png", "https://" + short + "/q/1"},
		// Another owner's code: images are public.
		{"/qr/2", "hello, world"},
		// With a logo.
		{"/qr/3?size=300", "WIFI:T:WPA;S:Lab;P:secret123;;"},
	} {
		w := f.do(http.MethodGet, short, tc.path, nil)
		mustStatus(t, w, http.StatusOK)
		hd := w.Header()
		if got := hd.Get("Content-Type"); got != "image/png" {
			t.Fatalf("%s: Content-Type %q", tc.path, got)
		}
		if got := hd.Get("Cache-Control"); got != "public, max-age=300" {
			t.Fatalf("%s: Cache-Control %q", tc.path, got)
		}
		if et := hd.Get("ETag"); len(et) < 10 || et[0] != '"' {
			t.Fatalf("%s: ETag %q", tc.path, et)
		}
		text, img := decodePNG(t, w.Body.Bytes())
		if text != tc.want {
			t.Fatalf("%s decodes to %q, want %q", tc.path, text, tc.want)
		}
		if strings.Contains(tc.path, "size=300") && img.Bounds().Dx() > 300 {
			t.Fatalf("%s: width %d", tc.path, img.Bounds().Dx())
		}
	}
	// The colours are the record's.
	w := f.do(http.MethodGet, short, "/qr/2", nil)
	_, img := decodePNG(t, w.Body.Bytes())
	if r, g, b, _ := img.At(0, 0).RGBA(); r>>8 != 255 || g>>8 != 255 || b>>8 != 224 {
		t.Fatalf("background pixel %d,%d,%d, want 255,255,224", r>>8, g>>8, b>>8)
	}
	if len(f.rec.all()) != 0 {
		t.Fatalf("image fetches recorded visits: %v", f.rec.all())
	}
}

func TestQRImageSVG(t *testing.T) {
	f := qrFixture(t)
	w := f.do(http.MethodGet, short, "/qr/2.svg?size=256", nil)
	mustStatus(t, w, http.StatusOK)
	if got := w.Header().Get("Content-Type"); got != "image/svg+xml" {
		t.Fatalf("Content-Type %q", got)
	}
	if got := w.Header().Get("Content-Security-Policy"); !strings.HasPrefix(got, "default-src 'none'") {
		t.Fatalf("Content-Security-Policy %q", got)
	}
	body := w.Body.String()
	for _, want := range []string{`<svg `, `width="256"`, `fill="#000080"`, `fill="#ffffe0"`} {
		if !strings.Contains(body, want) {
			t.Fatalf("SVG lacks %q:\n%.300s", want, body)
		}
	}
	// Same as qr.SVG of the payload.
	fg, bg, _ := qr.ParseColors("rgb(0,0,128)", "rgb(255,255,224)")
	want, err := qr.SVG("hello, world", qr.Options{Foreground: fg, Background: bg, Size: 256})
	if err != nil {
		t.Fatal(err)
	}
	if body != string(want) {
		t.Fatal("SVG differs from qr.SVG of the payload")
	}
	// PNG and SVG of a code have different validators.
	if w.Header().Get("ETag") == f.do(http.MethodGet, short, "/qr/2", nil).Header().Get("ETag") {
		t.Fatal("PNG and SVG share an ETag")
	}
	// With a logo, embedded as a data URI.
	w = f.do(http.MethodGet, short, "/qr/3.svg", nil)
	mustStatus(t, w, http.StatusOK)
	if !strings.Contains(w.Body.String(), `xlink:href="data:image/png;base64,`) {
		t.Fatal("SVG without its logo")
	}
}

func TestQRImageETag(t *testing.T) {
	f := qrFixture(t)
	w := f.do(http.MethodGet, short, "/qr/2", nil)
	etag := w.Header().Get("ETag")
	get := func(inm, target string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.Host = short
		if inm != "" {
			r.Header.Set("If-None-Match", inm)
		}
		w := httptest.NewRecorder()
		f.h.ServeHTTP(w, r)
		return w
	}
	for _, inm := range []string{etag, `"other", ` + etag, "W/" + etag, "*"} {
		w := get(inm, "/qr/2")
		mustStatus(t, w, http.StatusNotModified)
		if w.Body.Len() != 0 || w.Header().Get("ETag") != etag || w.Header().Get("Cache-Control") != "public, max-age=300" {
			t.Fatalf("If-None-Match %s: body %d bytes, headers %v", inm, w.Body.Len(), w.Header())
		}
	}
	mustStatus(t, get(`"other"`, "/qr/2"), http.StatusOK)
	// Another size is another image.
	if w := get(etag, "/qr/2?size=128"); w.Code != http.StatusOK || w.Header().Get("ETag") == etag {
		t.Fatalf("size=128: status %d, ETag %q", w.Code, w.Header().Get("ETag"))
	}
	// Changing the code's look changes the ETag.
	f.store.mu.Lock()
	q := f.store.qrs[2]
	q.Foreground = "rgb(0,0,0)"
	f.store.qrs[2] = q
	f.store.mu.Unlock()
	w = get(etag, "/qr/2")
	mustStatus(t, w, http.StatusOK)
	if w.Header().Get("ETag") == etag {
		t.Fatal("ETag unchanged after a colour change")
	}
	// So does the short base for a link-type code (it is in the payload).
	a := f.do(http.MethodGet, short, "/qr/1", nil).Header().Get("ETag")
	f2 := newFixture(t, func(o *Options) { o.PublicURL = func(*http.Request) string { return "https://other.example" } })
	f2.store.qrs[1] = f.store.qrs[1]
	if b := f2.do(http.MethodGet, short, "/qr/1", nil).Header().Get("ETag"); a == b {
		t.Fatal("ETag ignores the tracking address")
	}
}

func TestQRImageErrors(t *testing.T) {
	f := qrFixture(t)
	for _, path := range []string{"/qr/9", "/qr/0", "/qr/abc", "/qr/1.gif", "/qr/", "/qr/1/x"} {
		w := f.do(http.MethodGet, short, path, nil)
		mustStatus(t, w, http.StatusNotFound)
		if got := w.Header().Get("Cache-Control"); got != "no-store" {
			t.Fatalf("%s: Cache-Control %q", path, got)
		}
	}
	for _, path := range []string{"/qr/1?size=10", "/qr/1?size=4096", "/qr/1.svg?size=x"} {
		mustStatus(t, f.do(http.MethodGet, short, path, nil), http.StatusBadRequest)
	}
	// Only on the short host; branded domains answer their 404.
	w := f.do(http.MethodGet, branded, "/qr/1", nil)
	mustRedirect(t, w, "https://brand.com/missing")
	// HEAD: headers, no body.
	w = f.do(http.MethodHead, short, "/qr/1", nil)
	mustStatus(t, w, http.StatusOK)
	if w.Body.Len() != 0 || w.Header().Get("Content-Length") == "" {
		t.Fatalf("HEAD: body %d bytes, Content-Length %q", w.Body.Len(), w.Header().Get("Content-Length"))
	}
	mustStatus(t, f.do(http.MethodPost, short, "/qr/1", nil), http.StatusMethodNotAllowed)
	// A store failure is a 500 without cache headers.
	f.store.mu.Lock()
	f.store.fail = errors.New("boom")
	f.store.mu.Unlock()
	w = f.do(http.MethodGet, short, "/qr/2", nil)
	mustStatus(t, w, http.StatusInternalServerError)
	if got := w.Header().Get("Cache-Control"); got != "no-store" {
		t.Fatalf("500: Cache-Control %q", got)
	}
}
