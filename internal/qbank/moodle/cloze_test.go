package moodle

import (
	"html"
	"slices"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/richtext"
	"github.com/seedhq/portal/internal/testkit"
)

// clozeBank is Moodle's export of an embedded-answers question, a
// numerical question with tolerances, a select-missing-words and a
// drag-and-drop-into-text question, and the embedded answers the exam
// refuses.
const clozeBank = `<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="multianswer">
    <name><text>Ibu kota</text></name>
    <questiontext format="html">
      <text><![CDATA[<p>Ibu kota Indonesia adalah {1:SHORTANSWER:=Jakarta~%50%Djakarta#ejaan lama~=DKI Jakarta}.</p>
<p>Panjang sisi: {2:NUMERICAL:=128.3:0.5~%50%128:2} cm, arah {1:MULTICHOICE:=selatan~utara#bukan}.</p>
<p>Tanda {1:SA:=a\}b\~c\#d\/e\"f\\g &amp; h}. Kurung {bukan jawaban}.</p>]]></text>
    </questiontext>
    <generalfeedback format="html"><text></text></generalfeedback>
    <penalty>0.3333333</penalty>
    <hidden>0</hidden>
  </question>
  <question type="numerical">
    <name><text>Gravitasi</text></name>
    <questiontext format="html"><text>Percepatan gravitasi?</text></questiontext>
    <defaultgrade>2</defaultgrade>
    <answer fraction="100" format="moodle_auto_format"><text>9.8</text><tolerance>0.1</tolerance></answer>
    <answer fraction="100" format="moodle_auto_format"><text>10</text><tolerance>0.5</tolerance></answer>
    <answer fraction="50" format="moodle_auto_format"><text>9</text><tolerance>0</tolerance></answer>
    <units><unit><multiplier>1</multiplier><unit_name>m/s²</unit_name></unit></units>
  </question>
  <question type="gapselect">
    <name><text>Pilih kata</text></name>
    <questiontext format="html"><text><![CDATA[<p>Matahari terbit di [[1]] dan terbenam di [[2]]; air [[3]].</p>]]></text></questiontext>
    <defaultgrade>3</defaultgrade>
    <selectoption><text>timur</text><group>1</group></selectoption>
    <selectoption><text>barat</text><group>1</group></selectoption>
    <selectoption><text>mendidih</text><group>2</group></selectoption>
    <selectoption><text>membeku</text><group>2</group></selectoption>
  </question>
  <question type="ddwtos">
    <name><text>Seret kata</text></name>
    <questiontext format="html"><text><![CDATA[<p>[[2]] adalah ibu kota Jawa Barat.</p>]]></text></questiontext>
    <defaultgrade>1</defaultgrade>
    <dragbox><text>Semarang</text><group>1</group></dragbox>
    <dragbox><text>Bandung</text><group>1</group><infinite/></dragbox>
  </question>
  <question type="multianswer">
    <name><text>Centang</text></name>
    <questiontext format="html"><text>{1:MULTIRESPONSE:=a~=b~c}</text></questiontext>
  </question>
  <question type="multianswer">
    <name><text>Huruf besar</text></name>
    <questiontext format="html"><text>Simbol natrium: {1:SHORTANSWER_C:=Na}</text></questiontext>
  </question>
  <question type="multianswer">
    <name><text>Dua benar</text></name>
    <questiontext format="html"><text>{1:MCV:=a~=b}</text></questiontext>
  </question>
</quiz>`

func TestImportCloze(t *testing.T) {
	svc := mustService(t)
	b := mustImport(t, svc, clozeBank)
	checkReport(t, b, []want{
		{title: "Ibu kota", status: qbank.Changed, change: `dropped the answer "Djakarta" of blank b1`},
		{title: "Gravitasi", status: qbank.Changed, change: "the largest, ±0.5, is kept for all"},
		{title: "Pilih kata", status: qbank.Imported},
		{title: "Seret kata", status: qbank.Changed, change: "drop-down lists"},
		{title: "Centang", status: qbank.Refused, code: "UNSUPPORTED_TYPE"},
		{title: "Huruf besar", status: qbank.Changed, change: "case-sensitive"},
		{title: "Dua benar", status: qbank.Refused, code: "INVALID_ITEM"},
	})
	e := exam.Exam{Title: "t", NPSNs: []string{"20100001"}, StartsAt: testStart, EndsAt: testStart.Add(7200e9),
		DurationMinutes: 60, Questions: b.Questions}
	if err := exam.ValidateExam(&e); err != nil {
		t.Fatalf("ValidateExam: %v", err)
	}

	q := question(t, b, "q001")
	if q.Type != exam.Cloze || q.Points != 5 || len(q.Blanks) != 4 {
		t.Fatalf("cloze %+v", q)
	}
	wantText := "Ibu kota Indonesia adalah [[b1]].\n\nPanjang sisi: [[b2]] cm, arah [[b3]].\n\nTanda [[b4]]. Kurung {bukan jawaban}."
	if q.Text != wantText {
		t.Errorf("text %q, want %q", q.Text, wantText)
	}
	if b1 := q.Blanks[0]; b1.Kind != exam.BlankText || !slices.Equal(b1.Answer, []string{"Jakarta", "DKI Jakarta"}) || b1.Points != 1 {
		t.Errorf("b1 %+v", b1)
	}
	if b2 := q.Blanks[1]; b2.Kind != exam.BlankNumber || !slices.Equal(b2.Answer, []string{"128.3"}) || b2.Tolerance != 0.5 || b2.Points != 2 {
		t.Errorf("b2 %+v", b2)
	}
	if b3 := q.Blanks[2]; b3.Kind != exam.BlankChoice || len(b3.Options) != 2 || b3.Options[0].Text != "selatan" || !slices.Equal(b3.Answer, []string{"o1"}) {
		t.Errorf("b3 %+v", b3)
	}
	if b4 := q.Blanks[3]; !slices.Equal(b4.Answer, []string{`a}b~c#d/e"f\g & h`}) {
		t.Errorf("b4 answer %q", b4.Answer)
	}
	for _, c := range []struct {
		answer string
		points float64
	}{
		{`{"b1":"jakarta","b2":"128,7","b3":"o1","b4":"a}b~c#d/e\"f\\g & h"}`, 5},
		{`{"b1":"Djakarta","b2":"129","b3":"o1"}`, 1},
		{`{"b1":"DKI  Jakarta","b2":"127.8"}`, 3},
		{`{"b3":"o2"}`, 0},
	} {
		if _, p := exam.Score(q, c.answer); p != c.points {
			t.Errorf("Score(%s) = %v, want %v", c.answer, p, c.points)
		}
	}

	q = question(t, b, "q002")
	if q.Type != exam.Numeric || !slices.Equal(q.Answer, []string{"9.8", "10"}) || q.Tolerance != 0.5 || q.Points != 2 {
		t.Fatalf("numeric %+v", q)
	}
	for answer, want := range map[string]bool{"9,8": true, "9.31": true, "10.5": true, "9.2": false, "9": false, "10 m/s": false} {
		if ok, _ := exam.Score(q, answer); ok != want {
			t.Errorf("numeric Score(%q) = %v, want %v", answer, ok, want)
		}
	}

	q = question(t, b, "q003")
	if q.Type != exam.Cloze || q.Text != "Matahari terbit di [[b1]] dan terbenam di [[b2]]; air [[b3]]." || q.Points != 3 {
		t.Fatalf("gapselect %+v", q)
	}
	if b2 := q.Blanks[1]; len(b2.Options) != 2 || b2.Options[1].Text != "barat" || !slices.Equal(b2.Answer, []string{"o2"}) {
		t.Errorf("gapselect b2 %+v", b2)
	}
	if b3 := q.Blanks[2]; len(b3.Options) != 2 || b3.Options[0].Text != "mendidih" || !slices.Equal(b3.Answer, []string{"o1"}) {
		t.Errorf("gapselect b3 %+v", b3)
	}
	if _, p := exam.Score(q, `{"b1":"o1","b2":"o1","b3":"o1"}`); p != 2 {
		t.Errorf("gapselect score %v, want 2", p)
	}
	q = question(t, b, "q004")
	if b1 := q.Blanks[0]; q.Text != "[[b1]] adalah ibu kota Jawa Barat." || b1.Options[1].Text != "Bandung" || !slices.Equal(b1.Answer, []string{"o2"}) {
		t.Errorf("ddwtos %+v", q)
	}
}

// TestParseEmbedded: Moodle's reading of embedded answers, escapes and
// entities included; what is not one is text.
func TestParseEmbedded(t *testing.T) {
	for src, want := range map[string][]string{
		`{1:SA:=a}`:                       {"a"},
		`{:NM:=1.5:0.1~%50%2}`:            {"1.5:0.1", "2"},
		`{1:MC:x&amp;#35;y~=z}`:           {"x&amp;#35;y", "z"},
		`{1:SA:=a\}}{2:MCS:=b#fb~c}`:      {`a\}`, "b", "c"},
		`{1:XX:=a} {1:SA:} {1:SA:=open`:   nil,
		`{1:SA:=R&#38;D~=x}`:              {"R&#38;D", "x"},
		`teks {1:SHORTANSWER:=a~%0%b} ok`: {"a", "b"},
	} {
		var got []string
		for _, e := range parseEmbedded(src) {
			for _, a := range e.alts {
				got = append(got, a.answer)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("parseEmbedded(%q) = %q, want %q", src, got, want)
		}
	}
	if got := unescapeAnswer(`R&#38;D \~ \\ \/`); got != `R&D ~ \ /` {
		t.Errorf("unescapeAnswer = %q", got)
	}
}

// TestImportClozeXSS: script vectors in embedded answers, choices and the
// text (as Moodle's HTML escapes them, and raw) import as text that
// renders as text.
func TestImportClozeXSS(t *testing.T) {
	svc := mustService(t)
	for _, v := range testkit.XSSVectors {
		escaped := html.EscapeString(v)
		// The vector's own braces and tildes are escaped for the syntax.
		syntax := html.EscapeString(strings.NewReplacer(`}`, `\}`, `~`, `\~`, `#`, `\#`, `/`, `\/`, `"`, `\"`).Replace(v))
		src := `<quiz><question type="multianswer"><name><text>x</text></name><questiontext format="html"><text>` +
			html.EscapeString(v+` {1:MULTICHOICE:=`+syntax+`~b} {1:SA:=`+syntax+`}`) + `</text></questiontext></question>` +
			`<question type="gapselect"><name><text>g</text></name><questiontext format="html"><text>` +
			html.EscapeString(v+` [[1]]`) + `</text></questiontext>` +
			`<selectoption><text>` + escaped + `</text><group>1</group></selectoption><selectoption><text>b</text><group>1</group></selectoption></question></quiz>`
		b := mustImport(t, svc, src)
		if len(b.Questions) != 2 {
			t.Fatalf("%s: %+v", v, b.Items)
		}
		for _, q := range b.Questions {
			texts := []string{q.Text}
			for _, bl := range q.Blanks {
				for _, o := range bl.Options {
					texts = append(texts, o.Text)
				}
			}
			for _, md := range texts {
				res, err := richtext.Render(richtext.Markdown, md, richtext.Options{Media: anyMedia})
				if err != nil {
					t.Fatal(err)
				}
				testkit.CheckRenderedHTML(t, md, res.HTML)
			}
		}
		if got := b.Questions[0].Blanks[1].Answer; !slices.Equal(got, []string{v}) {
			t.Errorf("text answer %q, want %q", got, v)
		}
		if got := b.Questions[0].Blanks[0].Options[0].Text; !strings.Contains(got, "window.\\_\\_xss") {
			t.Errorf("option %q is not the vector as text", got)
		}
	}
}
