package console_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/testkit"
)

// TestBrowserExamEditorCloze writes a cloze question in the exam editor in
// Chromium at 1280 and 390 px: "Insert a blank at the cursor" writes each
// blank's marker where the cursor is and adds its fields, the fields of a
// blank follow its kind, the preview shows the blanks in the text and the
// choice options (whose XSS vectors stay text), the page never scrolls
// sideways, and the saved exam has the blanks in the text's order.
func TestBrowserExamEditorCloze(t *testing.T) {
	for _, width := range []int{1280, 390} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			chrome := newHeadless(t, "the console", 90*time.Second)
			p := newPortal(t, onStore("bolt"))
			desk := chrome.tab(width, 900)
			desk.do("sign in", p.operatorSignInSteps()...)
			desk.do("choose a cloze question",
				chromedp.Navigate(p.srv.URL+"/console/exams/new"),
				chromedp.WaitVisible(chromedp.ID("title")),
				chromedp.SendKeys(chromedp.ID("title"), "Geografi"),
				chromedp.SendKeys(chromedp.ID("npsn"), "20100001"),
				chromedp.SetValue(chromedp.ID("q0-type"), "cloze"),
				chromedp.SetValue(chromedp.ID("q0-text"), "Ibu kota Indonesia adalah , luas Jawa  ribu km², dan Jawa ada di  Kalimantan."),
			)
			desk.clickLoad("preview", `button[value="preview"]`)
			desk.check("the blanks' fieldset shows", `document.querySelector('#q0-blanks .insert-blank') !== null`)

			// insert puts the cursor after the first occurrence of after in
			// the text and inserts a blank there.
			insert := func(after string) {
				t.Helper()
				desk.do("put the cursor after "+after, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(function () {
					var ta = document.getElementById('q0-text'); var at = ta.value.indexOf(%q) + %d;
					ta.focus(); ta.setSelectionRange(at, at); }())`, after, len([]rune(after)))))
				desk.do("insert a blank", chromedp.Click(chromedp.CSS(`#q0-blanks .insert-blank`)))
			}
			kind := func(m int, k string) {
				t.Helper()
				desk.do("choose the kind", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(function () {
					var s = document.getElementById('q0-b%d-kind'); s.value = %q; s.dispatchEvent(new Event('change', {bubbles: true})); }())`, m, k)))
			}
			insert("adalah ")
			desk.check("the answer of the new blank has the focus", `document.activeElement.id === 'q0-b0-answer'`)
			desk.do("type its answer", chromedp.KeyEvent("Jakarta"))
			insert("Jawa ")
			kind(1, "number")
			desk.do("type its answer", chromedp.SendKeys(chromedp.ID("q0-b1-answer"), "128,3"), chromedp.SendKeys(chromedp.ID("q0-b1-tolerance"), "0,5"))
			insert("ada di ")
			kind(2, "choice")
			desk.do("write its options", chromedp.SetValue(chromedp.ID("q0-b2-options"), "u: utara\ns: selatan"),
				chromedp.SendKeys(chromedp.ID("q0-b2-answer"), "s"))
			desk.check("the markers are where the cursor was", `document.getElementById('q0-text').value ===
				'Ibu kota Indonesia adalah [[b1]], luas Jawa [[b2]] ribu km², dan Jawa ada di [[b3]] Kalimantan.' &&
				document.getElementById('q0-format').value === 'markdown'`)
			desk.check("each blank shows the fields of its kind", `getComputedStyle(document.getElementById('q0-b0-options')).display !== 'none' &&
				document.getElementById('q0-b0-options').offsetParent === null && document.getElementById('q0-b1-tolerance').offsetParent !== null &&
				document.getElementById('q0-b2-options').offsetParent !== null && document.getElementById('q0-b2-tolerance').offsetParent === null`)

			desk.clickLoad("preview", `button[value="preview"]`)
			desk.check("the options and answer key of the question itself are hidden", `document.getElementById('q0-options').offsetParent === null &&
				document.getElementById('q0-answer').offsetParent === null && document.querySelector('label[for="q0-answer"]').offsetParent === null`)
			desk.do("scroll to the choice blank and the preview", chromedp.Evaluate[chromedp.Void](`document.querySelector('section.preview').scrollIntoView({block: 'end'})`))
			if width == 1280 {
				desk.shot("exam-editor-cloze")
			} else {
				desk.shot("exam-editor-cloze-phone")
			}
			vectors := strings.Join(testkit.XSSVectors, " ")
			desk.do("put the vectors in an option", chromedp.SetValue(chromedp.ID("q0-b2-options"), "u: utara "+vectors+"\ns: selatan"))
			desk.clickLoad("preview", `button[value="preview"]`)
			desk.check("the preview shows the three blanks in the text and the options", `document.querySelectorAll('section.preview .q-preview span.blank[data-blank]').length === 3 &&
				document.querySelectorAll('section.preview .blank-preview > li').length === 3 &&
				document.querySelector('section.preview .blank-preview ul').textContent.includes('selatan')`)
			desk.check("the vectors are text, and nothing ran", `window.__xss === undefined &&
				document.querySelectorAll('section.preview img, section.preview script, section.preview svg, section.preview iframe, section.preview a, section.preview [onerror]').length === 0`)
			desk.check("the form kept the blanks", `document.getElementById('q0-b2-kind').value === 'choice' &&
				document.getElementById('q0-b1-tolerance').value === '0,5'`)
			if ok, err := desk.fits(); err != nil || !ok {
				t.Errorf("the editor scrolls sideways at %d px (%v)", width, err)
			}

			desk.clickLoad("save", `button[value="save"]`)
			es, _ := p.exam.ListExams(t.Context(), "")
			if len(es) != 1 {
				t.Fatalf("%d exams saved", len(es))
			}
			e, err := p.exam.GetExam(t.Context(), es[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			q := e.Questions[0]
			want := []exam.Blank{
				{ID: "b1", Kind: exam.BlankText, Answer: []string{"Jakarta"}, Points: 1},
				{ID: "b2", Kind: exam.BlankNumber, Answer: []string{"128.3"}, Tolerance: 0.5, Points: 1},
				{ID: "b3", Kind: exam.BlankChoice, Options: []exam.Option{{ID: "u", Text: "utara " + vectors}, {ID: "s", Text: "selatan"}}, Answer: []string{"s"}, Points: 1},
			}
			if q.Type != exam.Cloze || !reflect.DeepEqual(q.Blanks, want) || q.Points != 3 {
				t.Fatalf("saved: %+v", q)
			}
		})
	}
}

// TestBrowserExamEditorNumericClozeRoundTrip opens an exam with numeric and
// cloze questions made through the JSON API in the editor in Chromium and
// saves it untouched: the questions read back identical (the blanks'
// answers and options are lines, which the browser sends with CRLF).
func TestBrowserExamEditorNumericClozeRoundTrip(t *testing.T) {
	chrome := newHeadless(t, "the console", 60*time.Second)
	p := newPortal(t, onStore("bolt"))
	api, id, before := createNumericCloze(t, p)
	desk := chrome.tab(1280, 900)
	desk.do("sign in", p.operatorSignInSteps()...)
	desk.do("open the exam", chromedp.Navigate(p.srv.URL+"/console/exams/"+id+"/edit"), chromedp.WaitVisible(chromedp.ID("q2-b0-kind")))
	desk.check("each blank shows the fields of its kind", `document.getElementById('q2-b0-tolerance').offsetParent !== null &&
		document.getElementById('q2-b1-options').offsetParent !== null && document.getElementById('q2-b2-options').offsetParent === null`)
	desk.clickLoad("save", `button[value="save"]`)
	after, _, err := api.Exam.Admin.GetExam(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after.Questions) {
		t.Errorf("questions changed by a save in the editor:\nbefore %+v\nafter  %+v", before, after.Questions)
	}
}
