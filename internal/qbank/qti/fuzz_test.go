package qti

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/qbank"
)

// FuzzQTIImport imports arbitrary bytes as a package: no panic, and
// either a bank whose every item has a report or a refusal with a code.
// The unpacked total is lowered to 4 MiB so that each input stays small.
func FuzzQTIImport(f *testing.F) {
	for _, name := range []string{"WebDeveloperTest1.zip", "own-qti3.zip", "ZipSlip.zip"} {
		if data, err := os.ReadFile("testdata/" + name); err == nil {
			f.Add(data)
		}
	}
	f.Add(MustZip(f, "imsmanifest.xml", fmt.Sprintf(manifest, "q.xml"), "q.xml", fmt.Sprintf(item21, "a", `<math><mfrac><mi>x</mi><mn>2</mn></mfrac></math>`)))
	f.Add(MustZip(f, "imsmanifest.xml", manifestOf("a.xml", "b.xml", "c.xml"), "a.xml", clozeItem, "b.xml", gapItem, "c.xml", numericItem))
	f.Add([]byte("PK\x03\x04"))
	svc := MustService(f)
	defer func(old int64) { maxUnpacked = old }(maxUnpacked)
	maxUnpacked = 4 << 20
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Import(t.Context(), bytes.NewReader(data), int64(len(data)), svc)
		if err != nil {
			if apperr.CodeOf(err) == "" && !errors.Is(err, qbank.ErrTooLarge) {
				t.Fatalf("an error without a code: %v", err)
			}
			return
		}
		for _, it := range b.Items {
			if it.Status == "" || (it.Status == qbank.Refused && it.Code == "") {
				t.Fatalf("item report %+v", it)
			}
		}
	})
}
