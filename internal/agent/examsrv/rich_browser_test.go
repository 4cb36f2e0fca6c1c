package examsrv_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/richtext"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/client"
)

// richXSS are vectors that the portal's renderer turns into text; a
// package from a compromised portal could still carry them as HTML, which
// the lab server's second allow-list must strip.
var richXSS = testkit.XSSVectors

// richPackage is testPackage with exam e1's questions written in the
// markdown format: the formula fixture of school papers, a table, Arabic,
// and the XSS vectors, rendered as the portal renders them.
func richPackage(t *testing.T) *client.Package {
	t.Helper()
	render := func(src string) string {
		res, err := richtext.Render(richtext.Markdown, src, richtext.Options{})
		if err != nil || len(res.Problems) > 0 {
			t.Fatalf("render %q: %v %v", src, err, res.Problems)
		}
		return res.HTML
	}
	p := testPackage(t, 2)
	e := &p.Exams[0]
	texts := []string{
		"Hitung $\\frac{3}{4} + \\sqrt{16}$ dan $$\\int_0^1 x^2\\,dx$$",
		"Matriks $A = \\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}$, vektor $\\vec{v}$, $\\lim_{x \\to 0} \\frac{\\sin x}{x}$",
		"Reaksi $\\ce{H2SO4 + 2NaOH -> Na2SO4 + 2H2O}$, $\\Delta H < 0$, $25^\\circ\\mathrm{C}$",
		"| Kota | Suhu (°C) |\n|:--|--:|\n| Bandung | 22 |\n| Surabaya | 31 |\n\nKota mana yang **paling panas**?",
		"ما هو ناتج $2 + 2$؟ (Bahasa Arab)",
		strings.Join(richXSS, " dan ") + " <u>garis</u> H<sub>2</sub>O",
	}
	for i := range e.Questions[:len(texts)] {
		q := &e.Questions[i]
		q.Format, q.Text, q.HTML = "markdown", texts[i], render(texts[i])
		for j := range q.Options {
			o := &q.Options[j]
			o.Text = "$x^" + o.ID + "$ dan " + richXSS[j%len(richXSS)]
			o.HTML = render(o.Text)
		}
	}
	// A package from a compromised portal: raw vectors as HTML.
	q := &e.Questions[len(texts)]
	q.Format, q.Text, q.HTML = "markdown", "x", strings.Join(richXSS, "")+"<p>aman</p>"
	// A statement grid (pilihan ganda kompleks), one statement with a formula.
	g := &e.Questions[len(texts)+1]
	g.Type, g.Format, g.Options = "statement_grid", "markdown", nil
	g.Text, g.HTML = "Benar atau salah?", render("Benar atau salah?")
	g.Statements = []client.QuestionOption{{ID: "s1", Text: "$2$ bilangan prima", HTML: render("$2$ bilangan prima")},
		{ID: "s2", Text: "9 bilangan prima", HTML: render("9 bilangan prima")}}
	g.Columns = []client.QuestionOption{{ID: "true", Text: "Benar", HTML: render("Benar")}, {ID: "false", Text: "Salah", HTML: render("Salah")}}
	p.Format = 2
	return p
}

// e1Grid is the id of richPackage's statement grid (testPackage's eighth
// question).
const e1Grid = "q8"

// TestBrowserRichContent shows exam e1 with rich questions in Chromium at a
// desktop's and a phone's width: the formulas are MathML drawn with the
// embedded math font, the table and the Arabic text show, and no vector
// runs.
func TestBrowserRichContent(t *testing.T) {
	for _, width := range []int{1280, 390} {
		t.Run(map[int]string{1280: "wide", 390: "phone"}[width], func(t *testing.T) {
			p, l := openExam(t, richPackage(t), 2, width, 900)
			p.waitTrue("the math font loaded", `document.fonts.check('16px "STIX Two Math"') || (document.fonts.load('16px "STIX Two Math"'), false)`)
			total := p.count(".nav-item")
			seen := map[string]bool{}
			for n := 1; n <= total; n++ {
				p.goTo(n, total)
				text := p.eval("the question's text", `document.getElementById('question-text').textContent`, false)
				switch {
				case strings.Contains(text, "Hitung"):
					seen["math"] = true
					if got := p.count("#question-text math"); got != 2 {
						t.Errorf("question with two formulas has %d <math>", got)
					}
					if got := p.eval("display math", `document.querySelector('#question-text math[display="block"]') ? 'yes' : 'no'`, false); got != "yes" {
						t.Error("the $$ formula is not display math")
					}
					if got := p.eval("the math font", `getComputedStyle(document.querySelector('#question-text math')).fontFamily`, false); !strings.Contains(got, "STIX Two Math") {
						t.Errorf("math font-family %q", got)
					}
					if got := p.eval("the fraction is drawn", `String(document.querySelector('#question-text mfrac').getBoundingClientRect().height > 20)`, false); got != "true" {
						t.Error("the fraction is not drawn as a fraction (MathML not laid out)")
					}
				case strings.Contains(text, "Matriks"):
					seen["matrix"] = true
					if p.count("#question-text mtable mtr") != 2 || p.count("#question-text mover") < 1 {
						t.Error("the matrix or the vector is not MathML")
					}
				case strings.Contains(text, "Bandung"):
					seen["table"] = true
					if p.count("#question-text table td") != 4 || p.count("#question-text strong") != 1 {
						t.Error("the table or the bold text is missing")
					}
				case strings.Contains(text, "Bahasa Arab"):
					seen["arabic"] = true
					if got := p.eval("direction", `getComputedStyle(document.querySelector('#question-text p')).direction`, false); got != "rtl" {
						t.Errorf("the Arabic paragraph runs %q, want rtl", got)
					}
				case strings.Contains(text, "aman"):
					seen["compromised"] = true
				case strings.Contains(text, "Benar atau salah"):
					seen["grid"] = true
					if p.count("#answer-area table.grid tbody tr") != 2 || p.count("#answer-area .grid-statement math") != 1 {
						t.Error("the statement grid does not show its two statements with the formula")
					}
					p.do("answer the grid",
						chromedp.Click(chromedp.CSS(`[data-grid-statement="s2"][data-grid-column="false"]`)),
						chromedp.Click(chromedp.CSS(`[data-grid-statement="s1"][data-grid-column="true"]`)))
					p.waitTrue("the grid's answer is saved", `document.getElementById('save-status').textContent === 'Tersimpan'`)
					got, err := l.db.Answers("e1", "m1")
					if err != nil {
						t.Fatal(err)
					}
					if a := got[e1Grid].Answer; a != "s1=true,s2=false" {
						t.Errorf("the grid's stored answer = %q, want s1=true,s2=false", a)
					}
					if p.count(`#answer-area input.grid-choice:checked`) != 2 {
						t.Error("the chosen cells are not marked")
					}
					if width == 1280 {
						p.shot("student-statement-grid")
					}
				}
				// Whatever the question, nothing ran and nothing unsafe is in the DOM.
				if got := p.count("#question-panel script, #question-panel iframe, #question-panel svg, #question-panel a, #question-panel [onerror], #question-panel [onload], #question-panel [style*=url]"); got != 0 {
					t.Errorf("question %d holds %d unsafe elements", n, got)
				}
			}
			if got := p.eval("no vector ran", `String(window.__xss === undefined)`, false); got != "true" {
				t.Error("an XSS vector ran")
			}
			for _, k := range []string{"math", "matrix", "table", "arabic", "compromised", "grid"} {
				if !seen[k] {
					t.Errorf("no question showed the %s content", k)
				}
			}
			if got := p.eval("fits", `String(document.documentElement.scrollWidth <= window.innerWidth)`, false); got != "true" {
				t.Errorf("the page scrolls sideways at %d px", width)
			}
			p.checkClean()
		})
	}
}

// shot saves the page as docs/labagent/<name>.png when UPDATE_SCREENSHOTS=1.
func (p *studentPage) shot(name string) {
	p.t.Helper()
	if os.Getenv("UPDATE_SCREENSHOTS") != "1" {
		return
	}
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "..", "..", "docs", "labagent", name+".png"), png, 0o644); err != nil {
		p.t.Fatal(err)
	}
}
