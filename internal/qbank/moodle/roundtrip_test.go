package moodle

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/qbank/qbanktest"
	"github.com/seedhq/portal/internal/richtext"
)

// gen makes random exams of every type Moodle can hold, with markdown
// texts (emphasis, underline, sub- and superscripts, code, lists, tables,
// formulas, images and audio).
type gen struct {
	r      *rand.Rand
	images []string // media references
	audio  []string
}

var words = strings.Fields("apa siapa mengapa bilangan prima ibu kota Jawa Barat suhu Bandung 22 derajat gaya 5 N energi kinetik harga $5 2*3 a_b [x] x<y | # - 1.")

func (g *gen) word() string { return words[g.r.IntN(len(words))] }

// rawWords are up to n words as typed.
func (g *gen) rawWords(n int) string {
	var w []string
	for range 1 + g.r.IntN(n) {
		w = append(w, g.word())
	}
	return strings.Join(w, " ")
}

// words are up to n words, escaped as markdown text.
func (g *gen) words(n int) string { return escapeWords(g.rawWords(n)) }

var formulas = []string{`x^2`, `\frac{1}{2}`, `\sqrt{a+b}`, `\int_0^1 x\,dx`, `v = 20\,\mathrm{m/s}`, `\ce{H2O}`, `a_{ij}`, `|x| \le 3`}

// inline is a run of inline markdown; media: images may appear.
func (g *gen) inline(media bool) string {
	var parts []string
	for range 1 + g.r.IntN(5) {
		switch g.r.IntN(10) {
		case 0:
			parts = append(parts, "**"+g.words(2)+"**")
		case 1:
			parts = append(parts, "*"+g.words(2)+"*")
		case 2:
			parts = append(parts, "<u>"+g.words(2)+"</u>", "H<sub>2</sub>O x<sup>2</sup>")
		case 3:
			parts = append(parts, "$"+formulas[g.r.IntN(len(formulas))]+"$")
		case 4:
			parts = append(parts, "`kode "+g.word()+"`")
		case 5:
			if media {
				parts = append(parts, fmt.Sprintf("![Gambar %d](%s)", g.r.IntN(9), g.images[g.r.IntN(len(g.images))]))
			}
		default:
			parts = append(parts, g.words(4))
		}
	}
	return strings.Join(parts, " ")
}

// escapeWords escapes the words' markdown characters (they are text).
func escapeWords(s string) string {
	md, _ := qbank.HTMLToMarkdown(strings.NewReplacer("&", "&amp;", "<", "&lt;").Replace(s), nil)
	return md
}

// block is a text of several paragraphs, lists, tables and formulas.
func (g *gen) block() string {
	var blocks []string
	prev := -1
	for range 1 + g.r.IntN(3) {
		kind := g.r.IntN(6)
		if kind <= 1 && prev <= 1 && prev >= 0 {
			kind = 5 // two lists in a row would be one (loose) list
		}
		prev = kind
		switch kind {
		case 0:
			blocks = append(blocks, "- "+g.inline(false)+"\n- "+g.inline(false))
		case 1:
			blocks = append(blocks, "3. "+g.inline(false)+"\n4. "+g.inline(false))
		case 2:
			blocks = append(blocks, "| Kota | Suhu |\n|---|---|\n| "+g.words(2)+" | $"+formulas[g.r.IntN(len(formulas)-1)]+"$ |") // not |x|
		case 3:
			blocks = append(blocks, "$$"+formulas[g.r.IntN(len(formulas))]+"$$")
		case 4:
			blocks = append(blocks, g.inline(true)+"\n"+g.inline(false))
		default:
			blocks = append(blocks, g.inline(true))
		}
	}
	if g.r.IntN(4) == 0 {
		blocks = append(blocks, fmt.Sprintf("![Rekaman %d](%s)", g.r.IntN(9), g.audio[g.r.IntN(len(g.audio))]))
	}
	return strings.Join(blocks, "\n\n")
}

func (g *gen) options(n int) []exam.Option {
	var out []exam.Option
	for i := range n {
		out = append(out, exam.Option{ID: string(rune('a' + i)), Text: g.inline(true)})
	}
	return out
}

// plainish is a text Moodle's matching answers hold: words and formulas.
func (g *gen) plainish(i int) string {
	s := escapeWords(fmt.Sprintf("jawaban %d %s", i, g.word()))
	if g.r.IntN(2) == 0 {
		s += " $" + formulas[g.r.IntN(len(formulas))] + "$"
	}
	return s
}

func (g *gen) question(i int) exam.Question {
	q := exam.Question{ID: fmt.Sprintf("q%03d", i), Format: "markdown", Text: g.block(), Points: float64(1 + g.r.IntN(5)),
		Calibrated: qbanktest.Calibration(g.r)}
	if g.r.IntN(3) == 0 {
		q.Points += 0.5
	}
	switch g.r.IntN(9) {
	case 0:
		q.Type, q.Options = exam.SingleChoice, g.options(2+g.r.IntN(4))
		q.Answer = []string{q.Options[g.r.IntN(len(q.Options))].ID}
	case 1:
		q.Type, q.Options = exam.MultipleChoice, g.options(3+g.r.IntN(4))
		for _, o := range q.Options {
			if g.r.IntN(2) == 0 || len(q.Answer) == 0 {
				q.Answer = append(q.Answer, o.ID)
			}
		}
	case 2:
		q.Type, q.Answer = exam.TrueFalse, []string{[]string{"true", "false"}[g.r.IntN(2)]}
	case 3:
		q.Type = exam.ShortAnswer
		for range 1 + g.r.IntN(3) {
			q.Answer = append(q.Answer, g.rawWords(3))
		}
	case 4:
		q.Type, q.Rubric = exam.Essay, "Nilai penuh: "+g.rawWords(6)+"\n* dua alasan & <contoh>"
	case 5:
		q.Type = exam.Matching
		np, nr := 2+g.r.IntN(3), 0
		q.ReuseResponses = g.r.IntN(3) == 0
		if q.ReuseResponses {
			nr = 2
		} else {
			nr = np + g.r.IntN(2)
		}
		for j := range nr {
			q.Responses = append(q.Responses, exam.Option{ID: fmt.Sprintf("r%d", j+1), Text: g.plainish(j)})
		}
		perm := g.r.Perm(nr)
		for j := range np {
			q.Premises = append(q.Premises, exam.Option{ID: fmt.Sprintf("p%d", j+1), Text: g.inline(true)})
			r := perm[j%nr]
			if q.ReuseResponses {
				r = g.r.IntN(nr)
			}
			q.Answer = append(q.Answer, fmt.Sprintf("p%d=r%d", j+1, r+1))
		}
		if g.r.IntN(2) == 0 {
			q.Scoring = exam.ScoringPartial
		}
	case 6:
		q.Type = exam.StatementGrid
		ids := []string{"true", "false"}
		if g.r.IntN(2) == 0 {
			ids = []string{"c1", "c2", "c3"}
			for j, id := range ids {
				q.Columns = append(q.Columns, exam.Option{ID: id, Text: g.plainish(j)})
			}
		}
		for j := range 2 + g.r.IntN(3) {
			q.Statements = append(q.Statements, exam.Option{ID: fmt.Sprintf("s%d", j+1), Text: g.inline(true)})
			q.Answer = append(q.Answer, fmt.Sprintf("s%d=%s", j+1, ids[g.r.IntN(len(ids))]))
		}
		if g.r.IntN(2) == 0 {
			q.Scoring = exam.ScoringPartial
		}
	case 7:
		q.Type, q.Answer, q.Tolerance = exam.Numeric, []string{"2.5", "-1234"}[:1+g.r.IntN(2)], 0.05
		if g.r.IntN(2) == 0 {
			q.Tolerance, q.ToleranceMode = 5, exam.ToleranceRelative
		}
	case 8:
		q = g.cloze(q)
	}
	return q
}

// cloze makes q a cloze question of a text, a number and a choice blank.
func (g *gen) cloze(q exam.Question) exam.Question {
	q.Type, q.Points = exam.Cloze, 0
	q.Text += "\n\n" + g.words(3) + " [[b1]] " + g.words(2) + " [[b2]], [[b3]]."
	q.Blanks = []exam.Blank{
		{ID: "b1", Kind: exam.BlankText, Answer: []string{g.rawWords(3), "} ~ # / \" \\ a*b"}, Points: 2},
		{ID: "b2", Kind: exam.BlankNumber, Answer: []string{"128.3"}, Tolerance: 0.5, Points: 0.5},
		{ID: "b3", Kind: exam.BlankChoice, Options: []exam.Option{{ID: "o1", Text: g.plainish(1)}, {ID: "o2", Text: g.plainish(2)}},
			Answer: []string{"o2"}, Points: 1},
	}
	if g.r.IntN(2) == 0 {
		q.Blanks[1].Tolerance, q.Blanks[1].ToleranceMode = 1, exam.ToleranceRelative
	}
	return q
}

func (g *gen) exam(n int) exam.Exam {
	e := exam.Exam{Title: "Ujian " + g.word(), NPSNs: []string{"20100001"}, StartsAt: time.Unix(1e9, 0),
		EndsAt: time.Unix(1e9+7200, 0), DurationMinutes: 90}
	stimulus := ""
	for i := range n {
		if g.r.IntN(5) == 0 {
			stimulus = fmt.Sprintf("s%d", len(e.Stimuli)+1)
			e.Stimuli = append(e.Stimuli, exam.Stimulus{ID: stimulus, Title: "Bacaan " + g.word(), Format: "markdown", Text: g.block()})
		} else if g.r.IntN(3) == 0 {
			stimulus = ""
		}
		q := g.question(i + 1)
		q.Stimulus = stimulus
		e.Questions = append(e.Questions, q)
	}
	return e
}

// TestRoundTrip: an exam exported and imported again has the same
// questions (texts as students see them, types, keys, points, rubrics),
// stimuli and media, for every type Moodle can hold.
func TestRoundTrip(t *testing.T) {
	svc := mustService(t)
	g := &gen{r: rand.New(rand.NewPCG(1, 2))}
	for i := range 4 {
		m, err := svc.UploadMedia(t.Context(), fmt.Sprintf("g%d.png", i), bytes.NewReader(pngBytes(t, 2+i, 3)))
		if err != nil {
			t.Fatal(err)
		}
		g.images = append(g.images, "media:"+m.SHA256)
	}
	for i := range 2 {
		mp3 := append([]byte("ID3\x03\x00\x00\x00\x00\x00\x00"), bytes.Repeat([]byte{byte(i + 1)}, 64)...)
		m, err := svc.UploadMedia(t.Context(), "a.mp3", bytes.NewReader(mp3))
		if err != nil {
			t.Fatal(err)
		}
		g.audio = append(g.audio, "media:"+m.SHA256)
	}
	runs := 30
	if testing.Short() {
		runs = 5
	}
	for run := range runs {
		e := g.exam(1 + g.r.IntN(12))
		if err := exam.ValidateExam(&e); err != nil {
			t.Fatalf("run %d: generated exam: %v", run, err)
		}
		var buf bytes.Buffer
		if err := Export(t.Context(), &buf, e, svc); err != nil {
			t.Fatalf("run %d: Export: %v", run, err)
		}
		b, err := Import(t.Context(), bytes.NewReader(buf.Bytes()), svc)
		if err != nil {
			t.Fatalf("run %d: Import: %v\n%s", run, err, buf.String())
		}
		for _, it := range b.Items {
			if it.Status != qbank.Imported {
				t.Fatalf("run %d: item %+v\n%s", run, it, buf.String())
			}
		}
		if len(b.Questions) != len(e.Questions) {
			t.Fatalf("run %d: %d questions, want %d", run, len(b.Questions), len(e.Questions))
		}
		stimulus := map[string]exam.Stimulus{}
		for _, st := range e.Stimuli {
			stimulus[st.ID] = st
		}
		got := map[string]exam.Stimulus{}
		for _, st := range b.Stimuli {
			got[st.ID] = st
		}
		for i, want := range e.Questions {
			q := b.Questions[i]
			where := fmt.Sprintf("run %d question %s", run, want.ID)
			if q.Type != want.Type || q.Points != want.Points || q.Rubric != want.Rubric || q.Scoring != want.Scoring ||
				q.ReuseResponses != want.ReuseResponses || !slices.Equal(q.Answer, want.Answer) ||
				q.Tolerance != want.Tolerance || q.ToleranceMode != want.ToleranceMode || len(q.Blanks) != len(want.Blanks) {
				t.Fatalf("%s:\n got %+v\nwant %+v", where, q, want)
			}
			sameText(t, where+" text", want.Text, q.Text)
			for j, wb := range want.Blanks {
				gb := q.Blanks[j]
				if gb.ID != wb.ID || gb.Kind != wb.Kind || gb.Points != wb.Points || !slices.Equal(gb.Answer, wb.Answer) ||
					gb.Tolerance != wb.Tolerance || gb.ToleranceMode != wb.ToleranceMode || len(gb.Options) != len(wb.Options) {
					t.Fatalf("%s: blank\n got %+v\nwant %+v\n%s", where, gb, wb, buf.String())
				}
				for k, o := range wb.Options {
					if gb.Options[k].ID != o.ID {
						t.Fatalf("%s: blank options %+v, want %+v", where, gb.Options, wb.Options)
					}
					sameText(t, where+" "+wb.ID+" "+o.ID, o.Text, gb.Options[k].Text)
				}
			}
			for _, set := range [][2][]exam.Option{{want.Options, q.Options}, {want.Premises, q.Premises},
				{want.Responses, q.Responses}, {want.Statements, q.Statements}, {want.Columns, q.Columns}} {
				if len(set[0]) != len(set[1]) {
					t.Fatalf("%s: options %+v, want %+v", where, set[1], set[0])
				}
				for j := range set[0] {
					if set[0][j].ID != set[1][j].ID {
						t.Fatalf("%s: option ids %+v, want %+v", where, set[1], set[0])
					}
					sameText(t, where+" "+set[0][j].ID, set[0][j].Text, set[1][j].Text)
				}
			}
			if (want.Stimulus == "") != (q.Stimulus == "") {
				t.Fatalf("%s: stimulus %q, want %q", where, q.Stimulus, want.Stimulus)
			}
			if want.Stimulus != "" {
				ws, gs := stimulus[want.Stimulus], got[q.Stimulus]
				if gs.Title != ws.Title {
					t.Fatalf("%s: stimulus title %q, want %q", where, gs.Title, ws.Title)
				}
				sameText(t, where+" stimulus", ws.Text, gs.Text)
			}
		}
	}
}

// sameText fails t unless two markdown texts show the same to students
// (their rendered HTML is the same: text, formulas, media).
func sameText(t *testing.T, where, want, got string) {
	t.Helper()
	w, err1 := richtext.Render(richtext.Markdown, want, richtext.Options{Media: anyMedia})
	g, err2 := richtext.Render(richtext.Markdown, got, richtext.Options{Media: anyMedia})
	if err1 != nil || err2 != nil {
		t.Fatalf("%s: %v %v", where, err1, err2)
	}
	if w.HTML != g.HTML {
		t.Fatalf("%s:\n got %q\nwant %q\n got html %s\nwant html %s", where, got, want, g.HTML, w.HTML)
	}
}
