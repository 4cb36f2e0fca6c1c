package examsrv_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/agent/examsrv"
)

// TestBrowserMedia shows an image and a listening item in Chromium, at a
// desktop's width, a small laptop's and a phone's: the image loads with its
// alt text (markup in it dropped, never run), the audio plays through the
// play button, twice and no more, and the count survives a reload; the
// text-size control enlarges the page without sideways scrolling.
func TestBrowserMedia(t *testing.T) {
	for _, width := range []int{1280, 1024, 390} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			pkg, store := mediaPackage(t)
			p, _ := openExam(t, pkg, 3, width, 900, func(o *examsrv.Options) { o.Media = store })
			total := p.count(".nav-item")

			p.showQuestionWith("wettest")
			p.waitTrue("the image loaded", `(function(){var i=document.querySelector('#question-text img');return !!i && i.complete && i.naturalWidth === 320;})()`)
			if alt := p.eval("alt text", `document.querySelector('#question-text img').alt`, false); alt != "A bar chart of rainfall, March highest" {
				t.Fatalf("alt = %q", alt)
			}
			if n := p.count("#question-text b"); n != 0 {
				t.Fatal("markup in the alt text became elements")
			}

			listening := p.showQuestionWith("What did you hear")
			if n := p.count("#question-text audio[controls]"); n != 0 {
				t.Fatal("a listening item shows the browser's own player")
			}
			note := func() string { return p.text("#question-text .play-note") }
			if got := note(); !strings.Contains(got, "Sisa 2 dari 2") {
				t.Fatalf("before any play: %q", got)
			}
			if width == 1024 {
				// The text-size control: larger text and images, no
				// sideways scrolling, and the choice kept on reload.
				p.showQuestionWith("wettest")
				p.do("largest text", chromedp.Click(chromedp.CSS(`[data-text-size="2"]`)))
				p.waitTrue("the image is drawn larger", `document.querySelector('#question-text img').getBoundingClientRect().width > 400`)
				p.waitTrue("nothing scrolls sideways", `document.documentElement.scrollWidth <= window.innerWidth`)
				p.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("exam-view")))
				p.waitTrue("the size is kept", `document.querySelector('main').className.indexOf('text-size-2') >= 0 &&
					document.querySelector('[data-text-size="2"]').getAttribute('aria-pressed') === 'true'`)
				p.shot("student-text-size")
			}
			if width != 1280 {
				return
			}
			play := func() {
				p.do("play", chromedp.Focus(chromedp.CSS(`#question-text .play-button`)), chromedp.KeyEvent("\r"))
				p.waitTrue("the audio has a duration and played to its end",
					`(function(){var a=document.querySelector('#question-text audio');return a.duration > 1.5 && a.duration < 2.5 && a.ended;})()`)
			}
			play()
			p.waitTrue("one play left", `document.querySelector('#question-text .play-note').textContent.indexOf('Sisa 1 dari 2') >= 0`)

			p.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("exam-view")))
			p.goTo(listening, total)
			if got := note(); !strings.Contains(got, "Sisa 1 dari 2") {
				t.Fatalf("after a reload: %q", got)
			}
			play()
			p.waitTrue("no play left, the button aria-disabled",
				`document.querySelector('#question-text .play-button').getAttribute('aria-disabled') === 'true' && document.querySelector('#question-text .play-note').textContent.indexOf('sudah diputar 2 kali') >= 0`)
			// The page's limit is the lab server's: a third play is refused.
			status := p.eval("a third play", `(function(){var x=new XMLHttpRequest();x.open('POST','/api/student/exams/e1/plays/q2',false);`+
				`x.setRequestHeader('Content-Type','application/json');x.send('{}');return String(x.status);})()`, false)
			if status != "409" {
				t.Fatalf("a third play answered %s", status)
			}
			p.checkClean()
		})
	}
}
