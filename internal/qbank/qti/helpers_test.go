package qti

import (
	"archive/zip"
	"bytes"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/store/bolt"
)

// MustService is an exam service on a bbolt store in t's temporary
// directory: the media store and source of the tests.
func MustService(t testing.TB) *exam.Service {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := exam.NewService(t.Context(), st, exam.Config{TempDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// pngBytes is a small PNG of one colour.
func pngBytes(t testing.TB, c color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for x := range 3 {
		for y := range 2 {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// mp3Bytes is the start of an MP3 file (an ID3 tag), as the portal sniffs it.
func mp3Bytes(n byte) []byte {
	return append([]byte("ID3\x03\x00\x00\x00\x00\x00\x00"), bytes.Repeat([]byte{n}, 64)...)
}

// MustZip is a zip of the files, in the order given (name, content, ...).
func MustZip(t testing.TB, files ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for i := 0; i+1 < len(files); i += 2 {
		f, err := zw.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(files[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// MustImport imports the package data, failing t on an error.
func MustImport(t testing.TB, svc *exam.Service, data []byte) *qbank.Bank {
	t.Helper()
	b, err := Import(t.Context(), bytes.NewReader(data), int64(len(data)), svc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
