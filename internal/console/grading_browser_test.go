package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// gradingVectors are OWASP filter evasion vectors, written so that any of them
// that ran would set window.__xss.
var gradingVectors = []string{
	`<script>window.__xss=1</script>`,
	`<img src=x onerror="window.__xss=1">`,
	`"><svg onload=window.__xss=1>`,
	`<iframe src="javascript:window.__xss=1"></iframe>`,
	`<body onload=window.__xss=1>`,
	`<a href="javascript:window.__xss=1">x</a>`,
	`'';!--"<XSS>=&{()}`,
}

// TestBrowserGrading grades essays in Chromium with the keyboard only: the
// points field has the focus, digits type the points, Tab goes to the
// comment, Enter saves and opens the next answer to grade, K and the down
// arrow move; the results change with each grade. OWASP vectors in the
// essays and in a comment stay text and none runs.
func TestBrowserGrading(t *testing.T) {
	chrome := newHeadless(t, "the console", 120*time.Second)
	p := newPortal(t, onStore("bolt"))
	essays := []string{
		"Ke pasar membeli tomat,\nJangan lupa membeli jahe.\n" + strings.Join(gradingVectors[:4], "\n"),
		"Air beriak tanda tak dalam. " + strings.Join(gradingVectors[4:], " "),
		"Berakit-rakit ke hulu,\nberenang-renang ke tepian.\nBersakit-sakit dahulu,\nbersenang-senang kemudian.",
	}
	e, _ := p.essayExam(t, 6, essays...)
	p.newGrader(t, "bu.sari", e.ID)

	desk := chrome.tab(1280, 900)
	desk.do("sign in as the grader",
		chromedp.Navigate(p.srv.URL+"/console/login"),
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.SendKeys(chromedp.ID("username"), "bu.sari"),
		chromedp.SendKeys(chromedp.ID("password"), graderPassword),
		chromedp.Submit(chromedp.ID("password")),
		chromedp.WaitVisible(chromedp.CSS(`a[href="/console/grading/`+e.ID+`"]`)),
	)
	desk.do("open the essay", chromedp.Navigate(p.srv.URL+"/console/grading/"+e.ID+"/q2"), chromedp.WaitVisible(chromedp.ID("points")))
	desk.check("the points field has the focus", `document.activeElement.id === 'points'`)
	desk.check("the question is rendered and the rubric shown", `document.querySelector('.q-preview strong').textContent === 'pantun' &&
		document.querySelector('.rubric').textContent.includes('rima a-b-a-b')`)

	// Grade four answers without the mouse.
	comments := []string{"Sampiran bagus " + gradingVectors[1], "Rima kurang", "Sempurna", "Kosong isinya"}
	seen := map[string]bool{}
	for i, pts := range []string{"7", "8.5", "10", "0"} {
		code := desk.text("#code")
		if seen[code] {
			t.Fatalf("answer %s offered twice", code)
		}
		seen[code] = true
		desk.do("type the points and the comment", chromedp.KeyEvent(pts+kb.Tab+comments[i]))
		desk.check("Tab went to the comment", `document.activeElement.id === 'comment'`)
		desk.loadAfter("Enter", chromedp.KeyEvent(kb.Enter))
		desk.do("the next answer opens", chromedp.WaitVisible(chromedp.ID("points")))
		desk.check("saved, and the progress moved", `document.querySelector('p.ok') !== null &&
			document.querySelector('#progress strong').textContent === '`+string(rune('1'+i))+`'`)
		desk.check("the points field has the focus again", `document.activeElement.id === 'points'`)
	}
	if next := desk.text("#code"); seen[next] {
		t.Fatalf("after four grades the page offers %s, graded already", next)
	}
	res, err := p.exam.Results(t.Context(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	var graded, pending []float64
	for _, r := range res.Results {
		if r.Pending == 0 {
			graded = append(graded, r.Score)
		} else {
			pending = append(pending, r.Score)
		}
	}
	if len(graded) != 4 || len(pending) != 2 || sum(graded) != 4*2+7+8.5+10+0 {
		t.Fatalf("results after grading: graded scores %v, pending %v", graded, pending)
	}

	// K and the down arrow move between answers.
	before := desk.text("#code")
	desk.loadAfter("K", chromedp.KeyEvent("k"))
	desk.do("the previous answer opens", chromedp.WaitVisible(chromedp.ID("points")))
	if desk.text("#code") == before {
		t.Fatal("K did not move to the previous answer")
	}
	desk.loadAfter("down arrow", chromedp.KeyEvent(kb.ArrowDown))
	desk.do("the next answer opens", chromedp.WaitVisible(chromedp.ID("points")))
	if desk.text("#code") != before {
		t.Fatal("the down arrow did not come back")
	}

	// Every answer: the vectors are text, and none ran; the comment with a
	// vector reads back as typed.
	links, err := chromedp.Run(desk.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('.grading-list a')).map(a => a.href)`))
	if err != nil || len(links) != 6 {
		t.Fatalf("answer links %v: %v", links, err)
	}
	withVectors, withComment := 0, 0
	for _, href := range links {
		desk.do("open "+href, chromedp.Navigate(href), chromedp.WaitVisible(chromedp.ID("points")))
		desk.check("nothing ran and the essay is only text", `window.__xss === undefined && document.getElementById('essay').children.length === 0 &&
			document.querySelectorAll('main script:not([src]), main img, main svg, main iframe').length === 0`)
		if ok, _ := chromedp.Run(desk.ctx, chromedp.Evaluate[bool](`document.getElementById('essay').textContent.includes('<script>window.__xss=1</script>')`)); ok {
			withVectors++
			desk.do("scroll to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
			desk.shot("exam-grading")
		}
		if ok, _ := chromedp.Run(desk.ctx, chromedp.Evaluate[bool](`document.getElementById('comment').value === 'Sampiran bagus `+strings.ReplaceAll(gradingVectors[1], `"`, `\"`)+`'`)); ok {
			withComment++
		}
	}
	if withVectors != 1 || withComment != 1 {
		t.Fatalf("found the essay with the vectors %d times and the comment %d times, want once each", withVectors, withComment)
	}
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}
