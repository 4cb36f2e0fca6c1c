package examsrv_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/seedhq/portal/internal/agent/examsrv"
	"github.com/seedhq/portal/internal/agent/mediastore"
	"github.com/seedhq/portal/internal/richtext"
	"github.com/seedhq/portal/internal/testkit/browsertest"
	"github.com/seedhq/portal/pkg/client"
)

// The question kinds allPackage holds: every type, with and without a
// stimulus, and with media.
var allKinds = []string{"single_choice", "multiple_choice", "true_false", "short_answer", "essay", "statement_grid",
	"matching", "numeric", "cloze", "stimulus", "image", "listening", "listening_old"}

// Descriptions of allPackage's audio: marked for assistive technology, the
// teacher's own, and an older package's (an aria-label on the player).
const (
	describedAudio = "Rekaman percakapan dua siswa"
	teacherAudio   = "Kunci: jawabannya Bandung"
	legacyAudio    = "Jawabannya adalah nada tinggi"
)

// allPackage is mediaPackage (an image, a listening item whose description
// is marked for assistive technology) with every other question type,
// each once without a stimulus and once with the long passage, a stimulus
// with an image and an audio whose description is the teacher's, and a
// listening item of an older package (its description an aria-label).
func allPackage(t testing.TB) (*client.Package, *mediastore.Store) {
	t.Helper()
	p, store := mediaPackage(t)
	img, audio := sum(mediaFiles["image"]), sum(mediaFiles["audio"])
	media := func(sha string) (richtext.Media, bool) {
		return richtext.Media{URL: "media/" + sha, Audio: sha == audio}, sha == img || sha == audio
	}
	render := func(src string) string {
		res, err := richtext.Render(richtext.Markdown, src, richtext.Options{Media: media})
		if err != nil || len(res.Problems) > 0 {
			t.Fatalf("render %q: %v %v", src, err, res.Problems)
		}
		return res.HTML
	}
	types := typesPackage(t).Exams[0]
	e := &p.Exams[0]
	q2 := &e.Questions[1]
	q2.Text = "![" + describedAudio + "](media:" + audio + ` "describe")` + "\n\nWhat did you hear?"
	q2.HTML = render(q2.Text)
	opts := []client.QuestionOption{{ID: "a", Text: "Sumatera Utara"}, {ID: "b", Text: "Bali"}, {ID: "c", Text: "Jawa Barat"}}
	grid := client.PackageQuestion{ID: "g1", Type: "statement_grid", Text: "Benar atau salah?", Points: 1,
		Statements: []client.QuestionOption{{ID: "s1", Text: "Danau Toba di Sumatera"}, {ID: "s2", Text: "Danau Toba di Bali"}},
		Columns:    []client.QuestionOption{{ID: "true", Text: "Benar"}, {ID: "false", Text: "Salah"}}}
	gridToba := grid
	gridToba.ID, gridToba.Stimulus = "g2", "toba"
	matchToba := types.Questions[1]
	matchToba.ID, matchToba.Stimulus = "m3", "toba"
	legacy := client.PackageQuestion{ID: "old", Type: "single_choice", Format: "markdown", Text: "Nada apa?", Points: 1, PlayLimit: 1,
		HTML:    `<p dir="auto"><audio controls preload="metadata" src="media/` + audio + `" aria-label="` + legacyAudio + `" data-media="` + audio + `"></audio></p><p dir="auto">Nada apa?</p>`,
		Options: []client.QuestionOption{{ID: "a", Text: "Tinggi"}, {ID: "b", Text: "Rendah"}}}
	listen := "![Peta Danau Toba](media:" + img + ")\n\n![" + teacherAudio + "](media:" + audio + ")\n\nDengarkan, lalu jawab."
	for _, q := range types.Questions {
		q.ID = "t-" + q.ID // not one of testPackage's ids
		e.Questions = append(e.Questions, q)
	}
	e.Questions = append(e.Questions, grid, gridToba, matchToba, legacy,
		client.PackageQuestion{ID: "mct", Type: "multiple_choice", Text: "Menurut bacaan, mana yang benar?", Options: opts, Points: 1, Stimulus: "toba"},
		client.PackageQuestion{ID: "tft", Type: "true_false", Text: "Menurut bacaan, Danau Toba di Bali.", Points: 1, Stimulus: "toba",
			Options: []client.QuestionOption{{ID: "true", Text: "Benar"}, {ID: "false", Text: "Salah"}}},
		client.PackageQuestion{ID: "lt", Type: "single_choice", Text: "Kota apa yang disebut?", Options: opts, Points: 1, Stimulus: "listen"})
	for _, q := range clozePackage(t).Exams[0].Questions {
		if q.Type == client.Cloze || q.Type == client.Numeric {
			e.Questions = append(e.Questions, q)
		}
	}
	e.Stimuli = append(types.Stimuli, client.Stimulus{ID: "listen", Title: "Simak", Format: "markdown", Text: listen, HTML: render(listen)})
	return p, store
}

// kindOf reads the kind of the question shown (allKinds), from its answer
// controls and media (listening_old: an older package's listening item),
// and whether a stimulus shows with it.
const kindOf = `(function () {
	var a = document.getElementById('answer-area'), q = document.getElementById('question-text');
	var play = q.querySelector('.play-button');
	var k = play ? (play.getAttribute('aria-describedby') ? 'listening' : 'listening_old') :
		q.querySelector('img') ? 'image' :
		q.querySelector('[data-blank-id]') ? 'cloze' :
		a.querySelector('input.answer-number') ? 'numeric' :
		a.querySelector('table.grid') ? 'statement_grid' :
		a.querySelector('select.match-select') ? 'matching' :
		a.querySelector('textarea.answer-essay') ? 'essay' :
		a.querySelector('textarea') ? 'short_answer' :
		a.querySelector('input[type=checkbox]') ? 'multiple_choice' :
		a.querySelector('.option[data-option-id="true"]') ? 'true_false' : 'single_choice';
	var s = document.getElementById('stimulus-pane').className.indexOf('hidden') < 0;
	return k + (s ? ' stimulus' : '');
}())`

// TestBrowserPhoneLayout shows every question of allPackage at a phone's
// widths (360, 390 and 414 px) in Chromium: nothing scrolls sideways, the
// question's buttons are on one line with "Berikutnya" wholly on the
// screen, and a passage longer than its pane shows "Bacaan berlanjut" over
// its fold, which goes once the passage is read to its end and opens the
// passage in full.
func TestBrowserPhoneLayout(t *testing.T) {
	for _, width := range []int{360, 390, 414} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			pkg, store := allPackage(t)
			p, _ := openExam(t, pkg, 3, width, 800, func(o *examsrv.Options) { o.Media = store })
			total := p.count(".nav-item")
			seen := map[string]bool{}
			cues := 0
			for n := 1; n <= total; n++ {
				p.goTo(n, total)
				kind := p.eval("the kind", kindOf, false)
				for _, k := range strings.Fields(kind) {
					seen[k] = true
				}
				p.waitTrue("the stimulus's images are in", `Array.prototype.every.call(document.querySelectorAll('#stimulus-text img'), function (i) { return i.complete; })`)
				if got := p.eval("the layout", phoneLayout, false); got != "" {
					t.Errorf("question %d (%s) at %d px: %s", n, kind, width, got)
				}
				// A description that is the teacher's is nowhere on the page.
				if got := p.eval("the teacher's descriptions", fmt.Sprintf(`String(document.body.innerHTML.indexOf(%s) >= 0 || document.body.innerHTML.indexOf(%s) >= 0)`,
					jsString(teacherAudio), jsString(legacyAudio)), false); got != "false" {
					t.Errorf("question %d (%s) shows the teacher's description of an audio", n, kind)
				}
				if p.eval("the pane overflows", `String(!/hidden/.test(document.getElementById('stimulus-pane').className) &&
					document.getElementById('stimulus-pane').scrollHeight > document.getElementById('stimulus-pane').clientHeight + 4)`, false) != "true" {
					continue
				}
				cues++
				if cues == 1 && width == 390 {
					p.shot("student-stimulus-cue-phone")
				}
				if cues > 1 {
					continue
				}
				// Read to the end: the cue goes, the passage's last line shows.
				p.eval("scroll the passage to its end", `(function () { var s = document.getElementById('stimulus-pane'); s.scrollTop = s.scrollHeight; return ''; }())`, false)
				p.waitTrue("the cue goes at the passage's end", `/hidden/.test(document.getElementById('stimulus-more').className)`)
				p.eval("back to the top", `(function () { var s = document.getElementById('stimulus-pane'); s.scrollTop = 0; return ''; }())`, false)
				p.waitTrue("the cue is back", `!/hidden/.test(document.getElementById('stimulus-more').className)`)
				// The cue opens the passage in full (by the keyboard).
				p.do("open the passage", chromedp.Focus(chromedp.ID("stimulus-more")), chromedp.KeyEvent(kb.Enter))
				p.waitTrue("the passage shows in full, its pane focused", `(function () { var s = document.getElementById('stimulus-pane');
					return s.scrollHeight <= s.clientHeight + 1 && /hidden/.test(document.getElementById('stimulus-more').className) && document.activeElement === s; }())`)
				if got := p.eval("the layout", phoneLayout, false); got != "" {
					t.Errorf("question %d (%s) with its passage open at %d px: %s", n, kind, width, got)
				}
			}
			for _, k := range allKinds {
				if !seen[k] {
					t.Errorf("no question of kind %s", k)
				}
			}
			if cues == 0 {
				t.Error("no passage overflowed its pane: the cue was not tested")
			}
			p.checkClean()
		})
	}
}

// phoneLayout is what is wrong with the page's layout on a phone ("" when
// nothing is): sideways scrolling, the question's buttons on more than one
// line or "Berikutnya" not wholly on the screen, a passage that overflows
// its pane without a visible cue, a cue where nothing overflows.
const phoneLayout = `(function () {
	var out = [], w = window.innerWidth, h = window.innerHeight;
	if (document.scrollingElement.scrollWidth > w) { out.push('scrolls sideways: ' + document.scrollingElement.scrollWidth + ' > ' + w); }
	var bs = document.querySelectorAll('.q-actions .btn'), top = null;
	for (var i = 0; i < bs.length; i++) {
		var r = bs[i].getBoundingClientRect();
		if (top === null) { top = r.top; }
		if (Math.abs(r.top - top) > 1) { out.push('the buttons wrap'); }
		if (r.height > 52 || bs[i].scrollWidth > bs[i].clientWidth) { out.push(bs[i].id + ' wraps or is cut: ' + r.height + ' px high'); }
	}
	var n = document.getElementById('next-question').getBoundingClientRect();
	if (n.left < 0 || n.top < 0 || n.right > w || n.bottom > h || n.width === 0) {
		out.push('Berikutnya is not on the screen: ' + JSON.stringify([n.left, n.top, n.right, n.bottom]));
	}
	var s = document.getElementById('stimulus-pane'), cue = document.getElementById('stimulus-more');
	if (!/hidden/.test(s.className)) {
		var more = s.scrollHeight - s.scrollTop - s.clientHeight > 4;
		var c = cue.getBoundingClientRect(), p = s.getBoundingClientRect();
		var visible = !/hidden/.test(cue.className) && c.height > 20 && c.top >= p.top && c.bottom <= p.bottom + 1 &&
			getComputedStyle(cue).visibility === 'visible';
		if (more && !visible) { out.push('the passage overflows its pane with no visible cue'); }
		if (!more && visible) { out.push('a cue where nothing overflows'); }
	}
	return out.join('; ');
}())`

// TestBrowserAxe audits the student page with axe-core's WCAG 2.1 A and AA
// rules at a desktop's and a phone's width: every question of allPackage,
// the review, the finish dialog, the exam list and the sign-in form.
func TestBrowserAxe(t *testing.T) {
	browsertest.AxeScript(t) // installed (or skipped) before the browser starts
	for _, width := range []int{1280, 390} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			pkg, store := allPackage(t)
			p, _ := openExam(t, pkg, 3, width, 900, func(o *examsrv.Options) { o.Media = store })
			total := p.count(".nav-item")
			audit := func(what string) {
				t.Helper()
				for _, v := range browsertest.Axe(p.ctx, t) {
					t.Errorf("%s at %d px: %s", what, width, v)
				}
			}
			for n := 1; n <= total; n++ {
				p.goTo(n, total)
				audit(fmt.Sprintf("question %d (%s)", n, p.eval("the kind", kindOf, false)))
			}
			p.do("review", chromedp.Click(chromedp.ID("review-button")), chromedp.WaitVisible(chromedp.ID("review-panel")))
			audit("the review")
			p.do("finish", chromedp.Click(chromedp.ID("finish-button")), chromedp.WaitVisible(chromedp.ID("finish-confirm")))
			audit("the finish dialog")
			p.do("confirm", chromedp.Click(chromedp.ID("finish-confirm")), chromedp.WaitVisible(chromedp.ID("finish-result")))
			audit("the exam list")
			p.do("sign out", chromedp.Click(chromedp.ID("logout")), chromedp.WaitVisible(chromedp.ID("login-form")))
			audit("the sign-in form")
			p.checkClean()
		})
	}
}

// TestBrowserKeyboard answers every kind of question of allPackage with
// the keyboard alone in Chromium, reading document.activeElement after
// each key: a radio group is one Tab stop whose arrow keys move and choose,
// a grid's row likewise, the play button keeps the focus while its audio
// plays, and every element the focus reaches shows a ring of at least 3:1
// against what is around it. The finish dialog takes the focus, keeps Tab
// inside, closes on Escape and gives the focus back to "Selesai".
func TestBrowserKeyboard(t *testing.T) {
	for _, width := range []int{1280, 390} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			pkg, store := allPackage(t)
			p, _ := openExam(t, pkg, 3, width, 900, func(o *examsrv.Options) { o.Media = store })
			total := p.count(".nav-item")
			done := map[string]bool{}
			for n := 1; n <= total; n++ {
				p.goTo(n, total)
				kind := strings.Fields(p.eval("the kind", kindOf, false))[0]
				if done[kind] {
					continue
				}
				done[kind] = true
				p.keyboardAnswer(kind)
			}
			for _, k := range allKinds {
				if k != "stimulus" && !done[k] {
					t.Errorf("no question of kind %s was answered with the keyboard", k)
				}
			}
			// Every stop of the page's Tab order shows its ring.
			p.startAtTop()
			stops := map[string]bool{}
			for range 60 {
				p.do("Tab", chromedp.KeyEvent(kb.Tab))
				id := p.eval("the focus", activeID, false)
				if id == "body" { // past the page's last control, before its first again
					continue
				}
				stops[strings.SplitN(id, "#", 2)[0]] = true
				p.checkRing(id)
			}
			for _, want := range []string{"button.nav-item", "button.btn", "input.option-input"} {
				found := false
				for s := range stops {
					found = found || strings.HasPrefix(s, want)
				}
				if !found {
					t.Errorf("Tab never reached a %s (reached %v)", want, stops)
				}
			}
			p.do("focus an option", chromedp.Focus(chromedp.CSS(".option-input")))
			p.shot(map[int]string{1280: "student-focus", 390: "student-focus-phone"}[width])
			p.finishDialogByKeyboard(width)
			p.checkClean()
		})
	}
}

// activeID describes document.activeElement: tag.class#id[data-*].
const activeID = `(function () { var e = document.activeElement; if (!e || e === document.body) { return 'body'; }
	return e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ').join('.') : '') + '#' + e.id +
		'[' + (e.getAttribute('data-option-id') || e.value || e.getAttribute('data-number') || '') + ']'; }())`

// startAtTop puts the focus on the page's first control (the top bar's
// "Keluar"), where a keyboard user starts.
func (p *studentPage) startAtTop() {
	p.t.Helper()
	p.do("focus the top", chromedp.Focus(chromedp.ID("logout")))
	p.eval("the top", `(window.scrollTo(0, 0), '')`, false)
}

// tabTo presses Tab (at most 40 times) until the focus is on an element
// matching sel, and returns how many presses it took.
func (p *studentPage) tabTo(sel string) int {
	p.t.Helper()
	for i := 1; i <= 40; i++ {
		p.do("Tab", chromedp.KeyEvent(kb.Tab))
		if p.eval("the focus", fmt.Sprintf(`String(!!document.activeElement && document.activeElement.matches(%s))`, jsString(sel)), false) == "true" {
			return i
		}
	}
	p.t.Fatalf("40 Tabs never reached %s (last %s)", sel, p.eval("the focus", activeID, false))
	return 0
}

// focusIs fails the test unless the focus is on an element matching sel.
func (p *studentPage) focusIs(what, sel string) {
	p.t.Helper()
	if p.eval("the focus", fmt.Sprintf(`String(!!document.activeElement && document.activeElement.matches(%s))`, jsString(sel)), false) != "true" {
		p.t.Errorf("%s: the focus is on %s, want %s", what, p.eval("the focus", activeID, false), sel)
	}
}

// keyboardAnswer answers the question shown, of the given kind, with the
// keyboard from the top of the page.
func (p *studentPage) keyboardAnswer(kind string) {
	p.t.Helper()
	key := func(k string) { p.do("key", chromedp.KeyEvent(k)) }
	saved := func(what string) {
		p.waitTrue(what+" is saved", `document.getElementById('save-status').textContent === 'Tersimpan'`)
	}
	p.startAtTop()
	switch kind {
	case "single_choice", "true_false", "image", "listening_old":
		tabs := p.tabTo("#answer-area input[type=radio]")
		if tabs > 12 {
			p.t.Errorf("%s: %d Tabs to the answers", kind, tabs)
		}
		p.checkRing(kind)
		first := p.eval("the option", `document.activeElement.value`, false)
		key(kb.ArrowDown)
		p.waitTrue("the answer is sent", `document.getElementById('save-status').textContent !== 'Belum dijawab'`)
		if st := p.text("#save-status"); st != "Tersimpan" && st != "Menyimpan…" {
			p.t.Errorf("%s: after ArrowDown from %s to %s: %s (%s)", kind, first, p.eval("the option", `document.activeElement.value`, false), st, p.eval("the focus", activeID, false))
		}
		p.focusIs(kind+": ArrowDown", "#answer-area input[type=radio]:checked")
		second := p.eval("the option", `document.activeElement.value`, false)
		if second == first {
			p.t.Errorf("%s: ArrowDown did not move from %s", kind, first)
		}
		saved(kind)
		if got := p.eval("the chosen option", `document.querySelector('#answer-area .option.selected').getAttribute('data-option-id')`, false); got != second {
			p.t.Errorf("%s: ArrowDown chose %s, the page shows %s", kind, second, got)
		}
		key(kb.ArrowUp)
		p.focusIs(kind+": ArrowUp", "#answer-area input[type=radio]:checked")
		saved(kind)
		if got := p.eval("the option", `document.activeElement.value`, false); got != first {
			p.t.Errorf("%s: ArrowUp went to %s, want %s", kind, got, first)
		}
		// One Tab stop: Tab leaves the group.
		key(kb.Tab)
		p.focusIs(kind+": Tab after the group", ":not(#answer-area input)")
	case "multiple_choice":
		p.tabTo("#answer-area input[type=checkbox]")
		p.checkRing(kind)
		key(" ")
		key(kb.Tab)
		p.focusIs("the second checkbox", "#answer-area input[type=checkbox]:not(:checked)")
		key(" ")
		saved(kind)
		if got := p.count("#answer-area .option.selected input:checked"); got != 2 {
			p.t.Errorf("multiple_choice: %d options chosen with Space, want 2", got)
		}
	case "short_answer", "essay":
		p.tabTo("#answer-text")
		p.checkRing(kind)
		p.do("type", chromedp.KeyEvent("Danau Toba"))
		key(kb.Tab)
		saved(kind)
		p.focusIs(kind+": Tab after the text", ":not(#answer-text)")
	case "numeric":
		p.tabTo("#answer-text")
		p.checkRing(kind)
		p.do("type", chromedp.KeyEvent("2,5"))
		key(kb.Tab)
		saved(kind)
		p.focusIs(kind+": Tab after the number", ":not(#answer-text)")
	case "cloze":
		p.tabTo(`#question-text [data-blank-id="kota"]`)
		p.checkRing(kind)
		p.do("type", chromedp.KeyEvent("Jakarta"))
		key(kb.Tab)
		p.focusIs("the next blank", `#question-text [data-blank-id="luas"]`)
		p.checkRing(kind + " number")
		p.do("type", chromedp.KeyEvent("128,3"))
		key(kb.Tab)
		p.focusIs("the choice blank", `#question-text select[data-blank-id="arah"]`)
		p.checkRing(kind + " choice")
		key(kb.ArrowDown)
		saved(kind)
		if got := p.eval("the blanks", `Array.prototype.map.call(document.querySelectorAll('#question-text [data-blank-id]'),
			function (f) { return f.value; }).join('|')`, false); got != "Jakarta|128,3|u" {
			p.t.Errorf("cloze: the keyboard filled %s, want Jakarta|128,3|u", got)
		}
	case "statement_grid":
		p.tabTo("#answer-area input.grid-choice")
		p.checkRing(kind)
		key(kb.ArrowRight) // the first row: the second column
		p.focusIs("the grid's first row", `input.grid-choice[data-grid-statement="s1"][data-grid-column="false"]:checked`)
		key(kb.Tab) // one stop per row: the second row
		p.focusIs("the grid's second row", `input.grid-choice[data-grid-statement="s2"]`)
		key(" ")
		saved(kind)
		if got := p.eval("the answer", `Array.prototype.map.call(document.querySelectorAll('#answer-area input.grid-choice:checked'),
			function (i) { return i.getAttribute('data-grid-statement') + '=' + i.value; }).join(',')`, false); got != "s1=false,s2=true" {
			p.t.Errorf("statement_grid: the keyboard chose %s, want s1=false,s2=true", got)
		}
	case "matching":
		p.tabTo("#answer-area select.match-select")
		p.checkRing(kind)
		key(kb.ArrowDown)
		saved(kind)
		if p.eval("the premise's choice", `document.activeElement.value`, false) == "" {
			p.t.Error("matching: ArrowDown chose no response")
		}
		key(kb.Tab)
		p.focusIs("the next premise", "#answer-area select.match-select")
	case "listening":
		p.tabTo(".play-button")
		p.checkRing(kind)
		label := p.text("#question-text .play-button")
		if label != "\u25b6 Putar (sisa 2)" {
			p.t.Errorf("the play button says %q, want what it does and the plays left", label)
		}
		// The description marked for assistive technology describes the
		// button, visually hidden; it is not its name.
		if got := p.eval("the description", `(function () { var b = document.querySelector('#question-text .play-button');
			var d = document.getElementById(b.getAttribute('aria-describedby') || '-');
			if (!d) { return 'none'; }
			var r = d.getBoundingClientRect();
			return d.textContent + (r.width <= 1 && r.height <= 1 ? '' : ' (visible)') + (b.getAttribute('aria-label') ? ' (aria-label)' : ''); }())`, false); got != describedAudio {
			p.t.Errorf("the play button is described by %q, want %q, visually hidden", got, describedAudio)
		}
		key(kb.Enter)
		p.waitTrue("the audio plays", `document.querySelector('#question-text .play-button').getAttribute('aria-disabled') === 'true'`)
		p.focusIs("while the audio plays", "#question-text .play-button")
		p.waitTrue("the audio ended", `document.querySelector('#question-text audio').ended`)
		p.focusIs("after the audio", "#question-text .play-button")
		if got := p.text("#question-text .play-button"); got != "\u25b6 Putar (sisa 1)" {
			p.t.Errorf("after a play the button says %q", got)
		}
	default:
		p.t.Fatalf("no keyboard walk for %s", kind)
	}
}

// checkRing fails the test unless the focused element (or, for a hidden
// native input, the option drawn round it) shows a whole outline of at
// least 2 px whose colour has a contrast of at least 3:1 with the
// background around it.
//
// It reads the ring until it is good, for at most 5 s: when Tab takes the
// focus past the page's last control, the browser's window has it, and
// the next Tab gives it back to the page's first control a moment before
// the page counts as focused again (:focus matches).
func (p *studentPage) checkRing(what string) {
	p.t.Helper()
	got := ""
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if got = p.eval("the focus ring", focusRing, false); got == "" {
			return
		}
		if time.Now().After(deadline) {
			break
		}
	}
	p.t.Errorf("%s: %s (the document has the focus: %s)", what, got, p.eval("the document's focus", `String(document.hasFocus())`, false))
}

// focusRing checks the ring of document.activeElement ("" when it is good):
// its width, its contrast, and that no ancestor clipping its overflow cuts
// it off.
const focusRing = `(function () {
	function rgb(s) { var m = /rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)/.exec(s); return m ? [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]] : null; }
	function lum(c) { var a = c.slice(0, 3).map(function (v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
		return 0.2126 * a[0] + 0.7152 * a[1] + 0.0722 * a[2]; }
	function contrast(a, b) { var x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); }
	function background(el) {
		for (; el && el.nodeType === 1; el = el.parentNode) {
			var c = rgb(getComputedStyle(el).backgroundColor);
			if (c && c[3] === 1) { return c; }
		}
		return [255, 255, 255, 1];
	}
	var el = document.activeElement;
	if (!el || el === document.body) { return 'nothing has the focus'; }
	var name = el.tagName + '#' + el.id + '.' + el.className;
	while (el && (getComputedStyle(el).opacity === '0' || getComputedStyle(el).outlineStyle === 'none')) { el = el.parentElement; }
	if (!el) { return name + ' shows no focus ring'; }
	var cs = getComputedStyle(el);
	var width = parseFloat(cs.outlineWidth), color = rgb(cs.outlineColor);
	if (width < 2 || !color) { return name + ': a ring of ' + cs.outlineWidth + ' ' + cs.outlineColor; }
	var around = parseFloat(cs.outlineOffset) > 0 ? background(el.parentNode) : background(el);
	var ratio = contrast(color, around);
	if (ratio < 3) { return name + ': its ring ' + cs.outlineColor + ' has ' + ratio.toFixed(2) + ':1 against ' + around; }
	// No box that clips its overflow cuts the ring off.
	var out = width + Math.max(parseFloat(cs.outlineOffset), 0), r = el.getBoundingClientRect();
	for (var a = el.parentElement; a && a !== document.body; a = a.parentElement) {
		var o = getComputedStyle(a);
		if (o.overflowX === 'visible' && o.overflowY === 'visible') { continue; }
		var c = a.getBoundingClientRect();
		if (r.left - out < c.left - 0.5 || r.right + out > c.right + 0.5 || (o.overflowY !== 'visible' && a.scrollHeight <= a.clientHeight &&
			(r.top - out < c.top - 0.5 || r.bottom + out > c.bottom + 0.5))) {
			return name + ': its ring is cut off by ' + a.tagName + '#' + a.id + '.' + a.className;
		}
	}
	return '';
}())`

// finishDialogByKeyboard opens the finish dialog from "Selesai" with the
// keyboard: the focus moves in, Tab and Shift+Tab stay inside, the page
// behind is inert, Escape closes it and the focus is back on "Selesai";
// "Batal" does the same.
func (p *studentPage) finishDialogByKeyboard(width int) {
	p.t.Helper()
	key := func(k string, mods ...chromedp.Modifier) {
		p.do("key", chromedp.KeyEvent(k, chromedp.KeyModifiers(mods...)))
	}
	p.startAtTop()
	p.tabTo("#finish-button")
	key(kb.Enter)
	p.waitTrue("the dialog is open", `document.getElementById('finish-dialog').open`)
	p.focusIs("the dialog opened", "#finish-cancel")
	p.checkRing("Batal")
	if got := p.eval("modal", `String(document.getElementById('finish-dialog').matches(':modal'))`, false); got != "true" {
		p.t.Error("the finish dialog is not modal")
	}
	p.shot(map[int]string{1280: "student-finish-dialog", 390: "student-finish-dialog-phone"}[width])
	want := []string{"#finish-confirm", "#finish-cancel", "#finish-confirm", "#finish-cancel"}
	for i, sel := range want {
		key(kb.Tab)
		p.focusIs(fmt.Sprintf("Tab %d in the dialog", i+1), sel)
		p.checkRing(sel)
	}
	key(kb.Tab, kb.ModifierShift)
	p.focusIs("Shift+Tab from Batal", "#finish-confirm")
	key(kb.Escape)
	p.waitTrue("Escape closes the dialog", `!document.getElementById('finish-dialog').open`)
	p.focusIs("after Escape", "#finish-button")
	key(kb.Enter)
	p.waitTrue("the dialog is open again", `document.getElementById('finish-dialog').open`)
	key(kb.Enter) // Batal
	p.waitTrue("Batal closes the dialog", `!document.getElementById('finish-dialog').open`)
	p.focusIs("after Batal", "#finish-button")
	if got := p.eval("the exam", `String(!/hidden/.test(document.getElementById('exam-view').className))`, false); got != "true" {
		p.t.Error("closing the dialog left the exam")
	}
}
