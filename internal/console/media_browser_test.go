package console_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/testkit"
)

// TestBrowserExamMedia uploads an image and an audio from the exam editor
// with their descriptions: each is inserted into its question's text as a
// media reference, the question turns Markdown, the preview shows the image
// and the player, the play limit is saved, and a description written as
// markup never runs.
func TestBrowserExamMedia(t *testing.T) {
	chrome := newHeadless(t, "the console", 90*time.Second)
	p := newPortal(t, onStore("bolt"))
	dir := t.TempDir()
	img, audio := filepath.Join(dir, "chart.png"), filepath.Join(dir, "listening 1.mp3")
	if err := os.WriteFile(img, testkit.ChartPNG(400, 240, 30, 90, 55, 70), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(audio, testkit.ToneMP3, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "evil.png")
	if err := os.WriteFile(bad, []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="window.__xss=1"/>`), 0o600); err != nil {
		t.Fatal(err)
	}
	desk := chrome.tab(1200, 900)
	desk.do("sign in", p.operatorSignInSteps()...)
	desk.do("start an exam with two questions",
		chromedp.Navigate(p.srv.URL+"/console/exams/new"),
		chromedp.WaitVisible(chromedp.ID("title")),
		chromedp.SendKeys(chromedp.ID("title"), "Bahasa Inggris"),
		chromedp.SendKeys(chromedp.ID("npsn"), "20100001"),
		chromedp.SetValue(chromedp.ID("q0-text"), "Which season has the most rain?"),
		chromedp.SetValue(chromedp.ID("q0-options"), "a: March\nb: May"),
		chromedp.SendKeys(chromedp.ID("q0-answer"), "a"),
		chromedp.Click(chromedp.CSS(`button[value="add"]`)),
		chromedp.WaitVisible(chromedp.ID("q1-text")),
		chromedp.SetValue(chromedp.ID("q1-type"), "short_answer"),
		chromedp.SetValue(chromedp.ID("q1-text"), "What do you hear?"),
		chromedp.SetValue(chromedp.ID("q1-answer"), "a tone"),
		chromedp.SetValue(chromedp.ID("q1-plays"), "2"),
		chromedp.WaitVisible(chromedp.ID("media-insert")),
	)
	desk.do("refuse a file that is no image", chromedp.SetUploadFiles(`#media-file`, []string{bad}),
		chromedp.SetValue(chromedp.ID("media-alt"), "evil"), chromedp.Click(chromedp.ID("media-upload")))
	desk.eventually("the refusal is shown", `document.getElementById('media-status').textContent.indexOf('not an accepted image') >= 0`)
	desk.do("upload the chart into question 1",
		chromedp.SetUploadFiles(`#media-file`, []string{img}),
		chromedp.SetValue(chromedp.ID("media-alt"), `Rainfall by month "><img src=x onerror=window.__xss=1>`),
		chromedp.SetValue(chromedp.ID("media-target"), "q0"),
		chromedp.Click(chromedp.ID("media-upload")))
	desk.eventually("the reference is inserted", `document.getElementById('q0-text').value.indexOf('](media:') > 0 &&
		document.getElementById('q0-format').value === 'markdown'`)
	desk.do("upload the audio into question 2",
		chromedp.SetUploadFiles(`#media-file`, []string{audio}),
		chromedp.SetValue(chromedp.ID("media-alt"), "Listening 1: a weather report"),
		chromedp.Click(chromedp.ID("media-describe")),
		chromedp.SetValue(chromedp.ID("media-target"), "q1"))
	if _, err := chromedp.Run(desk.ctx, chromedp.Evaluate[int](`document.getElementById('media-insert').scrollIntoView(), 0`)); err != nil {
		t.Fatal(err)
	}
	desk.shot("exam-media-describe")
	desk.do("upload", chromedp.Click(chromedp.ID("media-upload")))
	desk.eventually("the audio reference is inserted, its description for screen readers",
		`/^!\[Listening 1: a weather report\]\(media:[0-9a-f]{64} "describe"\)$/m.test(document.getElementById('q1-text').value) &&
		!document.getElementById('media-describe').checked`)
	desk.do("preview", chromedp.Click(chromedp.CSS(`button[value="preview"]`)), chromedp.WaitVisible(chromedp.CSS("section.preview")))
	desk.eventually("the image shows with its description", `(function(){var i=document.querySelector('section.preview img');
		return !!i && i.complete && i.naturalWidth === 400 && i.alt.indexOf('Rainfall by month') === 0;})()`)
	desk.eventually("the audio player has its duration", `(function(){var a=document.querySelector('section.preview audio');
		return !!a && a.duration > 1.5 && a.duration < 2.5;})()`)
	desk.check("the description's markup never ran", `window.__xss === undefined && document.querySelectorAll('section.preview img').length === 1`)
	desk.check("no problems", `document.querySelector('ul.problems') === null`)
	if _, err := chromedp.Run(desk.ctx, chromedp.Evaluate[int](`document.querySelector('section.preview').scrollIntoView(), 0`)); err != nil {
		t.Fatal(err)
	}
	desk.shot("exam-media")

	desk.do("save", chromedp.Click(chromedp.CSS(`button[value="save"]`)), chromedp.WaitVisible(chromedp.CSS("table")))
	es, err := p.exam.ListExams(t.Context(), "")
	if err != nil || len(es) != 1 {
		t.Fatalf("exams: %+v, %v", es, err)
	}
	e, err := p.exam.GetExam(t.Context(), es[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if q := e.Questions[1]; q.PlayLimit != 2 || q.Format != "markdown" || !strings.Contains(q.Text, "](media:") {
		t.Fatalf("saved listening question: %+v", q)
	}
}
