package qbank

import (
	"slices"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/richtext"
	"github.com/seedhq/portal/internal/testkit"
)

var (
	imgSHA   = strings.Repeat("a", 64)
	audioSHA = strings.Repeat("b", 64)
)

// testMedia resolves the files of the tests: grafik.png, the images under
// @@PLUGINFILE@@/ and lagu.mp3.
func testMedia(src string) (string, bool) {
	switch src {
	case "grafik.png", "@@PLUGINFILE@@/grafik%20suhu.png", "@@PLUGINFILE@@/peta_jawa-2.jpg":
		return "media:" + imgSHA, true
	case "lagu.mp3", "@@PLUGINFILE@@/lagu.mp3":
		return "media:" + audioSHA, true
	}
	return "", false
}

func renderMedia(sha string) (richtext.Media, bool) {
	switch sha {
	case imgSHA:
		return richtext.Media{URL: "media/" + sha}, true
	case audioSHA:
		return richtext.Media{URL: "media/" + sha, Audio: true}, true
	}
	return richtext.Media{}, false
}

// mustRender renders md as the exam shows it, failing t on an error, an
// unsafe element or attribute, or a problem other than those allowed.
func mustRender(t testing.TB, src, md string, allowed ...string) string {
	t.Helper()
	res, err := richtext.Render(richtext.Markdown, md, richtext.Options{Media: renderMedia})
	if err != nil {
		t.Fatalf("HTMLToMarkdown(%.200q) = %.200q, which does not render: %v", src, md, err)
	}
	for _, p := range res.Problems {
		if !slices.Contains(allowed, p.Code) {
			t.Fatalf("HTMLToMarkdown(%q) = %q, which renders with %s: %s", src, md, p.Code, p.Message)
		}
	}
	testkit.CheckRenderedHTML(t, src, res.HTML)
	return res.HTML
}

func TestHTMLToMarkdown(t *testing.T) {
	tests := []struct {
		name, in, want string
		changes        []string // each must be among the changes (substring)
		html           string   // the rendered HTML must contain it
	}{
		{name: "plain text", in: "Berapa hasil 2 + 3?", want: "Berapa hasil 2 + 3?"},
		{name: "paragraphs", in: "<p>Satu</p><p>Dua</p>", want: "Satu\n\nDua"},
		{name: "line break", in: "<p>Satu<br>Dua<br/>Tiga</p>", want: "Satu\nDua\nTiga", html: "<br>"},
		{name: "whitespace collapsed", in: "<p>  Satu \n\n  dua\t tiga  </p>", want: "Satu dua tiga"},
		{name: "bold italic", in: "<p><b>tebal</b>, <strong>kuat</strong>, <i>miring</i> dan <em>tekan</em></p>",
			want: "**tebal**, **kuat**, *miring* dan *tekan*", html: "<strong>tebal</strong>"},
		{name: "spaces outside emphasis", in: "a<b> tebal </b>b", want: "a **tebal** b", html: "<strong>tebal</strong>"},
		{name: "nested emphasis", in: "<b>a <i>b</i> c</b>", want: "**a *b* c**", html: "<em>b</em>"},
		{name: "empty emphasis", in: "a<b> </b>b<i></i>", want: "a b"},
		{name: "u sub sup", in: "<u>garis</u> H<sub>2</sub>O x<sup>2</sup>", want: "<u>garis</u> H<sub>2</sub>O x<sup>2</sup>",
			html: "H<sub>2</sub>O"},
		{name: "emphasis over a line break", in: "<b>satu<br>dua</b>", want: "**satu**\n**dua**"},
		{name: "unordered list", in: "<ul><li>satu</li><li>dua <b>tebal</b></li></ul>", want: "- satu\n- dua **tebal**", html: "<ul>"},
		{name: "ordered list", in: "<ol start=\"3\"><li>tiga</li><li>empat</li></ol>", want: "3. tiga\n4. empat", html: `<ol start="3">`},
		{name: "nested list", in: "<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>", want: "- a\n  - b\n- c"},
		{name: "br between list items", in: "<ul><li>a</li><br><li>b</li><br/></ul>", want: "- a\n- b", html: "<li dir=\"auto\">b</li>\n</ul>"},
		{name: "br inside ordered list", in: "<ol><br><li>satu</li><br><br><li>dua</li></ol>", want: "1. satu\n2. dua"},
		{name: "text between list items", in: "<ul><li>a</li>lepas<li>b</li></ul>", want: "- a\n- lepas\n- b"},
		{name: "list item paragraphs", in: "<ol><li><p>satu</p><p>lagi</p></li></ol>", want: "1. satu\n   lagi"},
		{name: "table with header", in: "<table><thead><tr><th>Kota</th><th>Suhu</th></tr></thead><tbody><tr><td>Bandung</td><td>22</td></tr></tbody></table>",
			want: "| Kota | Suhu |\n|---|---|\n| Bandung | 22 |", html: "<th dir=\"auto\">Kota</th>"},
		{name: "table without header", in: "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>",
			want: "|  |  |\n|---|---|\n| a | b |\n| c |  |", html: "<td dir=\"auto\">c</td>"},
		{name: "table cell pipes and breaks", in: "<table><tr><th>a|b</th></tr><tr><td>x<br>y \\(|x|\\)</td></tr></table>",
			want: "| a\\|b |\n|---|\n| x<br>y $\\|x\\|$ |", html: "<math"},
		{name: "merged cells", in: "<table><tr><td colspan=\"2\">a</td></tr></table>", want: "|  |\n|---|\n| a |", changes: []string{"merged cells"}},
		{name: "code", in: "<p>Tag <code>&lt;div&gt; *x*</code> dan <code>a`b</code></p>", want: "Tag `<div> *x*` dan ``a`b``", html: "<code>&lt;div&gt; *x*</code>"},
		{name: "escaped specials", in: "<p>2 * 3 * 4 = 24, a_b_c, [x], &lt;b&gt;, $5 dan $10, a|b, \\n, &amp;lt;</p>",
			want: `2 \* 3 \* 4 = 24, a\_b\_c, \[x\], \<b>, \$5 dan \$10, a\|b, \\n, \&lt;`,
			html: "2 * 3 * 4 = 24, a_b_c, [x], &lt;b&gt;, $5 dan $10, a|b, \\n, &amp;lt;"},
		{name: "line start", in: "<p># bukan judul<br>- bukan daftar<br>1. bukan nomor<br>+ plus<br>2024) tahun</p>",
			want: "\\# bukan judul\n\\- bukan daftar\n1\\. bukan nomor\n\\+ plus\n2024\\) tahun",
			html: "# bukan judul<br>\n- bukan daftar<br>\n1. bukan nomor<br>\n+ plus<br>\n2024) tahun"},
		{name: "inline math", in: `<p>Hitung \( \frac{1}{2} + x^2 \) sekarang</p>`, want: `Hitung $\frac{1}{2} + x^2$ sekarang`, html: "<math"},
		{name: "display math brackets", in: `<p>\[\int_0^1 x\,dx\]</p>`, want: `$$\int_0^1 x\,dx$$`, html: `display="block"`},
		{name: "display math dollars", in: "<p>$$a &lt; b$$</p>", want: "$$a < b$$", html: "<math"},
		{name: "math over lines", in: "<p>\\[ a +\n b \\]</p>", want: "$$a + b$$"},
		{name: "math keeps underscores and stars", in: `\(a_1 * b_2\)`, want: `$a_1 * b_2$`},
		{name: "unclosed math is text", in: `harga \( 5`, want: `harga \\( 5`, html: `harga \( 5`},
		{name: "image", in: `<p><img src="grafik.png" alt="Grafik [suhu]" width="300" class="img-fluid"></p>`,
			want: "![Grafik (suhu)](media:" + imgSHA + ")", html: `alt="Grafik (suhu)"`},
		{name: "image alt from name", in: `<img src="@@PLUGINFILE@@/peta_jawa-2.jpg">`,
			want: "![peta jawa 2](media:" + imgSHA + ")", changes: []string{`its file name "peta jawa 2"`}},
		{name: "image alt from escaped name", in: `<img src="@@PLUGINFILE@@/grafik%20suhu.png" alt="">`, want: "![grafik suhu](media:" + imgSHA + ")"},
		{name: "image not found", in: `<p>Lihat <img src="http://evil.example/x.png" alt="peta"> ini</p>`, want: "Lihat peta ini",
			changes: []string{"dropped an image that could not be found or stored (http://evil.example/x.png)"}},
		{name: "data uri", in: `<img src="data:image/png;base64,AAAA" alt="p">`, want: "p", changes: []string{"(data:image/png;base64,…)"}},
		{name: "object fallback", in: `<object data="fig.svg" type="image/svg+xml"><param name="x" value="y"><img src="grafik.png" alt="Grafik"/></object>`,
			want: "![Grafik](media:" + imgSHA + ")", changes: []string{"an <object> (fig.svg) became its fallback content"}},
		{name: "object without fallback", in: `<object data="grafik.png" type="image/png"></object>`, want: "![grafik](media:" + imgSHA + ")",
			changes: []string{"an image had no description"}},
		{name: "audio", in: `<audio controls><source src="lagu.mp3" type="audio/mpeg"></audio>`,
			want: "![lagu](media:" + audioSHA + ")", html: "<audio", changes: []string{"an audio had no description"}},
		{name: "audio link", in: `<a href="@@PLUGINFILE@@/lagu.mp3">Dengarkan</a>`, want: "![Dengarkan](media:" + audioSHA + ")"},
		{name: "link", in: `<p>Baca <a href="https://id.wikipedia.org/wiki/Jawa">artikel ini</a>.</p>`, want: "Baca artikel ini.",
			changes: []string{"dropped a link to https://id.wikipedia.org/wiki/Jawa, kept its text"}},
		{name: "span style", in: `<p><span style="color:red">merah</span> <span>biasa</span></p>`, want: "merah biasa", changes: []string{"dropped <span style>"}},
		{name: "heading", in: "<h3>Bagian A</h3><p>isi</p>", want: "Bagian A\n\nisi", changes: []string{"dropped <h3>"}},
		{name: "script", in: "<p>a<script>alert(1)</script>b</p>", want: "ab", changes: []string{"dropped <script>"}},
		{name: "style element", in: "<style>p{color:red}</style><p>a</p>", want: "a", changes: []string{"dropped <style>"}},
		{name: "event handler", in: `<p onclick="alert(1)">a</p>`, want: "a", changes: []string{"dropped the onclick handler of <p>"}},
		{name: "pre", in: "<pre>baris 1\n  baris *2*</pre>", want: "baris 1\nbaris \\*2\\*", changes: []string{"dropped <pre>"}},
		{name: "entities", in: "<p>caf&eacute; &copy; &#8594;</p>", want: "café © →"},
		{name: "comment", in: "<p>a<!-- rahasia -->b</p>", want: "ab"},
		{name: "unknown element", in: "<p><foo>teks</foo></p>", want: "teks", changes: []string{"dropped <foo>"}},
		{name: "svg", in: "<p>a<svg><script>alert(1)</script></svg>b</p>", want: "ab", changes: []string{"dropped <svg>"}},
		{name: "empty", in: "", want: ""},
		{name: "arabic", in: "<p dir=\"rtl\">بِسْمِ اللَّهِ</p>", want: "بِسْمِ اللَّهِ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changes := HTMLToMarkdown(tt.in, testMedia)
			if got != tt.want {
				t.Errorf("HTMLToMarkdown(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
			}
			for _, c := range tt.changes {
				if !slices.ContainsFunc(changes, func(s string) bool { return strings.Contains(s, c) }) {
					t.Errorf("changes %q lack %q", changes, c)
				}
			}
			if len(tt.changes) == 0 && len(changes) != 0 && !strings.Contains(tt.name, "alt") {
				t.Errorf("unexpected changes %q", changes)
			}
			out := mustRender(t, tt.in, got)
			if !strings.Contains(out, tt.html) {
				t.Errorf("%q renders as\n%s\nwhich lacks %q", got, out, tt.html)
			}
		})
	}
}

func TestHTMLToMarkdownNotesOnce(t *testing.T) {
	_, changes := HTMLToMarkdown(strings.Repeat(`<span style="color:red">a</span><script>x</script>`, 20), nil)
	if len(changes) != 2 {
		t.Fatalf("changes = %q, want each kind once", changes)
	}
}

func TestHTMLToMarkdownDeep(t *testing.T) {
	in := strings.Repeat("<span><b>", 300) + "dalam" + strings.Repeat("</b></span>", 300)
	got, _ := HTMLToMarkdown(in, nil)
	if !strings.Contains(got, "dalam") {
		t.Fatalf("deep nesting lost its text: %q", got)
	}
	mustRender(t, "deep", got)
}

// OWASP's XSS filter evasion vectors, as HTML a bank could hold.
var xssVectors = []string{
	`<SCRIPT SRC=http://xss.rocks/xss.js></SCRIPT>`, `javascript:/*--></title></style></textarea></script></xmp><svg/onload='+/"/+/onmouseover=1/+/[*/[]/+alert(1)//'>`,
	`<IMG SRC="javascript:alert('XSS');">`, `<IMG SRC=javascript:alert('XSS')>`, `<IMG SRC=JaVaScRiPt:alert('XSS')>`,
	"<IMG SRC=`javascript:alert(\"RSnake says, 'XSS'\")`>", `<a onmouseover="alert(document.cookie)">xxs link</a>`,
	`<IMG """><SCRIPT>alert("XSS")</SCRIPT>"\>`, `<IMG SRC=# onmouseover="alert('xxs')">`, `<IMG SRC= onmouseover="alert('xxs')">`,
	`<IMG onmouseover="alert('xxs')">`, `<IMG SRC=/ onerror="alert(String.fromCharCode(88,83,83))"></img>`,
	`<img src=x onerror="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041">`,
	`<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>`,
	`<IMG SRC="jav	ascript:alert('XSS');">`, `<IMG SRC="jav&#x0A;ascript:alert('XSS');">`, `<IMG SRC=" &#14;  javascript:alert('XSS');">`,
	`<SCRIPT/XSS SRC="http://xss.rocks/xss.js"></SCRIPT>`, `<BODY onload!#$%&()*~+-_.,:;?@[/|\]^` + "`" + `=alert("XSS")>`,
	`<<SCRIPT>alert("XSS");//\<</SCRIPT>`, `<SCRIPT SRC=http://xss.rocks/xss.js?< B >`, `<IMG SRC="` + "`" + `javascript:alert('XSS')"`,
	`<iframe src=http://xss.rocks/scriptlet.html <`, `\";alert('XSS');//`, `</TITLE><SCRIPT>alert("XSS");</SCRIPT>`,
	`<INPUT TYPE="IMAGE" SRC="javascript:alert('XSS');">`, `<BODY BACKGROUND="javascript:alert('XSS')">`,
	`<IMG DYNSRC="javascript:alert('XSS')">`, `<STYLE>li {list-style-image: url("javascript:alert('XSS')");}</STYLE><UL><LI>XSS</br>`,
	`<svg/onload=alert('XSS')>`, `<BODY ONLOAD=alert('XSS')>`, `<BGSOUND SRC="javascript:alert('XSS');">`,
	`<LINK REL="stylesheet" HREF="javascript:alert('XSS');">`, `<STYLE>@import'http://xss.rocks/xss.css';</STYLE>`,
	`<META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:alert('XSS');">`, `<TABLE BACKGROUND="javascript:alert('XSS')">`,
	`<TABLE><TD BACKGROUND="javascript:alert('XSS')">`, `<DIV STYLE="background-image: url(javascript:alert('XSS'))">`,
	`<DIV STYLE="width: expression(alert('XSS'));">`, `<BASE HREF="javascript:alert('XSS');//">`,
	`<OBJECT TYPE="text/x-scriptlet" DATA="http://xss.rocks/scriptlet.html"></OBJECT>`,
	`<EMBED SRC="data:image/svg+xml;base64,PHN2ZyB4bWxuczpzdmc9Imh0dH A6Ly93d3cudzMub3JnLzIwMDAvc3ZnIiB4bWxucz0iaHR0cDovL3d3dy53My5vcmcv" type="image/svg+xml" AllowScriptAccess="always"></EMBED>`,
	`<a href="javascript:alert(1)">klik</a>`, `[klik](javascript:alert(1))`, `![x](javascript:alert(1))`,
	`<img src="grafik.png" alt='x" onerror="alert(1)'>`, `<img src="grafik.png" alt="<script>alert(1)</script>">`,
	`<img src="grafik.png" alt="](javascript:alert(1))">`, `<img src="grafik.png" alt="x](media:` + imgSHA + `) [y">`,
	`\(\href{javascript:alert(1)}{x}\)`, `\(\url{javascript:alert(1)}\)`, `$$</math><img src=x onerror=alert(1)>$$`,
	`<u onclick="alert(1)">x</u>`, `<sub/onmouseover=alert(1)>x</sub>`, `<br onload=alert(1)>`, "<scr<script>ipt>alert(1)</script>",
	"&lt;script&gt;alert(1)&lt;/script&gt;", "<!--<script>alert(1)//-->", "<![CDATA[<script>alert(1)</script>]]>",
	`<table><tr><td><img src=x onerror=alert(1)></td><td>&lt;script&gt;alert(1)&lt;/script&gt; | x</td></tr></table>`,
	`<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>`, "<code>`` <script>alert(1)</script></code>",
	`<a href="@@PLUGINFILE@@/lagu.mp3" onclick="alert(1)">x</a>`, `<audio src="javascript:alert(1)" onplay="alert(1)">`,
	`<p>&lt;u onclick=alert(1)&gt;x&lt;/u&gt;</p>`, `<p>&lt;sub&gt;ok&lt;/sub&gt; &lt;img src=x onerror=alert(1)&gt;</p>`,
}

func TestHTMLToMarkdownXSS(t *testing.T) {
	for _, v := range xssVectors {
		for _, src := range []string{v, "<p>Soal: " + v + " selesai</p>", "<ul><li>" + v + "</li></ul>", "<b>" + v + "</b>"} {
			md, _ := HTMLToMarkdown(src, testMedia)
			out := mustRender(t, src, md, "TEX_ERROR")
			if strings.Contains(strings.ToLower(out), "<script") || strings.Contains(strings.ToLower(out), "<a ") {
				t.Fatalf("HTMLToMarkdown(%q) = %q renders markup:\n%s", src, md, out)
			}
		}
	}
}

// FuzzHTMLToMarkdown: whatever HTML a bank holds converts without a panic
// to markdown that renders without error to the allow-list's HTML.
func FuzzHTMLToMarkdown(f *testing.F) {
	for _, v := range xssVectors {
		f.Add(v)
	}
	f.Add("<p>a<b> b </b><i>c</i> \\(x^2\\) \\[y\\] $$z$$ $5 *x* _y_ [z] |</p>")
	f.Add("<table><tr><th>a</th></tr><tr><td><ul><li>x</li></ul>\\(|x|\\)</td></tr></table>")
	f.Add("<ol start=7><li><p>a</p><ol><li>b</li></ol></li></ol><pre>x\n  - y</pre>")
	f.Add(`<img src="grafik.png"><audio><source src="lagu.mp3"></audio><a href="x">y</a>`)
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 16<<10 {
			return
		}
		md, _ := HTMLToMarkdown(src, testMedia)
		if len(md) > richtext.MaxSource {
			return
		}
		mustRender(t, src, md, "TEX_ERROR", "ALT_TEXT_REQUIRED")
	})
}
