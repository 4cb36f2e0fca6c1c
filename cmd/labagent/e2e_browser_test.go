//go:build !windows

package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/browsertest"
	"github.com/seedhq/portal/pkg/client"
)

// richExam is an exam of every kind of content a school paper has, its
// media uploaded through op: the formula fixture, a table, an image, a
// statement grid, a matching question beside a shared passage, a
// listening item played at most twice, an essay, a number and a text
// with blanks.
func richExam(t *testing.T, op *client.Client) *client.ExamRequest {
	t.Helper()
	upload := func(name string, data []byte) string {
		m, _, err := op.Exam.Admin.UploadMedia(t.Context(), name, bytes.NewReader(data))
		if err != nil {
			t.Fatalf("upload %s: %v", name, err)
		}
		return m.Reference
	}
	chart := upload("rainfall.png", testkit.ChartPNG(360, 200, 35, 90, 60, 20))
	tone := upload("listening-1.mp3", testkit.ToneMP3)
	starts, ends := openWindow()
	opts := []client.QuestionOption{{ID: "a", Text: "$\\frac{7}{4}$"}, {ID: "b", Text: "$\\sqrt{3}$"}}
	return &client.ExamRequest{Title: "Ujian Lengkap", Subject: "Campuran", StartsAt: starts, EndsAt: ends, DurationMinutes: 90,
		Questions: []client.Question{
			{ID: "math", Type: client.SingleChoice, Format: "markdown", Points: 2, Answer: []string{"a"}, Options: opts,
				Text: "Hitung $\\frac{3}{4} + 1$, lalu bandingkan dengan $$\\int_0^1 x^2\\,dx$$ dan $\\ce{H2SO4}$, $\\vec{v}$, $\\alpha \\le \\beta$."},
			{ID: "chart", Type: client.SingleChoice, Format: "markdown", Points: 1, Answer: []string{"b"},
				Options: []client.QuestionOption{{ID: "a", Text: "Januari"}, {ID: "b", Text: "Februari"}},
				Text:    "![Curah hujan per bulan: Februari tertinggi](" + chart + ")\n\n| Bulan | mm |\n|---|--:|\n| Jan | 35 |\n\nBulan paling basah?"},
			{ID: "grid", Type: client.StatementGrid, Format: "markdown", Points: 2, Scoring: "partial", Text: "Benar atau salah?",
				Statements: []client.QuestionOption{{ID: "s1", Text: "$2$ bilangan prima"}, {ID: "s2", Text: "$9$ bilangan prima"}},
				Answer:     []string{"s1=true", "s2=false"}},
			{ID: "listen", Type: client.ShortAnswer, Format: "markdown", Points: 1, PlayLimit: 2, Answer: []string{"nada"},
				Text: "![Listening 1: sebuah nada](" + tone + ")\n\nApa yang kamu dengar?"},
			{ID: "match", Type: client.Matching, Format: "markdown", Points: 2, Stimulus: "bacaan", Text: "Jodohkan provinsi dengan ibu kotanya.",
				Premises:  []client.QuestionOption{{ID: "p1", Text: "Bali"}, {ID: "p2", Text: "Jawa Barat"}},
				Responses: []client.QuestionOption{{ID: "r1", Text: "Denpasar"}, {ID: "r2", Text: "Bandung"}, {ID: "r3", Text: "Medan"}},
				Answer:    []string{"p1=r1", "p2=r2"}},
			{ID: "essay", Type: client.Essay, Points: 5, Stimulus: "bacaan", Text: "Jelaskan siklus air.", Rubric: "5: menguap, mengembun, hujan."},
			{ID: "angka", Type: client.Numeric, Points: 1, Answer: []string{"2.5"}, Text: "Berapa 5 : 2?"},
			{ID: "isian", Type: client.Cloze, Format: "markdown", Text: "Ibu kota Bali adalah [[kota]], luasnya [[luas]] km², di [[arah]] Lombok.",
				Blanks: []client.Blank{{ID: "kota", Kind: client.BlankText, Answer: []string{"Denpasar"}},
					{ID: "luas", Kind: client.BlankNumber, Answer: []string{"5780"}, Tolerance: 10, Points: 2},
					{ID: "arah", Kind: client.BlankChoice, Answer: []string{"b"}, Points: 2,
						Options: []client.QuestionOption{{ID: "t", Text: "timur"}, {ID: "b", Text: "barat"}}}}},
		},
		Stimuli: []client.Stimulus{{ID: "bacaan", Title: "Bacaan 1", Format: "markdown",
			Text: "Air laut **menguap**, mengembun menjadi awan, lalu turun sebagai hujan.\n\n| Provinsi | Ibu kota |\n|---|---|\n| Bali | ? |"}}}
}

// TestBrowserRichExamEndToEnd: an exam with formulas, a table, an image, a
// statement grid, a listening item and an essay goes from the real portal
// to the real labagent, and a student takes it in Chromium: the formulas are
// MathML, the image loads with its description, the audio plays twice and
// no more, a number typed with a decimal comma and blanks filled in the
// text are saved; the answers are pushed and scored on the portal.
func TestBrowserRichExamEndToEnd(t *testing.T) {
	t.Parallel()
	p := startPortal(t, portalConfig{DataDir: filepath.Join(t.TempDir(), "pdata")})
	op := p.operator()
	sch := setupSchool(t, p, []string{"ani"}, richExam(t, op))
	examID := sch.exams[0].ID
	lab := enrollLab(t, p.URL, sch)
	lab.start()
	lab.waitPackage()
	pg := openStudentPage(t, lab, sch, "ani", examID)
	run, wait, text, show := pg.run, pg.wait, pg.text, pg.show
	saved := func() { wait("saved", `document.querySelector('.save-status').textContent.indexOf('Tersimpan') >= 0`) }

	show("Hitung")
	wait("the formulas are MathML", `document.querySelectorAll('#question-text math').length === 5 &&
		document.querySelectorAll('#question-text math[display="block"]').length === 1 &&
		document.querySelectorAll('#answer-area math').length === 2`)
	run("choose 7/4", chromedp.Click(chromedp.CSS(`.option[data-option-id="a"]`)))
	wait("7/4 chosen", `document.querySelector('.option[data-option-id="a"] input').checked`)
	saved()

	show("Bulan paling basah")
	wait("the image loaded with its description", `(function(){var i=document.querySelector('#question-text img');
		return !!i && i.complete && i.naturalWidth === 360 && i.alt === 'Curah hujan per bulan: Februari tertinggi';})()`)
	wait("the table shows", `document.querySelectorAll('#question-text td').length === 2`)
	run("choose Februari", chromedp.Click(chromedp.CSS(`.option[data-option-id="b"]`)))
	wait("Februari chosen", `document.querySelector('.option[data-option-id="b"] input').checked`)
	saved()

	show("Benar atau salah")
	run("answer the grid, one right, one wrong",
		chromedp.Click(chromedp.CSS(`[data-grid-statement="s1"][data-grid-column="true"]`)),
		chromedp.Click(chromedp.CSS(`[data-grid-statement="s2"][data-grid-column="true"]`)))
	saved()

	show("Apa yang kamu dengar")
	for i := 1; i <= 2; i++ {
		run("play", chromedp.Click(chromedp.CSS(`#question-text .play-button`)))
		wait("the audio played to its end", `(function(){var a=document.querySelector('#question-text audio');
			return a.duration > 1.5 && a.duration < 2.5 && a.ended;})()`)
	}
	wait("no play left", `document.querySelector('#question-text .play-button').getAttribute('aria-disabled') === 'true'`)
	if st := text(`(function(){var x=new XMLHttpRequest();x.open('POST','/api/student/exams/` + examID + `/plays/listen',false);
		x.setRequestHeader('Content-Type','application/json');x.send('{}');return String(x.status);})()`); st != "409" {
		t.Fatalf("a third play answered %s", st)
	}
	run("answer", chromedp.SendKeys(chromedp.ID("answer-text"), "nada"))

	show("Jodohkan")
	wait("the passage shows beside the question", `(function(){var p=document.getElementById('stimulus-pane');
		return p.className.indexOf('hidden') < 0 && p.textContent.indexOf('Bacaan 1') >= 0 && p.querySelectorAll('td').length === 2 &&
		p.getBoundingClientRect().right <= document.getElementById('question-text').getBoundingClientRect().left + 1;})()`)
	run("match Bali and Jawa Barat", chromedp.Evaluate[chromedp.Void](`['p1=r1','p2=r2'].forEach(function(pair){
		var kv=pair.split('='), s=document.querySelector('select[data-match-premise="'+kv[0]+'"]');
		s.value=kv[1]; s.dispatchEvent(new Event('change',{bubbles:true}));})`))
	saved()

	show("Berapa 5 : 2")
	run("answer with a decimal comma", chromedp.SendKeys(chromedp.ID("answer-text"), "2,5"))
	saved()

	show("Ibu kota Bali")
	run("fill the blanks, the number as a teacher in Indonesia writes it, one choice wrong",
		chromedp.SendKeys(chromedp.CSS(`#question-text [data-blank-id="kota"]`), "denpasar"),
		chromedp.SendKeys(chromedp.CSS(`#question-text [data-blank-id="luas"]`), "5.780"),
		chromedp.SetValue(chromedp.CSS(`#question-text [data-blank-id="arah"]`), "t"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#question-text [data-blank-id="arah"]').dispatchEvent(new Event('change',{bubbles:true}))`))
	saved()

	show("siklus air")
	run("write the essay", chromedp.SendKeys(chromedp.ID("answer-text"), "Air menguap, mengembun, lalu turun sebagai hujan."))
	run("finish", chromedp.Click(chromedp.ID("finish-button")), chromedp.WaitVisible(chromedp.ID("finish-confirm")),
		chromedp.Click(chromedp.ID("finish-confirm")))

	lab.waitStatus(60*time.Second, "every answer pushed", func(st agent.Status) bool {
		return st.AnswersSaved == 8 && st.AnswersPending == 0
	})
	// 2 (math) + 1 (chart) + 1 of 2 (the grid, partial) + 2 (matching) +
	// 1 (listening) + 1 (2,5) + 3 of 5 (the blanks: the city and 5.780,
	// not the direction); the essay waits for a teacher.
	r := results(t, op, examID)["ani"]
	if r.Score != 11 || r.Answered != 8 || r.Pending != 1 {
		t.Fatalf("ani's result on the portal before the essay is graded: %+v", r)
	}

	// A teacher grades the essay in the portal's console, with the keyboard.
	run("grade the essay",
		chromedp.Navigate(p.URL+"/console/login"),
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.SendKeys(chromedp.ID("username"), "admin"),
		chromedp.SendKeys(chromedp.ID("password"), p.Password),
		chromedp.Submit(chromedp.ID("password")),
		chromedp.WaitVisible(chromedp.CSS("nav")),
		chromedp.Navigate(p.URL+"/console/grading/"+examID+"/essay"),
		chromedp.WaitVisible(chromedp.ID("points")),
	)
	if got := text(`document.querySelector('.essay').textContent`); !strings.Contains(got, "Air menguap") {
		t.Fatalf("the grading page shows %q", got)
	}
	run("4 points, Enter", chromedp.SendKeys(chromedp.ID("points"), "4\n"))
	eventually(t, 30*time.Second, "the grade counted in the results", func() (bool, string) {
		r = results(t, op, examID)["ani"]
		return r.Score == 15 && r.Pending == 0, jsonString(r)
	})
}

// studentPage is a student's page of a real labagent in Chromium.
type studentPage struct {
	t     *testing.T
	ctx   context.Context
	total int // questions of the open exam
}

// openStudentPage opens Chromium at 1280×900 on lab's student page, signs
// in as username with the proctor's token and starts examID.
func openStudentPage(t *testing.T, lab *labAgent, sch *school, username, examID string) *studentPage {
	t.Helper()
	execPath := browsertest.Find(t, "the student page")
	token := lab.proctorToken()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	bctx, cancelBrowser := browsertest.New(ctx, execPath, 1280, 900)
	t.Cleanup(cancelBrowser)
	p := &studentPage{t: t, ctx: bctx}
	p.run("sign in and start the exam",
		chromedp.Navigate(lab.lanURL()),
		chromedp.WaitVisible(chromedp.ID("login-form")),
		chromedp.SendKeys(chromedp.ID("username"), username),
		chromedp.SendKeys(chromedp.ID("password"), sch.passwords[username]),
		chromedp.SendKeys(chromedp.ID("token"), token),
		chromedp.Click(chromedp.ID("login-submit")),
		chromedp.WaitVisible(chromedp.CSS(`.exam-item[data-exam-id="`+examID+`"] .start-exam`)),
		chromedp.Click(chromedp.CSS(`.exam-item[data-exam-id="`+examID+`"] .start-exam`)),
		chromedp.WaitVisible(chromedp.ID("exam-view")),
	)
	total, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('.nav-item').length`))
	if err != nil {
		t.Fatal(err)
	}
	p.total = total
	return p
}

// run runs the actions, failing the test with what on an error.
func (p *studentPage) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// wait waits up to 30 s until the JavaScript expression is true.
func (p *studentPage) wait(what, expr string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(50*time.Millisecond),
		chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		p.t.Fatalf("wait until %s: %v", what, err)
	}
}

// text evaluates a JavaScript expression giving a string.
func (p *studentPage) text(expr string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return s
}

// show shows the question whose text holds needle, laid out.
func (p *studentPage) show(needle string) {
	p.t.Helper()
	for n := 1; n <= p.total; n++ {
		p.run("go to a question", chromedp.Click(chromedp.CSS(fmt.Sprintf(`.nav-item[data-number="%d"]`, n))))
		p.wait("question shown", fmt.Sprintf(`document.getElementById('question-number').textContent.indexOf('Soal %d ') === 0`, n))
		if strings.Contains(p.text(`document.getElementById('question-text').textContent`), needle) {
			// Clicks land where the layout was: wait until the math font
			// and the images have been laid out.
			p.wait("the question laid out", `document.fonts.status === 'loaded' &&
				Array.prototype.every.call(document.images, function (i) { return i.complete; })`)
			return
		}
	}
	p.t.Fatalf("no question shows %q", needle)
}
