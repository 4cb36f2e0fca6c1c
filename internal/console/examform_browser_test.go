package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/testkit"
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

// TestBrowserExamPreviewStimulusMatching previews, in Chromium, a stimulus
// and a matching question whose texts hold the XSS vectors, in both
// formats: the stimulus's table and the formula of a premise show, the
// vectors stay text and none runs.
func TestBrowserExamPreviewStimulusMatching(t *testing.T) {
	chrome := newHeadless(t, "the console", 60*time.Second)
	p := newPortal(t, onStore("bolt"))
	desk := chrome.tab(1200, 900)
	desk.do("sign in", p.operatorSignInSteps()...)
	vectors := strings.Join(testkit.XSSVectors, " ")
	desk.do("add a stimulus",
		chromedp.Navigate(p.srv.URL+"/console/exams/new"),
		chromedp.WaitVisible(chromedp.ID("title")),
		chromedp.Click(chromedp.CSS(`button[value="add-stimulus"]`)),
		chromedp.WaitVisible(chromedp.ID("s0-text")),
	)
	desk.do("write a stimulus and a matching question",
		chromedp.SetValue(chromedp.ID("s0-title"), "Danau Toba"),
		chromedp.SetValue(chromedp.ID("s0-text"), "| Danau | Luas |\n|--|--|\n| Toba | 1130 |\n\n"+vectors),
		chromedp.SetValue(chromedp.ID("q0-type"), "matching"),
		chromedp.SetValue(chromedp.ID("q0-format"), "markdown"),
		chromedp.SetValue(chromedp.ID("q0-stimulus"), "bacaan1"),
		chromedp.SetValue(chromedp.ID("q0-text"), "Jodohkan."),
		chromedp.Click(chromedp.CSS(`button[value="preview"]`)),
		chromedp.WaitVisible(chromedp.ID("q0-premises")),
		chromedp.SetValue(chromedp.ID("q0-premises"), "p1: luas $x^2$ "+vectors+"\np2: Toba"),
		chromedp.SetValue(chromedp.ID("q0-responses"), "r1: "+vectors+"\nr2: Sumatera"),
		chromedp.SetValue(chromedp.ID("q0-answer"), "p1=r1\np2=r2"),
		chromedp.Click(chromedp.CSS(`button[value="preview"]`)),
		chromedp.WaitVisible(chromedp.CSS(".premise-preview")),
	)
	desk.check("the stimulus's table and the premise's formula show", `document.querySelectorAll('.stimulus-preview td').length === 2 &&
		document.querySelectorAll('.premise-preview math').length === 1 && document.querySelectorAll('.response-preview li').length === 2`)
	desk.check("the form kept the stimulus and the question's choice of it", `document.getElementById('s0-title').value === 'Danau Toba' &&
		document.getElementById('q0-stimulus').value === 'bacaan1'`)
	desk.check("the vectors are text, and nothing ran", `window.__xss === undefined &&
		document.querySelectorAll('section.preview img, section.preview script, section.preview svg, section.preview iframe, section.preview a, section.preview [onerror], section.preview [style]').length === 0 &&
		document.querySelector('.stimulus-preview').textContent.includes('<script>window.__xss=1</script>') &&
		document.querySelector('.response-preview').textContent.includes('<script>window.__xss=1</script>')`)

	// The same texts in the plain format: text as well.
	desk.do("choose the plain format",
		chromedp.SetValue(chromedp.ID("s0-format"), "plain"),
		chromedp.SetValue(chromedp.ID("q0-format"), "plain"),
	)
	desk.clickLoad("preview as plain text", `button[value="preview"]`)
	desk.check("plain: nothing ran", `window.__xss === undefined &&
		document.querySelectorAll('section.preview img, section.preview script, section.preview svg, section.preview iframe, section.preview a').length === 0 &&
		document.querySelector('.stimulus-preview').textContent.includes('| Toba | 1130 |')`)
}

// TestBrowserExamCategories: the exam editor shows each question's bank
// category, finds questions by it (at a desk's and a phone's width), and
// keeps it through a save.
func TestBrowserExamCategories(t *testing.T) {
	chrome := newHeadless(t, "the console", 60*time.Second)
	p := newPortal(t, onStore("bolt"))
	essay := func(id, text, category string) exam.Question {
		return exam.Question{ID: id, Type: exam.Essay, Text: text, Category: category}
	}
	e, err := p.exam.CreateExam(t.Context(), exam.ExamInput{Title: "Matematika", NPSNs: []string{"20100001"},
		StartsAt: time.Date(2030, 12, 1, 7, 0, 0, 0, time.UTC), EndsAt: time.Date(2030, 12, 1, 9, 0, 0, 0, time.UTC), DurationMinutes: 90,
		Questions: []exam.Question{essay("q1", "Sederhanakan 2x + 3x.", "Matematika/Aljabar"),
			essay("q2", "Luas persegi bersisi 4?", "Matematika/Geometri"), essay("q3", "Faktorkan x² − 1.", "Matematika/Aljabar")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct {
		w, h int
		name string
	}{{1280, 900, "exam-categories"}, {390, 844, "exam-categories-phone"}} {
		tab := chrome.tab(size.w, size.h)
		tab.do("sign in", p.operatorSignInSteps()...)
		tab.do("find the geometry questions",
			chromedp.Navigate(p.srv.URL+"/console/exams/"+e.ID+"/edit"),
			chromedp.WaitVisible(chromedp.ID("qfilter")),
			chromedp.SendKeys(chromedp.ID("qfilter"), "geometri"),
		)
		tab.check("only q2 shows, its category in its field", `(() => {
			const shown = [...document.querySelectorAll('fieldset.question')].filter(f => !f.hidden);
			return shown.length === 1 && shown[0].querySelector('[name$=".category"]').value === 'Matematika/Geometri' &&
				document.getElementById('qfilter-status').textContent.includes('1/3');
		})()`)
		if _, err := chromedp.Run(tab.ctx, chromedp.Evaluate[int](`document.getElementById('question-filter').scrollIntoView(), window.scrollBy(0, -40), 0`)); err != nil {
			t.Fatal(err)
		}
		tab.shot(size.name)
	}
	tab := chrome.tab(1280, 900)
	tab.do("sign in", p.operatorSignInSteps()...)
	tab.do("save with a filter on",
		chromedp.Navigate(p.srv.URL+"/console/exams/"+e.ID+"/edit"),
		chromedp.WaitVisible(chromedp.ID("qfilter")),
		chromedp.SendKeys(chromedp.ID("qfilter"), "aljabar"),
		chromedp.SetValue(chromedp.ID("q0-category"), "Matematika/Aljabar/Linear"),
		chromedp.Click(chromedp.CSS(`button[value="save"]`)),
		chromedp.WaitNotPresent(chromedp.ID("qfilter")),
	)
	got, err := p.exam.GetExam(t.Context(), e.ID)
	if err != nil || len(got.Questions) != 3 || got.Questions[0].Category != "Matematika/Aljabar/Linear" || got.Questions[1].Category != "Matematika/Geometri" {
		t.Fatalf("saved %+v, %v", got.Questions, err)
	}
}
