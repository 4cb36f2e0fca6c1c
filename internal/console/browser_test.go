package console_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserOperator drives the console in headless Chromium on both
// stores: sign-in, the fleet, a licence generated through the form, an
// exam written in the editor (a question added with its button), students
// imported from a CSV file and their login cards, a directory API key, a
// form post without its token refused, and the licences page at a phone's
// width without sideways scrolling of the page.
func TestBrowserOperator(t *testing.T) {
	forEachStore(t, browseOperator)
}

// browseOperator is TestBrowserOperator on a store of kind.
func browseOperator(t *testing.T, kind string) {
	chrome := newHeadless(t, "the console", 90*time.Second)
	p := newPortal(t, onStore(kind))
	desk := chrome.tab(1200, 900)
	desk.do("sign in", p.operatorSignInSteps()...)
	if h1 := desk.text("h1"); h1 != "Fleet of lab servers" {
		t.Fatalf("after sign-in the page says %q", h1)
	}
	desk.do("generate a licence",
		chromedp.Navigate(p.srv.URL+"/console/licenses"),
		chromedp.WaitVisible(chromedp.ID("npsn")),
		chromedp.SendKeys(chromedp.ID("npsn"), "20100001"),
		chromedp.SendKeys(chromedp.ID("school"), "SMA Negeri 1 Contoh"),
		chromedp.SendKeys(chromedp.ID("hardware_id"), "HW-0001"),
		chromedp.Submit(chromedp.ID("hardware_id")),
		chromedp.WaitVisible(chromedp.ID("token")),
	)
	token, err := chromedp.Run(desk.ctx, chromedp.Value(chromedp.ID("token")))
	if err != nil || len(token) < 40 {
		t.Fatalf("licence token %q (%v)", token, err)
	}
	if kind == "bolt" {
		desk.shot("licenses")
	}

	// The exam editor: a second question through "Add a question", then
	// the exam saved and listed.
	desk.do("write an exam",
		chromedp.Navigate(p.srv.URL+"/console/exams/new"),
		chromedp.WaitVisible(chromedp.ID("title")),
		chromedp.SendKeys(chromedp.ID("title"), "Bahasa Indonesia"),
		chromedp.SendKeys(chromedp.ID("npsn"), "20100001"),
		chromedp.SendKeys(chromedp.ID("q0-text"), "Sinonim kata cepat?"),
		chromedp.SendKeys(chromedp.ID("q0-options"), "a: lambat\nb: lekas"),
		chromedp.SendKeys(chromedp.ID("q0-answer"), "b"),
		chromedp.Click(chromedp.CSS(`button[value="add"]`)),
		chromedp.WaitVisible(chromedp.ID("q1-text")),
		chromedp.SetValue(chromedp.ID("q1-type"), "true_false"),
		chromedp.SendKeys(chromedp.ID("q1-text"), "Kata cepat adalah kata sifat."),
		chromedp.SendKeys(chromedp.ID("q1-answer"), "true"),
	)
	desk.do("save the exam", chromedp.Click(chromedp.CSS(`button[value="save"]`)), chromedp.WaitVisible(chromedp.CSS("p.ok")))
	es, _ := p.exam.ListExams(t.Context(), "")
	if len(es) != 1 || es[0].Title != "Bahasa Indonesia" || es[0].QuestionCount != 2 {
		t.Fatalf("exams after the editor: %+v", es)
	}
	// Its results, from the list's link: no answer yet, both questions.
	desk.do("the exam's results", chromedp.Click(chromedp.CSS(`a[href="/console/exams/`+es[0].ID+`/results"]`)),
		chromedp.WaitVisible(chromedp.CSS("h1")))
	desk.check("the results page lists both questions and no answer yet",
		`document.querySelector('table tbody').rows.length === 2 && document.body.textContent.includes('No answer stored yet.')`)

	// Students from a CSV file, then their login cards.
	csvPath := filepath.Join(t.TempDir(), "siswa.csv")
	if err := os.WriteFile(csvPath, []byte("nama,username,nisn,kelas\nAni Lestari,ani,0051234561,XII IPA 1\nBudi Santoso,budi,0051234562,XII IPA 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	desk.do("import students",
		chromedp.Navigate(p.srv.URL+"/console/students?npsn=20100001"),
		chromedp.WaitVisible(chromedp.ID("file")),
		chromedp.SetUploadFiles(chromedp.ID("file"), []string{csvPath}),
		chromedp.Submit(chromedp.ID("file")),
		chromedp.WaitVisible(chromedp.CSS("div.ok")),
	)
	if got := desk.text("div.ok"); !strings.Contains(got, "2 created") {
		t.Fatalf("import report: %q", got)
	}
	desk.do("login cards", chromedp.Navigate(p.srv.URL+"/console/login-cards?npsn=20100001"), chromedp.WaitVisible(chromedp.CSS("section.logincard")))
	if n, err := chromedp.Run(desk.ctx, chromedp.Evaluate[int](`document.querySelectorAll('section.logincard').length`)); err != nil || n != 2 {
		t.Fatalf("login cards: %d (%v), want 2", n, err)
	}

	desk.do("create a directory API key",
		chromedp.Navigate(p.srv.URL+"/console/api-keys"),
		chromedp.WaitVisible(chromedp.ID("name")),
		chromedp.SendKeys(chromedp.ID("name"), "SIAKAD"),
		chromedp.Submit(chromedp.ID("name")),
		chromedp.WaitVisible(chromedp.ID("newkey")),
	)
	if key, err := chromedp.Run(desk.ctx, chromedp.Value(chromedp.ID("newkey"))); err != nil || len(key) < 20 {
		t.Fatalf("new API key %q (%v)", key, err)
	}
	desk.do("sync log", chromedp.Navigate(p.srv.URL+"/console/sync-logs"), chromedp.WaitVisible(chromedp.CSS("h1")))

	status, err := chromedp.Run(desk.ctx, chromedp.Evaluate[int](`fetch('/console/licenses', {method: 'POST',
		headers: {'Content-Type': 'application/x-www-form-urlencoded'},
		body: 'npsn=20100002&school=X&hardware_id=HW-2&max_students=1&duration_days=1&operating_mode=ONLINE'}).then(r => r.status)`,
		chromedp.EvalAwaitPromise))
	if err != nil || status != 403 {
		t.Fatalf("a form post without its token: %d (%v), want 403", status, err)
	}

	// A phone: the page itself never scrolls sideways (wide tables scroll
	// in their own box).
	phone := chrome.tab(375, 800)
	phone.do("phone: sign in", p.operatorSignInSteps()...)
	for _, page := range []string{"/console/licenses", "/console/exams/new", "/console/fleet"} {
		phone.do("phone: "+page, chromedp.Navigate(p.srv.URL+page), chromedp.WaitVisible(chromedp.CSS("h1")))
		if fits, err := phone.fits(); err != nil || !fits {
			t.Fatalf("at a phone's width %s scrolls sideways (%v)", page, err)
		}
		if page == "/console/licenses" && kind == "bolt" {
			phone.shot("licenses-phone")
		}
	}
}
