package console_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/pkg/client"
)

// clozeFormValues is examFormValues with a numeric question (either
// decimal separator, a relative tolerance) and a cloze question whose
// blanks the form lists in another order than the text marks them.
func clozeFormValues(csrf string) url.Values {
	f := examFormValues(csrf)
	for k, v := range map[string]string{
		"q.1.id": "n1", "q.1.type": "numeric", "q.1.text": "Luas lingkaran berjari-jari 1?", "q.1.answer": "3,14\n3.1416",
		"q.1.tolerance": "0,5", "q.1.tolerance_mode": "relative", "q.1.points": "2",
		"q.2.id": "c1", "q.2.type": "cloze", "q.2.format": "markdown", "q.2.points": "1",
		"q.2.text":   "Ibu kota Indonesia adalah [[kota]], luas Jawa [[luas]] ribu km², di [[arah]] Kalimantan.",
		"q.2.b.0.id": "arah", "q.2.b.0.kind": "choice", "q.2.b.0.options": "u: utara\ns: selatan", "q.2.b.0.answer": "s", "q.2.b.0.points": "1",
		"q.2.b.1.id": "kota", "q.2.b.1.kind": "text", "q.2.b.1.answer": "Jakarta\nDKI Jakarta", "q.2.b.1.points": "",
		"q.2.b.2.id": "luas", "q.2.b.2.kind": "number", "q.2.b.2.answer": "128,3", "q.2.b.2.tolerance": "0.5", "q.2.b.2.points": "2",
	} {
		f.Set(k, v)
	}
	return f
}

// TestExamEditorNumericCloze: a numeric and a cloze question written in the
// editor are stored with their keys, tolerances and blanks (in the order
// the text marks them, the question's points the blanks' added up); a
// cloze question whose text marks a blank it does not have, or a tolerance
// that is not a number, is refused saying why and nothing is stored;
// "Insert a blank" without the script adds a blank and its marker, and
// removing a blank removes its marker.
func TestExamEditorNumericCloze(t *testing.T) {
	p := newPortal(t)
	ctx := context.Background()
	c := browser(t)
	csrf := p.signIn(t, c)

	for name, tc := range map[string]struct {
		edit func(url.Values)
		says string
	}{
		"a marker of no blank":      {func(f url.Values) { f.Set("q.2.text", f.Get("q.2.text")+" [[x]]") }, "marks [[x]], which is not a blank"},
		"a tolerance not a number":  {func(f url.Values) { f.Set("q.1.tolerance", "setengah") }, "question 2: the tolerance must be a number"},
		"a choice not an option":    {func(f url.Values) { f.Set("q.2.b.0.answer", "t") }, `questions[2]: blank &#34;arah&#34;: answer &#34;t&#34; is not an option id`},
		"a numeric key not numbers": {func(f url.Values) { f.Set("q.1.answer", "tiga") }, `answer &#34;tiga&#34; is not a number`},
	} {
		f := clozeFormValues(csrf)
		tc.edit(f)
		resp, body := post(t, c, p.srv.URL+"/console/exams/new", f)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, tc.says) || !strings.Contains(body, `name="q.2.b.2.tolerance" value="0.5"`) {
			t.Errorf("%s: %d, want 400 saying %q with the blanks kept\n%s", name, resp.StatusCode, tc.says, body)
		}
	}
	if es, _ := p.exam.ListExams(ctx, ""); len(es) != 0 {
		t.Fatalf("refused forms stored %d exams", len(es))
	}

	if resp, body := post(t, c, p.srv.URL+"/console/exams/new", clozeFormValues(csrf)); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d\n%s", resp.StatusCode, body)
	}
	es, _ := p.exam.ListExams(ctx, "")
	if len(es) != 1 {
		t.Fatalf("%d exams", len(es))
	}
	e, err := p.exam.GetExam(ctx, es[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	n, cl := e.Questions[1], e.Questions[2]
	if n.Type != exam.Numeric || strings.Join(n.Answer, " ") != "3.14 3.1416" || n.Tolerance != 0.5 || n.ToleranceMode != "relative" || n.Points != 2 {
		t.Errorf("numeric stored as %+v", n)
	}
	want := []exam.Blank{
		{ID: "kota", Kind: exam.BlankText, Answer: []string{"Jakarta", "DKI Jakarta"}, Points: 1},
		{ID: "luas", Kind: exam.BlankNumber, Answer: []string{"128.3"}, Tolerance: 0.5, Points: 2},
		{ID: "arah", Kind: exam.BlankChoice, Options: []exam.Option{{ID: "u", Text: "utara"}, {ID: "s", Text: "selatan"}}, Answer: []string{"s"}, Points: 1},
	}
	if cl.Type != exam.Cloze || !reflect.DeepEqual(cl.Blanks, want) || cl.Points != 4 {
		t.Errorf("cloze stored as %+v", cl)
	}

	// Without the script, "Insert a blank" adds a text blank and its
	// marker at the end of the text.
	f := clozeFormValues(csrf)
	f.Set("action", "add-blank:2")
	_, body := post(t, c, p.srv.URL+"/console/exams/new", f)
	if !strings.Contains(body, `name="q.2.b.3.id" value="b4"`) || !strings.Contains(body, "Kalimantan. [[b4]]</textarea>") {
		t.Errorf("add a blank: the form lacks blank b4 or its marker\n%s", body)
	}
	// Removing a blank removes its marker: the rest is stored.
	f = clozeFormValues(csrf)
	f.Set("q.2.b.1.remove", "1")
	if resp, body := post(t, c, p.srv.URL+"/console/exams/"+e.ID+"/edit", f); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save without kota: %d\n%s", resp.StatusCode, body)
	}
	if e, _ = p.exam.GetExam(ctx, e.ID); len(e.Questions[2].Blanks) != 2 || strings.Contains(e.Questions[2].Text, "[[kota]]") || e.Questions[2].Points != 3 {
		t.Errorf("after removing kota: %+v", e.Questions[2])
	}
}

// TestExamEditorNumericClozeRoundTrip: an exam with a numeric and a cloze
// question created through the JSON API, opened in the editor and saved
// with every field as the editor shows it, reads back identical through
// the API.
func TestExamEditorNumericClozeRoundTrip(t *testing.T) {
	p := newPortal(t)
	api, id, before := createNumericCloze(t, p)
	c := browser(t)
	p.signIn(t, c)
	_, page := get(t, c, p.srv.URL+"/console/exams/"+id+"/edit")
	form := editorValues(t, page)
	form.Set("action", "save")
	if resp, body := post(t, c, p.srv.URL+"/console/exams/"+id+"/edit", form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save as shown: %d\n%s", resp.StatusCode, body)
	}
	after, _, err := api.Exam.Admin.GetExam(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after.Questions) {
		t.Errorf("questions changed by a save in the editor:\nbefore %+v\nafter  %+v", before, after.Questions)
	}
}

// createNumericCloze creates, through the JSON API, an exam with two
// numeric questions and a cloze question of three blanks (every field of
// theirs set), and returns the API's client, the exam's id and its
// questions as the API reads them back.
func createNumericCloze(t *testing.T, p *portal) (*client.Client, string, []client.Question) {
	t.Helper()
	ctx := context.Background()
	api, err := client.NewClient(p.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	login, _, err := api.Exam.Auth.Login(ctx, "admin", adminPassword)
	if err != nil {
		t.Fatal(err)
	}
	api.SetToken(login.Token)
	start := time.Date(2026, 12, 1, 0, 30, 0, 0, time.UTC)
	created, _, err := api.Exam.Admin.CreateExam(ctx, &client.ExamRequest{Title: "Isian", Subject: "IPA", NPSN: []string{"20100001"},
		StartsAt: start, EndsAt: start.Add(2 * time.Hour), DurationMinutes: 90, Questions: []client.Question{
			{ID: "n1", Type: client.Numeric, Text: "Berapa 1/3?", Answer: []string{"0,333", "1e-1"}, Tolerance: 0.25, ToleranceMode: client.ToleranceRelative, Points: 2.5},
			{ID: "n2", Type: client.Numeric, Format: "markdown", Text: "$2^{10}$ = ?", Answer: []string{"1.024"}, Points: 1},
			{ID: "c1", Type: client.Cloze, Format: "markdown", Text: "**Air** mendidih pada [[suhu]] °C di [[tempat]]; rumusnya [[rumus]].",
				Blanks: []client.Blank{
					{ID: "suhu", Kind: client.BlankNumber, Answer: []string{"100", "99,97"}, Tolerance: 0.5, Points: 1.5},
					{ID: "tempat", Kind: client.BlankChoice, Options: []client.QuestionOption{{ID: "laut", Text: "permukaan *laut*"}, {ID: "gunung", Text: "puncak $h > 3000$ m"}},
						Answer: []string{"laut"}},
					{ID: "rumus", Kind: client.BlankText, Answer: []string{"H2O", "H₂O"}, Points: 0.5},
				}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := api.Exam.Admin.GetExam(ctx, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	return api, created.ID, got.Questions
}

// editorValues are the values a browser posts with the editor's form as the
// page shows it: its inputs (checkboxes only when checked), textareas and
// selects (the selected option, else the first), not its buttons, and
// nothing in a <template>.
func editorValues(t *testing.T, page string) url.Values {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	out := url.Values{}
	attr := func(n *html.Node, k string) (string, bool) {
		for _, a := range n.Attr {
			if a.Key == k {
				return a.Val, true
			}
		}
		return "", false
	}
	text := func(n *html.Node) string {
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
		return b.String()
	}
	var inForm bool
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if n.Data == "template" {
				return
			}
			if n.Data == "form" {
				cls, _ := attr(n, "class")
				inForm = cls == "exam-form"
				defer func() { inForm = false }()
			}
			name, named := attr(n, "name")
			if inForm && named {
				switch n.Data {
				case "input":
					typ, _ := attr(n, "type")
					_, checked := attr(n, "checked")
					if typ != "checkbox" || checked {
						v, _ := attr(n, "value")
						out.Add(name, v)
					}
				case "textarea":
					out.Add(name, text(n))
				case "select":
					var first, chosen *html.Node
					for o := n.FirstChild; o != nil; o = o.NextSibling {
						if o.Type != html.ElementNode || o.Data != "option" {
							continue
						}
						if first == nil {
							first = o
						}
						if _, sel := attr(o, "selected"); sel {
							chosen = o
						}
					}
					if chosen == nil {
						chosen = first
					}
					if chosen != nil {
						v, ok := attr(chosen, "value")
						if !ok {
							v = text(chosen)
						}
						out.Add(name, v)
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if out.Get("csrf") == "" || out.Get("q.0.type") == "" {
		t.Fatalf("the editor's form was not found in the page:\n%s", page)
	}
	return out
}
