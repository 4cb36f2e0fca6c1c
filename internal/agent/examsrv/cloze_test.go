package examsrv_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/richtext"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/client"
)

// clozePackage is typesPackage with a cloze question of three blanks (a
// text, a number, a choice whose options carry the XSS vectors) and a
// numeric question added to exam e1.
func clozePackage(t testing.TB) *client.Package {
	t.Helper()
	p := typesPackage(t)
	p.Format = 4
	src := "Ibu kota Indonesia adalah [[kota]], luas Jawa [[luas]] ribu km², dan Jawa ada di [[arah]] Kalimantan."
	res, err := richtext.Render(richtext.Markdown, src, richtext.Options{})
	if err != nil {
		t.Fatal(err)
	}
	xss := strings.Join(testkit.XSSVectors, "")
	e := &p.Exams[0]
	e.Questions = append(e.Questions,
		client.PackageQuestion{ID: "c1", Type: client.Cloze, Format: "markdown", Text: src, HTML: res.HTML, Points: 4,
			Blanks: []client.PackageBlank{
				{ID: "kota", Kind: client.BlankText, Points: 1},
				{ID: "luas", Kind: client.BlankNumber, Points: 2},
				{ID: "arah", Kind: client.BlankChoice, Points: 1, Options: []client.QuestionOption{
					{ID: "u", Text: "utara", HTML: "<p>utara</p>" + xss}, {ID: "s", Text: "selatan", HTML: "<p>selatan</p>"}}},
			}},
		client.PackageQuestion{ID: "n1", Type: client.Numeric, Text: "2,5 × 2 = ?", Points: 1})
	return p
}

// TestClozeAnswers: a cloze question reaches the page with its blanks and
// no key, its choice options sanitised again; answers naming an unknown
// blank or option, too long or not a JSON object are refused; an accepted
// answer is stored with the blanks in the question's order and empty ones
// left out, and one with every blank empty clears the answer.
func TestClozeAnswers(t *testing.T) {
	l := newLab(t, filepath.Join(t.TempDir(), "labagent.db"), 0, testkit.NewClock(t0.Add(time.Minute)))
	l.srv.SetPackage(clozePackage(t))
	b := l.signIn(1)
	var attempt struct {
		Questions []struct {
			ID     string
			HTML   string
			Blanks []client.PackageBlank
		}
	}
	b.mustOK("POST", "/api/student/exams/e1/start", nil, &attempt)
	var found bool
	for _, q := range attempt.Questions {
		if q.ID != "c1" {
			continue
		}
		found = true
		if len(q.Blanks) != 3 || q.Blanks[2].Kind != client.BlankChoice || len(q.Blanks[2].Options) != 2 ||
			!strings.Contains(q.HTML, `<span class="blank" data-blank="luas"></span>`) {
			t.Fatalf("c1 as the page gets it: %+v", q)
		}
		if h := q.Blanks[2].Options[0].HTML; strings.Contains(h, "onerror") || strings.Contains(h, "<script") || strings.Contains(h, "javascript:") {
			t.Errorf("a choice blank's option HTML was not sanitised again: %s", h)
		}
	}
	if !found {
		t.Fatal("no cloze question in the attempt")
	}
	for _, answer := range []string{
		`{"kota":"x","nope":"y"}`, `{"arah":"z"}`, `["Jakarta"]`, `Jakarta`, `{"kota":1}`,
		`{"kota":"` + strings.Repeat("a", 201) + `"}`,
	} {
		if st, code := b.do("PUT", "/api/student/exams/e1/answers/c1", map[string]string{"answer": answer}, nil); st != 400 || code != "INVALID_ANSWER" {
			t.Errorf("answer %q: %d %s, want 400 INVALID_ANSWER", answer, st, code)
		}
	}
	b.mustOK("PUT", "/api/student/exams/e1/answers/c1", map[string]string{"answer": `{"arah":"s","luas":" 128,3 ","kota":""}`}, nil)
	b.mustOK("PUT", "/api/student/exams/e1/answers/n1", map[string]string{"answer": "5,0"}, nil)
	got, err := l.db.Answers("e1", "m1")
	if err != nil {
		t.Fatal(err)
	}
	if got["c1"].Answer != `{"luas":"128,3","arah":"s"}` || got["n1"].Answer != "5,0" {
		t.Fatalf("stored: c1 %q, n1 %q", got["c1"].Answer, got["n1"].Answer)
	}
	b.mustOK("PUT", "/api/student/exams/e1/answers/c1", map[string]string{"answer": `{"kota":" "}`}, nil)
	if got, _ = l.db.Answers("e1", "m1"); got["c1"].Answer != "" {
		t.Fatalf("an answer of empty blanks stored %q, want it cleared", got["c1"].Answer)
	}
}
