package richtext

import (
	"errors"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/labwire/sanitize"
)

var (
	imgSum   = strings.Repeat("a", 64)
	audioSum = strings.Repeat("b", 64)
)

func testMedia(sum string) (Media, bool) {
	switch sum {
	case imgSum:
		return Media{URL: "media/" + imgSum}, true
	case audioSum:
		return Media{URL: "media/" + audioSum, Audio: true}, true
	}
	return Media{}, false
}

func mustRender(t *testing.T, f Format, src string) Result {
	t.Helper()
	res, err := Render(f, src, Options{Media: testMedia})
	if err != nil {
		t.Fatalf("Render(%s, %q): %v", f, src, err)
	}
	testkit.CheckRenderedHTML(t, src, res.HTML)
	return res
}

func TestPlainKeepsTextAsTyped(t *testing.T) {
	res := mustRender(t, Plain, "2 * 3 = _6_\n<b>not bold</b> & $x$")
	want := `<p dir="auto">2 * 3 = _6_<br>&lt;b&gt;not bold&lt;/b&gt; &amp; $x$</p>`
	if res.HTML != want || len(res.Problems) != 0 {
		t.Fatalf("plain: %q %v\nwant %q", res.HTML, res.Problems, want)
	}
	if res := mustRender(t, "", "a"); res.HTML != `<p dir="auto">a</p>` {
		t.Fatalf("no format is plain: %q", res.HTML)
	}
}

func TestMarkdown(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"**tebal** *miring* <u>garis</u> H<sub>2</sub>O x<sup>2</sup>",
			`<p dir="auto"><strong>tebal</strong> <em>miring</em> <u>garis</u> H<sub>2</sub>O x<sup>2</sup></p>`},
		{"baris satu\nbaris dua", `<p dir="auto">baris satu<br>` + "\n" + `baris dua</p>`},
		{"- satu\n- dua", "<ul>\n<li dir=\"auto\">satu</li>\n<li dir=\"auto\">dua</li>\n</ul>"},
		{"3. tiga\n4. empat", "<ol start=\"3\">\n<li dir=\"auto\">tiga</li>\n<li dir=\"auto\">empat</li>\n</ol>"},
		{"| a | b |\n|:-|-:|\n| 1 | 2 |", "<table>\n<thead>\n<tr>\n<th align=\"left\" dir=\"auto\">a</th>\n<th align=\"right\" dir=\"auto\">b</th>\n</tr>\n</thead>\n" +
			"<tbody>\n<tr>\n<td align=\"left\" dir=\"auto\">1</td>\n<td align=\"right\" dir=\"auto\">2</td>\n</tr>\n</tbody>\n</table>"},
		{"Apa fungsi tag <div> dan <script>?", `<p dir="auto">Apa fungsi tag &lt;div&gt; dan &lt;script&gt;?</p>`},
		{"# bukan judul\n> bukan kutipan", "<p dir=\"auto\"># bukan judul<br>\n&gt; bukan kutipan</p>"},
		{"`kode` dan harga Rp5.000", `<p dir="auto"><code>kode</code> dan harga Rp5.000</p>`},
		{"$5 dan $10 adalah harga", `<p dir="auto">$5 dan $10 adalah harga</p>`},
		{`ini \$x\$ bukan rumus`, `<p dir="auto">ini $x$ bukan rumus</p>`},
		{"ما هو ناتج ٢ + ٢؟", `<p dir="auto">ما هو ناتج ٢ + ٢؟</p>`},
	} {
		if res := mustRender(t, Markdown, tc.src); res.HTML != tc.want {
			t.Errorf("Render(%q) =\n%q\nwant\n%q", tc.src, res.HTML, tc.want)
		}
	}
}

// mathFixture is what school papers write: each formula must convert.
var mathFixture = []string{
	`\frac{3}{4} + \dfrac{a+b}{c}`, `\sqrt{2}`, `\sqrt[3]{x^2 + 1}`, `x^{2n} \cdot a_{ij} \cdot 10^{-3}`,
	`\sum_{i=1}^{n} i = \frac{n(n+1)}{2}`, `\int_0^1 x^2 \, dx`, `\oint_C \vec{F} \cdot d\vec{r}`,
	`\lim_{x \to 0} \frac{\sin x}{x} = 1`, `\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}`,
	`\begin{bmatrix} a & b \\ c & d \end{bmatrix}^{-1}`, `\det \begin{vmatrix} 1 & 0 \\ 0 & 1 \end{vmatrix}`,
	`\vec{v} = 3\hat{i} - 4\hat{j}`, `|\vec{AB}|`, `\ce{H2SO4 + 2NaOH -> Na2SO4 + 2H2O}`, `\ce{Fe^{3+}}`,
	`9{,}8\ \mathrm{m/s^2}`, `25^\circ\mathrm{C}`, `\alpha + \beta = \gamma`, `\Delta H < 0`, `\pi r^2`,
	`\theta`, `\lambda`, `\Omega`, `x \le 3`, `y \geq -2`, `a \neq b`, `2 < x \leqslant 5`, `\log_2 8 = 3`,
	`\binom{n}{k}`, `f'(x)`, `\overline{AB}`, `\angle ABC = 90^\circ`, `\triangle ABC \cong \triangle DEF`,
	`\{x \mid x > 0\}`, `A \cup B \cap C`, `\infty`, `\pm`,
}

func TestMathFixture(t *testing.T) {
	for _, tex := range mathFixture {
		for _, display := range []bool{false, true} {
			src := "$" + tex + "$"
			if display {
				src = "$$" + tex + "$$"
			}
			res := mustRender(t, Markdown, "Hitung "+src+" !")
			if len(res.Problems) != 0 || !strings.Contains(res.HTML, "<math") || strings.Contains(res.HTML, "tex-error") {
				t.Errorf("%s: %q %v", src, res.HTML, res.Problems)
			}
			if display != strings.Contains(res.HTML, `display="block"`) {
				t.Errorf("%s: display %v, got %q", src, display, res.HTML)
			}
		}
	}
}

func TestMathMultiLineDisplay(t *testing.T) {
	res := mustRender(t, Markdown, "Matriks:\n$$\n\\begin{pmatrix}\n1 & 2 \\\\\n3 & 4\n\\end{pmatrix}\n$$\nselesai")
	if len(res.Problems) != 0 || strings.Count(res.HTML, "<mn>") != 4 || !strings.Contains(res.HTML, "selesai") {
		t.Fatalf("multi-line display math: %q %v", res.HTML, res.Problems)
	}
	// No closing $$: the dollars are text.
	if res := mustRender(t, Markdown, "$$ x + 1\ntanpa penutup"); strings.Contains(res.HTML, "<math") || !strings.Contains(res.HTML, "$$ x + 1") {
		t.Fatalf("unclosed display math: %q", res.HTML)
	}
}

func TestMathErrorShowsSource(t *testing.T) {
	res := mustRender(t, Markdown, `Nilai $\frac{1}{$ dan $\foo{x}$ dan $x^2$.`)
	if len(res.Problems) != 2 || res.Problems[0].Code != "TEX_ERROR" || res.Problems[0].Source != `\frac{1}{` ||
		res.Problems[1].Source != `\foo{x}` || res.Problems[0].Message == "" || strings.Contains(res.Problems[0].Message, "\n") {
		t.Fatalf("problems: %+v", res.Problems)
	}
	for _, want := range []string{`<code class="tex-error">$\frac{1}{$</code>`, `<code class="tex-error">$\foo{x}$</code>`, "<math"} {
		if !strings.Contains(res.HTML, want) {
			t.Errorf("%q lacks %q", res.HTML, want)
		}
	}
}

func TestMathLimits(t *testing.T) {
	var me *MathError
	if _, err := MathML(strings.Repeat("x", MaxTeX+1), false); !errors.As(err, &me) {
		t.Fatalf("an over-long formula: %v", err)
	}
	// A macro that expands without end is stopped.
	if _, err := MathML(`\def\a{\a\a}\a`, false); !errors.As(err, &me) {
		t.Fatalf("an endless macro: %v", err)
	}
	// \href and friends are refused (trust is off).
	if _, err := MathML(`\href{javascript:alert(1)}{x}`, false); !errors.As(err, &me) {
		t.Fatalf(`\href: %v`, err)
	}
}

func TestMedia(t *testing.T) {
	res := mustRender(t, Markdown, "![Grafik fungsi kuadrat](media:"+imgSum+")\n\n![Percakapan di stasiun](media:"+audioSum+")\n\n"+
		"![Rekaman pengumuman \"kereta\" & 5](media:"+audioSum+" \"describe\")")
	if len(res.Problems) != 0 || len(res.Media) != 2 || res.Media[0] != imgSum {
		t.Fatalf("media: %q %v %v", res.HTML, res.Problems, res.Media)
	}
	// An audio's description reaches the page only when marked "describe".
	for _, want := range []string{`<img src="media/` + imgSum + `" alt="Grafik fungsi kuadrat" loading="lazy" data-media="` + imgSum + `">`,
		`<audio controls="" preload="metadata" src="media/` + audioSum + `" data-media="` + audioSum + `"></audio>`,
		`<audio controls="" preload="metadata" src="media/` + audioSum + `" data-media="` + audioSum +
			`" data-description="Rekaman pengumuman &#34;kereta&#34; &amp; 5"></audio>`} {
		if !strings.Contains(res.HTML, want) {
			t.Errorf("%q lacks %q", res.HTML, want)
		}
	}
	if strings.Contains(res.HTML, "Percakapan") {
		t.Errorf("an unmarked audio description reached the page: %q", res.HTML)
	}
	for src, code := range map[string]string{
		"![](media:" + imgSum + ")":                   "ALT_TEXT_REQUIRED",
		"![x](media:" + strings.Repeat("c", 64) + ")": "MEDIA_NOT_FOUND",
		"![x](media:../../etc/passwd)":                "MEDIA_NOT_FOUND",
		"![x](https://example.com/a.png)":             "REMOTE_MEDIA",
		"![x](//example.com/a.png)":                   "REMOTE_MEDIA",
		"[klik](https://example.com)":                 "LINK_NOT_ALLOWED",
		"![x](data:image/png;base64,iVBORw0KGgo=)":    "REMOTE_MEDIA",
		"![x](javascript:alert(1))":                   "REMOTE_MEDIA",
	} {
		res := mustRender(t, Markdown, src)
		if len(res.Problems) != 1 || res.Problems[0].Code != code || strings.Contains(res.HTML, "<img") || strings.Contains(res.HTML, "<a") {
			t.Errorf("%s: %q %+v, want one %s", src, res.HTML, res.Problems, code)
		}
	}
}

func TestRefused(t *testing.T) {
	if _, err := Render(Markdown, strings.Repeat("a", MaxSource+1), Options{}); err == nil {
		t.Fatal("an over-long text was rendered")
	}
	if _, err := Render("html", "x", Options{}); err == nil {
		t.Fatal("an unknown format was rendered")
	}
	if _, err := ParseFormat("latex"); err == nil {
		t.Fatal("ParseFormat accepted latex")
	}
}

// xssVectors are the OWASP XSS filter evasion cheat sheet's kinds of
// vectors (script tags, event handlers, javascript: URLs in every
// attribute, encodings, broken markup, SVG and MathML, CSS), as question
// text, options, statements and alt text would carry them.
var xssVectors = []string{
	`<script>alert('XSS')</script>`, `<SCRIPT SRC=http://xss.rocks/xss.js></SCRIPT>`,
	`<IMG SRC="javascript:alert('XSS');">`, `<IMG SRC=javascript:alert('XSS')>`, "<IMG SRC=`javascript:alert(\"XSS\")`>",
	`<IMG """><SCRIPT>alert("XSS")</SCRIPT>">`, `<IMG SRC=javascript:alert(String.fromCharCode(88,83,83))>`,
	`<IMG SRC=# onmouseover="alert('xxs')">`, `<IMG SRC= onmouseover="alert('xxs')">`, `<IMG onmouseover="alert('xxs')">`,
	`<IMG SRC=/ onerror="alert(String.fromCharCode(88,83,83))"></img>`, `<img src=x onerror="&#0000106&#0000097&#0000118">`,
	`<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>`,
	`<IMG SRC="jav	ascript:alert('XSS');">`, `<IMG SRC="jav&#x09;ascript:alert('XSS');">`, `<IMG SRC=" &#14;  javascript:alert('XSS');">`,
	`<SCRIPT/XSS SRC="http://xss.rocks/xss.js"></SCRIPT>`, `<BODY onload!#$%&()*~+-_.,:;?@[/|\]^` + "`" + `=alert("XSS")>`,
	`<<SCRIPT>alert("XSS");//\<</SCRIPT>`, `<SCRIPT SRC=http://xss.rocks/xss.js?< B >`, `<IMG SRC="` + "`" + `<javascript:alert>` + "`" + `('XSS')"`,
	`<iframe src=http://xss.rocks/scriptlet.html <`, `\";alert('XSS');//`, `</TITLE><SCRIPT>alert("XSS");</SCRIPT>`,
	`<INPUT TYPE="IMAGE" SRC="javascript:alert('XSS');">`, `<BODY BACKGROUND="javascript:alert('XSS')">`,
	`<IMG DYNSRC="javascript:alert('XSS')">`, `<STYLE>li {list-style-image: url("javascript:alert('XSS')");}</STYLE><UL><LI>XSS</br>`,
	`<svg/onload=alert('XSS')>`, `<svg><script>alert(1)</script></svg>`, `<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>`,
	`<math href="javascript:alert(1)">x</math>`, `<BR SIZE="&{alert('XSS')}">`, `<LINK REL="stylesheet" HREF="javascript:alert('XSS');">`,
	`<META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:alert('XSS');">`, `<TABLE BACKGROUND="javascript:alert('XSS')">`,
	`<TABLE><TD BACKGROUND="javascript:alert('XSS')">`, `<DIV STYLE="background-image: url(javascript:alert('XSS'))">`,
	`<DIV STYLE="width: expression(alert('XSS'));">`, `<BASE HREF="javascript:alert('XSS');//">`,
	`<OBJECT TYPE="text/x-scriptlet" DATA="http://xss.rocks/scriptlet.html"></OBJECT>`, `<EMBED SRC="data:image/svg+xml;base64,PHN2ZyB4bWxuczpzdmc9Imh0dH A6Ly93d3cudzMub3JnLzIwMDAvc3ZnIiB4bWxucz0iaHR0cDovL3d3dy53My5vcmcv MjAwMC9zdmciIHhtbG5zOnhsaW5rPSJodHRwOi8vd3d3LnczLm9yZy8xOTk5L3hs aW5rIiB2ZXJzaW9uPSIxLjAiIHg9IjAiIHk9IjAiIHdpZHRoPSIxOTQiIGhlaWdodD0iMjAw IiBpZD0ieHNzIj48c2NyaXB0IHR5cGU9InRleHQvZWNtYXNjcmlwdCI+YWxlcnQoIlh TUyIpOzwvc2NyaXB0Pjwvc3ZnPg==" type="image/svg+xml" AllowScriptAccess="always"></EMBED>`,
	`<a href="javascript:alert(1)">klik</a>`, `[klik](javascript:alert(1))`, `[klik](JaVaScRiPt:alert(1))`,
	`![x" onerror="alert(1)](media:` + strings.Repeat("a", 64) + `)`, `![<script>alert(1)</script>](media:` + strings.Repeat("a", 64) + `)`,
	`![x](media:` + strings.Repeat("a", 64) + ` "onerror=alert(1)")`, `$\href{javascript:alert(1)}{x}$`, `$\url{javascript:alert(1)}$`,
	`$\htmlClass{x}{y}$`, `$\style{background:url(x)}{y}$`, `$<img src=x onerror=alert(1)>$`, `$$</math><img src=x onerror=alert(1)>$$`,
	`<u onclick="alert(1)">x</u>`, `<sub/onmouseover=alert(1)>x</sub>`, `<br onload=alert(1)>`, "<scr<script>ipt>alert(1)</script>",
	"&lt;script&gt;alert(1)&lt;/script&gt;", "<!--<script>alert(1)//-->", "<![CDATA[<script>alert(1)</script>]]>",
	`| <img src=x onerror=alert(1)> | b |` + "\n|---|---|\n| <script>alert(1)</script> | `<svg onload=alert(1)>` |",
}

func TestXSSVectorsNeverBecomeMarkup(t *testing.T) {
	for _, v := range xssVectors {
		for _, f := range []Format{Plain, Markdown} {
			for _, src := range []string{v, "Soal: " + v + " selesai", "- " + v + "\n- b"} {
				mustRender(t, f, src) // checks the HTML
			}
		}
	}
}

// FuzzRender: whatever an author or an importer writes renders without
// error (up to MaxSource) to HTML that holds only the allow-list, and the
// sanitiser leaves that HTML as it is.
func FuzzRender(f *testing.F) {
	for _, v := range xssVectors {
		f.Add(v)
	}
	for _, tex := range mathFixture[:8] {
		f.Add("$" + tex + "$ dan $$" + tex + "$$")
	}
	f.Add("| a | b |\n|---|---|\n| $x$ | ![g](media:" + imgSum + ") |")
	f.Add("- **a** <u>b</u> H<sub>2</sub>O\n- `c` [d](e)")
	f.Fuzz(func(t *testing.T, src string) {
		for _, format := range []Format{Plain, Markdown} {
			res, err := Render(format, src, Options{Media: testMedia})
			if err != nil {
				if len(src) > MaxSource && format == Markdown {
					return
				}
				t.Fatalf("Render(%s, %q): %v", format, src, err)
			}
			testkit.CheckRenderedHTML(t, src, res.HTML)
			if again := sanitize.HTML(res.HTML); again != res.HTML && format == Markdown {
				t.Fatalf("the sanitiser changes its own output:\n%q\n%q", res.HTML, again)
			}
		}
	})
}

// TestMathListsTeX lists each converted formula's TeX in the order of
// its <math> element; a formula in error is not listed.
func TestMathListsTeX(t *testing.T) {
	res := mustRender(t, Markdown, `$a$ dan $\frac{1}{$ lalu $$b^2$$`)
	if strings.Join(res.Math, "|") != "a|b^2" || strings.Count(res.HTML, "<math") != 2 {
		t.Errorf("math %q in %q", res.Math, res.HTML)
	}
}
