package qti

import (
	"bytes"
	"fmt"
	"image/color"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank/qbanktest"
	"github.com/seedhq/portal/internal/richtext"
)

// formulas are TeX that school papers use, as Temml renders them.
var formulas = []string{`\frac{1}{2}`, `x^{2}+y^{2}=r^{2}`, `\sqrt[3]{27}`, `\vec{F}=m\vec{a}`, `\int_0^1 x\,dx`,
	`\lim_{x \to 0} \frac{\sin x}{x}`, `\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}`, `\ce{H2SO4 + 2NaOH -> Na2SO4 + 2H2O}`,
	`a_{ij} \le b`, `\sum_{i=1}^{n} i`, `25^\circ\mathrm{C}`, `\alpha + \beta \neq \gamma`}

var words = []string{"Ibu", "kota", "Indonesia", "adalah", "grafik", "suhu", "air", "mendidih", "pada", "tekanan", "sebuah", "benda", "jatuh"}

// gen makes exams with every question type, plain and markdown texts,
// media, math and stimuli, from a seed.
type gen struct {
	r      *rand.Rand
	images []string
	audio  []string
}

func (g *gen) words(n int) string {
	var ws []string
	for range n {
		ws = append(ws, words[g.r.IntN(len(words))])
	}
	return strings.Join(ws, " ")
}

// text is a text of format: a plain one has words and lines; a markdown
// one has at least one mark (bold, math, an image or an audio).
func (g *gen) text(format string, media bool) string {
	if format == "" {
		s := g.words(1 + g.r.IntN(6))
		if g.r.IntN(3) == 0 {
			s += "\n" + g.words(2)
		}
		return s
	}
	parts := []string{g.words(1 + g.r.IntN(4))}
	switch g.r.IntN(8) {
	case 6:
		parts = append(parts, "\n\n| Kota | Suhu |\n|--|--|\n| "+g.words(1)+" | 22 |\n| "+g.words(1)+" | $x^2$ |\n\n"+g.words(1))
	case 7:
		parts = append(parts, "\n\n1. "+g.words(2)+"\n2. **"+g.words(1)+"**\n\n- "+g.words(1)+"\n- $\\frac{a}{b}$\n\n"+g.words(1))
	case 0:
		parts = append(parts, "**"+g.words(2)+"**")
	case 1:
		parts = append(parts, "*"+g.words(1)+"*", "<u>"+g.words(1)+"</u>")
	case 2:
		parts = append(parts, "H<sub>2</sub>O", "x<sup>2</sup>")
	default:
		parts = append(parts, "$"+formulas[g.r.IntN(len(formulas))]+"$")
	}
	if g.r.IntN(4) == 0 {
		parts = append(parts, "\n\n$$"+formulas[g.r.IntN(len(formulas))]+"$$\n\n"+g.words(2))
	}
	if media && g.r.IntN(3) == 0 {
		parts = append(parts, "\n\n![Grafik "+g.words(2)+"](media:"+g.images[g.r.IntN(len(g.images))]+")")
	}
	if media && g.r.IntN(5) == 0 {
		parts = append(parts, "\n\n![Rekaman "+g.words(1)+"](media:"+g.audio[g.r.IntN(len(g.audio))]+")")
	}
	return strings.Join(parts, " ")
}

func (g *gen) options(prefix string, n int, format string) []exam.Option {
	var out []exam.Option
	for i := range n {
		out = append(out, exam.Option{ID: fmt.Sprintf("%s%d", prefix, i+1), Text: g.text(format, false)})
	}
	return out
}

func (g *gen) exam(n int) exam.Exam {
	e := exam.Exam{ID: "e1", Title: "Ujian " + g.words(2), NPSNs: []string{"12345678"},
		StartsAt: time.Date(2026, 5, 1, 7, 0, 0, 0, time.UTC), EndsAt: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC), DurationMinutes: 90}
	for i := range 1 + g.r.IntN(3) {
		format := []string{"", "markdown"}[g.r.IntN(2)]
		e.Stimuli = append(e.Stimuli, exam.Stimulus{ID: fmt.Sprintf("s%d", i+1), Title: "Bacaan " + g.words(1), Format: format, Text: g.text(format, true)})
	}
	types := []exam.QuestionType{exam.SingleChoice, exam.MultipleChoice, exam.TrueFalse, exam.ShortAnswer, exam.Essay, exam.StatementGrid, exam.Matching,
		exam.Numeric, exam.Cloze}
	for i := range n {
		format := []string{"", "markdown"}[g.r.IntN(2)]
		q := exam.Question{ID: fmt.Sprintf("%d", i+1), Type: types[i%len(types)], Format: format, Text: g.text(format, true),
			Points: float64(1 + g.r.IntN(5)), Calibrated: qbanktest.Calibration(g.r)}
		if g.r.IntN(2) == 0 {
			q.ID = fmt.Sprintf("q-%d", i+1)
		}
		if g.r.IntN(3) == 0 {
			q.Stimulus = e.Stimuli[g.r.IntN(len(e.Stimuli))].ID
		}
		switch q.Type {
		case exam.SingleChoice:
			q.Options = g.options("o", 2+g.r.IntN(4), format)
			q.Answer = []string{q.Options[g.r.IntN(len(q.Options))].ID}
		case exam.MultipleChoice:
			q.Options = g.options("o", 2+g.r.IntN(4), format)
			q.Answer = []string{q.Options[0].ID}
			if g.r.IntN(2) == 0 {
				q.Answer = append(q.Answer, q.Options[len(q.Options)-1].ID)
			}
		case exam.TrueFalse:
			q.Answer = []string{[]string{"true", "false"}[g.r.IntN(2)]}
		case exam.ShortAnswer:
			q.Answer = []string{"Jakarta", "DKI Jakarta"}[:1+g.r.IntN(2)]
		case exam.Essay:
			if g.r.IntN(2) == 0 {
				q.Rubric = "Menyebut " + g.words(2) + "\nMenjelaskan " + g.words(3)
			}
		case exam.StatementGrid:
			q.Statements = g.options("s", 1+g.r.IntN(4), format)
			if g.r.IntN(2) == 0 {
				q.Columns = g.options("c", 3, format)
			}
			cols := []string{"true", "false"}
			if q.Columns != nil {
				cols = []string{"c1", "c2", "c3"}
			}
			for _, s := range q.Statements {
				q.Answer = append(q.Answer, s.ID+"="+cols[g.r.IntN(len(cols))])
			}
			if g.r.IntN(2) == 0 {
				q.Scoring = exam.ScoringPartial
			}
		case exam.Matching:
			q.Premises = g.options("p", 2+g.r.IntN(3), format)
			q.Responses = g.options("r", len(q.Premises)+g.r.IntN(2), format)
			q.ReuseResponses = g.r.IntN(3) == 0
			perm := g.r.Perm(len(q.Responses))
			for i, p := range q.Premises {
				q.Answer = append(q.Answer, p.ID+"="+q.Responses[perm[i]].ID)
			}
			if g.r.IntN(2) == 0 {
				q.Scoring = exam.ScoringPartial
			}
		case exam.Numeric:
			q.Answer, q.Tolerance = []string{"2.5", "-1234.125"}[:1+g.r.IntN(2)], float64(g.r.IntN(3))/4
			if g.r.IntN(2) == 0 {
				q.ToleranceMode = exam.ToleranceRelative
			}
		case exam.Cloze:
			g.cloze(&q)
		}
		e.Questions = append(e.Questions, q)
	}
	return e
}

// cloze makes q a cloze question with a blank of each kind.
func (g *gen) cloze(q *exam.Question) {
	q.Format = "markdown"
	q.Text += "\n\n" + g.words(2) + " [[b1]] " + g.words(1) + " [[x.2]], *" + g.words(1) + "* [[b_3]]."
	q.Blanks = []exam.Blank{
		{ID: "b1", Kind: exam.BlankText, Answer: []string{"Jakarta", "DKI Jakarta"}[:1+g.r.IntN(2)], Points: 2},
		{ID: "x.2", Kind: exam.BlankNumber, Answer: []string{"128.3", "-2"}[:1+g.r.IntN(2)], Tolerance: float64(g.r.IntN(3)) / 2, Points: 0.5},
		{ID: "b_3", Kind: exam.BlankChoice, Options: []exam.Option{{ID: "o1", Text: g.words(2)}, {ID: "o2", Text: "$x^{2}$ " + g.words(1)},
			{ID: "o3", Text: "**" + g.words(1) + "**"}}, Answer: []string{[]string{"o1", "o2", "o3"}[g.r.IntN(3)]}, Points: 1},
	}
	if g.r.IntN(2) == 0 {
		q.Blanks[1].ToleranceMode = exam.ToleranceRelative
	}
}

// rendered is a text as students see it.
func rendered(t *testing.T, format, text string) string {
	t.Helper()
	f, err := richtext.ParseFormat(format)
	if err != nil {
		t.Fatal(err)
	}
	res, err := richtext.Render(f, text, richtext.Options{Media: func(sha string) (richtext.Media, bool) {
		return richtext.Media{URL: "media/" + sha}, true
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 {
		t.Errorf("%q renders with problems %v", text, res.Problems)
	}
	return res.HTML
}

// TestRoundTrip exports generated exams and imports them back: the same
// questions, keys, points, media, math and stimuli.
func TestRoundTrip(t *testing.T) {
	svc := MustService(t)
	ctx := t.Context()
	g := &gen{}
	for i := range 3 {
		m, err := svc.UploadMedia(ctx, fmt.Sprintf("g%d.png", i), bytes.NewReader(pngBytes(t, color.RGBA{uint8(40 * i), 100, 200, 255})))
		if err != nil {
			t.Fatal(err)
		}
		g.images = append(g.images, m.SHA256)
	}
	for i := range 2 {
		m, err := svc.UploadMedia(ctx, fmt.Sprintf("a%d.mp3", i), bytes.NewReader(mp3Bytes(byte(i+1))))
		if err != nil {
			t.Fatal(err)
		}
		g.audio = append(g.audio, m.SHA256)
	}
	for seed := range uint64(12) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g.r = rand.New(rand.NewPCG(seed, 7))
			e := g.exam(7 + g.r.IntN(8))
			if err := exam.ValidateExam(&e); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := Export(ctx, &buf, e, svc); err != nil {
				t.Fatal(err)
			}
			bank := MustImport(t, svc, buf.Bytes())
			if bank.Title != e.Title {
				t.Errorf("title %q, want %q", bank.Title, e.Title)
			}
			for _, it := range bank.Items {
				if it.Status != "imported" {
					t.Errorf("item %d %s: %s %s %s %v", it.Position, it.Title, it.Status, it.Code, it.Message, it.Changes)
				}
			}
			if len(bank.Questions) != len(e.Questions) {
				t.Fatalf("%d questions, want %d", len(bank.Questions), len(e.Questions))
			}
			used := map[string]bool{}
			for i, want := range e.Questions {
				got := bank.Questions[i]
				compareQuestion(t, got, want)
				used[want.Stimulus] = true
			}
			var wantSt []exam.Stimulus
			for _, st := range e.Stimuli {
				if used[st.ID] {
					wantSt = append(wantSt, st)
				}
			}
			if len(bank.Stimuli) != len(wantSt) {
				t.Fatalf("%d stimuli, want %d", len(bank.Stimuli), len(wantSt))
			}
			byID := map[string]exam.Stimulus{}
			for _, st := range bank.Stimuli {
				byID[st.ID] = st
			}
			for _, want := range wantSt {
				got := byID[want.ID]
				if got.Title != want.Title || rendered(t, got.Format, got.Text) != rendered(t, want.Format, want.Text) {
					t.Errorf("stimulus %s: got %+v, want %+v", want.ID, got, want)
				}
			}
		})
	}
}

func compareQuestion(t *testing.T, got, want exam.Question) {
	t.Helper()
	same := func(what string, a, b any) {
		if !reflect.DeepEqual(a, b) {
			t.Errorf("question %s: %s %v, want %v", want.ID, what, a, b)
		}
	}
	same("id", got.ID, want.ID)
	same("type", got.Type, want.Type)
	same("answer", got.Answer, want.Answer)
	same("points", got.Points, want.Points)
	same("stimulus", got.Stimulus, want.Stimulus)
	same("scoring", got.Scoring, want.Scoring)
	same("reuse", got.ReuseResponses, want.ReuseResponses)
	same("rubric", got.Rubric, want.Rubric)
	same("tolerance", got.Tolerance, want.Tolerance)
	same("tolerance mode", got.ToleranceMode, want.ToleranceMode)
	same("blanks", len(got.Blanks), len(want.Blanks))
	for i := range min(len(got.Blanks), len(want.Blanks)) {
		gb, wb := got.Blanks[i], want.Blanks[i]
		same("blank", []any{gb.ID, gb.Kind, gb.Answer, gb.Points, gb.Tolerance, gb.ToleranceMode, len(gb.Options)},
			[]any{wb.ID, wb.Kind, wb.Answer, wb.Points, wb.Tolerance, wb.ToleranceMode, len(wb.Options)})
		for k := range min(len(gb.Options), len(wb.Options)) {
			same("blank option id", gb.Options[k].ID, wb.Options[k].ID)
			same("blank option", rendered(t, got.Format, gb.Options[k].Text), rendered(t, want.Format, wb.Options[k].Text))
		}
	}
	same("text", rendered(t, got.Format, got.Text), rendered(t, want.Format, want.Text))
	if t.Failed() && rendered(t, got.Format, got.Text) != rendered(t, want.Format, want.Text) {
		t.Logf("text %q\nwant %q", got.Text, want.Text)
	}
	for _, p := range [][2][]exam.Option{{got.Options, want.Options}, {got.Statements, want.Statements},
		{got.Columns, want.Columns}, {got.Premises, want.Premises}, {got.Responses, want.Responses}} {
		if len(p[0]) != len(p[1]) {
			t.Errorf("question %s: options %v, want %v", want.ID, p[0], p[1])
			continue
		}
		for i := range p[0] {
			same("option id", p[0][i].ID, p[1][i].ID)
			same("option "+p[1][i].ID, rendered(t, got.Format, p[0][i].Text), rendered(t, want.Format, p[1][i].Text))
		}
	}
}
