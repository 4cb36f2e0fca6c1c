package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserExamPreview writes a question in the markdown format in the
// exam editor and previews it in Chromium: the formulas are MathML drawn
// with the embedded math font, the table shows, the XSS vectors stay text
// and none runs; an exam saved with a formula that does not convert keeps
// the editor open on its problem.
func TestBrowserExamPreview(t *testing.T) {
	chrome := newHeadless(t, "the console", 60*time.Second)
	p := newPortal(t, onStore("bolt"))
	desk := chrome.tab(1200, 900)
	desk.do("sign in", p.operatorSignInSteps()...)
	vectors := `<img src=x onerror="window.__xss=1"> <script>window.__xss=1</script> <svg onload="window.__xss=1">`
	desk.do("write a question with formulas",
		chromedp.Navigate(p.srv.URL+"/console/exams/new"),
		chromedp.WaitVisible(chromedp.ID("title")),
		chromedp.SendKeys(chromedp.ID("title"), "Matematika"),
		chromedp.SendKeys(chromedp.ID("npsn"), "20100001"),
		chromedp.SetValue(chromedp.ID("q0-format"), "markdown"),
		chromedp.SetValue(chromedp.ID("q0-text"), "Hitung $\\frac{3}{4} + \\sqrt{16}$:\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n"+vectors),
		chromedp.SetValue(chromedp.ID("q0-options"), "a: $4\\frac{3}{4}$\nb: **5**"),
		chromedp.SendKeys(chromedp.ID("q0-answer"), "a"),
		chromedp.Click(chromedp.CSS(`button[value="preview"]`)),
		chromedp.WaitVisible(chromedp.CSS("section.preview")),
	)
	// Eventually: the fraction's height needs the math font, which may
	// still be loading on a busy machine.
	desk.eventually("the preview shows the formulas as MathML", `document.querySelectorAll('section.preview math').length === 2 &&
		document.querySelector('section.preview mfrac').getBoundingClientRect().height > 20`)
	desk.check("with the embedded math font", `getComputedStyle(document.querySelector('section.preview math')).fontFamily.includes('STIX Two Math')`)
	desk.eventually("the font loads", `document.fonts.check('16px "STIX Two Math"')`)
	desk.check("the table and the bold option show", `document.querySelectorAll('section.preview td').length === 2 &&
		document.querySelector('.option-preview strong').textContent === '5'`)
	desk.check("the vectors are text, and nothing ran", `window.__xss === undefined &&
		document.querySelectorAll('section.preview img, section.preview script, section.preview svg').length === 0 &&
		document.querySelector('section.preview').textContent.includes('<script>window.__xss=1</script>')`)
	desk.check("the form kept what was typed", `document.getElementById('q0-format').value === 'markdown' &&
		document.getElementById('q0-text').value.startsWith('Hitung $')`)
	if _, err := chromedp.Run(desk.ctx, chromedp.Evaluate[int](`document.getElementById('q0-text').scrollIntoView(), 0`)); err != nil {
		t.Fatal(err)
	}
	desk.shot("exam-preview")

	// Saved with a formula that does not convert: saved, and the editor
	// stays open on the problem, the formula shown as its source.
	desk.do("save with a broken formula",
		chromedp.SetValue(chromedp.ID("q0-text"), "Hitung $\\frac{1}{$"),
		chromedp.Click(chromedp.CSS(`button[value="save"]`)),
		chromedp.WaitVisible(chromedp.CSS("p.ok")),
	)
	if got := desk.text("ul.problems"); !strings.Contains(got, "TEX_ERROR") || !strings.Contains(got, `\frac{1}{`) {
		t.Fatalf("problems shown: %q", got)
	}
	desk.check("the broken formula shows as its source", `document.querySelector('section.preview code.tex-error').textContent === '$\\frac{1}{$'`)
	es, _ := p.exam.ListExams(t.Context(), "")
	if len(es) != 1 || es[0].Title != "Matematika" {
		t.Fatalf("exams: %+v", es)
	}
}
