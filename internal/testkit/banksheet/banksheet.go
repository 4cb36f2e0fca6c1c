// Package banksheet builds filled-in question-bank spreadsheets for tests.
package banksheet

import (
	"bytes"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/seedhq/portal/internal/qbank/sheet"
)

// XLSX returns the portal's question-bank template (.xlsx) with rows
// written on its questions sheet from the first column (id, type, format,
// text, options, answer, ...), as a teacher fills it in.
func XLSX(t testing.TB, rows ...[]string) []byte {
	t.Helper()
	var tpl bytes.Buffer
	if err := sheet.Template(&tpl); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&tpl)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i, r := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+2)
		if err := f.SetSheetRow(sheet.QuestionSheet, cell, &r); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := f.Write(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
