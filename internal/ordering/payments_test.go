package ordering

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"
)

// testImage encodes a small image with enc.
func testImage(t *testing.T, enc func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	img.Set(3, 4, color.RGBA{200, 10, 10, 255})
	var b bytes.Buffer
	if err := enc(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCheckProof: receipts are accepted by their content only: JPEG, PNG
// and WebP; anything else (GIF, text, HTML, a truncated image, a PNG
// header on HTML, an oversized file) is refused.
func TestCheckProof(t *testing.T) {
	pngBytes := testImage(t, func(b *bytes.Buffer, i image.Image) error { return png.Encode(b, i) })
	jpegBytes := testImage(t, func(b *bytes.Buffer, i image.Image) error { return jpeg.Encode(b, i, nil) })
	gifBytes := testImage(t, func(b *bytes.Buffer, i image.Image) error { return gif.Encode(b, i, nil) })
	for name, c := range map[string]struct {
		data []byte
		ct   string
		err  error
	}{
		"png":        {pngBytes, "image/png", nil},
		"jpeg":       {jpegBytes, "image/jpeg", nil},
		"webp":       {tinyWebP, "image/webp", nil},
		"gif":        {gifBytes, "", ErrProofType},
		"text":       {[]byte("I paid, trust me"), "", ErrProofType},
		"html":       {[]byte("<html><script>alert(1)</script></html>"), "", ErrProofType},
		"png header": {append(pngBytes[:16:16], []byte("<html>")...), "", ErrProofType},
		"empty":      {nil, "", ErrProofType},
		"oversized":  {append(pngBytes, make([]byte, MaxProofSize)...), "", ErrProofTooLarge},
	} {
		ct, _, err := checkProof(c.data)
		if !errors.Is(err, c.err) || ct != c.ct {
			t.Errorf("%s: %q %v, want %q %v", name, ct, err, c.ct, c.err)
		}
	}
}

// tinyWebP is a 1×1 lossless WebP image.
var tinyWebP = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")
