package qr

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/jpeg"
	"image/png"
	"strings"
)

// Logo bounds. The byte bound applies to the decoded file; the pixel bound is
// checked from the header before any pixel is decoded, so a small file that
// claims huge dimensions (a decompression bomb) is refused cheaply.
const (
	// MaxLogoBytes is the largest logo file accepted: 512 KiB.
	MaxLogoBytes = 512 << 10
	// MaxLogoPixels is the largest logo width and height accepted.
	MaxLogoPixels = 1024
)

var (
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
	jpegMagic = []byte{0xFF, 0xD8, 0xFF}
)

// DecodeLogo decodes an uploaded logo. Only PNG and JPEG are accepted, told
// apart by their content, not by a name or a declared type; the file must be
// at most MaxLogoBytes and at most MaxLogoPixels wide and high. Errors are
// *ValidationError on the field "logo"; one over MaxLogoBytes wraps
// ErrTooLarge. A URL is refused: logos are never fetched.
func DecodeLogo(b []byte) (image.Image, error) {
	if len(b) == 0 {
		return nil, invalid("logo", "logo is empty")
	}
	if len(b) > MaxLogoBytes {
		return nil, &ValidationError{Field: "logo", Message: "logo must be at most 512 KiB", cause: ErrTooLarge}
	}
	if looksLikeURL(string(b[:min(len(b), 16)])) {
		return nil, errLogoURL()
	}
	var (
		decodeConfig func([]byte) (image.Config, error)
		decode       func([]byte) (image.Image, error)
	)
	switch {
	case bytes.HasPrefix(b, pngMagic):
		decodeConfig = func(b []byte) (image.Config, error) { return png.DecodeConfig(bytes.NewReader(b)) }
		decode = func(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }
	case bytes.HasPrefix(b, jpegMagic):
		decodeConfig = func(b []byte) (image.Config, error) { return jpeg.DecodeConfig(bytes.NewReader(b)) }
		decode = func(b []byte) (image.Image, error) { return jpeg.Decode(bytes.NewReader(b)) }
	default:
		return nil, invalid("logo", "logo must be a PNG or JPEG image")
	}
	cfg, err := decodeConfig(b)
	if err != nil {
		return nil, invalid("logo", "logo is not a readable PNG or JPEG image")
	}
	if cfg.Width < 1 || cfg.Height < 1 {
		return nil, invalid("logo", "logo has no pixels")
	}
	if cfg.Width > MaxLogoPixels || cfg.Height > MaxLogoPixels {
		return nil, invalidf("logo", "logo is %d×%d pixels; at most %d×%d is accepted", cfg.Width, cfg.Height, MaxLogoPixels, MaxLogoPixels)
	}
	img, err := decode(b)
	if err != nil {
		return nil, invalid("logo", "logo is not a readable PNG or JPEG image")
	}
	if r := img.Bounds(); r.Dx() != cfg.Width || r.Dy() != cfg.Height {
		return nil, invalid("logo", "logo is not a readable PNG or JPEG image")
	}
	return img, nil
}

// DecodeDataURI returns the bytes of a logo given as a data URI of the form
// data:image/png;base64,... or data:image/jpeg;base64,... (image/jpg is
// accepted as an alias). The content must match the declared type and be at
// most MaxLogoBytes once decoded. http and https URLs, file paths and any
// other form are refused: logos are never fetched. Errors are
// *ValidationError on the field "logo"; one over MaxLogoBytes wraps
// ErrTooLarge. Pass the result to DecodeLogo.
func DecodeDataURI(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, invalid("logo", "logo is empty")
	}
	if looksLikeURL(s) {
		return nil, errLogoURL()
	}
	const scheme = "data:"
	if len(s) < len(scheme) || !strings.EqualFold(s[:len(scheme)], scheme) {
		return nil, invalid("logo", "logo must be an uploaded PNG or JPEG file or a data URI such as data:image/png;base64,...")
	}
	meta, payload, ok := strings.Cut(s[len(scheme):], ",")
	if !ok {
		return nil, invalid("logo", "logo data URI has no data (expected data:image/png;base64,...)")
	}
	var magic []byte
	switch strings.ToLower(strings.ReplaceAll(meta, " ", "")) {
	case "image/png;base64":
		magic = pngMagic
	case "image/jpeg;base64", "image/jpg;base64":
		magic = jpegMagic
	default:
		return nil, invalid("logo", "logo data URI must be data:image/png;base64,... or data:image/jpeg;base64,...")
	}
	// Line breaks and spaces are tolerated inside the base64 text.
	payload = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\r', '\n':
			return -1
		}
		return r
	}, payload)
	if base64.StdEncoding.DecodedLen(len(payload)) > MaxLogoBytes+2 {
		return nil, &ValidationError{Field: "logo", Message: "logo must be at most 512 KiB", cause: ErrTooLarge}
	}
	enc := base64.StdEncoding
	if len(payload)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	b, err := enc.DecodeString(payload)
	if err != nil {
		return nil, invalid("logo", "logo data URI is not valid base64")
	}
	if len(b) > MaxLogoBytes {
		return nil, &ValidationError{Field: "logo", Message: "logo must be at most 512 KiB", cause: ErrTooLarge}
	}
	if !bytes.HasPrefix(b, magic) {
		return nil, invalid("logo", "logo data URI content does not match its declared image type")
	}
	return b, nil
}

func looksLikeURL(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "//")
}

func errLogoURL() *ValidationError {
	return invalid("logo", "logo URLs are not fetched: upload the PNG or JPEG file or send it as a data URI (data:image/png;base64,...)")
}
