package console_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/testkit"
)

// TestBrowserExamPreview writes a question in the markdown format in the
// exam editor and previews it in Chromium: the formulas are MathML drawn
// with the embedded math font, the table shows, the XSS vectors stay text
// and none runs; an exam saved with a formula that does not convert keeps
// the editor open on its problem.
func TestBrowserExamPreview(t *testing.T) {
	chrome := newHeadless(t, "the console", 60*time.Second)
	p := newPortal(t, onStore("bolt"))
	desk := chrome.tab(1200, 900)
	desk.do("sign in", p.operatorSignInSteps()...)
	vectors := `<img src=x onerror="window.__xss=1"> <script>window.__xss=1</script> <svg onload="window.__xss=1">`
	desk.do("write a question with formulas",
		chromedp.Navigate(p.srv.URL+"/console/exams/new"),
		chromedp.WaitVisible(chromedp.ID("title")),
		chromedp.SendKeys(chromedp.ID("title"), "Matematika"),
		chromedp.SendKeys(chromedp.ID("npsn"), "20100001"),
		chromedp.SetValue(chromedp.ID("q0-format"), "markdown"),
		chromedp.SetValue(chromedp.ID("q0-text"), "Hitung $\\frac{3}{4} + \\sqrt{16}$:\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n"+vectors),
		chromedp.SetValue(chromedp.ID("q0-options"), "a: $4\\frac{3}{4}$\nb: **5**"),
		chromedp.SendKeys(chromedp.ID("q0-answer"), "a"),
		chromedp.Click(chromedp.CSS(`button[value="preview"]`)),
		chromedp.WaitVisible(chromedp.CSS("section.preview")),
	)
	// Eventually: the fraction's height needs the math font, which may
	// still be loading on a busy machine.
	desk.eventually("the preview shows the formulas as MathML", `document.querySelectorAll('section.preview math').length === 2 &&
		document.querySelector('section.preview mfrac').getBoundingClientRect().height > 20`)
	desk.check("with the embedded math font", `getComputedStyle(document.querySelector('section.preview math')).fontFamily.includes('STIX Two Math')`)
	desk.eventually("the font loads", `document.fonts.check('16px "STIX Two Math"')`)
	desk.check("the table and the bold option show", `document.querySelectorAll('section.preview td').length === 2 &&
		document.querySelector('.option-preview strong').textContent === '5'`)
	desk.check("the vectors are text, and nothing ran", `window.__xss === undefined &&
		document.querySelectorAll('section.preview img, section.preview script, section.preview svg').length === 0 &&
		document.querySelector('section.preview').textContent.includes('<script>window.__xss=1</script>')`)
	desk.check("the form kept what was typed", `document.getElementById('q0-format').value === 'markdown' &&
		document.getElementById('q0-text').value.startsWith('Hitung $')`)
	if _, err := chromedp.Run(desk.ctx, chromedp.Evaluate[int](`document.getElementById('q0-text').scrollIntoView(), 0`)); err != nil {
		t.Fatal(err)
	}
	desk.shot("exam-preview")

	// Saved with a formula that does not convert: saved, and the editor
	// stays open on the problem, the formula shown as its source.
	desk.do("save with a broken formula",
		chromedp.SetValue(chromedp.ID("q0-text"), "Hitung $\\frac{1}{$"),
		chromedp.Click(chromedp.CSS(`button[value="save"]`)),
		chromedp.WaitVisible(chromedp.CSS("p.ok")),
	)
	if got := desk.text("ul.problems"); !strings.Contains(got, "TEX_ERROR") || !strings.Contains(got, `\frac{1}{`) {
		t.Fatalf("problems shown: %q", got)
	}
	desk.check("the broken formula shows as its source", `document.querySelector('section.preview code.tex-error').textContent === '$\\frac{1}{$'`)
	es, _ := p.exam.ListExams(t.Context(), "")
	if len(es) != 1 || es[0].Title != "Matematika" {
		t.Fatalf("exams: %+v", es)
	}
}

// TestBrowserExamPreviewStimulusMatching previews, in Chromium, a stimulus
// and a matching question whose texts hold the XSS vectors, in both
// formats: the stimulus's table and the formula of a premise show, the
// vectors stay text and none runs.
func TestBrowserExamPreviewStimulusMatching(t *testing.T) {
	chrome := newHeadless(t, "the console", 60*time.Second)
	p := newPortal(t, onStore("bolt"))
	desk := chrome.tab(1200, 900)
	desk.do("sign in", p.operatorSignInSteps()...)
	vectors := strings.Join(testkit.XSSVectors, " ")
	desk.do("add a stimulus",
		chromedp.Navigate(p.srv.URL+"/console/exams/new"),
		chromedp.WaitVisible(chromedp.ID("title")),
		chromedp.Click(chromedp.CSS(`button[value="add-stimulus"]`)),
		chromedp.WaitVisible(chromedp.ID("s0-text")),
	)
	desk.do("write a stimulus and a matching question",
		chromedp.SetValue(chromedp.ID("s0-title"), "Danau Toba"),
		chromedp.SetValue(chromedp.ID("s0-text"), "| Danau | Luas |\n|--|--|\n| Toba | 1130 |\n\n"+vectors),
		chromedp.SetValue(chromedp.ID("q0-type"), "matching"),
		chromedp.SetValue(chromedp.ID("q0-format"), "markdown"),
		chromedp.SetValue(chromedp.ID("q0-stimulus"), "bacaan1"),
		chromedp.SetValue(chromedp.ID("q0-text"), "Jodohkan."),
		chromedp.Click(chromedp.CSS(`button[value="preview"]`)),
		chromedp.WaitVisible(chromedp.ID("q0-premises")),
		chromedp.SetValue(chromedp.ID("q0-premises"), "p1: luas $x^2$ "+vectors+"\np2: Toba"),
		chromedp.SetValue(chromedp.ID("q0-responses"), "r1: "+vectors+"\nr2: Sumatera"),
		chromedp.SetValue(chromedp.ID("q0-answer"), "p1=r1\np2=r2"),
		chromedp.Click(chromedp.CSS(`button[value="preview"]`)),
		chromedp.WaitVisible(chromedp.CSS(".premise-preview")),
	)
	desk.check("the stimulus's table and the premise's formula show", `document.querySelectorAll('.stimulus-preview td').length === 2 &&
		document.querySelectorAll('.premise-preview math').length === 1 && document.querySelectorAll('.response-preview li').length === 2`)
	desk.check("the form kept the stimulus and the question's choice of it", `document.getElementById('s0-title').value === 'Danau Toba' &&
		document.getElementById('q0-stimulus').value === 'bacaan1'`)
	desk.check("the vectors are text, and nothing ran", `window.__xss === undefined &&
		document.querySelectorAll('section.preview img, section.preview script, section.preview svg, section.preview iframe, section.preview a, section.preview [onerror], section.preview [style]').length === 0 &&
		document.querySelector('.stimulus-preview').textContent.includes('<script>window.__xss=1</script>') &&
		document.querySelector('.response-preview').textContent.includes('<script>window.__xss=1</script>')`)

	// The same texts in the plain format: text as well.
	desk.do("choose the plain format",
		chromedp.SetValue(chromedp.ID("s0-format"), "plain"),
		chromedp.SetValue(chromedp.ID("q0-format"), "plain"),
	)
	desk.clickLoad("preview as plain text", `button[value="preview"]`)
	desk.check("plain: nothing ran", `window.__xss === undefined &&
		document.querySelectorAll('section.preview img, section.preview script, section.preview svg, section.preview iframe, section.preview a').length === 0 &&
		document.querySelector('.stimulus-preview').textContent.includes('| Toba | 1130 |')`)
}

// editorExam is an exam, as the JSON API takes it, with every question
// type, stimuli, multi-line texts, a statement grid whose rows are long,
// a matching question and a schedule with seconds: what an operator
// creates by the API and then opens in the console's editor.
const editorExam = `{
  "title": "Ujian Akhir Semester",
  "subject": "IPA",
  "npsn": ["20100001", "20100002"],
  "starts_at": "2026-12-01T00:30:15Z",
  "ends_at": "2026-12-01T03:45:59Z",
  "duration_minutes": 120,
  "stimuli": [
    {"id": "bacaan1", "title": "Danau Toba", "format": "markdown",
     "text": "Danau Toba terletak di Sumatera Utara.\nLuasnya sekitar 1.130 km².\n\n| Danau | Provinsi | Luas (km²) | Kedalaman (m) | Ketinggian (m) | Pulau di tengahnya | Kota terdekat |\n|---|---|---|---|---|---|---|\n| Toba | Sumatera Utara | 1130 | 505 | 905 | Samosir | Parapat |\n| Singkarak | Sumatera Barat | 107 | 268 | 363 | tidak ada | Solok |"},
    {"id": "bacaan2", "text": "Baris pertama.\nBaris kedua.\n\nParagraf berikutnya."}
  ],
  "questions": [
    {"id": "q1", "type": "single_choice", "format": "markdown", "stimulus": "bacaan1",
     "text": "Perhatikan tabel.\nDanau mana yang **terluas**?\n\n- pilih satu", "points": 2,
     "options": [{"id": "a", "text": "Toba"}, {"id": "b", "text": "Singkarak"}], "answer": ["a"]},
    {"id": "q2", "type": "multiple_choice", "text": "Pilih semua\nyang benar.", "points": 1.5,
     "calibrated": {"model": "2pl", "difficulty": -0.7512345, "discrimination": 1.25, "difficulty_se": 0.061,
       "students": 812, "exam_id": "01JCALIBRATED", "calibrated_at": "2026-11-29T10:00:00.123456Z"},
     "options": [{"id": "a", "text": "Air mendidih pada 100 °C"}, {"id": "b", "text": "Es lebih berat dari air"}, {"id": "c", "text": "Bumi bulat"}],
     "answer": ["a", "c"]},
    {"id": "q3", "type": "true_false", "stimulus": "bacaan2", "text": "Baris kedua\nmengikuti baris pertama.", "answer": ["true"], "points": 1},
    {"id": "q4", "type": "short_answer", "text": "Ibu kota\nSumatera Utara?", "answer": ["Medan", "Kota Medan"], "points": 1},
    {"id": "q5", "type": "essay", "text": "Jelaskan proses fotosintesis.\n\nTulis minimal dua paragraf.", "answer": [], "points": 10,
     "rubric": "2 poin: klorofil.\n3 poin: cahaya matahari.\n5 poin: hasil glukosa dan oksigen."},
    {"id": "q6", "type": "statement_grid", "format": "markdown", "text": "Tentukan benar atau salah\nsetiap pernyataan berikut.", "points": 4,
     "scoring": "partial",
     "statements": [{"id": "s1", "text": "Fotosintesis terjadi di kloroplas sel daun tumbuhan hijau yang terkena cahaya matahari"},
       {"id": "s2", "text": "Respirasi seluler menghasilkan oksigen sebagai hasil sampingan utama dari pemecahan glukosa"}],
     "columns": [{"id": "benar", "text": "Benar sekali"}, {"id": "salah", "text": "Salah sama sekali"}, {"id": "ragu", "text": "Tidak dapat ditentukan dari bacaan"}],
     "answer": ["s1=benar", "s2=salah"]},
    {"id": "q7", "type": "statement_grid", "text": "Kolom bawaan.", "points": 1,
     "statements": [{"id": "s1", "text": "Air membeku pada 0 °C"}], "answer": ["s1=true"]},
    {"id": "q8", "type": "matching", "format": "markdown", "stimulus": "bacaan1", "text": "Jodohkan\ndanau dengan provinsinya.", "points": 3,
     "reuse_responses": true,
     "premises": [{"id": "p1", "text": "Toba"}, {"id": "p2", "text": "Singkarak"}, {"id": "p3", "text": "Maninjau"}],
     "responses": [{"id": "r1", "text": "Sumatera Utara"}, {"id": "r2", "text": "Sumatera Barat"}],
     "answer": ["p1=r1", "p2=r2", "p3=r2"]}
  ]
}`

// apiJSON sends body (when not empty) to the portal's JSON API with the
// operator's token and returns the answer's status and decoded body.
func apiJSON(t *testing.T, method, u, token, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	return resp.StatusCode, m
}

// TestBrowserExamEditorSaveUnchanged creates an exam by the JSON API, opens
// it in the console's editor in Chromium and saves it without an edit
// (straight away, then again after a preview): read back by the API, every
// field is as created (newlines stay "\n", the times keep their seconds).
// At a phone's width the editor, with every question type and the
// preview open, does not scroll sideways: the statement grid and the
// stimulus's table scroll in their own boxes.
func TestBrowserExamEditorSaveUnchanged(t *testing.T) {
	chrome := newHeadless(t, "the console's exam editor", 90*time.Second)
	p := newPortal(t, onStore("bolt"))
	status, login := apiJSON(t, "POST", p.srv.URL+"/api/v1/auth/login", "", `{"username":"admin","password":"`+adminPassword+`"}`)
	if status != 200 {
		t.Fatalf("login: %d %v", status, login)
	}
	token := login["token"].(string)
	status, created := apiJSON(t, "POST", p.srv.URL+"/api/v1/admin/exams", token, editorExam)
	if status != 201 && status != 200 {
		t.Fatalf("create: %d %v", status, created)
	}
	created, _ = created["data"].(map[string]any)
	if created["problems"] != nil {
		t.Fatalf("the exam has problems: %v", created["problems"])
	}
	id := created["id"].(string)
	examURL := p.srv.URL + "/api/v1/admin/exams/" + id
	_, want := apiJSON(t, "GET", examURL, token, "")
	var sent map[string]any
	if err := json.Unmarshal([]byte(editorExam), &sent); err != nil {
		t.Fatal(err)
	}
	// The exam holds what was sent: every field of the request, every
	// field of each question.
	stored := want["data"].(map[string]any)
	for k, v := range sent {
		if k == "questions" {
			continue
		}
		if !reflect.DeepEqual(v, stored[k]) {
			t.Fatalf("created %s = %v, sent %v", k, stored[k], v)
		}
	}
	for i, q := range sent["questions"].([]any) {
		for k, v := range q.(map[string]any) {
			if got := stored["questions"].([]any)[i].(map[string]any)[k]; !reflect.DeepEqual(v, got) {
				t.Fatalf("created question %d's %s = %v, sent %v", i, k, got, v)
			}
		}
	}

	unchanged := func(what string) {
		t.Helper()
		_, got := apiJSON(t, "GET", examURL, token, "")
		if !reflect.DeepEqual(got, want) {
			g, _ := json.MarshalIndent(got, "", " ")
			w, _ := json.MarshalIndent(want, "", " ")
			t.Fatalf("%s changed the exam:\n%s\nwant\n%s", what, g, w)
		}
	}
	editor := p.srv.URL + "/console/exams/" + id + "/edit"
	fits := `document.scrollingElement.scrollWidth <= window.innerWidth`

	desk := chrome.tab(1280, 900)
	desk.do("sign in", p.operatorSignInSteps()...)
	desk.do("open the editor", chromedp.Navigate(editor), chromedp.WaitVisible(chromedp.ID("q7-premises")))
	desk.check("the times show with their seconds", `document.getElementById('starts').value === '2026-12-01T07:30:15' &&
		document.getElementById('ends').value === '2026-12-01T10:45:59'`)
	desk.shot("exam-editor")
	desk.do("save without an edit", chromedp.Click(chromedp.CSS(`button[value="save"]`)), chromedp.WaitVisible(chromedp.CSS("p.ok")))
	unchanged("a save in the editor")

	// Headless Chromium keeps a window at least 500 px wide: the phone's
	// 390 px are an emulated viewport.
	phone := chrome.tab(390, 844)
	phone.do("phone: a 390 px screen", chromedp.EmulateViewport(390, 844))
	phone.do("phone: sign in", p.operatorSignInSteps()...)
	phone.check("phone: the window is 390 px wide", `window.innerWidth === 390`)
	for _, page := range []string{"/console/exams/new", "/console/exams/import", "/console/exams/" + id + "/edit"} {
		phone.do("phone: "+page, chromedp.Navigate(p.srv.URL+page), chromedp.WaitVisible(chromedp.CSS("h1")))
		phone.check("phone: "+page+" does not scroll sideways", fits)
	}
	phone.clickLoad("phone: preview", `button[value="preview"]`)
	phone.check("the preview shows every question and both stimuli", `document.querySelectorAll('section.preview').length === 10 &&
		document.querySelectorAll('table.grid-preview').length === 2 && document.querySelectorAll('.premise-preview').length === 1`)
	phone.check("phone: the editor with the preview open does not scroll sideways", fits)
	// Each statement grid and the stimulus's table sit in a box that
	// scrolls sideways; the grid of long statements is wider than a phone
	// and does scroll in it.
	boxes, err := chromedp.Run(phone.ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('table.grid-preview, .stimulus-preview .rich table')].map(t => {
		let box = t.parentElement;
		while (box && getComputedStyle(box).overflowX !== 'auto') { box = box.parentElement; }
		return box ? box.className + (box.scrollWidth > box.clientWidth ? ' scrolls' : ' fits') : 'none';
	}).join('; ')`))
	if want := "rich q-preview scrolls; scroll scrolls; scroll scrolls"; err != nil || boxes != want {
		t.Fatalf("the boxes of the grids and the stimulus's table: %q (%v), want %q", boxes, err, want)
	}
	if _, err := chromedp.Run(phone.ctx, chromedp.Evaluate[int](`document.querySelector('table.grid-preview').closest('section').scrollIntoView(), 0`)); err != nil {
		t.Fatal(err)
	}
	phone.shot("exam-editor-phone")
	phone.do("save after the preview", chromedp.Click(chromedp.CSS(`button[value="save"]`)), chromedp.WaitVisible(chromedp.CSS("p.ok")))
	unchanged("a save after a preview")
}

// TestBrowserExamCategories: the exam editor shows each question's bank
// category, finds questions by it (at a desk's and a phone's width), and
// keeps it through a save.
func TestBrowserExamCategories(t *testing.T) {
	chrome := newHeadless(t, "the console", 60*time.Second)
	p := newPortal(t, onStore("bolt"))
	essay := func(id, text, category string) exam.Question {
		return exam.Question{ID: id, Type: exam.Essay, Text: text, Category: category}
	}
	e, err := p.exam.CreateExam(t.Context(), exam.ExamInput{Title: "Matematika", NPSNs: []string{"20100001"},
		StartsAt: time.Date(2030, 12, 1, 7, 0, 0, 0, time.UTC), EndsAt: time.Date(2030, 12, 1, 9, 0, 0, 0, time.UTC), DurationMinutes: 90,
		Questions: []exam.Question{essay("q1", "Sederhanakan 2x + 3x.", "Matematika/Aljabar"),
			essay("q2", "Luas persegi bersisi 4?", "Matematika/Geometri"), essay("q3", "Faktorkan x² − 1.", "Matematika/Aljabar")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct {
		w, h int
		name string
	}{{1280, 900, "exam-categories"}, {390, 844, "exam-categories-phone"}} {
		tab := chrome.tab(size.w, size.h)
		tab.do("sign in", p.operatorSignInSteps()...)
		tab.do("find the geometry questions",
			chromedp.Navigate(p.srv.URL+"/console/exams/"+e.ID+"/edit"),
			chromedp.WaitVisible(chromedp.ID("qfilter")),
			chromedp.SendKeys(chromedp.ID("qfilter"), "geometri"),
		)
		tab.check("only q2 shows, its category in its field", `(() => {
			const shown = [...document.querySelectorAll('fieldset.question')].filter(f => !f.hidden);
			return shown.length === 1 && shown[0].querySelector('[name$=".category"]').value === 'Matematika/Geometri' &&
				document.getElementById('qfilter-status').textContent.includes('1/3');
		})()`)
		if _, err := chromedp.Run(tab.ctx, chromedp.Evaluate[int](`document.getElementById('question-filter').scrollIntoView(), window.scrollBy(0, -40), 0`)); err != nil {
			t.Fatal(err)
		}
		tab.shot(size.name)
	}
	tab := chrome.tab(1280, 900)
	tab.do("sign in", p.operatorSignInSteps()...)
	tab.do("save with a filter on",
		chromedp.Navigate(p.srv.URL+"/console/exams/"+e.ID+"/edit"),
		chromedp.WaitVisible(chromedp.ID("qfilter")),
		chromedp.SendKeys(chromedp.ID("qfilter"), "aljabar"),
		chromedp.SetValue(chromedp.ID("q0-category"), "Matematika/Aljabar/Linear"),
		chromedp.Click(chromedp.CSS(`button[value="save"]`)),
		chromedp.WaitNotPresent(chromedp.ID("qfilter")),
	)
	got, err := p.exam.GetExam(t.Context(), e.ID)
	if err != nil || len(got.Questions) != 3 || got.Questions[0].Category != "Matematika/Aljabar/Linear" || got.Questions[1].Category != "Matematika/Geometri" {
		t.Fatalf("saved %+v, %v", got.Questions, err)
	}
}
