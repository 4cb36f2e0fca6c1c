package examsrv_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserCloze answers a cloze question with the keyboard only (type
// into the text blank, Tab to the number blank, Tab to the choice blank and
// pick by its first letter) and a numeric question, in Chromium at 1280 and
// 390 px: each blank is a labelled field in place in the text, the answer is
// stored as the lab server's JSON object, a blank emptied again leaves it
// out and marks the question partly answered (number grid, review list),
// a reload fills the blanks again, no XSS vector of the choice options
// runs, and the page never scrolls sideways.
func TestBrowserCloze(t *testing.T) {
	for _, width := range []int{1280, 390} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			p, l := openExam(t, clozePackage(t), 5, width, 900)
			n := p.showQuestionWith("Ibu kota Indonesia")
			if got := p.count(`#question-text span.blank > .blank-field[data-blank-id]`); got != 3 {
				t.Fatalf("%d blanks in place in the text, want 3", got)
			}
			labels := p.eval("the blanks' labels", `Array.prototype.map.call(document.querySelectorAll('#question-text .blank-field'),
				function (f) { return f.tagName + ':' + f.getAttribute('aria-label') + ':' + (f.getAttribute('inputmode') || ''); }).join('|')`, false)
			if want := "INPUT:Isian 1 dari 3:|INPUT:Isian 2 dari 3 (angka):decimal|SELECT:Isian 3 dari 3:"; labels != want {
				t.Errorf("blanks: %s, want %s", labels, want)
			}
			// The options are text: nothing of their HTML became an element.
			if got := p.count(`#question-text select.blank-choice option *`); got != 0 {
				t.Errorf("the choice blank's options hold %d elements", got)
			}
			if got := p.eval("the options", `Array.prototype.map.call(document.querySelectorAll('#question-text select.blank-choice option'),
				function (o) { return o.value; }).join(',')`, false); got != ",u,s" {
				t.Errorf("the choice blank's options: %q", got)
			}

			p.do("answer with the keyboard", chromedp.Focus(chromedp.CSS(`[data-blank-id="kota"]`)),
				chromedp.KeyEvent("Jakarta"), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent("128,3"), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent("s"))
			p.waitTrue("the answer is saved", `document.getElementById('save-status').textContent === 'Tersimpan' &&
				document.activeElement.getAttribute('data-blank-id') === 'arah' && document.activeElement.value === 's'`)
			p.storedAnswer(l, "c1", `{"kota":"Jakarta","luas":"128,3","arah":"s"}`)
			item := fmt.Sprintf(`.nav-item[data-number="%d"]`, n)
			if p.count(item+".answered") != 1 || p.count(item+".partial") != 0 {
				t.Error("a cloze question with every blank filled is not shown answered")
			}
			if got := p.eval("fits", `String(document.documentElement.scrollWidth <= window.innerWidth)`, false); got != "true" {
				t.Errorf("the page scrolls sideways at %d px", width)
			}
			switch width {
			case 1280:
				p.shot("student-cloze")
			case 390:
				p.shot("student-cloze-phone")
			}

			// The text blank emptied: left out of the answer, the question
			// partly answered.
			back := []chromedp.Action[chromedp.Void]{chromedp.Focus(chromedp.CSS(`[data-blank-id="kota"]`)), chromedp.KeyEvent(kb.End)}
			for range len("Jakarta") {
				back = append(back, chromedp.KeyEvent(kb.Backspace))
			}
			p.do("empty the text blank", append(back, chromedp.KeyEvent(kb.Tab))...)
			p.waitTrue("the change is saved", `document.getElementById('save-status').textContent === 'Tersimpan'`)
			p.storedAnswer(l, "c1", `{"luas":"128,3","arah":"s"}`)
			if p.count(item+".answered.partial") != 1 {
				t.Error("the question with a blank empty is not marked partly answered")
			}
			if got := p.eval("its label", `document.querySelector('`+item+`').getAttribute('aria-label')`, false); got != fmt.Sprintf("Soal %d, sebagian dijawab", n) {
				t.Errorf("the number grid says %q", got)
			}

			p.do("review", chromedp.Click(chromedp.ID("review-button")), chromedp.WaitVisible(chromedp.ID("review-list")))
			if got := p.text(fmt.Sprintf(`.review-item[data-number="%d"] .review-state`, n)); got != "Sebagian dijawab" {
				t.Errorf("the review list says %q", got)
			}
			p.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("exam-view")))
			p.showQuestionWith("Ibu kota Indonesia")
			if got := p.eval("the blanks after a reload", `Array.prototype.map.call(document.querySelectorAll('#question-text .blank-field'),
				function (f) { return f.value; }).join('|')`, false); got != "|128,3|s" {
				t.Errorf("after a reload the blanks hold %q", got)
			}

			// A numeric question: one number field, the number keyboard.
			p.showQuestionWith("2,5 × 2")
			if got := p.eval("the number field", `(function () { var f = document.getElementById('answer-text');
				return f.tagName + ' ' + f.getAttribute('inputmode'); }())`, false); got != "INPUT decimal" {
				t.Errorf("the numeric question's field: %s", got)
			}
			p.do("answer the numeric question", chromedp.Focus(chromedp.ID("answer-text")), chromedp.KeyEvent("5,0"), chromedp.KeyEvent(kb.Tab))
			p.waitTrue("the number is saved", `document.getElementById('save-status').textContent === 'Tersimpan'`)
			p.storedAnswer(l, "n1", "5,0")
			if width == 390 {
				p.shot("student-numeric-phone")
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
