package console_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/browsertest"
)

// analysisExam makes a Matematika exam of eight choice questions, the
// second's text holding the XSS vectors, answered by 60 students of two
// schools: each question is answered right by the students whose number,
// give or take some noise, passes its threshold; the fourth question's key
// is wrong (the strong students choose c, keyed b), everybody gets the
// fifth right, and nobody chooses option d of the first.
func (p *portal) analysisExam(t *testing.T) exam.Exam {
	t.Helper()
	return p.analysisExamOf(t, "Matematika Kelas XII", 0, nil)
}

// analysisExamOf is analysisExam with the given title, taken by a cohort of
// 60 other students (numbered from cohort×100) who answer alike, and with
// its first questions replaced by reused ones (kept item parameters and
// all).
func (p *portal) analysisExamOf(t *testing.T, title string, cohort int, reused []exam.Question) exam.Exam {
	t.Helper()
	ctx := t.Context()
	opts := []exam.Option{{ID: "a", Text: "2"}, {ID: "b", Text: "3"}, {ID: "c", Text: "4"}, {ID: "d", Text: "5"}}
	q := func(id, text, key string) exam.Question {
		return exam.Question{ID: id, Type: exam.SingleChoice, Text: text, Options: opts, Answer: []string{key}, Points: 1}
	}
	questions := []exam.Question{
		q("q1", "Berapakah 1 + 1?", "a"),
		q("q2", "Akar dari 16 adalah ... "+strings.Join(testkit.XSSVectors, " "), "c"),
		q("q3", "Bilangan prima terkecil yang lebih dari 4?", "d"),
		q("q4", "Berapakah 2 × 2?", "b"),
		q("q5", "Berapakah 6 − 3?", "b"),
		q("q6", "Berapakah 10 ÷ 5?", "a"),
		q("q7", "Jika x + 1 = 4, x = ...", "b"),
		q("q8", "Berapakah 2³ − 3?", "d"),
	}
	copy(questions, reused)
	e, err := p.exam.CreateExam(ctx, exam.ExamInput{Title: title, Subject: "MTK", NPSNs: []string{"20100001", "20100002"},
		StartsAt: time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC), EndsAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), DurationMinutes: 90,
		Questions: questions})
	if err != nil {
		t.Fatal(err)
	}
	// Per question: the answer of a student who passes the threshold,
	// those of one who does not (taken in turn), and the threshold.
	plan := []struct {
		right, wrong string
		threshold    int
	}{{"a", "bc", 8}, {"c", "abd", 24}, {"d", "abc", 44}, {"c", "bad", 30}, {"b", "b", 0}, {"a", "bcd", 16}, {"b", "acd", 36}, {"d", "abc", 52}}
	for s, npsn := range []string{"20100001", "20100002"} {
		var rows []exam.MemberInput
		for i := range 30 {
			n := cohort*100 + s*30 + i
			rows = append(rows, exam.MemberInput{Nama: fmt.Sprintf("Siswa %02d", n), Username: fmt.Sprintf("siswa%02d", n),
				NISN: fmt.Sprintf("0099%06d", n), Kelas: "XII IPA", AcademicYearName: []string{"2025/2026", "2024/2025"}[i%2]})
		}
		rep, err := p.exam.ImportMembers(ctx, rows, npsn)
		if err != nil {
			t.Fatal(err)
		}
		var as []exam.Answer
		at := time.Date(2026, 12, 1, 7, 30, 0, 0, time.UTC)
		for i, r := range rep.Rows {
			n := 2*i + s // ability 0 to 59, the schools alike
			for j, pl := range plan {
				v := string(pl.wrong[(n+j)%len(pl.wrong)])
				if n+(n*7+j*13)%21-10 >= pl.threshold {
					v = pl.right
				}
				as = append(as, exam.Answer{ExamID: e.ID, MemberID: r.MemberID, QuestionID: fmt.Sprint("q", j+1), Answer: v, AnsweredAt: at, ServerCode: "LAB-01"})
			}
		}
		if _, err := p.store.SaveAnswers(ctx, exam.AnswerBatch{SyncID: fmt.Sprintf("sync-%d-%s", cohort, npsn), ServerCode: "LAB-01", NPSN: npsn,
			Checksum: fmt.Sprintf("%064d", 2*cohort+s), Answers: as, ReceivedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// TestBrowserAnalysis opens an exam's item analysis in Chromium, in
// Indonesian and English, on a desk and a phone: the histogram and the
// distractor charts are drawn, the question whose key is wrong comes first
// with its flag, a school or an academic year narrows it, the 2PL calibration of these
// few students says it has no finite estimate and the Rasch one shows its
// table and information curve; the XSS vectors in a question stay text
// and none runs; axe finds nothing; the page fits a 390 px screen.
func TestBrowserAnalysis(t *testing.T) {
	chrome := newHeadless(t, "the item analysis page", 120*time.Second)
	p := newPortal(t, onStore("bolt"))
	e := p.analysisExam(t)
	page := p.srv.URL + "/console/exams/" + e.ID + "/analysis"

	desk := chrome.tab(1280, 900)
	desk.do("sign in", p.operatorSignInSteps()...)
	desk.do("open the analysis", chromedp.Navigate(page+"?lang=id"), chromedp.WaitVisible(chromedp.CSS("table.items")))
	desk.check("the histogram and every choice question's distractor chart are drawn", `document.querySelectorAll('svg.histogram rect').length > 0 &&
		document.querySelectorAll('table.items svg.options').length === 8`)
	desk.check("the wrong key comes first, flagged in Indonesian", `document.querySelector('table.items tbody tr').classList.contains('flagged') &&
		document.querySelector('table.items tbody tr td').textContent === '4' &&
		document.querySelector('table.items tbody tr').textContent.includes('kunci mungkin salah')`)
	desk.check("everybody right and the unchosen option are flagged", `document.body.textContent.includes('semua menjawab benar') &&
		document.body.textContent.includes('pengecoh tidak dipilih')`)
	desk.check("60 students", `document.querySelector('table.summary tbody td').textContent === '60'`)
	desk.check("the vectors are text, and nothing ran", `window.__xss === undefined &&
		document.querySelectorAll('main img, main script, main iframe, main [onerror], main [onload]').length === 0 &&
		[...document.querySelectorAll('td.qtext')].some(td => td.textContent.includes('<script>window.__xss=1</script>'))`)
	desk.shotPage("analysis-id-1280")
	// The download links carry the filter and the language; the file is
	// the analysis's table.
	desk.check("the xlsx link", `document.getElementById('download-xlsx').getAttribute('href') === '/console/exams/`+e.ID+`/analysis.xlsx?npsn=&kelas=&academic_year=&region=&lang=id'`)
	c := browser(t)
	p.signIn(t, c)
	res, body := get(t, c, p.srv.URL+"/console/exams/"+e.ID+"/analysis.csv?lang=id")
	if res.StatusCode != 200 || !strings.HasPrefix(body, "No,ID soal,Soal,Kunci") || strings.Count(body, "\n") != 9 {
		t.Errorf("analysis.csv: %d\n%s", res.StatusCode, body)
	}
	if res, _ := get(t, c, p.srv.URL+"/console/exams/"+e.ID+"/analysis.xlsx?lang=en&npsn=20100002"); res.StatusCode != 200 ||
		res.Header.Get("Content-Disposition") != `attachment; filename="analisis-`+e.ID+`-20100002.xlsx"` {
		t.Errorf("analysis.xlsx: %d %v", res.StatusCode, res.Header)
	}

	desk.do("calibrate with the 2PL",
		chromedp.SetValue(chromedp.ID("model"), "2pl"),
		chromedp.Click(chromedp.CSS(`form:has(#model) button`)),
		chromedp.WaitVisible(chromedp.CSS("p.note")),
	)
	desk.check("the 2PL has no finite estimate for these answers, and says so in Indonesian", `document.querySelector('p.note').textContent.includes('Gunakan model Rasch') &&
		/\(Soal \d\)/.test(document.querySelector('p.note').textContent) &&
		document.querySelector('table.calibration') === null && document.getElementById('model').value === '2pl'`)
	desk.do("calibrate with the Rasch model",
		chromedp.SetValue(chromedp.ID("model"), "rasch"),
		chromedp.Click(chromedp.CSS(`form:has(#model) button`)),
		chromedp.WaitVisible(chromedp.CSS("table.calibration")),
	)
	desk.check("the calibration's table and information curve", `document.querySelectorAll('table.calibration tbody tr').length === 8 &&
		document.querySelector('svg.information polyline').getAttribute('points').split(' ').length === 81 &&
		document.querySelector('table.calibration').textContent.includes('semua benar: tidak dikalibrasi') &&
		!document.querySelector('table.calibration').textContent.includes('NaN')`)
	if v := browsertest.Axe(desk.ctx, t); len(v) > 0 {
		t.Errorf("axe on the analysis page: %v", v)
	}
	desk.do("show the calibration", chromedp.ScrollIntoView(chromedp.CSS("table.calibration")))
	desk.shot("analysis-calibration-id-1280")
	rasch := desk.text("p.calibrated time")
	if _, err := time.Parse("2006-01-02 15:04 UTC", rasch); err != nil {
		t.Errorf("the calibration's time: %q (%v)", rasch, err)
	}

	// A calibration running on this portal or another: the page shows how
	// far it has got instead of a result, and refreshes itself; once it
	// ends, the result.
	run := exam.CalibrationRun{StartedAt: time.Now().Add(-40 * time.Second), UpdatedAt: time.Now(), Stage: "fit", Students: 1000000, Iteration: 12}
	if err := p.store.SaveCalibrationRun(t.Context(), e.ID, "rasch", &run); err != nil {
		t.Fatal(err)
	}
	c2 := browser(t)
	p.signIn(t, c2)
	res, body = get(t, c2, page+"?lang=id&model=rasch")
	if res.StatusCode != 200 || res.Header.Get("Refresh") != "3; url=/console/exams/"+e.ID+"/analysis?model=rasch&running=1#calibration" ||
		!strings.Contains(body, "Kalibrasi sedang berjalan") || strings.Contains(body, `class="calibration"`) {
		t.Errorf("a calibration running: %d, Refresh %q\n%s", res.StatusCode, res.Header.Get("Refresh"), body)
	}
	desk.do("a calibration running", chromedp.Navigate(page+"?lang=id&model=rasch&running=1"), chromedp.WaitVisible(chromedp.CSS("p.running")))
	desk.check("its progress, in Indonesian", `document.querySelector('p.running[role=status]').textContent.includes('mengestimasi model, iterasi 12') &&
		document.querySelector('table.calibration') === null`)
	if v := browsertest.Axe(desk.ctx, t); len(v) > 0 {
		t.Errorf("axe on a calibration running: %v", v)
	}
	desk.do("show the progress", chromedp.ScrollIntoView(chromedp.CSS("p.running")))
	desk.shot("analysis-running-id-1280")
	if err := p.store.SaveCalibrationRun(t.Context(), e.ID, "rasch", nil); err != nil {
		t.Fatal(err)
	}
	// "Calibrate again" makes a new calibration, shown once it is done.
	before, err := p.exam.LatestCalibration(t.Context(), e.ID, "rasch")
	if err != nil || before.Latest == nil {
		t.Fatalf("the latest before calibrating again: %+v, %v", before, err)
	}
	desk.do("back to the result", chromedp.Navigate(page+"?lang=id&model=rasch&running=1"), chromedp.WaitVisible(chromedp.CSS("table.calibration")))
	desk.clickLoad("calibrate again", `form[action$="/calibration/run"] button`)
	desk.check("the new calibration", `document.querySelector('table.calibration') !== null && document.querySelector('p.running') === null`)
	after, err := p.exam.LatestCalibration(t.Context(), e.ID, "rasch")
	if err != nil || after.Latest == nil || !after.Latest.FinishedAt.After(before.Latest.FinishedAt) {
		t.Fatalf("calibrating again made no new calibration: %+v, %v", after, err)
	}

	// Keeping the parameters: the seven calibrated questions keep theirs
	// (everybody got the fifth right); a later exam reusing the first four
	// is calibrated on their scale, taken by a cohort who answer alike.
	desk.clickLoad("keep the parameters", `form[action$="/calibration"] button`)
	desk.check("seven questions kept theirs", `document.querySelector('p.kept').textContent.includes('Parameter disimpan pada soal: 7') &&
		document.querySelector('table.calibration') !== null`)
	first, err := p.exam.GetExam(t.Context(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range first.Questions {
		if (q.Calibrated != nil) == (i == 4) {
			t.Errorf("question %d kept %+v", i+1, q.Calibrated)
		}
	}
	later := p.analysisExamOf(t, "Matematika Kelas XII 2027", 1, first.Questions[:4])
	desk.do("the later exam's calibration", chromedp.Navigate(p.srv.URL+"/console/exams/"+later.ID+"/analysis?lang=id&model=rasch"),
		chromedp.WaitVisible(chromedp.CSS("table.calibration")))
	desk.check("four questions anchored, and the cohort's ability on their scale", `document.querySelectorAll('table.calibration .flag.anchor').length === 4 &&
		document.body.textContent.includes('4 soal dijangkarkan') && document.body.textContent.includes('Rata-rata 0.00 (')`)
	if v := browsertest.Axe(desk.ctx, t); len(v) > 0 {
		t.Errorf("axe on the anchored calibration: %v", v)
	}
	desk.do("show the anchored calibration", chromedp.ScrollIntoView(chromedp.CSS("table.calibration")))
	desk.shot("analysis-anchored-id-1280")

	desk.do("one school, in English", chromedp.Navigate(page+"?lang=en&npsn=20100002"), chromedp.WaitVisible(chromedp.CSS("table.items")))
	desk.check("30 students, flags in English", `document.querySelector('table.summary tbody td').textContent === '30' &&
		document.body.textContent.includes('everybody right') && document.getElementById('npsn').value === '20100002'`)
	desk.do("one academic year", chromedp.Navigate(page+"?lang=id&academic_year=2025/2026"), chromedp.WaitVisible(chromedp.CSS("table.items")))
	desk.check("30 students of 2025/2026", `document.querySelector('table.summary tbody td').textContent === '30' &&
		document.getElementById('academic_year').value === '2025/2026' &&
		document.querySelector('label:has(#academic_year)').textContent.includes('Tahun ajaran')`)
	desk.do("an unknown school", chromedp.Navigate(page+"?npsn=99999999"), chromedp.WaitVisible(chromedp.CSS(".error, [role=alert]")))
	desk.do("a region no licensed school is in", chromedp.Navigate(page+"?lang=en&region=Bali"), chromedp.WaitVisible(chromedp.CSS(".error, [role=alert]")))
	desk.check("the region filter, in English", `document.getElementById('region').value === 'Bali' &&
		document.querySelector('label:has(#region)').textContent.includes('Region') &&
		document.body.textContent.includes('no licensed school is in this region')`)

	phone := chrome.tab(500, 900)
	phone.do("sign in", p.operatorSignInSteps()...)
	phone.do("a 390 px screen", chromedp.EmulateViewport(390, 844), chromedp.Navigate(page+"?lang=id&model=rasch"), chromedp.WaitVisible(chromedp.CSS("table.calibration")))
	if ok, err := phone.fits(); err != nil || !ok {
		t.Errorf("the analysis page scrolls sideways on a phone (%v)", err)
	}
	phone.shot("analysis-id-390")
}
