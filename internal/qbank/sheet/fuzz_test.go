package sheet_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/qbank/sheet"
)

// FuzzSheetImport: no input makes Import panic, hang or answer anything
// but a bank or a refusal; every row of a bank has a report.
func FuzzSheetImport(f *testing.F) {
	var tpl bytes.Buffer
	if err := sheet.Template(&tpl); err != nil {
		f.Fatal(err)
	}
	f.Add(tpl.Bytes())
	f.Add(MustSheet(f, []map[string]string{
		{"id": "a", "type": "single_choice", "text": "x", "options": "a: 1\nb: 2", "answer": "a"},
		{"id": "b", "type": "matching", "format": "markdown", "text": "![x](y.png) $x$", "premises": "p1: a", "responses": "r1: b", "answer": "p1=r1"},
	}, [][]string{{"s", "t", "markdown", "$$x$$"}}, nil))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, b []byte) {
		bank, err := sheet.Import(context.Background(), bytes.NewReader(b), int64(len(b)), &memMedia{},
			func(string) (io.ReadCloser, bool) { return io.NopCloser(bytes.NewReader([]byte("x"))), true })
		if err != nil {
			return
		}
		imp, ch, ref := bank.Counts()
		if imp+ch+ref != len(bank.Items) || imp+ch != len(bank.Questions) || len(bank.Items) > qbank.MaxItems {
			t.Fatalf("counts %d %d %d of %d items, %d questions", imp, ch, ref, len(bank.Items), len(bank.Questions))
		}
	})
}
