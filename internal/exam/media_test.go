package exam

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/seedhq/portal/internal/apperr"
)

// Sample media headers: enough of each format for SniffMedia.
var (
	// A 1×1 lossless WebP.
	sampleWebP, _ = base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
	// An MPEG-1 Layer III frame header (128 kbit/s, 44.1 kHz) and padding.
	sampleMP3 = append([]byte{0xff, 0xfb, 0x90, 0x64}, make([]byte, 60)...)
	// An ID3v2.4 tag header.
	sampleID3 = append([]byte("ID3\x04\x00\x00\x00\x00\x01\x00"), make([]byte, 60)...)
	// An ADTS header (AAC LC, 44.1 kHz).
	sampleAAC = append([]byte{0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc}, make([]byte, 60)...)
)

// samplePNG, sampleJPEG encode a w×h image.
func samplePNG(t testing.TB, w, h int) []byte {
	var b bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{200, 10, 10, 255})
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func sampleJPEG(t testing.TB) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// oggPage returns the first page of an Ogg stream whose first packet
// starts with head.
func oggPage(head string) []byte {
	page := []byte("OggS\x00\x02")
	page = append(page, make([]byte, 20)...) // granule, serial, sequence, CRC
	page = append(page, 1, byte(len(head)+11))
	return append(append(page, head...), make([]byte, 11)...)
}

// ftyp returns an ISO base media "ftyp" box with the brands.
func ftyp(major string, compatible ...string) []byte {
	body := major + "\x00\x00\x02\x00"
	for _, c := range compatible {
		body += c
	}
	n := 8 + len(body)
	return append([]byte{0, 0, byte(n >> 8), byte(n), 'f', 't', 'y', 'p'}, body...)
}

func TestSniffMedia(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		typ  string
		kind MediaKind
	}{
		{"png", samplePNG(t, 3, 2), "image/png", MediaImage},
		{"jpeg", sampleJPEG(t), "image/jpeg", MediaImage},
		{"webp", sampleWebP, "image/webp", MediaImage},
		{"mp3 frame", sampleMP3, "audio/mpeg", MediaAudio},
		{"mp3 id3", sampleID3, "audio/mpeg", MediaAudio},
		{"aac adts", sampleAAC, "audio/aac", MediaAudio},
		{"ogg opus", oggPage("OpusHead\x01\x02\x38\x01\x80\xbb\x00\x00\x00\x00\x00"), "audio/ogg", MediaAudio},
		{"ogg vorbis", oggPage("\x01vorbis\x00\x00\x00\x00\x02\x44\xac\x00\x00"), "audio/ogg", MediaAudio},
		{"m4a major", ftyp("M4A ", "M4A ", "mp42", "isom"), "audio/mp4", MediaAudio},
		{"m4a compatible", ftyp("mp42", "isom", "M4A "), "audio/mp4", MediaAudio},
	} {
		typ, kind, err := SniffMedia(bytes.NewReader(tc.data))
		if err != nil || typ != tc.typ || kind != tc.kind {
			t.Errorf("%s: SniffMedia = %q, %q, %v; want %q, %q", tc.name, typ, kind, err, tc.typ, tc.kind)
		}
	}

	pngBody := samplePNG(t, 2, 2)
	broken := append(append([]byte(nil), pngBody[:16]...), bytes.Repeat([]byte{0xee}, 40)...)
	for _, tc := range []struct {
		name string
		data []byte
		code string
	}{
		{"empty", nil, "UNSUPPORTED_MEDIA"},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>`), "UNSUPPORTED_MEDIA"},
		{"html", []byte("<!doctype html><script>alert(1)</script>"), "UNSUPPORTED_MEDIA"},
		{"gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), "UNSUPPORTED_MEDIA"},
		{"pdf", []byte("%PDF-1.7\n"), "UNSUPPORTED_MEDIA"},
		{"png magic, broken header", broken, "UNSUPPORTED_MEDIA"},
		{"video mp4", ftyp("isom", "isom", "avc1", "mp41"), "UNSUPPORTED_MEDIA"},
		{"ogg theora", oggPage("\x80theora\x03\x02\x01\x00\x14\x00\x0f"), "UNSUPPORTED_MEDIA"},
		{"mp3 reserved rate", []byte{0xff, 0xfb, 0x9c, 0x64, 0, 0, 0, 0}, "UNSUPPORTED_MEDIA"},
		{"huge png", pngHeader(100000, 100000), "MEDIA_TOO_LARGE"},
	} {
		_, _, err := SniffMedia(bytes.NewReader(tc.data))
		if e := apperr.From(err); e == nil || e.Code != tc.code {
			t.Errorf("%s: SniffMedia error = %v, want %s", tc.name, err, tc.code)
		}
	}
}

// pngHeader returns the signature and IHDR of a w×h PNG.
func pngHeader(w, h uint32) []byte {
	full := samplePNG(&testing.T{}, 1, 1)
	out := append([]byte(nil), full[:33]...)
	out[16], out[17], out[18], out[19] = byte(w>>24), byte(w>>16), byte(w>>8), byte(w)
	out[20], out[21], out[22], out[23] = byte(h>>24), byte(h>>16), byte(h>>8), byte(h)
	binary.BigEndian.PutUint32(out[29:33], crc32.ChecksumIEEE(out[12:29]))
	return out
}

func FuzzSniffMedia(f *testing.F) {
	for _, seed := range [][]byte{samplePNG(f, 2, 2), sampleJPEG(f), sampleWebP, sampleMP3, sampleID3, sampleAAC,
		oggPage("OpusHead"), ftyp("M4A ", "isom"), pngHeader(9, 9)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		typ, kind, err := SniffMedia(bytes.NewReader(data))
		if err != nil {
			if e := apperr.From(err); e == nil || (e.Code != "UNSUPPORTED_MEDIA" && e.Code != "MEDIA_TOO_LARGE") {
				t.Fatalf("SniffMedia error %v is not a refusal", err)
			}
			return
		}
		want := map[string]MediaKind{"image/png": MediaImage, "image/jpeg": MediaImage, "image/webp": MediaImage,
			"audio/mpeg": MediaAudio, "audio/aac": MediaAudio, "audio/ogg": MediaAudio, "audio/mp4": MediaAudio}
		if k, ok := want[typ]; !ok || k != kind {
			t.Fatalf("SniffMedia = %q, %q: not an accepted type and its kind", typ, kind)
		}
	})
}

func TestCleanMediaName(t *testing.T) {
	for in, want := range map[string]string{
		`C:\Users\guru\Listening 1.mp3`:        "Listening 1.mp3",
		"../../etc/passwd":                     "passwd",
		"a\x00b\nc.png":                        "abc.png",
		"  spaced.png ":                        "spaced.png",
		string(bytes.Repeat([]byte("é"), 150)): string(bytes.Repeat([]byte("é"), 100)),
	} {
		if got := cleanMediaName(in); got != want {
			t.Errorf("cleanMediaName(%q) = %q, want %q", in, got, want)
		}
	}
}
