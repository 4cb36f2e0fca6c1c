package examsrv_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/richtext"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/client"
)

// typesPackage is testPackage with exam e1 made of the question types
// answered in parts and of stimuli: a matching question in the markdown
// format (each response once; a formula, a list, the XSS vectors as the portal
// renders them, and one response carrying them as raw HTML, as a
// compromised portal could), a plain matching question whose responses may
// be reused, a single choice, two questions sharing a long passage with a
// table and the vectors, and one whose stimulus carries the vectors as raw
// HTML.
func typesPackage(t testing.TB) *client.Package {
	t.Helper()
	render := func(src string) string {
		res, err := richtext.Render(richtext.Markdown, src, richtext.Options{})
		if err != nil {
			t.Fatalf("render %q: %v", src, err)
		}
		return res.HTML
	}
	opt := func(id, text string) client.QuestionOption {
		return client.QuestionOption{ID: id, Text: text, HTML: render(text)}
	}
	p := testPackage(t, 5)
	p.Format = 2
	e := &p.Exams[0]
	e.Questions = []client.PackageQuestion{
		{ID: "m1", Type: client.Matching, Format: "markdown", Text: "Jodohkan provinsi dengan ibu kotanya.",
			HTML: render("Jodohkan provinsi dengan ibu kotanya."), Points: 3,
			Premises: []client.QuestionOption{opt("p1", "Jawa **Barat**"), opt("p2", "Bali, luas $5780\\,\\mathrm{km}^2$"),
				opt("p3", "Jawa Timur "+strings.Join(richXSS, " "))},
			Responses: []client.QuestionOption{opt("r1", "Surabaya"), opt("r2", "Denpasar\n\n- ibu kota Bali"), opt("r3", "Bandung"),
				{ID: "r4", Text: "Semarang", HTML: strings.Join(richXSS, "") + "<p>Semarang</p>"}}},
		{ID: "m2", Type: client.Matching, Text: "Di pulau mana kota ini?", Points: 2, ReuseResponses: true,
			Premises:  []client.QuestionOption{{ID: "k1", Text: "Bandung"}, {ID: "k2", Text: "Surabaya"}, {ID: "k3", Text: "Denpasar"}},
			Responses: []client.QuestionOption{{ID: "jawa", Text: "Jawa"}, {ID: "bali", Text: "Bali"}}},
		{ID: "q1", Type: "single_choice", Text: "2 + 2 = ?", Points: 1,
			Options: []client.QuestionOption{{ID: "a", Text: "3"}, {ID: "b", Text: "4"}}},
		{ID: "s1", Type: "single_choice", Text: "Menurut bacaan, di provinsi mana Danau Toba?", Points: 1, Stimulus: "toba",
			Options: []client.QuestionOption{{ID: "a", Text: "Sumatera Utara"}, {ID: "b", Text: "Bali"}}},
		{ID: "s2", Type: "short_answer", Text: "Menurut tabel bacaan, berapa luas Danau Toba (km²)?", Points: 1, Stimulus: "toba"},
		{ID: "s3", Type: "essay", Text: "Tanggapi teks di samping.", Points: 1, Stimulus: "rusak"},
	}
	passage := "Danau Toba adalah danau vulkanik terbesar di Asia Tenggara.\n\n" +
		strings.Repeat("Danau ini terbentuk oleh letusan supervulkan sekitar 74.000 tahun yang lalu. ", 40) +
		"\n\n| Danau | Luas (km²) |\n|:--|--:|\n| Toba | 1130 |\n| Singkarak | 107 |\n\n" + strings.Join(richXSS, " ")
	e.Stimuli = []client.Stimulus{
		{ID: "toba", Title: "Bacaan: Danau Toba", Format: "markdown", Text: passage, HTML: render(passage)},
		{ID: "rusak", Title: "Teks", Format: "markdown", Text: "x", HTML: strings.Join(richXSS, "") + "<p>aman</p>"},
	}
	return p
}

// TestMatchingAnswers: a matching question's responses come in the
// student's own order, the same on every reload; answers naming an unknown
// premise or response, a premise twice, or a response twice where each is
// used once are refused; an accepted answer is stored in the premises'
// order.
func TestMatchingAnswers(t *testing.T) {
	l := newLab(t, filepath.Join(t.TempDir(), "labagent.db"), 0, testkit.NewClock(t0.Add(time.Minute)))
	l.srv.SetPackage(typesPackage(t))
	responses := func(v typesAttempt) []string {
		var ids []string
		for _, r := range v.question(t, "m1").Responses {
			ids = append(ids, r.ID)
		}
		return ids
	}
	orders := map[string]bool{}
	var s1 *browser
	for n := 1; n <= 5; n++ {
		b := l.signIn(n)
		var first, again typesAttempt
		b.mustOK("POST", "/api/student/exams/e1/start", nil, &first)
		b.mustOK("GET", "/api/student/exams/e1", nil, &again)
		got := responses(first)
		if !slices.Equal(got, responses(again)) {
			t.Fatalf("student %d: the responses' order moved on reload: %v, %v", n, got, responses(again))
		}
		if sorted := slices.Sorted(slices.Values(got)); !slices.Equal(sorted, []string{"r1", "r2", "r3", "r4"}) {
			t.Fatalf("student %d: responses %v", n, got)
		}
		orders[strings.Join(got, ",")] = true
		if n == 1 {
			s1 = b
			m2 := first.question(t, "m2")
			if !m2.ReuseResponses || len(m2.Premises) != 3 {
				t.Fatalf("m2 as the page gets it: %+v", m2)
			}
		}
	}
	if len(orders) < 2 {
		t.Errorf("five students got the same order of responses: %v", orders)
	}

	for _, c := range []struct{ q, answer string }{
		{"m1", "p1=r9"}, {"m1", "p9=r1"}, {"m1", "p1"}, {"m1", "p1=r1,p1=r2"}, {"m1", "p1=r1,p2=r1"},
		{"m1", "p1=r1,"}, {"m1", "=r1"}, {"m1", "p1=r1=r2"}, {"m1", " p1=r1"}, {"m2", "k1=jawa,k1=bali"}, {"m2", "k1=r1"},
	} {
		if st, code := s1.do("PUT", "/api/student/exams/e1/answers/"+c.q, map[string]string{"answer": c.answer}, nil); st != 400 || code != "INVALID_ANSWER" {
			t.Errorf("answer %s=%q: %d %s, want 400 INVALID_ANSWER", c.q, c.answer, st, code)
		}
	}
	s1.mustOK("PUT", "/api/student/exams/e1/answers/m1", map[string]string{"answer": "p3=r1,p1=r3"}, nil)
	s1.mustOK("PUT", "/api/student/exams/e1/answers/m2", map[string]string{"answer": "k2=jawa,k1=jawa,k3=bali"}, nil)
	got, err := l.db.Answers("e1", "m1")
	if err != nil {
		t.Fatal(err)
	}
	if got["m1"].Answer != "p1=r3,p3=r1" || got["m2"].Answer != "k1=jawa,k2=jawa,k3=bali" {
		t.Fatalf("stored: m1 %q, m2 %q", got["m1"].Answer, got["m2"].Answer)
	}
}

// typesAttempt is an attempt as the student page reads its questions'
// parts.
type typesAttempt struct {
	Questions []typesQuestionView
}

// typesQuestionView is a question of a typesAttempt.
type typesQuestionView struct {
	Number         int
	ID             string
	Premises       []client.QuestionOption
	Responses      []client.QuestionOption
	ReuseResponses bool `json:"reuse_responses"`
}

// question is the attempt's question of id.
func (a typesAttempt) question(t testing.TB, id string) typesQuestionView {
	t.Helper()
	for _, q := range a.Questions {
		if q.ID == id {
			return q
		}
	}
	t.Fatalf("no question %s in the attempt", id)
	return typesQuestionView{}
}
