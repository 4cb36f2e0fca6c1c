package qti

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image/color"
	"os"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
)

// want is an item's expected report: status, code, question id and kind.
type want struct {
	status, code, id, kind string
	change                 string // a part of one of its changes
}

func checkReport(t *testing.T, b *qbank.Bank, wants []want) {
	t.Helper()
	if len(b.Items) != len(wants) {
		t.Fatalf("%d items, want %d: %+v", len(b.Items), len(wants), b.Items)
	}
	for i, w := range wants {
		it := b.Items[i]
		if it.Position != i+1 || string(it.Status) != w.status || it.Code != w.code || it.QuestionID != w.id || it.Kind != w.kind {
			t.Errorf("item %d: %+v, want %+v", i+1, it, w)
		}
		if w.change != "" && !strings.Contains(strings.Join(it.Changes, "\n"), w.change) {
			t.Errorf("item %d: changes %q, want one with %q", i+1, it.Changes, w.change)
		}
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestImportQTIWorks21 imports a real QTI 2.1 package of nine items
// (QTIWorks' WebDeveloperTest1: choices, a mapping, an image that is a
// GIF named .jpg, two inline choices in one item).
func TestImportQTIWorks21(t *testing.T) {
	svc := MustService(t)
	b := MustImport(t, svc, mustRead(t, "WebDeveloperTest1.zip"))
	checkReport(t, b, []want{
		{"imported", "", "choice", "choiceInteraction", ""},
		{"imported", "", "choice-2", "choiceInteraction", ""},
		{"imported", "", "choice-3", "choiceInteraction", ""},
		{"changed", "", "choice-4", "choiceInteraction", "directory.jpg, which the portal refuses"},
		{"changed", "", "choiceMultiple", "choiceInteraction", "partial credit"},
		{"imported", "", "choice-5", "choiceInteraction", ""},
		{"imported", "", "choice-6", "choiceInteraction", ""},
		{"changed", "", "inlineChoice", "inlineChoiceInteraction,inlineChoiceInteraction", "dropped the empty choice of blank RESPONSE1"},
		{"changed", "", "choiceMultiple-2", "choiceInteraction", "partial credit"},
	})
	if b.Items[0].Title != "Getting Started" {
		t.Errorf("title %q", b.Items[0].Title)
	}
	q := b.Questions[0]
	if q.Type != exam.SingleChoice || q.Format != "markdown" || !strings.HasPrefix(q.Text, "**Question 1**") ||
		len(q.Options) != 3 || q.Answer[0] != "ChoiceC" || q.Points != 1 {
		t.Errorf("question 1: %+v", q)
	}
	// Markup in an option's text stays text.
	if got := b.Questions[1].Options[0].Text; !strings.HasPrefix(got, `\<a href`) {
		t.Errorf("option text %q", got)
	}
	mc := b.Questions[4]
	if mc.Type != exam.MultipleChoice || strings.Join(mc.Answer, ",") != "ChoiceB,ChoiceE" || mc.Points != 2 {
		t.Errorf("question 5: %+v", mc)
	}
}

// TestImportMathAssess imports a real QTI 2.1 item whose MathML carries
// its LaTeX (QTIWorks' MathAssess sample), with feedback and a picture.
func TestImportMathAssess(t *testing.T) {
	svc := MustService(t)
	b := MustImport(t, svc, mustRead(t, "Aardvark-cannon.zip"))
	checkReport(t, b, []want{{"changed", "", "aardvark-501073-qti", "choiceInteraction", "feedback"}})
	q := b.Questions[0]
	if !strings.Contains(q.Text, `$g=10\,ms^{-2}$`) || !strings.Contains(q.Text, "](media:") || q.Options[1].Text != `$5\,m$, $20\,m$, $45\,m$` {
		t.Errorf("question: %+v", q)
	}
}

// TestImportOwnQTI3 imports a QTI 3.0 package written from the
// specification: a shared stimulus with an image, MathML without TeX,
// a text entry, an essay with a rubric, a match, an associate
// interaction and an image missing from the package.
func TestImportOwnQTI3(t *testing.T) {
	svc := MustService(t)
	b := MustImport(t, svc, mustRead(t, "own-qti3.zip"))
	if b.Title != "Contoh QTI 3.0" {
		t.Errorf("title %q", b.Title)
	}
	checkReport(t, b, []want{
		{"imported", "", "pilihan", "choiceInteraction", ""},
		{"imported", "", "isian", "textEntryInteraction", ""},
		{"imported", "", "uraian", "extendedTextInteraction", ""},
		{"changed", "", "jodoh", "matchInteraction", "each right pair earning its share"},
		{"refused", "UNSUPPORTED_TYPE", "", "associateInteraction", ""},
		{"refused", "MEDIA_NOT_FOUND", "", "choiceInteraction", ""},
	})
	qs := map[string]exam.Question{}
	for _, q := range b.Questions {
		qs[q.ID] = q
	}
	p := qs["pilihan"]
	if p.Text != "Hitunglah $\\frac{1}{2}+\\sqrt{x}+a^2$ untuk $x=4$.\n\nPilih jawaban yang benar." ||
		p.Options[0].Text != `$$\left( \begin{matrix}1 & 0 \\ 0 & 1\end{matrix} \right)$$` ||
		p.Options[1].Text != `$\lim_{x\to0}\vec{v}$` || p.Options[2].Text != `$\sqrt[3]{27}$` ||
		p.Points != 2 || p.Stimulus != "bacaan" {
		t.Errorf("pilihan: %+v", p)
	}
	if s := qs["isian"]; s.Type != exam.ShortAnswer || s.Text != "Sungai Kapuas mengalir di provinsi _____." ||
		strings.Join(s.Answer, "|") != "Kalimantan Barat|Kalbar" || s.Stimulus != "bacaan" {
		t.Errorf("isian: %+v", s)
	}
	if u := qs["uraian"]; u.Type != exam.Essay || u.Points != 10 || u.Rubric != "Menyebut dua dampak banjir.\nMemberi satu contoh." ||
		u.Text != "Jelaskan dampak banjir bagi penduduk di tepi sungai." {
		t.Errorf("uraian: %+v", u)
	}
	if j := qs["jodoh"]; j.Type != exam.Matching || !j.ReuseResponses || j.Scoring != exam.ScoringPartial || j.Points != 4 ||
		strings.Join(j.Answer, ",") != "P1=R2,P2=R1,P3=R1" {
		t.Errorf("jodoh: %+v", j)
	}
	if len(b.Stimuli) != 1 || b.Stimuli[0].ID != "bacaan" || b.Stimuli[0].Title != "Sungai Kapuas" ||
		!strings.Contains(b.Stimuli[0].Text, "![Peta aliran Sungai Kapuas](media:") {
		t.Errorf("stimuli: %+v", b.Stimuli)
	}
}

func isInvalid(err error) bool { return apperr.CodeOf(err) == "INVALID_BANK" }

// TestZipSlip refuses QTIWorks' zip-slip package (entries under ../).
func TestZipSlip(t *testing.T) {
	data := mustRead(t, "ZipSlip.zip")
	_, err := Import(t.Context(), bytes.NewReader(data), int64(len(data)), MustService(t))
	if !isInvalid(err) || !strings.Contains(err.Error(), "not a clean relative path") {
		t.Fatalf("err %v", err)
	}
}

const manifest = `<?xml version="1.0"?><manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"><resources>
<resource identifier="i" type="imsqti_item_xmlv2p1" href="%s"/></resources></manifest>`

const item21 = `<?xml version="1.0"?><assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="q1" title="Q">
<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier"><correctResponse><value>%s</value></correctResponse></responseDeclaration>
<itemBody><p>%s</p><choiceInteraction responseIdentifier="RESPONSE" maxChoices="1"><simpleChoice identifier="a">A</simpleChoice><simpleChoice identifier="b">B</simpleChoice></choiceInteraction></itemBody></assessmentItem>`

func TestPathTraversal(t *testing.T) {
	svc := MustService(t)
	for _, name := range []string{"../evil.xml", "/abs.xml", `dir\evil.xml`, "a/../../b.xml", "C:/x.xml", "./x.xml"} {
		data := MustZip(t, "imsmanifest.xml", fmt.Sprintf(manifest, "q.xml"), name, "x")
		if _, err := Import(t.Context(), bytes.NewReader(data), int64(len(data)), svc); !isInvalid(err) {
			t.Errorf("entry %q: err %v", name, err)
		}
	}
	// An href that climbs out of the package refuses its item, or its media.
	data := MustZip(t, "imsmanifest.xml", fmt.Sprintf(manifest, "../q.xml"), "q.xml", fmt.Sprintf(item21, "a", "x"))
	b := MustImport(t, svc, data)
	checkReport(t, b, []want{{"refused", "INVALID_ITEM", "", "", ""}})
	for _, src := range []string{"../../etc/passwd", "/etc/passwd", `..\x.png`, "file:///etc/passwd", "http://example.com/x.png"} {
		data = MustZip(t, "imsmanifest.xml", fmt.Sprintf(manifest, "items/q.xml"),
			"items/q.xml", fmt.Sprintf(item21, "a", `<img src="`+src+`" alt="x"/>`))
		b = MustImport(t, svc, data)
		checkReport(t, b, []want{{"refused", "MEDIA_NOT_FOUND", "", "choiceInteraction", ""}})
	}
	// Duplicate names.
	data = MustZip(t, "imsmanifest.xml", fmt.Sprintf(manifest, "q.xml"), "q.xml", "a", "q.xml", "b")
	if _, err := Import(t.Context(), bytes.NewReader(data), int64(len(data)), svc); !isInvalid(err) || !strings.Contains(err.Error(), "two entries") {
		t.Errorf("duplicates: err %v", err)
	}
}

func TestDoctypeRefused(t *testing.T) {
	svc := MustService(t)
	laughs := `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><manifest>&lol2;</manifest>`
	xxe := `<?xml version="1.0"?><!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/passwd">]><manifest>&x;</manifest>`
	for _, m := range []string{laughs, xxe} {
		data := MustZip(t, "imsmanifest.xml", m)
		_, err := Import(t.Context(), bytes.NewReader(data), int64(len(data)), svc)
		if !isInvalid(err) || !strings.Contains(err.Error(), "DOCTYPE") {
			t.Errorf("err %v", err)
		}
	}
	// In an item: the item is refused.
	data := MustZip(t, "imsmanifest.xml", fmt.Sprintf(manifest, "q.xml"), "q.xml", strings.Replace(laughs, "manifest", "assessmentItem", 2))
	b := MustImport(t, svc, data)
	checkReport(t, b, []want{{"refused", "INVALID_ITEM", "", "", ""}})
	if !strings.Contains(b.Items[0].Message, "DOCTYPE") {
		t.Errorf("message %q", b.Items[0].Message)
	}
	// Too deep.
	deep := strings.Repeat("<div>", qbank.MaxXMLDepth+1) + strings.Repeat("</div>", qbank.MaxXMLDepth+1)
	data = MustZip(t, "imsmanifest.xml", fmt.Sprintf(manifest, "q.xml"), "q.xml", fmt.Sprintf(item21, "a", deep))
	b = MustImport(t, svc, data)
	checkReport(t, b, []want{{"refused", "INVALID_ITEM", "", "", ""}})
}

// TestZipBomb refuses an entry that unpacks past the limit whatever its
// header says: the bytes are counted as they are read.
func TestZipBomb(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("imsmanifest.xml")
	w.Write([]byte(fmt.Sprintf(manifest, "q.xml")))
	w, _ = zw.Create("q.xml")
	w.Write([]byte(fmt.Sprintf(item21, "a", `<img src="big.png" alt="x"/>`)))
	w, _ = zw.CreateHeader(&zip.FileHeader{Name: "big.png", Method: zip.Deflate})
	chunk := make([]byte, 1<<20)
	copy(chunk, "\x89PNG\r\n\x1a\n")
	for range 8 {
		w.Write(chunk)
	}
	zw.Close()
	data := buf.Bytes()
	// The header claims 8 MiB; the import counts what it reads.
	a, err := openArchive(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	a.unpacked = qbank.MaxUnpacked - 1<<20 // as if most of the limit was read already
	_, err = a.read("big.png", 16<<20)
	if !errors.Is(err, errUnpacked) {
		t.Fatalf("err %v", err)
	}
	// Through Import, with the limit lowered to 1 MiB: one entry that
	// compresses 8 MiB of XML to a few KiB.
	defer func(old int64) { maxUnpacked = old }(maxUnpacked)
	maxUnpacked = 1 << 20
	buf.Reset()
	zw = zip.NewWriter(&buf)
	w, _ = zw.Create("imsmanifest.xml")
	w.Write([]byte(fmt.Sprintf(manifest, "q.xml")))
	w, _ = zw.Create("q.xml")
	w.Write([]byte("<assessmentItem>"))
	w.Write(bytes.Repeat([]byte(" "), 8<<20))
	w.Write([]byte("</assessmentItem>"))
	zw.Close()
	if buf.Len() > 64<<10 {
		t.Fatalf("the bomb is %d bytes", buf.Len())
	}
	data = buf.Bytes()
	_, err = Import(t.Context(), bytes.NewReader(data), int64(len(data)), MustService(t))
	if !isInvalid(err) || !strings.Contains(err.Error(), "unpacks to more than") {
		t.Fatalf("err %v", err)
	}
}

func TestTooManyEntries(t *testing.T) {
	var files []string
	for i := range qbank.MaxArchiveEntries + 1 {
		files = append(files, fmt.Sprintf("f%d", i), "")
	}
	data := MustZip(t, files...)
	_, err := Import(t.Context(), bytes.NewReader(data), int64(len(data)), MustService(t))
	if !isInvalid(err) || !strings.Contains(err.Error(), "entries") {
		t.Fatalf("err %v", err)
	}
}

func TestNotAPackage(t *testing.T) {
	svc := MustService(t)
	for name, data := range map[string][]byte{
		"not a zip":   []byte("hello"),
		"no manifest": MustZip(t, "q.xml", "<x/>"),
		"bad xml":     MustZip(t, "imsmanifest.xml", "<manifest>"),
		"no items":    MustZip(t, "imsmanifest.xml", "<manifest><resources/></manifest>"),
		"not utf-8":   MustZip(t, "imsmanifest.xml", `<?xml version="1.0" encoding="ISO-8859-1"?><manifest/>`),
	} {
		if _, err := Import(t.Context(), bytes.NewReader(data), int64(len(data)), svc); !isInvalid(err) {
			t.Errorf("%s: err %v", name, err)
		}
	}
}

// TestItemRefusals covers the report's codes on small items.
func TestItemRefusals(t *testing.T) {
	svc := MustService(t)
	one := func(item string) qbank.ItemReport {
		data := MustZip(t, "imsmanifest.xml", fmt.Sprintf(manifest, "q.xml"), "q.xml", item)
		b := MustImport(t, svc, data)
		return b.Items[0]
	}
	if it := one(fmt.Sprintf(item21, "z", "x")); it.Code != "KEY_NOT_AN_OPTION" {
		t.Errorf("key: %+v", it)
	}
	if it := one(fmt.Sprintf(item21, "a", `$$\frac{1}{$$`)); it.Code != "TEX_ERROR" {
		t.Errorf("tex: %+v", it)
	}
	if it := one(fmt.Sprintf(item21, "a", `<math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mi>x</mi><annotation encoding="application/x-tex">\frac{1}{</annotation></semantics></math>`)); it.Status != "changed" {
		t.Errorf("a bad annotation, good MathML: %+v", it)
	}
	if it := one(fmt.Sprintf(item21, "a", `<math xmlns="http://www.w3.org/1998/Math/MathML"><mi>x</mi><menclose notation="box"><mi>y</mi></menclose></math>`)); it.Status != "changed" ||
		!strings.Contains(strings.Join(it.Changes, ""), "kept as its text") {
		t.Errorf("unconvertible MathML: %+v", it)
	}
	hot := strings.Replace(strings.Replace(fmt.Sprintf(item21, "a", "x"), "choiceInteraction", "hotspotInteraction", 2), "simpleChoice", "hotspotChoice", 4)
	if it := one(hot); it.Code != "UNSUPPORTED_TYPE" || it.Kind != "hotspotInteraction" {
		t.Errorf("hotspot: %+v", it)
	}
	if it := one(`<assessmentItem identifier="x"><itemBody><p>Info</p></itemBody></assessmentItem>`); it.Code != "UNSUPPORTED_TYPE" {
		t.Errorf("no interaction: %+v", it)
	}
	if it := one(`<notAnItem/>`); it.Code != "INVALID_ITEM" {
		t.Errorf("not an item: %+v", it)
	}
	noKey := strings.Replace(fmt.Sprintf(item21, "a", "x"), "<correctResponse><value>a</value></correctResponse>", "", 1)
	if it := one(noKey); it.Code != "INVALID_ITEM" {
		t.Errorf("no key: %+v", it)
	}
}

// TestImportObjectAndAudio reads QTI 2.1's <object> media and an audio.
func TestImportObjectAndAudio(t *testing.T) {
	svc := MustService(t)
	body := `<object type="audio/mpeg" data="../media/dengar.mp3">Rekaman percakapan</object> dan <object type="image/png" data="../media/g.png">Grafik</object>`
	data := MustZip(t, "imsmanifest.xml", fmt.Sprintf(manifest, "items/q.xml"), "items/q.xml", fmt.Sprintf(item21, "a", body),
		"media/dengar.mp3", string(mp3Bytes(9)), "media/g.png", string(pngBytes(t, color.RGBA{1, 2, 3, 255})))
	b := MustImport(t, svc, data)
	checkReport(t, b, []want{{"imported", "", "q1", "choiceInteraction", ""}})
	if txt := b.Questions[0].Text; !strings.Contains(txt, "![Rekaman percakapan](media:") || !strings.Contains(txt, "![Grafik](media:") {
		t.Errorf("text %q", txt)
	}
}

// TestImportObjectFallback: an SVG's <object> with a PNG inside shows
// the PNG; a figure that cannot be stored (an SVG alone) is lost, and a
// data: URI image is stored.
func TestImportObjectFallback(t *testing.T) {
	const manifest3 = `<?xml version="1.0"?><manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"><resources>
<resource identifier="a" type="imsqti_item_xmlv2p1" href="%s"/><resource identifier="b" type="imsqti_item_xmlv2p1" href="%s"/>
<resource identifier="c" type="imsqti_item_xmlv2p1" href="%s"/></resources></manifest>`
	svc := MustService(t)
	pngData := pngBytes(t, color.RGBA{9, 8, 7, 255})
	fallback := `<object data="../media/fig.svg" type="image/svg+xml"><img src="../media/fig.png" alt="Grafik suhu"/></object>`
	alone := `Lihat <object data="../media/fig.svg" type="image/svg+xml"></object>`
	inline := `<img src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(pngData) + `" alt="Peta"/>`
	data := MustZip(t, "imsmanifest.xml", fmt.Sprintf(manifest3, "items/a.xml", "items/b.xml", "items/c.xml"),
		"items/a.xml", fmt.Sprintf(item21, "a", fallback), "items/b.xml", fmt.Sprintf(item21, "a", alone),
		"items/c.xml", fmt.Sprintf(item21, "a", inline),
		"media/fig.svg", `<svg xmlns="http://www.w3.org/2000/svg"/>`, "media/fig.png", string(pngData))
	b := MustImport(t, svc, data)
	if len(b.Items) != 3 || b.Items[0].Status != qbank.Changed || b.Items[1].Status != qbank.Changed || b.Items[2].Status != qbank.Imported {
		t.Fatalf("items %+v", b.Items)
	}
	if txt := b.Questions[0].Text; !strings.Contains(txt, "![Grafik suhu](media:") || len(b.Items[0].Lost) != 0 {
		t.Errorf("fallback: text %q, lost %q", txt, b.Items[0].Lost)
	}
	if len(b.Items[1].Lost) != 1 || !strings.Contains(b.Items[1].Lost[0], "fig.svg") {
		t.Errorf("svg alone: lost %q", b.Items[1].Lost)
	}
	if txt := b.Questions[2].Text; !strings.Contains(txt, "![Peta](media:") {
		t.Errorf("data URI: text %q", txt)
	}
}

// TestImportUTF16Item: an item saved as UTF-16 with its byte-order mark
// is read; the package is told apart by formats all the same.
func TestImportUTF16Item(t *testing.T) {
	item := strings.Replace(fmt.Sprintf(item21, "a", "Pilih — A"), `<?xml version="1.0"?>`, `<?xml version="1.0" encoding="UTF-16"?>`, 1)
	enc := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(item)) {
		enc = append(enc, byte(u), byte(u>>8))
	}
	b := MustImport(t, MustService(t), MustZip(t, "imsmanifest.xml", fmt.Sprintf(manifest, "q.xml"), "q.xml", string(enc)))
	if len(b.Questions) != 1 || b.Questions[0].Text != "Pilih — A" {
		t.Fatalf("items %+v, questions %+v", b.Items, b.Questions)
	}
}
