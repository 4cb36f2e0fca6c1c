package moodle

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/store/bolt"
)

// mustService opens a real exam service on a bbolt store in t's
// directory: the media store of the tests (without an fsync per commit,
// unless opts say otherwise: the benchmark's store syncs).
func mustService(t testing.TB, opts ...bolt.Option) *exam.Service {
	t.Helper()
	if opts == nil {
		opts = []bolt.Option{bolt.WithNoSync()}
	}
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := exam.NewService(context.Background(), st, exam.Config{TempDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func mustImport(t testing.TB, svc *exam.Service, src string) *qbank.Bank {
	t.Helper()
	b, err := Import(context.Background(), strings.NewReader(src), svc)
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	return b
}

func mustImportFile(t testing.TB, svc *exam.Service, name string) *qbank.Bank {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := Import(context.Background(), f, svc)
	if err != nil {
		t.Fatalf("Import(%s): %v", name, err)
	}
	return b
}

// want is an item's expected report: its status, and its code or a
// change it must list.
type want struct {
	title  string
	status qbank.Status
	code   string
	change string
}

func checkReport(t *testing.T, b *qbank.Bank, wants []want) {
	t.Helper()
	if len(b.Items) != len(wants) {
		for _, it := range b.Items {
			t.Logf("%+v", it)
		}
		t.Fatalf("%d items, want %d", len(b.Items), len(wants))
	}
	for i, w := range wants {
		it := b.Items[i]
		if it.Position != i+1 || it.Title != w.title || it.Status != w.status || it.Code != w.code {
			t.Errorf("item %d = %+v, want %+v", i+1, it, w)
		}
		if w.change != "" && !slices.ContainsFunc(it.Changes, func(c string) bool { return strings.Contains(c, w.change) }) {
			t.Errorf("item %d changes %q lack %q", i+1, it.Changes, w.change)
		}
		if w.status == qbank.Imported && len(it.Changes) > 0 {
			t.Errorf("item %d imported with changes %q", i+1, it.Changes)
		}
	}
}

func question(t *testing.T, b *qbank.Bank, id string) exam.Question {
	t.Helper()
	for _, q := range b.Questions {
		if q.ID == id {
			return q
		}
	}
	t.Fatalf("no question %s in %+v", id, b.Questions)
	return exam.Question{}
}

func TestImportMultichoiceFixture(t *testing.T) {
	svc := mustService(t)
	b := mustImportFile(t, svc, "multichoice.xml")
	checkReport(t, b, []want{
		{title: "Greeting", status: qbank.Imported},
		{title: "Bilangan prima", status: qbank.Changed, change: "dropped the penalty"},
		{title: "Bendera", status: qbank.Changed, change: "dropped the file bendera.gif"},
	})
	if b.Title != "Default for testhead/Multichoice" {
		t.Errorf("title %q", b.Title)
	}
	q := question(t, b, "q001")
	if q.Type != exam.SingleChoice || !slices.Equal(q.Answer, []string{"b"}) || q.Points != 1 || len(q.Options) != 3 || q.Options[1].Text != "French" {
		t.Errorf("q001 = %+v", q)
	}
	m, err := svc.GetMedia(t.Context(), sha(t, q.Text))
	if err != nil || m.Kind != exam.MediaAudio || m.Name != "bonjour.mp3" {
		t.Errorf("q001 audio %+v, %v (text %q)", m, err, q.Text)
	}
	if !strings.HasPrefix(q.Text, "![Listen to this greeting:](media:") || !strings.HasSuffix(q.Text, "What language is being spoken?") {
		t.Errorf("q001 text %q", q.Text)
	}
	q = question(t, b, "q002")
	if q.Type != exam.MultipleChoice || !slices.Equal(q.Answer, []string{"a", "b", "d"}) || q.Points != 2 {
		t.Errorf("q002 = %+v", q)
	}
	if !strings.Contains(q.Text, `$n \le 6$`) || !strings.Contains(q.Text, "![Garis bilangan 1 sampai 6](media:") {
		t.Errorf("q002 text %q", q.Text)
	}
	if m, err := svc.GetMedia(t.Context(), sha(t, q.Text)); err != nil || m.Type != "image/png" {
		t.Errorf("q002 image %+v, %v", m, err)
	}
	q = question(t, b, "q003")
	if q.Text != "Bendera ini milik negara mana?\n\nBendera" {
		t.Errorf("q003 text %q", q.Text)
	}
}

// sha is the SHA-256 of the first media reference of md.
func sha(t *testing.T, md string) string {
	t.Helper()
	i := strings.Index(md, "(media:")
	if i < 0 || len(md) < i+7+64 {
		t.Fatalf("no media in %q", md)
	}
	return md[i+7 : i+7+64]
}

func TestImportNestedCategoriesFixture(t *testing.T) {
	b := mustImportFile(t, mustService(t), "nested_categories.xml")
	checkReport(t, b, []want{
		{title: "Iota Question", status: qbank.Imported},
		{title: "Kappa Essay Question", status: qbank.Imported},
		{title: "Kappa Question", status: qbank.Imported},
	})
	if b.Title != "Iota" {
		t.Errorf("title %q", b.Title)
	}
	if q := question(t, b, "q001"); q.Type != exam.TrueFalse || q.Answer[0] != "true" || q.Text != "Testing Iota Question" {
		t.Errorf("q001 = %+v", q)
	}
	if q := question(t, b, "q002"); q.Type != exam.Essay || q.Rubric != "Full marks for naming two causes." || q.Points != 1 {
		t.Errorf("q002 = %+v", q)
	}
	if q := question(t, b, "q003"); q.Answer[0] != "false" {
		t.Errorf("q003 = %+v", q)
	}
}

func TestImportMixedFixture(t *testing.T) {
	b := mustImportFile(t, mustService(t), "mixed.xml")
	checkReport(t, b, []want{
		{title: "Bacaan: gerak lurus", status: qbank.Imported},
		{title: "Jarak", status: qbank.Changed, change: `dropped the answer "seratus"`},
		{title: "Waktu", status: qbank.Imported},
		{title: "Besaran dan satuan", status: qbank.Imported},
		{title: "Dihitung", status: qbank.Refused, code: "UNSUPPORTED_TYPE"},
		{title: "Cloze", status: qbank.Imported},
		{title: "Seret", status: qbank.Refused, code: "KEY_NOT_AN_OPTION"},
		{title: "Rumus rusak", status: qbank.Refused, code: "TEX_ERROR"},
		{title: "Gambar hilang", status: qbank.Refused, code: "MEDIA_NOT_FOUND"},
		{title: "Tanpa kunci", status: qbank.Refused, code: "KEY_NOT_AN_OPTION"},
	})
	if b.Title != "Fisika Kelas X" {
		t.Errorf("title %q", b.Title)
	}
	if i, c, r := b.Counts(); i != 4 || c != 1 || r != 5 {
		t.Errorf("counts %d %d %d", i, c, r)
	}
	if len(b.Stimuli) != 1 || b.Stimuli[0].ID != "s001" || b.Stimuli[0].Text != `Sebuah mobil bergerak dengan kecepatan tetap $v = 20\,\mathrm{m/s}$.` {
		t.Errorf("stimuli %+v", b.Stimuli)
	}
	if q := question(t, b, "q002"); q.Stimulus != "s001" || !slices.Equal(q.Answer, []string{"100", "100 m"}) {
		t.Errorf("q002 = %+v", q)
	}
	if q := question(t, b, "q003"); q.Stimulus != "s001" || q.Type != exam.Numeric || !slices.Equal(q.Answer, []string{"2.5"}) || q.Tolerance != 0.1 {
		t.Errorf("q003 = %+v", q)
	}
	q := question(t, b, "q004")
	if q.Stimulus != "" || q.Type != exam.Matching || q.Scoring != exam.ScoringPartial || q.Points != 3 || q.ReuseResponses {
		t.Errorf("q004 = %+v", q)
	}
	var resp []string
	for _, r := range q.Responses {
		resp = append(resp, r.Text)
	}
	if !slices.Equal(resp, []string{"m/s", `$\mathrm{m/s^2}$`, "N", "J"}) || !slices.Equal(q.Answer, []string{"p1=r1", "p2=r2", "p3=r3"}) {
		t.Errorf("q004 responses %q key %q", resp, q.Answer)
	}
	if q := question(t, b, "q006"); q.Type != exam.Cloze || q.Text != "Ibu kota Jawa Barat adalah [[b1]]." || !slices.Equal(q.Blanks[0].Answer, []string{"Bandung"}) {
		t.Errorf("q006 = %+v", q)
	}
	if len(b.Questions) != 4 {
		t.Errorf("%d questions", len(b.Questions))
	}
}

func TestImportTextFormats(t *testing.T) {
	src := `<quiz>
<question type="truefalse"><name><text>plain</text></name>
<questiontext format="plain_text"><text>2 * 3 &lt; 7, $5
baris dua \(x^2\)</text></questiontext>
<answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text></answer></question>
<question type="truefalse"><name><text>auto</text></name>
<questiontext format="moodle_auto_format"><text>satu
dua</text></questiontext>
<answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text></answer></question>
<question type="truefalse"><name><text>md</text></name>
<questiontext format="markdown"><text>**tebal** $x$</text></questiontext>
<answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text></answer></question>
</quiz>`
	b := mustImport(t, mustService(t), src)
	for i, want := range []string{"2 \\* 3 \\< 7, \\$5\nbaris dua $x^2$", "satu\ndua", "**tebal** $x$"} {
		if got := b.Questions[i].Text; got != want {
			t.Errorf("question %d text %q, want %q", i+1, got, want)
		}
	}
	if b.Items[2].Status != qbank.Changed {
		t.Errorf("markdown item %+v", b.Items[2])
	}
}

func TestImportRefusesFiles(t *testing.T) {
	svc := mustService(t)
	one := `<question type="truefalse"><name><text>x</text></name><questiontext format="html"><text>t</text></questiontext>` +
		`<answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text></answer></question>`
	tests := []struct {
		name, src string
		code      string
	}{
		{"doctype entity", `<?xml version="1.0"?><!DOCTYPE quiz [<!ENTITY x SYSTEM "file:///etc/passwd">]><quiz>` + one + `</quiz>`, "INVALID_BANK"},
		{"billion laughs", `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">` +
			`<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><quiz>` + one + `<question type="essay"><name><text>&lol3;</text></name></question></quiz>`, "INVALID_BANK"},
		{"undefined entity", `<quiz><question type="essay"><name><text>&xxe;</text></name></question></quiz>`, "INVALID_BANK"},
		{"external entity without doctype", `<quiz>` + one + `<question type="essay"><name><text>&xxe;</text></name></question></quiz>`, "INVALID_BANK"},
		{"not a quiz", `<html><body>x</body></html>`, "INVALID_BANK"},
		{"empty", ``, "INVALID_BANK"},
		{"not xml", `{"quiz": []}`, "INVALID_BANK"},
		{"unclosed", `<quiz>` + one, "INVALID_BANK"},
		{"trailing", `<quiz>` + one + `</quiz><quiz></quiz>`, "INVALID_BANK"},
		{"deep", `<quiz><question type="essay">` + strings.Repeat("<a>", qbank.MaxXMLDepth) + strings.Repeat("</a>", qbank.MaxXMLDepth) + `</question></quiz>`, "INVALID_BANK"},
		{"other charset", `<?xml version="1.0" encoding="ISO-8859-1"?><quiz></quiz>`, "INVALID_BANK"},
		{"too many items", `<quiz>` + strings.Repeat(one, qbank.MaxItems+1) + `</quiz>`, "TOO_MANY_ITEMS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Import(t.Context(), strings.NewReader(tt.src), svc)
			if err == nil {
				t.Fatalf("Import = %+v, want %s", b, tt.code)
			}
			if apperr.CodeOf(err) != tt.code {
				t.Fatalf("Import: %v (%s), want %s", err, apperr.CodeOf(err), tt.code)
			}
		})
	}
	// The largest number of items is taken.
	if b := mustImport(t, svc, `<quiz>`+strings.Repeat(one, qbank.MaxItems)+`</quiz>`); len(b.Questions) != qbank.MaxItems {
		t.Fatalf("%d questions", len(b.Questions))
	}
}

// TestImportTooLarge: a file over qbank.MaxFileSize is refused without
// being read further.
func TestImportTooLarge(t *testing.T) {
	comment := "<!-- " + strings.Repeat("x", 4<<10) + " -->\n"
	const limit = 1 << 20 // Import's is qbank.MaxFileSize
	r := io.MultiReader(strings.NewReader("<quiz>"), &repeatReader{s: comment, n: limit}, strings.NewReader("</quiz>"))
	_, err := importLimited(t.Context(), r, mustService(t), limit, maxToken)
	if !errors.Is(err, qbank.ErrTooLarge) {
		t.Fatalf("Import: %v, want ErrTooLarge", err)
	}
	r = io.MultiReader(strings.NewReader("<quiz>"), &repeatReader{s: comment, n: int64(limit/len(comment)-1) * int64(len(comment))}, strings.NewReader("</quiz>"))
	if _, err := importLimited(t.Context(), r, mustService(t), limit, maxToken); err != nil {
		t.Fatalf("a file below the limit: %v", err)
	}
}

// TestImportTokenLimit: a text, CDATA section, comment or tag longer than
// encoding/xml should hold is refused before it is read whole.
func TestImportTokenLimit(t *testing.T) {
	r := io.MultiReader(strings.NewReader("<quiz><question type=\"essay\"><name><text>"), &repeatReader{s: "x", n: 4 << 20},
		strings.NewReader("</text></name></question></quiz>"))
	_, err := importLimited(t.Context(), r, mustService(t), qbank.MaxFileSize, 2<<20) // Import's is maxToken, 48 MiB
	if apperr.CodeOf(err) != "INVALID_BANK" || !strings.Contains(err.Error(), "more than 2 MiB") {
		t.Errorf("Import: %v, want the text refused", err)
	}
	// Each kind of token, with a limit of 1 KiB.
	for name, parts := range map[string][3]string{
		"text":    {"<quiz><question type=\"essay\"><name><text>", "x", "</text></name></question></quiz>"},
		"cdata":   {"<quiz><![CDATA[", "<a>]]", "]]></quiz>"},
		"comment": {"<quiz><!--", "<x>->", "--></quiz>"},
		"tag":     {"<quiz><question type=\"", "x>", "\"></question></quiz>"},
		"pi":      {"<quiz><?x ", "y", "?></quiz>"},
	} {
		for _, n := range []int64{1000, 1100} {
			lr := &limitReader{r: io.MultiReader(strings.NewReader(parts[0]), &repeatReader{s: parts[1], n: n}, strings.NewReader(parts[2])), left: 1 << 20}
			_, err := io.Copy(io.Discard, &tokenLimiter{r: lr, lr: lr, max: 1024})
			if refused := err != nil && lr.tokenErr != nil; refused != (n > 1024) {
				t.Errorf("%s of %d bytes: %v", name, n, err)
			}
		}
	}
	// Tokens below the limit, one after the other, pass.
	lr := &limitReader{r: strings.NewReader(strings.Repeat("<a b='>'>"+strings.Repeat("x", 900)+"<!--"+strings.Repeat("-", 900)+"--><![CDATA["+strings.Repeat("]", 900)+"]]></a>", 50)), left: 1 << 20}
	if _, err := io.Copy(io.Discard, &tokenLimiter{r: lr, lr: lr, max: 1024}); err != nil {
		t.Errorf("small tokens: %v", err)
	}
}

// repeatReader reads s again and again, n bytes in all.
type repeatReader struct {
	s   string
	n   int64
	off int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && r.n > 0 {
		c := copy(p[n:min(len(p), n+int(min(r.n, int64(len(r.s)-r.off))))], r.s[r.off:])
		n += c
		r.n -= int64(c)
		r.off = (r.off + c) % len(r.s)
	}
	return n, nil
}

func TestImportMediaEdgeCases(t *testing.T) {
	svc := mustService(t)
	pngB64 := base64.StdEncoding.EncodeToString(pngBytes(t, 3, 2))
	src := `<quiz>
<question type="essay"><name><text>sub dir</text></name>
<questiontext format="html"><text><![CDATA[<img src="@@PLUGINFILE@@/gambar/peta.png?time=123" alt="Peta">]]></text>
<file name="peta.png" path="/gambar/" encoding="base64">` + pngB64[:10] + "\n  " + pngB64[10:] + `</file></questiontext></question>
<question type="essay"><name><text>bad base64</text></name>
<questiontext format="html"><text><![CDATA[<img src="@@PLUGINFILE@@/x.png" alt="x">]]></text>
<file name="x.png" encoding="base64">!!!notbase64</file></questiontext></question>
<question type="essay"><name><text>feedback file</text></name>
<questiontext format="html"><text>teks</text></questiontext>
<generalfeedback format="html"><text><![CDATA[<img src="@@PLUGINFILE@@/y.png">]]></text><file name="y.png" encoding="base64">` + pngB64 + `</file></generalfeedback></question>
<question type="essay"><name><text>remote</text></name>
<questiontext format="html"><text><![CDATA[<p>Lihat <img src="https://example.com/a.png" alt="peta"></p>]]></text></questiontext></question>
</quiz>`
	b := mustImport(t, svc, src)
	checkReport(t, b, []want{
		{title: "sub dir", status: qbank.Imported},
		{title: "bad base64", status: qbank.Changed, change: "dropped the file x.png"},
		{title: "feedback file", status: qbank.Changed, change: "dropped the general feedback"},
		{title: "remote", status: qbank.Changed, change: "https://example.com/a.png"},
	})
	if !strings.HasPrefix(b.Questions[0].Text, "![Peta](media:") {
		t.Errorf("text %q", b.Questions[0].Text)
	}
}

// pngBytes is a w×h PNG.
func pngBytes(t testing.TB, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i*31 + w)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestImportItemRefusals(t *testing.T) {
	q := func(typ, body string) string {
		return fmt.Sprintf(`<question type=%q><name><text>%s</text></name><questiontext format="html"><text>Soal</text></questiontext>%s</question>`, typ, typ, body)
	}
	src := `<quiz>` +
		q("multichoice", `<single>true</single><answer fraction="100"><text>a</text></answer><answer fraction="100"><text>b</text></answer>`) +
		q("multichoice", `<single>false</single><answer fraction="0"><text>a</text></answer><answer fraction="-100"><text>b</text></answer>`) +
		q("truefalse", `<answer fraction="100"><text>mungkin</text></answer>`) +
		q("shortanswer", `<answer fraction="50"><text>x</text></answer>`) +
		q("numerical", `<answer fraction="100"><text>dua</text></answer>`) +
		q("matching", `<subquestion><text></text><answer><text>x</text></answer></subquestion>`) +
		q("essay", `<defaultgrade>5000</defaultgrade>`) +
		q("multichoice", `<single>true</single><answer fraction="100"><text>a</text></answer>`) +
		`<question type="essay"><name><text>kosong</text></name><questiontext format="html"><text><![CDATA[<p> </p>]]></text></questiontext></question>` +
		`</quiz>`
	b := mustImport(t, mustService(t), src)
	checkReport(t, b, []want{
		{title: "multichoice", status: qbank.Refused, code: "INVALID_ITEM"},
		{title: "multichoice", status: qbank.Refused, code: "KEY_NOT_AN_OPTION"},
		{title: "truefalse", status: qbank.Refused, code: "KEY_NOT_AN_OPTION"},
		{title: "shortanswer", status: qbank.Refused, code: "KEY_NOT_AN_OPTION"},
		{title: "numerical", status: qbank.Refused, code: "INVALID_ITEM"},
		{title: "matching", status: qbank.Refused, code: "KEY_NOT_AN_OPTION"},
		{title: "essay", status: qbank.Refused, code: "INVALID_ITEM"},
		{title: "multichoice", status: qbank.Refused, code: "INVALID_ITEM"},
		{title: "kosong", status: qbank.Refused, code: "INVALID_ITEM"},
	})
	for _, it := range b.Items {
		if it.Message == "" {
			t.Errorf("item %d refused without a message", it.Position)
		}
	}
}

// TestImportDataURI: an image given as a data: URI is stored like an
// embedded file; a malformed or non-image one, a remote image and an
// embedded file the exam refuses are figures the item loses (Lost).
func TestImportDataURI(t *testing.T) {
	svc := mustService(t)
	png := pngBytes(t, 4, 3)
	pngB64 := base64.StdEncoding.EncodeToString(png)
	essay := func(name, html string) string {
		return `<question type="essay"><name><text>` + name + `</text></name><questiontext format="html"><text><![CDATA[` + html + `]]></text></questiontext></question>`
	}
	src := `<quiz>` +
		essay("chart", `<p>Perhatikan grafik.</p><img src="data:image/png;base64,`+pngB64+`" alt="Grafik curah hujan">`) +
		essay("bad base64", `<img src="data:image/png;base64,!!!!" alt="x">`) +
		essay("not an image", `<img src="data:text/html;base64,PHNjcmlwdD4=" alt="x">`) +
		essay("remote", `<img src="https://example.com/a.png" alt="peta">`) +
		`</quiz>`
	b := mustImport(t, svc, src)
	checkReport(t, b, []want{
		{title: "chart", status: qbank.Imported},
		{title: "bad base64", status: qbank.Changed, change: "base64 does not decode"},
		{title: "not an image", status: qbank.Changed, change: "text/html is neither an image nor an audio"},
		{title: "remote", status: qbank.Changed, change: "https://example.com/a.png is outside the file"},
	})
	q := question(t, b, "q001")
	m, err := svc.GetMedia(t.Context(), sha(t, q.Text))
	if err != nil || m.Type != "image/png" || m.Size != int64(len(png)) {
		t.Errorf("stored %+v, %v (text %q)", m, err, q.Text)
	}
	if !strings.Contains(q.Text, "![Grafik curah hujan](media:"+m.SHA256+")") {
		t.Errorf("text %q", q.Text)
	}
	for i, it := range b.Items {
		if (i == 0) != (len(it.Lost) == 0) {
			t.Errorf("item %d lost %q", i+1, it.Lost)
		}
	}
}

// utf16Bytes is s encoded as UTF-16 with its byte-order mark.
func utf16Bytes(s string, bigEndian bool) []byte {
	out := []byte{0xFF, 0xFE}
	if bigEndian {
		out = []byte{0xFE, 0xFF}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if bigEndian {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

// TestImportUTF16: a file saved as UTF-16 (little or big endian, with its
// byte-order mark) is read; another encoding or bytes that are not UTF-8
// are refused with how to save the file as UTF-8.
func TestImportUTF16(t *testing.T) {
	svc := mustService(t)
	src := `<?xml version="1.0" encoding="UTF-16"?><quiz><question type="truefalse"><name><text>Bumi bulat</text></name>` +
		`<questiontext format="html"><text>Bumi itu bulat — ya?</text></questiontext><answer fraction="100"><text>true</text></answer>` +
		`<answer fraction="0"><text>false</text></answer></question></quiz>`
	for _, be := range []bool{false, true} {
		b, err := Import(t.Context(), bytes.NewReader(utf16Bytes(src, be)), svc)
		if err != nil {
			t.Fatalf("big endian %v: %v", be, err)
		}
		if len(b.Questions) != 1 || b.Questions[0].Text != "Bumi itu bulat — ya?" {
			t.Errorf("big endian %v: %+v", be, b.Questions)
		}
	}
	for name, data := range map[string][]byte{
		"latin-1":      []byte(`<?xml version="1.0" encoding="ISO-8859-1"?><quiz></quiz>`),
		"invalid utf8": []byte("<quiz><question type=\"essay\"><name><text>caf\xe9</text></name></question></quiz>"),
	} {
		_, err := Import(t.Context(), bytes.NewReader(data), svc)
		if apperr.CodeOf(err) != "INVALID_BANK" || !strings.Contains(err.Error(), "save the file as UTF-8") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestImportCategories: each question keeps its category's path (nested
// categories apart), and the export writes them back.
func TestImportCategories(t *testing.T) {
	svc := mustService(t)
	q := func(name string) string {
		return `<question type="essay"><name><text>` + name + `</text></name><questiontext format="html"><text>` + name + `</text></questiontext></question>`
	}
	cat := func(p string) string {
		return `<question type="category"><category><text>` + p + `</text></category></question>`
	}
	b := mustImport(t, svc, `<quiz>`+cat("$course$/top/Matematika/Aljabar")+q("a")+q("b")+cat("$course$/top/Matematika/Geometri")+q("c")+`</quiz>`)
	var got []string
	for _, q := range b.Questions {
		got = append(got, q.Category)
	}
	if want := []string{"Matematika/Aljabar", "Matematika/Aljabar", "Matematika/Geometri"}; !slices.Equal(got, want) {
		t.Fatalf("categories %q, want %q", got, want)
	}
	if b.Items[2].Category != "Matematika/Geometri" {
		t.Errorf("the report's item 3 is in %q", b.Items[2].Category)
	}
	e := exam.Exam{Title: "Matematika", Questions: b.Questions}
	var out bytes.Buffer
	if err := Export(t.Context(), &out, e, svc); err != nil {
		t.Fatal(err)
	}
	back := mustImport(t, svc, out.String())
	for i, q := range back.Questions {
		if q.Category != got[i] {
			t.Errorf("exported and read back: %s in %q, want %q", q.ID, q.Category, got[i])
		}
	}
}
