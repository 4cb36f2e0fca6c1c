package examsrv_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserMatching answers a matching question with the keyboard only
// (focus a premise's list, arrow keys, Tab to the next) in Chromium at
// 1280, 1024 and 390 px: the answer is saved in the premises' order, the
// used responses are marked, choosing a used response moves it, the
// formula shows as MathML, no XSS vector of the premises and responses
// runs, and the page never scrolls sideways.
func TestBrowserMatching(t *testing.T) {
	for _, width := range []int{1280, 1024, 390} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			p, l := openExam(t, typesPackage(t), 5, width, 900)
			p.showQuestionWith("Jodohkan")
			if p.count("#answer-area select.match-select") != 3 || p.count("#answer-area .match-response") != 4 ||
				p.count("#answer-area .match-premise math") != 1 {
				t.Fatal("the matching question does not show its three premises, four responses and the formula")
			}
			// The key, p1=r3 p2=r2 p3=r1, chosen by typing each response's
			// letter: the responses come in this student's order.
			order := p.responseOrder()
			pick := func(response string) chromedp.Action[chromedp.Void] {
				return chromedp.KeyEvent(pickLetter(order, response))
			}
			p.do("answer with the keyboard", chromedp.Focus(chromedp.CSS(`select[data-match-premise="p1"]`)),
				pick("r3"), chromedp.KeyEvent(kb.Tab), pick("r2"), chromedp.KeyEvent(kb.Tab), pick("r1"))
			p.waitTrue("the answer is saved", `document.getElementById('save-status').textContent === 'Tersimpan' &&
				document.activeElement.getAttribute('data-match-premise') === 'p3'`)
			p.storedAnswer(l, "m1", "p1=r3,p2=r2,p3=r1")
			if n := p.count("#answer-area .match-response.used"); n != 3 {
				t.Errorf("%d responses marked used, want 3", n)
			}
			if got := p.text(`#answer-area .match-response[data-match-response="r3"] .match-used`); got != "dipakai untuk 1" {
				t.Errorf("r3 is marked %q", got)
			}
			if got := p.text(`#answer-area [data-match-response="r2"] .match-response-text li`); got != "ibu kota Bali" {
				t.Errorf("the list in response r2 shows %q once answers are marked", got)
			}
			if width == 1280 {
				p.shot("student-matching")
			}
			// r3 is p1's: p3 cannot have it (its option is disabled, the
			// arrow keys pass it) until p1 lets it go.
			if got := p.eval("r3 for p3", `(function () { var o = document.querySelector('select[data-match-premise="p3"] option[value="r3"]');
				return o.disabled + ' ' + o.textContent; }())`, false); !strings.HasPrefix(got, "true ") || !strings.HasSuffix(got, "(sudah dipakai untuk 1)") {
				t.Errorf("r3 in p3's list: %q", got)
			}
			// Arrowing through p2's list passes the responses in use: p1
			// and p3 keep theirs.
			p.do("arrow through p2's list", chromedp.Focus(chromedp.CSS(`select[data-match-premise="p2"]`)),
				chromedp.KeyEvent(kb.Home), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown),
				chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown))
			p.waitTrue("p2's choice is saved", `document.getElementById('save-status').textContent === 'Tersimpan'`)
			p2 := p.eval("p2's choice", `document.querySelector('select[data-match-premise="p2"]').value`, false)
			if p2 == "r1" || p2 == "r3" || p2 == "" {
				t.Errorf("arrowing through p2's list chose %q", p2)
			}
			p.storedAnswer(l, "m1", "p1=r3,p2="+p2+",p3=r1")
			p.do("p1 lets r3 go, p3 takes it", chromedp.Focus(chromedp.CSS(`select[data-match-premise="p1"]`)), chromedp.KeyEvent(kb.Home),
				chromedp.Focus(chromedp.CSS(`select[data-match-premise="p3"]`)), pick("r3"))
			p.waitTrue("the change is saved", `document.getElementById('save-status').textContent === 'Tersimpan' &&
				document.querySelector('select[data-match-premise="p3"]').value === 'r3'`)
			p.storedAnswer(l, "m1", "p2="+p2+",p3=r3")

			// The reusable responses of m2: one response for two premises.
			p.showQuestionWith("Di pulau mana")
			jawa := chromedp.KeyEvent(pickLetter(p.responseOrder(), "jawa"))
			down := []chromedp.Action[chromedp.Void]{chromedp.Focus(chromedp.CSS(`select[data-match-premise="k1"]`)), jawa,
				chromedp.KeyEvent(kb.Tab), jawa}
			p.do("give Jawa to two premises", down...)
			p.waitTrue("m2 is saved", `document.getElementById('save-status').textContent === 'Tersimpan'`)
			p.storedAnswer(l, "m2", "k1=jawa,k2=jawa")
			if n := p.count("#answer-area .match-response.used"); n != 0 {
				t.Errorf("reusable responses marked used: %d", n)
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

// showQuestionWith goes through the questions with the number grid until
// the question's text holds text, and returns its number.
func (p *studentPage) showQuestionWith(text string) int {
	p.t.Helper()
	total := p.count(".nav-item")
	for n := 1; n <= total; n++ {
		p.goTo(n, total)
		if strings.Contains(p.eval("the question's text", `document.getElementById('question-text').textContent`, false), text) {
			p.checkSafe()
			return n
		}
	}
	p.t.Fatalf("no question shows %q", text)
	return 0
}

// checkSafe fails the test if the question or its stimulus holds an
// element or attribute that could run a script.
func (p *studentPage) checkSafe() {
	p.t.Helper()
	if got := p.count("#exam-body script, #exam-body iframe, #exam-body svg, #exam-body a, #exam-body [onerror], #exam-body [onload], #exam-body [style*=url]"); got != 0 {
		p.t.Errorf("the question or its stimulus holds %d unsafe elements", got)
	}
}

// storedAnswer checks the answer of student m1 to question q of e1 on the
// lab server's disk.
func (p *studentPage) storedAnswer(l *lab, q, want string) {
	p.t.Helper()
	got, err := l.db.Answers("e1", "m1")
	if err != nil {
		p.t.Fatal(err)
	}
	if got[q].Answer != want {
		p.t.Errorf("stored answer of %s = %q, want %q", q, got[q].Answer, want)
	}
}

// responseOrder is the ids of the current matching question's responses,
// as the page lists them.
func (p *studentPage) responseOrder() []string {
	p.t.Helper()
	return strings.Split(p.eval("the responses' order", `Array.prototype.map.call(document.querySelectorAll('#answer-area .match-response'),
		function (li) { return li.getAttribute('data-match-response'); }).join(',')`, false), ",")
}

// pickLetter is the key that chooses response id in a premise's list: its
// letter in order.
func pickLetter(order []string, id string) string {
	return string(rune('a' + slices.Index(order, id)))
}
