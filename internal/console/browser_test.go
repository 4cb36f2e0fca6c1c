package console_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/testkit"
)

// screenshots: with UPDATE_SCREENSHOTS=1 the browser test saves the main
// pages into docs/console/ (the README shows them).
var screenshots = os.Getenv("UPDATE_SCREENSHOTS") == "1"

func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if !screenshots {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "..", "docs", "console", name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// signInSteps signs in through the form.
func signInSteps(base string) []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		chromedp.Navigate(base + "/console/"),
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.SendKeys(chromedp.ID("username"), "admin"),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Submit(chromedp.ID("password")),
		chromedp.WaitVisible(chromedp.CSS("form.filters")),
	}
}

// TestBrowserOperator drives the console in headless Chromium on both
// stores: sign-in, the fleet, a licence generated through the form, an
// exam written in the editor (a question added with its button), students
// imported from a CSV file and their login cards, a directory API key, a
// form post without its token refused, and the licences page at a phone's
// width without sideways scrolling of the page.
func TestBrowserOperator(t *testing.T) {
	execPath := testkit.FindBrowser(t, "the console")
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) { browseOperator(t, execPath, kind) })
	}
}

func browseOperator(t *testing.T, execPath, kind string) {
	srv, svc := newPortalOn(t, kind)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	bctx, stop := testkit.NewBrowser(ctx, execPath, 1200, 900)
	defer stop()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	do("sign in", signInSteps(srv.URL)...)
	if h1 := text("h1"); h1 != "Fleet of lab servers" {
		t.Fatalf("after sign-in the page says %q", h1)
	}
	if kind == "bolt" {
		shot(t, bctx, "fleet")
	}
	do("generate a licence",
		chromedp.Navigate(srv.URL+"/console/licenses"),
		chromedp.WaitVisible(chromedp.ID("npsn")),
		chromedp.SendKeys(chromedp.ID("npsn"), "20100001"),
		chromedp.SendKeys(chromedp.ID("school"), "SMA Negeri 1 Contoh"),
		chromedp.SendKeys(chromedp.ID("hardware_id"), "HW-0001"),
		chromedp.Submit(chromedp.ID("hardware_id")),
		chromedp.WaitVisible(chromedp.ID("token")),
	)
	token, err := chromedp.Run(bctx, chromedp.Value(chromedp.ID("token")))
	if err != nil || len(token) < 40 {
		t.Fatalf("licence token %q (%v)", token, err)
	}
	if kind == "bolt" {
		shot(t, bctx, "licenses")
	}

	// The exam editor: a second question through "Add a question", then
	// the exam saved and listed.
	do("write an exam",
		chromedp.Navigate(srv.URL+"/console/exams/new"),
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
	if kind == "bolt" {
		if _, err := chromedp.Run(bctx, chromedp.Evaluate[int](`window.scrollTo(0, 0), 0`)); err != nil {
			t.Fatal(err)
		}
		shot(t, bctx, "exam-editor")
	}
	do("save the exam", chromedp.Click(chromedp.CSS(`button[value="save"]`)), chromedp.WaitVisible(chromedp.CSS("p.ok")))
	if es, _ := svc.ListExams(ctx, ""); len(es) != 1 || es[0].Title != "Bahasa Indonesia" || es[0].QuestionCount != 2 {
		t.Fatalf("exams after the editor: %+v", es)
	}

	// Students from a CSV file, then their login cards.
	csvPath := filepath.Join(t.TempDir(), "siswa.csv")
	if err := os.WriteFile(csvPath, []byte("nama,username,nisn,kelas\nAni Lestari,ani,0051234561,XII IPA 1\nBudi Santoso,budi,0051234562,XII IPA 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	do("import students",
		chromedp.Navigate(srv.URL+"/console/students?npsn=20100001"),
		chromedp.WaitVisible(chromedp.ID("file")),
		chromedp.SetUploadFiles(chromedp.ID("file"), []string{csvPath}),
		chromedp.Submit(chromedp.ID("file")),
		chromedp.WaitVisible(chromedp.CSS("div.ok")),
	)
	if got := text("div.ok"); !strings.Contains(got, "2 created") {
		t.Fatalf("import report: %q", got)
	}
	do("login cards", chromedp.Navigate(srv.URL+"/console/login-cards?npsn=20100001"), chromedp.WaitVisible(chromedp.CSS("section.logincard")))
	if n, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('section.logincard').length`)); err != nil || n != 2 {
		t.Fatalf("login cards: %d (%v), want 2", n, err)
	}

	do("create a directory API key",
		chromedp.Navigate(srv.URL+"/console/api-keys"),
		chromedp.WaitVisible(chromedp.ID("name")),
		chromedp.SendKeys(chromedp.ID("name"), "SIAKAD"),
		chromedp.Submit(chromedp.ID("name")),
		chromedp.WaitVisible(chromedp.ID("newkey")),
	)
	if key, err := chromedp.Run(bctx, chromedp.Value(chromedp.ID("newkey"))); err != nil || len(key) < 20 {
		t.Fatalf("new API key %q (%v)", key, err)
	}
	do("sync log", chromedp.Navigate(srv.URL+"/console/sync-logs"), chromedp.WaitVisible(chromedp.CSS("h1")))

	status, err := chromedp.Run(bctx, chromedp.Evaluate[int](`fetch('/console/licenses', {method: 'POST',
		headers: {'Content-Type': 'application/x-www-form-urlencoded'},
		body: 'npsn=20100002&school=X&hardware_id=HW-2&max_students=1&duration_days=1&operating_mode=ONLINE'}).then(r => r.status)`,
		chromedp.EvalAwaitPromise))
	if err != nil || status != 403 {
		t.Fatalf("a form post without its token: %d (%v), want 403", status, err)
	}

	// A phone: the page itself never scrolls sideways (wide tables scroll
	// in their own box).
	phone, stopPhone := testkit.NewBrowser(ctx, execPath, 375, 800)
	defer stopPhone()
	if err := chromedp.Do(phone, signInSteps(srv.URL)...); err != nil {
		t.Fatalf("phone: sign in: %v", err)
	}
	for _, page := range []string{"/console/licenses", "/console/exams/new", "/console/fleet"} {
		if err := chromedp.Do(phone, chromedp.Navigate(srv.URL+page), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
			t.Fatalf("phone: %s: %v", page, err)
		}
		overflow, err := chromedp.Run(phone, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
		if err != nil || overflow {
			t.Fatalf("at a phone's width %s scrolls sideways (%v)", page, err)
		}
		if page == "/console/licenses" && kind == "bolt" {
			shot(t, phone, "licenses-phone")
		}
	}
}
