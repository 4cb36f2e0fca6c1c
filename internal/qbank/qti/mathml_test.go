package qti

import (
	"testing"

	"github.com/seedhq/portal/internal/richtext"
)

func TestMathTeX(t *testing.T) {
	for _, c := range []struct{ mathml, tex string }{
		{`<mi>x</mi><mo>+</mo><mn>1</mn>`, `x+1`},
		{`<mfrac><mi>a</mi><mrow><mi>b</mi><mo>+</mo><mn>1</mn></mrow></mfrac>`, `\frac{a}{b+1}`},
		{`<msqrt><mn>2</mn></msqrt>`, `\sqrt{2}`},
		{`<mroot><mn>27</mn><mn>3</mn></mroot>`, `\sqrt[3]{27}`},
		{`<msup><mi>x</mi><mrow><mn>2</mn><mi>n</mi></mrow></msup>`, `x^{2n}`},
		{`<msub><mi>a</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub>`, `a_{ij}`},
		{`<msubsup><mo>∫</mo><mn>0</mn><mn>1</mn></msubsup><mi>x</mi><mspace width="0.1667em"/><mi>d</mi><mi>x</mi>`, `\int_0^1x\,dx`},
		{`<munderover><mo>∑</mo><mrow><mi>i</mi><mo>=</mo><mn>1</mn></mrow><mi>n</mi></munderover><mi>i</mi>`, `\sum_{i=1}^ni`},
		{`<munder><mo>lim</mo><mrow><mi>x</mi><mo>→</mo><mn>0</mn></mrow></munder>`, `\lim_{x\to0}`},
		{`<mover><mi>F</mi><mo>→</mo></mover>`, `\vec{F}`},
		{`<mover><mi>x</mi><mo>¯</mo></mover>`, `\overline{x}`},
		{`<mi>sin</mi><mi>θ</mi>`, `\sin\theta`},
		{`<mi>α</mi><mo>≤</mo><mi>β</mi>`, `\alpha\le\beta`},
		{`<mtext>jika </mtext><mi>x</mi>`, `\text{jika }x`},
		{`<mrow><mo>[</mo><mtable><mtr><mtd><mn>1</mn></mtd><mtd><mn>2</mn></mtd></mtr></mtable><mo>]</mo></mrow>`, `\left[ \begin{matrix}1 & 2\end{matrix} \right]`},
		{`<mfenced><mi>a</mi><mi>b</mi></mfenced>`, `\left( a , b \right)`},
		{`<mn>25</mn><msup><mrow/><mo>°</mo></msup><mi mathvariant="normal">C</mi>`, `25{}^{^\circ}\mathrm{C}`},
		{`<mi>speed</mi>`, `\mathrm{speed}`},
		{`<mo>{</mo><mi>x</mi><mo>}</mo>`, `\{x\}`},
	} {
		root, err := parseXML([]byte(`<math xmlns="http://www.w3.org/1998/Math/MathML">` + c.mathml + `</math>`))
		if err != nil {
			t.Fatal(err)
		}
		tex, _, err := mathTeX(root)
		if err != nil || tex != c.tex {
			t.Errorf("%s: %q, %v; want %q", c.mathml, tex, err, c.tex)
			continue
		}
		if _, err := richtext.MathML(tex, false); err != nil {
			t.Errorf("%s: %q does not render: %v", c.mathml, tex, err)
		}
	}
}

func TestMathTeXAnnotation(t *testing.T) {
	root, _ := parseXML([]byte(`<math display="block"><semantics><mi>x</mi><annotation encoding="TeX">\frac{a}{b}</annotation></semantics></math>`))
	tex, display, err := mathTeX(root)
	if err != nil || tex != `\frac{a}{b}` || !display {
		t.Errorf("%q %v %v", tex, display, err)
	}
	root, _ = parseXML([]byte(`<math><menclose><mi>x</mi></menclose></math>`))
	if _, _, err := mathTeX(root); err == nil {
		t.Error("menclose converted")
	}
}
