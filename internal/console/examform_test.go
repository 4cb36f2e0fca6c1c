package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
)

// examFormValues is a valid editor form of one single-choice question,
// from 07:30 to 09:30 WIB on 2026-12-01.
func examFormValues(csrf string) url.Values {
	return url.Values{"csrf": {csrf}, "action": {"save"}, "title": {"Matematika Akhir"}, "subject": {"MTK"},
		"npsn": {"20100001, 20100002"}, "starts": {"2026-12-01T07:30"}, "ends": {"2026-12-01T09:30"}, "zone": {"WIB"},
		"duration": {"90"}, "q.0.id": {"q1"}, "q.0.type": {"single_choice"}, "q.0.text": {"Berapa dua tambah dua?"},
		"q.0.options": {"a: 3\nb: 4"}, "q.0.answer": {"b"}, "q.0.points": {"2"}}
}

// TestExamEditor: the operator adds a question, is told why a bad exam is
// refused (nothing stored), creates an exam whose times are entered in
// WIB, edits it (a question removed, one added) and deletes it.
func TestExamEditor(t *testing.T) {
	p := newPortal(t)
	ctx := context.Background()
	c := browser(t)
	csrf := p.signIn(t, c)

	if resp, body := get(t, c, p.srv.URL+"/console/exams/new"); resp.StatusCode != 200 || !strings.Contains(body, `name="q.0.type"`) {
		t.Fatalf("new exam page: %d", resp.StatusCode)
	}
	form := examFormValues(csrf)
	form.Set("action", "add")
	if resp, body := post(t, c, p.srv.URL+"/console/exams/new", form); resp.StatusCode != 200 ||
		!strings.Contains(body, `name="q.1.type"`) || !strings.Contains(body, "Berapa dua tambah dua?") {
		t.Fatalf("add a question: %d\n%s", resp.StatusCode, body)
	}

	for name, edit := range map[string]func(url.Values){
		"duration not a number": func(f url.Values) { f.Set("duration", "ninety") },
		"answer not an option":  func(f url.Values) { f.Set("q.0.answer", "c") },
		"option without an id":  func(f url.Values) { f.Set("q.0.options", "3\n4") },
		"no school":             func(f url.Values) { f.Set("npsn", "") },
	} {
		f := examFormValues(csrf)
		edit(f)
		resp, body := post(t, c, p.srv.URL+"/console/exams/new", f)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `role="alert"`) || !strings.Contains(body, "Matematika Akhir") {
			t.Errorf("%s: %d, want 400 with the message and the form kept", name, resp.StatusCode)
		}
	}
	if es, _ := p.exam.ListExams(ctx, ""); len(es) != 0 {
		t.Fatalf("refused forms stored %d exams", len(es))
	}

	if resp, _ := post(t, c, p.srv.URL+"/console/exams/new", url.Values{"action": {"save"}, "title": {"x"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a form without its token: %d, want 403", resp.StatusCode)
	}
	resp, _ := post(t, c, p.srv.URL+"/console/exams/new", examFormValues(csrf))
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/console/exams?saved=") {
		t.Fatalf("save: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	es, _ := p.exam.ListExams(ctx, "")
	if len(es) != 1 {
		t.Fatalf("exams after save: %d", len(es))
	}
	e, err := p.exam.GetExam(ctx, es[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 12, 1, 0, 30, 0, 0, time.UTC); !e.StartsAt.Equal(want) || e.DurationMinutes != 90 ||
		len(e.NPSNs) != 2 || len(e.Questions) != 1 || e.Questions[0].Points != 2 || e.Questions[0].Options[1].Text != "4" ||
		e.Questions[0].Answer[0] != "b" {
		t.Fatalf("stored exam = %+v", e)
	}
	if _, body := get(t, c, p.srv.URL+"/console/exams?saved="+e.ID); !strings.Contains(body, "The exam was saved.") ||
		!strings.Contains(body, "/console/exams/"+e.ID+"/edit") {
		t.Fatal("the list does not confirm the save or link the editor")
	}

	// The editor shows the exam as it was typed (times in WIB).
	_, body := get(t, c, p.srv.URL+"/console/exams/"+e.ID+"/edit")
	for _, want := range []string{`value="2026-12-01T07:30:00"`, "a: 3\nb: 4", `value="Matematika Akhir"`} {
		if !strings.Contains(body, want) {
			t.Errorf("editor lacks %q", want)
		}
	}
	edit := examFormValues(csrf)
	edit.Set("title", "Matematika Ulang")
	edit.Set("q.0.remove", "1")
	for k, v := range map[string]string{"q.1.id": "t1", "q.1.type": "true_false", "q.1.text": "4 is even", "q.1.answer": "true"} {
		edit.Set(k, v)
	}
	if resp, body := post(t, c, p.srv.URL+"/console/exams/"+e.ID+"/edit", edit); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit: %d\n%s", resp.StatusCode, body)
	}
	if e, _ = p.exam.GetExam(ctx, e.ID); e.Title != "Matematika Ulang" || len(e.Questions) != 1 || e.Questions[0].ID != "t1" ||
		e.Questions[0].Type != exam.TrueFalse {
		t.Fatalf("edited exam = %+v", e)
	}

	if resp, _ := post(t, c, p.srv.URL+"/console/exams/"+e.ID+"/delete", url.Values{"csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	if _, err := p.exam.GetExam(ctx, e.ID); err == nil {
		t.Fatal("the exam is still there after delete")
	}
	if resp, _ := get(t, c, p.srv.URL+"/console/exams/"+e.ID+"/edit"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("editor of a deleted exam: %d, want 404", resp.StatusCode)
	}
}

// gridFormValues is examFormValues with its question a statement grid in
// the markdown format, scored "partial".
func gridFormValues(csrf string) url.Values {
	f := examFormValues(csrf)
	f.Del("q.0.options")
	f.Set("q.0.type", "statement_grid")
	f.Set("q.0.format", "markdown")
	f.Set("q.0.text", "Benar atau salah?")
	f.Set("q.0.statements", "s1: $2$ prima\ns2: 9 prima")
	f.Set("q.0.scoring", "partial")
	f.Set("q.0.answer", "s1=true\ns2=false")
	return f
}

// TestExamEditorStatementGrid: a statement grid written in the editor is
// stored with its statements, columns, key and scoring, and an exam
// opened and saved again in the editor keeps them.
func TestExamEditorStatementGrid(t *testing.T) {
	p := newPortal(t)
	ctx := context.Background()
	c := browser(t)
	csrf := p.signIn(t, c)
	if resp, body := post(t, c, p.srv.URL+"/console/exams/new", gridFormValues(csrf)); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save a grid: %d\n%s", resp.StatusCode, body)
	}
	es, _ := p.exam.ListExams(ctx, "")
	if len(es) != 1 {
		t.Fatalf("%d exams", len(es))
	}
	check := func(when string) {
		t.Helper()
		e, err := p.exam.GetExam(ctx, es[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		q := e.Questions[0]
		if q.Type != exam.StatementGrid || q.Format != "markdown" || len(q.Statements) != 2 || q.Statements[0].Text != "$2$ prima" ||
			len(q.Columns) != 2 || q.Scoring != exam.ScoringPartial || strings.Join(q.Answer, ",") != "s1=true,s2=false" {
			t.Fatalf("%s: %+v", when, q)
		}
	}
	check("created")
	// Opened and saved again as the editor shows it.
	_, body := get(t, c, p.srv.URL+"/console/exams/"+es[0].ID+"/edit")
	for _, want := range []string{`name="q.0.statements"`, "s1: $2$ prima", `value="partial" selected`, "s1=true\ns2=false"} {
		if !strings.Contains(body, want) {
			t.Fatalf("the editor of a grid lacks %q", want)
		}
	}
	g := gridFormValues(csrf)
	g.Set("q.0.columns", "true: Benar\nfalse: Salah") // as the editor shows the stored grid
	if resp, body := post(t, c, p.srv.URL+"/console/exams/"+es[0].ID+"/edit", g); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save again: %d\n%s", resp.StatusCode, body)
	}
	check("saved again")
}

// matchingFormValues is examFormValues with its question a matching
// question in the markdown format, scored "partial", each response once.
func matchingFormValues(csrf string) url.Values {
	f := examFormValues(csrf)
	f.Del("q.0.options")
	f.Set("q.0.type", "matching")
	f.Set("q.0.format", "markdown")
	f.Set("q.0.text", "Jodohkan provinsi dengan ibu kotanya.")
	f.Set("q.0.premises", "p1: Jawa Barat\np2: Bali $x^2$")
	f.Set("q.0.responses", "r1: Denpasar\nr2: Bandung\nr3: Surabaya")
	f.Set("q.0.scoring", "partial")
	f.Set("q.0.answer", "p2=r1\np1=r2")
	return f
}

// TestExamEditorMatching: a matching question written in the editor is
// stored with its premises, responses, reuse, key and scoring; an exam
// opened and saved again keeps them; a key giving one response to two
// premises is refused, saying why, and nothing is stored; with "may be
// used for several premises" it is stored.
func TestExamEditorMatching(t *testing.T) {
	p := newPortal(t)
	ctx := context.Background()
	c := browser(t)
	csrf := p.signIn(t, c)

	twice := matchingFormValues(csrf)
	twice.Set("q.0.answer", "p1=r1\np2=r1")
	resp, body := post(t, c, p.srv.URL+"/console/exams/new", twice)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "may be used once") {
		t.Fatalf("a response twice: %d\n%s", resp.StatusCode, body)
	}
	if es, _ := p.exam.ListExams(ctx, ""); len(es) != 0 {
		t.Fatalf("a refused exam was stored: %+v", es)
	}

	if resp, body := post(t, c, p.srv.URL+"/console/exams/new", matchingFormValues(csrf)); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save a matching question: %d\n%s", resp.StatusCode, body)
	}
	es, _ := p.exam.ListExams(ctx, "")
	if len(es) != 1 {
		t.Fatalf("%d exams", len(es))
	}
	check := func(when string, reuse bool, key string) {
		t.Helper()
		e, err := p.exam.GetExam(ctx, es[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		q := e.Questions[0]
		if q.Type != exam.Matching || q.Format != "markdown" || len(q.Premises) != 2 || q.Premises[1].Text != "Bali $x^2$" ||
			len(q.Responses) != 3 || q.ReuseResponses != reuse || q.Scoring != exam.ScoringPartial || strings.Join(q.Answer, ",") != key {
			t.Fatalf("%s: %+v", when, q)
		}
	}
	check("created", false, "p1=r2,p2=r1")
	_, body = get(t, c, p.srv.URL+"/console/exams/"+es[0].ID+"/edit")
	for _, want := range []string{`name="q.0.premises"`, "p2: Bali $x^2$", "r3: Surabaya", `value="partial" selected`, "p1=r2\np2=r1"} {
		if !strings.Contains(body, want) {
			t.Fatalf("the editor of a matching question lacks %q", want)
		}
	}
	if strings.Contains(body, `name="q.0.reuse" value="1" checked`) {
		t.Fatal("reuse shows checked")
	}
	reuse := matchingFormValues(csrf)
	reuse.Set("q.0.reuse", "1")
	reuse.Set("q.0.answer", "p1=r1\np2=r1")
	if resp, body := post(t, c, p.srv.URL+"/console/exams/"+es[0].ID+"/edit", reuse); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save with reuse: %d\n%s", resp.StatusCode, body)
	}
	check("saved with reuse", true, "p1=r1,p2=r1")
	_, body = get(t, c, p.srv.URL+"/console/exams/"+es[0].ID+"/edit")
	if !strings.Contains(body, `name="q.0.reuse" value="1" checked`) {
		t.Fatal("the editor does not show reuse checked")
	}
}

// TestExamEditorStimulus: "Add a stimulus" adds its fields; an exam with a
// stimulus shared by two questions is stored with it, and opened and saved
// again keeps it; a question naming a stimulus the exam does not have is
// refused, saying which, and nothing is stored.
func TestExamEditorStimulus(t *testing.T) {
	p := newPortal(t)
	ctx := context.Background()
	c := browser(t)
	csrf := p.signIn(t, c)

	form := examFormValues(csrf)
	form.Set("action", "add-stimulus")
	if resp, body := post(t, c, p.srv.URL+"/console/exams/new", form); resp.StatusCode != 200 ||
		!strings.Contains(body, `name="s.0.id" value="bacaan1"`) || !strings.Contains(body, `name="q.0.stimulus"`) {
		t.Fatalf("add a stimulus: %d\n%s", resp.StatusCode, body)
	}
	form = examFormValues(csrf)
	form.Set("s.0.id", "toba")
	form.Set("s.0.title", "Danau Toba")
	form.Set("s.0.format", "markdown")
	form.Set("s.0.text", "| Danau | Luas |\n|--|--|\n| Toba | 1130 |")
	form.Set("q.0.stimulus", "danau")
	resp, body := post(t, c, p.srv.URL+"/console/exams/new", form)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `stimulus &#34;danau&#34; is not one of the exam&#39;s stimuli`) {
		t.Fatalf("an unknown stimulus: %d\n%s", resp.StatusCode, body)
	}
	if es, _ := p.exam.ListExams(ctx, ""); len(es) != 0 {
		t.Fatalf("a refused exam was stored: %+v", es)
	}
	form.Set("q.0.stimulus", "toba")
	form.Set("q.1.id", "q2")
	form.Set("q.1.type", "essay")
	form.Set("q.1.text", "Jelaskan.")
	form.Set("q.1.stimulus", "toba")
	if resp, body := post(t, c, p.srv.URL+"/console/exams/new", form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save with a stimulus: %d\n%s", resp.StatusCode, body)
	}
	es, _ := p.exam.ListExams(ctx, "")
	if len(es) != 1 {
		t.Fatalf("%d exams", len(es))
	}
	check := func(when string) {
		t.Helper()
		e, err := p.exam.GetExam(ctx, es[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(e.Stimuli) != 1 || e.Stimuli[0] != (exam.Stimulus{ID: "toba", Title: "Danau Toba", Format: "markdown",
			Text: "| Danau | Luas |\n|--|--|\n| Toba | 1130 |"}) || e.Questions[0].Stimulus != "toba" || e.Questions[1].Stimulus != "toba" {
			t.Fatalf("%s: stimuli %+v, questions %+v", when, e.Stimuli, e.Questions)
		}
	}
	check("created")
	_, body = get(t, c, p.srv.URL+"/console/exams/"+es[0].ID+"/edit")
	for _, want := range []string{`name="s.0.title" value="Danau Toba"`, "| Toba | 1130 |", `<option value="toba" selected>toba</option>`} {
		if !strings.Contains(body, want) {
			t.Fatalf("the editor lacks %q", want)
		}
	}
	if resp, body := post(t, c, p.srv.URL+"/console/exams/"+es[0].ID+"/edit", form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save again: %d\n%s", resp.StatusCode, body)
	}
	check("saved again")
}
