package console_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/xuri/excelize/v2"

	"github.com/seedhq/portal/internal/qbank/sheet"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/banksheet"
)

// TestBrowserBankImport uploads a spreadsheet made from the template in
// the import page, reads the report (an item changed, one refused, with
// their rows and reasons), creates the exam of the items that passed and
// finds it in the exams list; the vectors in a title never run.
func TestBrowserBankImport(t *testing.T) {
	chrome := newHeadless(t, "the console", 90*time.Second)
	p := newPortal(t, onStore("bolt"))
	dir := t.TempDir()
	bank := filepath.Join(dir, "bank-ipa.xlsx")
	xlsx := banksheet.XLSX(t,
		[]string{"ipa-1", "single_choice", "", "Planet terdekat dari Matahari adalah ...", "a: Merkurius\nb: Venus\nc: Mars", "a", "2"},
		[]string{"ipa-2", "multiple_choice", "markdown", "Manakah yang termasuk zat cair pada suhu ruang? $T = 25\\,^\\circ\\mathrm{C}$", "a: air\nb: raksa\nc: besi", "a\nb", "2"},
		[]string{"ipa-3", "true_false", "", "Bunyi merambat lebih cepat di udara daripada di air.", "", "salah"},
		[]string{"ipa-4", "statement_grid", "", "Tentukan benar atau salah.", "", "s1=true\ns2=false", "2", "", "", "", "", "partial", "s1: Es mencair pada 0 °C\ns2: Air mendidih pada 50 °C"},
		[]string{"ipa-5", "essay", "", "Jelaskan daur air.", "", "", "5", "grafik-daur.png"},
		[]string{"ipa-6", "single_choice", "", "Satuan gaya adalah ...", "a: newton\nb: joule", "c"},
		[]string{"", "hotspot", "", testkit.XSSVectors[0] + " Klik bagian daun"},
	)
	// A picture pasted into ipa-3's row, without a description: changed.
	f, err := excelize.OpenReader(bytes.NewReader(xlsx))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.AddPictureFromBytes(sheet.QuestionSheet, "H4", &excelize.Picture{Extension: ".png", File: testkit.PNG(24, 16, 2)}); err != nil {
		t.Fatal(err)
	}
	if err := f.SaveAs(bank); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bank, 0o600); err != nil {
		t.Fatal(err)
	}
	desk := chrome.tab(1200, 1000)
	desk.do("sign in", p.operatorSignInSteps()...)
	desk.do("open the import page from the exams list",
		chromedp.Navigate(p.srv.URL+"/console/exams"),
		chromedp.Click(chromedp.CSS(`a[href="/console/exams/import"]`)),
		chromedp.WaitVisible(chromedp.ID("file")))
	desk.do("upload the sheet", chromedp.SetUploadFiles(`#file`, []string{bank}))
	desk.clickLoad("read the file", `form[action="/console/exams/import"] button[type="submit"]`)
	desk.do("the report", chromedp.WaitVisible(chromedp.CSS("table.bank-report")))
	desk.check("every item has its row", `document.querySelectorAll('table.bank-report tbody tr').length === 7`)
	desk.check("the counts", `document.querySelector('p[role="status"]').textContent.indexOf('3 imported, 1 changed, 3 refused') >= 0`)
	desk.check("the pasted picture is a change, with why", `(function(){var r=document.querySelectorAll('table.bank-report tbody tr')[2];
		return r.className === 'item-changed' && r.querySelectorAll('li').length === 2;})()`)
	desk.check("the missing picture is refused at row 6", `(function(){var r=document.querySelectorAll('table.bank-report tbody tr')[4];
		return r.cells[0].textContent === '6' && r.textContent.indexOf('MEDIA_NOT_FOUND') >= 0 && r.textContent.indexOf('grafik-daur.png') >= 0;})()`)
	desk.check("the wrong key is refused", `document.querySelectorAll('table.bank-report tbody tr')[5].textContent.indexOf('KEY_NOT_AN_OPTION') >= 0`)
	desk.check("the vector in the title is text and never ran", `window.__xss === undefined &&
		document.querySelectorAll('table.bank-report tbody tr')[6].cells[1].textContent.indexOf('<img src=x') === 0`)
	if _, err := chromedp.Run(desk.ctx, chromedp.Evaluate[int](`document.getElementById('report').scrollIntoView(), 0`)); err != nil {
		t.Fatal(err)
	}
	desk.shot("exam-import")

	desk.do("fill the exam", chromedp.SetValue(chromedp.ID("title"), "IPA Kelas 8"), chromedp.SendKeys(chromedp.ID("npsn"), "20100001"))
	desk.clickLoad("create without ticking", `form[action="/console/exams/import/create"] button[type="submit"]`)
	desk.check("refused: items were refused", `document.body.textContent.indexOf('were refused') >= 0`)
	desk.do("tick only the passed ones",
		chromedp.WaitVisible(chromedp.ID("npsn")),
		chromedp.SetValue(chromedp.ID("npsn"), "20100001"),
		chromedp.Click(chromedp.CSS(`input[name="only_passed"]`)))
	desk.clickLoad("create", `form[action="/console/exams/import/create"] button[type="submit"]`)
	desk.check("the exams list shows it", `location.pathname === '/console/exams' && document.body.textContent.indexOf('IPA Kelas 8') >= 0`)
	es, err := p.exam.ListExams(t.Context(), "20100001")
	if err != nil || len(es) != 1 || es[0].QuestionCount != 4 {
		t.Fatalf("exams: %+v %v", es, err)
	}
	e, _ := p.exam.GetExam(t.Context(), es[0].ID)
	if e.Questions[2].Answer[0] != "false" || !strings.Contains(e.Questions[1].Text, "\\mathrm{C}") || !strings.Contains(e.Questions[2].Text, "![Gambar](media:") {
		t.Fatalf("questions %+v", e.Questions)
	}
}
