package examsrv_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserStimulus shows questions sharing a stimulus in Chromium: at
// 1280 px the stimulus is beside the question and scrolls on its own, at
// 390 px it is above it, its cue on the screen either way; scrolled with the keyboard, it stays where it was
// when the next question of its group shows; a question without one hides
// it; the table shows, and no XSS vector of the stimuli runs (one of them
// raw HTML, as a compromised portal could send).
func TestBrowserStimulus(t *testing.T) {
	for _, width := range []int{1280, 390} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			p, _ := openExam(t, typesPackage(t), 5, width, 800)
			p.showQuestionWith("Menurut bacaan, di provinsi")
			if p.text("#stimulus-title") != "Bacaan: Danau Toba" || p.count("#stimulus-pane:not(.hidden) #stimulus-text table td") != 4 {
				t.Fatal("the stimulus with its title and table does not show")
			}
			layout := p.eval("the layout", `(function () {
				var s = document.getElementById('stimulus-pane').getBoundingClientRect();
				var q = document.getElementById('question-panel').getBoundingClientRect();
				if (s.right <= q.left && Math.abs(s.top - q.top) < 2) { return 'beside'; }
				if (s.bottom <= q.top) { return 'above'; }
				return 'other ' + JSON.stringify([s.left, s.top, s.right, s.bottom, q.left, q.top]);
			}())`, false)
			if want := map[int]string{1280: "beside", 390: "above"}[width]; layout != want {
				t.Errorf("the stimulus is %s the question, want %s", layout, want)
			}
			if got := p.eval("the pane scrolls", `(function () { var s = document.getElementById('stimulus-pane');
				return String(getComputedStyle(s).overflowY === 'auto' && s.scrollHeight > s.clientHeight); }())`, false); got != "true" {
				t.Error("the stimulus pane does not scroll on its own")
			}
			// The pane's cue ("Bacaan berlanjut") is on the screen, the page at its top.
			if got := p.eval("the cue", `(function () { window.scrollTo(0, 0); var c = document.getElementById('stimulus-more').getBoundingClientRect();
				return String(!/hidden/.test(document.getElementById('stimulus-more').className) && c.height > 20 && c.top >= 0 && c.bottom <= window.innerHeight); }())`, false); got != "true" {
				t.Error("the passage overflows its pane but its cue is not on the screen")
			}
			// The keyboard scrolls the pane: focus it (Tab order) and page down.
			p.do("scroll the stimulus with the keyboard", chromedp.Focus(chromedp.ID("stimulus-pane")),
				chromedp.KeyEvent(kb.PageDown), chromedp.KeyEvent(kb.PageDown))
			// Scrolling is instant in the test browser (testkit.NewBrowser):
			// the keys have moved the pane once they are handled.
			scrolled := p.eval("the stimulus's scroll", `String(document.getElementById('stimulus-pane').scrollTop)`, false)
			if n, _ := strconv.Atoi(scrolled); n <= 100 {
				t.Fatalf("two Page Down keys on the focused stimulus scrolled it to %s px", scrolled)
			}
			p.eval("the page's top", `window.scrollTo(0, 0), ''`, false)
			// The group's next question keeps the stimulus where it was.
			p.do("next question", chromedp.Focus(chromedp.ID("next-question")), chromedp.KeyEvent(kb.Enter))
			p.waitTrue("the group's second question shows", `document.getElementById('question-text').textContent.indexOf('Menurut tabel bacaan') === 0`)
			if got := p.eval("the stimulus's scroll", `String(document.getElementById('stimulus-pane').scrollTop)`, false); got != scrolled {
				t.Errorf("the stimulus scrolled from %s to %s on the group's next question", scrolled, got)
			}
			if width == 390 {
				// Scrolled to it (as far as the page goes), past the stimulus.
				if got := p.eval("the question in view", `(function () { var top = document.getElementById('question-panel').getBoundingClientRect().top;
					return window.scrollY > 0 && top >= 0 && top < window.innerHeight / 4 ? 'yes' : 'top at ' + top; }())`, false); got != "yes" {
					t.Errorf("on a phone the group's next question is not brought into view: %s", got)
				}
			}
			// Another stimulus, raw vectors and all: shown from its top, safe.
			p.showQuestionWith("Tanggapi teks")
			if !strings.HasSuffix(p.text("#stimulus-text"), "aman") || p.eval("top", `String(document.getElementById('stimulus-pane').scrollTop)`, false) != "0" {
				t.Errorf("the compromised stimulus shows %q", p.text("#stimulus-text"))
			}
			// No stimulus: no pane.
			p.showQuestionWith("2 + 2")
			if got := p.eval("no pane", `String(document.getElementById('stimulus-pane').className.indexOf('hidden') >= 0 &&
				document.body.className.indexOf('with-stimulus') < 0)`, false); got != "true" {
				t.Error("a question without a stimulus shows the pane")
			}
			if got := p.eval("no vector ran", `String(window.__xss === undefined)`, false); got != "true" {
				t.Error("an XSS vector ran")
			}
			if got := p.eval("fits", `String(document.documentElement.scrollWidth <= window.innerWidth)`, false); got != "true" {
				t.Errorf("the page scrolls sideways at %d px", width)
			}
			p.checkClean()
		})
	}
}
