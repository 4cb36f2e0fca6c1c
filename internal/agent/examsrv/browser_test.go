package examsrv_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/agent/examsrv"
	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/agent/webui"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/browsertest"
	"github.com/seedhq/portal/pkg/client"
)

// TestBrowserStudentFlow drives the real student page (webui) in headless
// Chromium: sign-in, answering choice and text questions, a reload in the
// middle of the exam (answers, flags and the server's timer survive it),
// review and finishing. It checks every step on the server too.
func TestBrowserStudentFlow(t *testing.T) {
	execPath := browsertest.Find(t, "the student page")

	// Portal time moves with the real clock (the page counts down), starting
	// ten minutes into exam e1's window; jump moves it further on.
	start := time.Now()
	var jump atomic.Int64
	now := func() time.Time {
		return t0.Add(10*time.Minute + time.Since(start) + time.Duration(jump.Load()))
	}
	l := newLabWith(t, filepath.Join(t.TempDir(), localdb.FileName), 0, testkit.NewClock(t0), 2, localdb.Options{NoSync: true},
		func(o *examsrv.Options) { o.Static = webui.FS(); o.Now = now })
	token := l.token()

	// The browser lives at most a minute; each step may take 20 s, so that a
	// stuck step still leaves time to show what the page shows.
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	bctx, cancelBrowser := browsertest.New(ctx, execPath, 1024, 900)
	defer cancelBrowser()
	p := &studentPage{t: t, ctx: bctx}
	p.watch()

	p.signIn(l.url, token)
	startButton := chromedp.CSS(`.exam-item[data-exam-id="e1"] .start-exam`)
	p.do("the exam list shows e1", chromedp.WaitVisible(startButton))
	if got := p.text(`.exam-item[data-exam-id="e1"] .start-exam`); got != "Mulai" {
		t.Fatalf("e1's button = %q, want Mulai", got)
	}

	// Start e1.
	p.do("start e1", chromedp.Click(startButton), chromedp.WaitVisible(chromedp.ID("exam-view")))
	p.waitTrue("the timer runs", `/^\d+(:\d\d)+$/.test(document.getElementById('timer').textContent)`)
	nq := p.count(".nav-item")
	if nq != 14 {
		t.Fatalf("%d .nav-item, want 14", nq)
	}

	// The student's question order is shuffled: read it from the server with
	// the page's own session.
	sess := p.sessionCookie(l.url)
	var a attempt
	getJSON(t, l.url+"/api/student/exams/e1", sess, &a)
	if len(a.Questions) != nq {
		t.Fatalf("the attempt has %d questions, the page %d", len(a.Questions), nq)
	}
	type answer struct {
		number int
		id     string
		value  string
		text   bool
	}
	var answers []answer
	for _, q := range a.Questions {
		if q.Type == "single_choice" && len(answers) < 3 {
			answers = append(answers, answer{number: q.Number, id: q.ID, value: string(rune('b' + len(answers)))})
		}
	}
	for _, q := range a.Questions {
		if q.ID == "sa" {
			answers = append(answers, answer{number: q.Number, id: q.ID, value: "Jakarta, ibu kota", text: true})
		}
	}
	if len(answers) != 4 {
		t.Fatalf("picked %d questions to answer, want 4", len(answers))
	}

	// Answer them, each acknowledged by the page and on the server's disk.
	for _, an := range answers {
		p.goTo(an.number, nq)
		if an.text {
			p.do(fmt.Sprintf("type the answer to question %d", an.number),
				chromedp.Click(chromedp.ID("answer-text")),
				chromedp.SendKeys(chromedp.ID("answer-text"), an.value))
		} else {
			p.do(fmt.Sprintf("choose %s in question %d", an.value, an.number),
				chromedp.Click(chromedp.CSS(fmt.Sprintf(`#answer-area .option[data-option-id=%q]`, an.value))))
		}
		p.waitTrue(fmt.Sprintf("question %d is Tersimpan", an.number), fmt.Sprintf(
			`document.getElementById('question-number').textContent === %s && document.getElementById('save-status').textContent === 'Tersimpan'`,
			jsString(fmt.Sprintf("Soal %d dari %d", an.number, nq))))
		got, err := l.db.Answers("e1", "m1")
		if err != nil {
			t.Fatal(err)
		}
		if got[an.id].Answer != an.value {
			t.Fatalf("after Tersimpan, the server has %q for %s (question %d), want %q", got[an.id].Answer, an.id, an.number, an.value)
		}
	}
	if n := p.count(".nav-item.answered"); n != len(answers) {
		t.Fatalf("%d .nav-item.answered, want %d", n, len(answers))
	}

	// Reload in the middle of the exam, three minutes (portal time) later.
	before := p.timer()
	jump.Store(int64(3 * time.Minute))
	p.do("reload", chromedp.Reload())
	switch where := p.eval("where the page is after the reload", `(function () {
		function visible(id) { return document.getElementById(id).className.indexOf('hidden') < 0; }
		return visible('exam-view') ? 'exam' : visible('list-view') ? 'list' : visible('login-view') ? 'login' : 'loading';
	}())`, true); where {
	case "exam":
	case "list":
		t.Log("after the reload the page shows the list: going back with Lanjutkan")
		if got := p.text(`.exam-item[data-exam-id="e1"] .start-exam`); got != "Lanjutkan" {
			t.Fatalf("after the reload e1's button = %q, want Lanjutkan", got)
		}
		p.do("continue e1", chromedp.Click(startButton), chromedp.WaitVisible(chromedp.ID("exam-view")))
	default:
		t.Fatalf("after the reload the page shows %s, want the exam (or the list)", where)
	}
	p.waitTrue("the timer runs after the reload", `/^\d+(:\d\d)+$/.test(document.getElementById('timer').textContent)`)
	after := p.timer()
	t.Logf("timer: %ds before the reload, %ds after it (portal time moved on 3 minutes)", before, after)
	if after > before-180+3 || after < before-180-60 {
		t.Fatalf("timer after the reload = %ds, want about %ds - 180s: the server's timer must go on, not restart", after, before)
	}
	if n := p.count(".nav-item.answered"); n != len(answers) {
		t.Fatalf("after the reload: %d .nav-item.answered, want %d", n, len(answers))
	}
	for _, an := range answers {
		p.goTo(an.number, nq)
		if an.text {
			p.do("the text box is back", chromedp.WaitVisible(chromedp.ID("answer-text")))
			if got := p.eval("the text answer", `document.getElementById('answer-text').value`, false); got != an.value {
				t.Fatalf("after the reload question %d shows %q, want %q", an.number, got, an.value)
			}
		} else {
			got := p.eval("the selected options", `(function () {
				var out = [], s = document.querySelectorAll('#answer-area .option.selected');
				for (var i = 0; i < s.length; i++) { out.push(s[i].getAttribute('data-option-id')); }
				return out.join(',');
			}())`, false)
			if got != an.value {
				t.Fatalf("after the reload question %d shows option %q selected, want %q", an.number, got, an.value)
			}
		}
		if got := p.text("#save-status"); got != "Tersimpan" {
			t.Fatalf("after the reload question %d's save status = %q, want Tersimpan", an.number, got)
		}
	}

	// Flag the first answered question, then review.
	flagged := answers[0]
	p.goTo(flagged.number, nq)
	p.do("flag a question", chromedp.Click(chromedp.ID("flag-toggle")))
	p.waitTrue("the flag is acknowledged", fmt.Sprintf(
		`document.getElementById('flag-toggle').getAttribute('aria-pressed') === 'true' && / flagged /.test(' ' + document.querySelector('.nav-item[data-number="%d"]').className + ' ')`,
		flagged.number))
	if got, err := l.db.Answers("e1", "m1"); err != nil || !got[flagged.id].Flagged {
		t.Fatalf("the server has %+v, %v for the flagged question %s", got[flagged.id], err, flagged.id)
	}
	p.do("review", chromedp.Click(chromedp.ID("review-button")), chromedp.WaitVisible(chromedp.ID("review-panel")))
	want := fmt.Sprintf("Terjawab %d dari %d soal", len(answers), nq)
	if got := p.text("#review-summary"); !strings.Contains(got, want) || !strings.Contains(got, "Ragu-ragu 1") {
		t.Fatalf("review summary = %q, want %q and Ragu-ragu 1", got, want)
	}
	if n, f := p.count(".review-item.answered"), p.count(".review-item.flagged"); n != len(answers) || f != 1 {
		t.Fatalf("review: %d answered, %d flagged; want %d and 1", n, f, len(answers))
	}

	// Finish.
	p.do("finish", chromedp.Click(chromedp.ID("finish-button")), chromedp.WaitVisible(chromedp.ID("finish-confirm")))
	if got := p.text("#finish-summary"); !strings.Contains(got, fmt.Sprintf("Terjawab %d dari %d", len(answers), nq)) {
		t.Fatalf("finish dialog = %q", got)
	}
	p.do("confirm", chromedp.Click(chromedp.ID("finish-confirm")), chromedp.WaitVisible(chromedp.ID("finish-result")))
	if got := p.text("#finish-result"); !strings.Contains(got, want) {
		t.Fatalf("finish result = %q, want %q", got, want)
	}
	p.do("the list shows e1 finished", chromedp.WaitVisible(chromedp.CSS(`.exam-item[data-exam-id="e1"][data-state="finished"]`)))

	attempts, err := l.db.Attempts()
	if err != nil {
		t.Fatal(err)
	}
	var finished bool
	for _, at := range attempts {
		if at.ExamID == "e1" && at.MemberID == "m1" {
			finished = !at.FinishedAt.IsZero() && at.FinishReason == localdb.FinishStudent
		}
	}
	if !finished {
		t.Fatalf("the server's attempts %+v: e1 of m1 is not finished by the student", attempts)
	}
	var me struct {
		Exams []struct {
			ID, State string
			Answered  int
		}
	}
	getJSON(t, l.url+"/api/student/me", sess, &me)
	for _, e := range me.Exams {
		if e.ID == "e1" && (e.State != "finished" || e.Answered != len(answers)) {
			t.Fatalf("/api/student/me: e1 is %s with %d answered, want finished with %d", e.State, e.Answered, len(answers))
		}
	}

	// The proctor page, in the same browser: sign in, the current session
	// token and the student with the finished attempt.
	p.do("open the proctor page and sign in",
		chromedp.Navigate(l.url+"/proctor"),
		chromedp.WaitVisible(chromedp.ID("proctor-login-form")),
		chromedp.SendKeys(chromedp.ID("proctor-password"), "proctor-secret"),
		chromedp.Click(chromedp.ID("proctor-login-submit")),
		chromedp.WaitVisible(chromedp.ID("students-table")),
	)
	p.waitTrue("the proctor page shows the session token", fmt.Sprintf(`document.getElementById('session-token').textContent.indexOf(%s) >= 0`, jsString(l.token())))
	p.waitTrue("the proctor page lists the student", `document.getElementById('students-table').textContent.indexOf('Siswa 1') >= 0`)

	// Sign-in locks: s2 locked on one computer shows on s2's row; a
	// computer locked as a whole is listed, and "Buka kunci" lifts it.
	token = l.token()
	for i := range 25 {
		from, user := "127.0.0.4", fmt.Sprintf("nobody%d", i)
		if i < 5 {
			from, user = "127.0.0.2", "s2"
		}
		l.browserAt(from).do("POST", "/api/student/login", map[string]string{"username": user, "password": "nope", "token": token}, nil)
	}
	p.waitTrue("the proctor page shows s2 locked", `document.getElementById('students-table').textContent.indexOf('Terkunci') >= 0`)
	p.waitTrue("the proctor page lists the locked computer", `document.getElementById('locks-list').textContent.indexOf('127.0.0.4') >= 0 && !/hidden/.test(document.getElementById('locks').className)`)
	p.do("lift the computer's lock", chromedp.Click(chromedp.CSS(`#locks-list .lift-lock[data-address="127.0.0.4"]`)))
	p.waitTrue("the lock is gone", `/hidden/.test(document.getElementById('locks').className)`)
	if st, code := l.browserAt("127.0.0.4").do("POST", "/api/student/login", map[string]string{"username": "s2", "password": "PASS-2", "token": token}, nil); st != 200 {
		t.Fatalf("s2 on the unlocked computer = %d %s", st, code)
	}
	p.checkClean()
}

// stepTimeout limits one step of the browser test (generous: no step should
// take more than a second).
const stepTimeout = 20 * time.Second

// studentPage drives the student page in one browser tab.
type studentPage struct {
	t   *testing.T
	ctx context.Context

	mu       sync.Mutex
	problems []string // JavaScript exceptions and dialogs
}

// watch records the page's uncaught exceptions and dialogs (a dialog, such
// as "answers not saved" on reload, is accepted so that the test goes on).
func (p *studentPage) watch() {
	p.t.Helper()
	err := chromedp.Listen(p.ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				msg += " " + d.Exception.Description
			}
			p.problem("JavaScript exception: " + msg)
		case *page.EventJavascriptDialogOpening:
			p.problem(fmt.Sprintf("%s dialog: %q", ev.Type, ev.Message))
			go chromedp.Call(p.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	})
	if err != nil {
		p.t.Fatalf("start the browser: %v", err)
	}
}

// signIn opens the page at url and signs in as student s1 with the
// session token.
func (p *studentPage) signIn(url, token string) {
	p.t.Helper()
	p.do("open the page and sign in",
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.ID("login-form")),
		chromedp.SendKeys(chromedp.ID("username"), "s1"),
		chromedp.SendKeys(chromedp.ID("password"), "PASS-1"),
		chromedp.SendKeys(chromedp.ID("token"), token),
		chromedp.Click(chromedp.ID("login-submit")),
	)
}

func (p *studentPage) problem(s string) {
	p.mu.Lock()
	p.problems = append(p.problems, s)
	p.mu.Unlock()
}

// checkClean fails the test if the page threw or opened a dialog.
func (p *studentPage) checkClean() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.problems {
		p.t.Error(s)
	}
}

// fail ends the test with what the page shows, for a readable failure.
func (p *studentPage) fail(what string, err error) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	state, serr := chromedp.Run(ctx, chromedp.Evaluate[string](`(function () {
		var ids = ['loading', 'login-view', 'list-view', 'exam-view', 'login-error', 'list-notice', 'list-error',
			'finish-result', 'exam-error', 'question-number', 'save-status', 'timer', 'finish-dialog', 'finish-error', 'global-message'];
		var out = [];
		for (var i = 0; i < ids.length; i++) {
			var el = document.getElementById(ids[i]);
			if (el) { out.push('#' + ids[i] + (el.className.indexOf('hidden') >= 0 ? ' (hidden)' : '') + ': ' + el.textContent.replace(/\s+/g, ' ').slice(0, 120)); }
		}
		return location.href + '\n' + out.join('\n');
	}())`))
	if serr != nil {
		state = "(page state unavailable: " + serr.Error() + ")"
	}
	p.mu.Lock()
	problems := strings.Join(p.problems, "\n")
	p.mu.Unlock()
	p.t.Fatalf("%s: %v\npage:\n%s\nproblems:\n%s", what, err, state, problems)
}

// step returns the context of one step.
func (p *studentPage) step() (context.Context, context.CancelFunc) {
	return context.WithTimeout(p.ctx, stepTimeout)
}

func (p *studentPage) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := p.step()
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		p.fail(what, err)
	}
}

// eval evaluates a JavaScript expression giving a string; with wait, it
// first waits until the page has left its loading state.
func (p *studentPage) eval(what, expr string, wait bool) string {
	p.t.Helper()
	if wait {
		p.waitTrue("the page has loaded", `document.getElementById('loading').className.indexOf('hidden') >= 0`)
	}
	ctx, cancel := p.step()
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		p.fail(what, err)
	}
	return v
}

// waitTrue waits until the JavaScript expression is true.
func (p *studentPage) waitTrue(what, expr string) {
	p.t.Helper()
	ctx, cancel := p.step()
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(0))); err != nil {
		p.fail("wait until "+what, err)
	}
}

// text is the text content of the first element matching the CSS selector.
func (p *studentPage) text(sel string) string {
	p.t.Helper()
	return p.eval("text of "+sel, fmt.Sprintf(`(function () { var el = document.querySelector(%s); return el ? el.textContent : '<missing>'; }())`, jsString(sel)), false)
}

func (p *studentPage) count(sel string) int {
	p.t.Helper()
	ctx, cancel := p.step()
	defer cancel()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%s).length`, jsString(sel))))
	if err != nil {
		p.fail("count "+sel, err)
	}
	return n
}

// goTo shows question n with the number grid.
func (p *studentPage) goTo(n, total int) {
	p.t.Helper()
	// In the middle of the screen: on a phone the question's buttons cover its foot.
	sel := fmt.Sprintf(`.nav-item[data-number="%d"]`, n)
	p.eval("the number in view", fmt.Sprintf(`(document.querySelector(%s).scrollIntoView({block: 'center'}), '')`, jsString(sel)), false)
	p.do(fmt.Sprintf("go to question %d", n), chromedp.Click(chromedp.CSS(sel)))
	p.waitTrue(fmt.Sprintf("question %d is shown", n), fmt.Sprintf(`document.getElementById('question-number').textContent === %s`,
		jsString(fmt.Sprintf("Soal %d dari %d", n, total))))
}

// timer reads the countdown in seconds.
func (p *studentPage) timer() int {
	p.t.Helper()
	s := p.text("#timer")
	sec := 0
	for part := range strings.SplitSeq(s, ":") {
		n, err := strconv.Atoi(part)
		if err != nil {
			p.t.Fatalf("timer %q: %v", s, err)
		}
		sec = sec*60 + n
	}
	return sec
}

// sessionCookie returns the page's labagent_session cookie (HttpOnly).
func (p *studentPage) sessionCookie(url string) string {
	p.t.Helper()
	ctx, cancel := p.step()
	defer cancel()
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
	if err != nil {
		p.fail("read the cookies", err)
	}
	for _, c := range res.Cookies {
		if c.Name == "labagent_session" {
			return c.Value
		}
	}
	p.fail("read the cookies", fmt.Errorf("no labagent_session cookie in %d cookies", len(res.Cookies)))
	return ""
}

// getJSON reads url with the student session token.
func getJSON(t *testing.T, url, session string, out any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// openExam starts a lab serving the real pages with pkg (students s1..sN),
// its clock moving from ten minutes into exam e1's window, opens Chromium
// at width×height, signs in as s1 and starts e1. set changes the lab's
// options further (media, say).
func openExam(t *testing.T, pkg *client.Package, students, width, height int, set ...func(*examsrv.Options)) (*studentPage, *lab) {
	t.Helper()
	execPath := browsertest.Find(t, "the student page")
	start := time.Now()
	now := func() time.Time { return t0.Add(10*time.Minute + time.Since(start)) }
	opts := append([]func(*examsrv.Options){func(o *examsrv.Options) { o.Static = webui.FS(); o.Now = now }}, set...)
	l := newLabWith(t, filepath.Join(t.TempDir(), localdb.FileName), 0, testkit.NewClock(t0), students, localdb.Options{NoSync: true}, opts...)
	l.srv.SetPackage(pkg)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	t.Cleanup(cancel)
	bctx, cancelBrowser := browsertest.New(ctx, execPath, width, height)
	t.Cleanup(cancelBrowser)
	p := &studentPage{t: t, ctx: bctx}
	p.watch()
	p.signIn(l.url, l.token())
	p.do("start e1",
		chromedp.WaitVisible(chromedp.CSS(`.exam-item[data-exam-id="e1"] .start-exam`)),
		chromedp.Click(chromedp.CSS(`.exam-item[data-exam-id="e1"] .start-exam`)),
		chromedp.WaitVisible(chromedp.ID("exam-view")),
	)
	return p, l
}
