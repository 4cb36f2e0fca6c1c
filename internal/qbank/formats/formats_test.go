package formats_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/qbank/formats"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/banksheet"
)

type memMedia struct{ n int }

func (m *memMedia) UploadMedia(_ context.Context, name string, r io.Reader) (exam.Media, error) {
	b, _ := io.ReadAll(r)
	sum := sha256.Sum256(b)
	m.n++
	return exam.Media{SHA256: hex.EncodeToString(sum[:]), Name: name}, nil
}

func TestDetectAndImportZip(t *testing.T) {
	x := banksheet.XLSX(t, []string{"q1", "essay", "markdown", "Lihat ![peta](gambar/peta.png)"})
	var z bytes.Buffer
	zw := zip.NewWriter(&z)
	w, _ := zw.Create("bank/soal.xlsx")
	w.Write(x)
	w, _ = zw.Create("bank/gambar/peta.png")
	w.Write(testkit.PNG(4, 4, 1))
	zw.Close()
	for name, c := range map[string]struct {
		b    []byte
		want qbank.Format
	}{"xlsx": {x, qbank.Sheet}, "zip": {z.Bytes(), qbank.Sheet}, "xml": {[]byte("\xef\xbb\xbf <?xml version='1.0'?><quiz/>"), qbank.Moodle}} {
		got, err := formats.Detect(bytes.NewReader(c.b), int64(len(c.b)))
		if err != nil || got != c.want {
			t.Errorf("%s: %q %v", name, got, err)
		}
	}
	// The bare .xlsx misses its picture; the zip brings it (found by its path or base name).
	m := &memMedia{}
	bank, err := formats.Import(context.Background(), qbank.Sheet, bytes.NewReader(x), int64(len(x)), m, qbank.ImportOptions{})
	if err != nil || bank.Items[0].Code != "MEDIA_NOT_FOUND" {
		t.Fatalf("bare: %+v %v", bank, err)
	}
	zb := z.Bytes()
	bank, err = formats.Import(context.Background(), qbank.Sheet, bytes.NewReader(zb), int64(len(zb)), m, qbank.ImportOptions{})
	if err != nil || bank.Items[0].Status != qbank.Imported || m.n != 1 || !strings.Contains(bank.Questions[0].Text, "(media:") {
		t.Fatalf("zip: %+v %v", bank, err)
	}
	if _, err := formats.Parse("csv"); apperr.CodeOf(err) != "UNKNOWN_FORMAT" {
		t.Errorf("parse: %v", err)
	}
}

// TestZipLimits: a zip of a sheet with more than one .xlsx, or none, is
// refused; so is a file over the size limit.
func TestZipLimits(t *testing.T) {
	x := banksheet.XLSX(t, []string{"q1", "essay", "markdown", "Lihat ![peta](gambar/peta.png)"})
	for name, files := range map[string][]string{"two sheets": {"a.xlsx", "b.xlsx"}, "no sheet": {"peta.png"}} {
		var z bytes.Buffer
		zw := zip.NewWriter(&z)
		for _, f := range files {
			w, _ := zw.Create(f)
			w.Write(x)
		}
		zw.Close()
		if _, err := formats.Import(context.Background(), qbank.Sheet, bytes.NewReader(z.Bytes()), int64(z.Len()), &memMedia{}, qbank.ImportOptions{}); apperr.CodeOf(err) != "INVALID_BANK" {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := formats.Import(context.Background(), qbank.Sheet, bytes.NewReader(x), qbank.MaxFileSize+1, &memMedia{}, qbank.ImportOptions{}); err != qbank.ErrTooLarge {
		t.Errorf("too large: %v", err)
	}
}

// TestDetectUTF16: Moodle XML saved as UTF-16 (with its byte-order mark)
// is told as Moodle's.
func TestDetectUTF16(t *testing.T) {
	for _, bom := range [][]byte{{0xFF, 0xFE, '<', 0, 'q', 0}, {0xFE, 0xFF, 0, '<', 0, 'q'}} {
		if f, err := formats.Detect(bytes.NewReader(bom), int64(len(bom))); f != qbank.Moodle || err != nil {
			t.Errorf("Detect(% x) = %q, %v", bom, f, err)
		}
	}
}
