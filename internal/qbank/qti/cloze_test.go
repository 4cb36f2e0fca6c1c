package qti

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
)

// manifestOf lists the items hrefs (QTI 2.1).
func manifestOf(hrefs ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"><resources>`)
	for i, h := range hrefs {
		fmt.Fprintf(&b, `<resource identifier="r%d" type="imsqti_item_xmlv2p1" href="%s"/>`, i, h)
	}
	b.WriteString(`</resources></manifest>`)
	return b.String()
}

const qti21Head = `<?xml version="1.0" encoding="UTF-8"?>
<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="%s" title="%s" adaptive="false" timeDependent="false">`

// clozeItem has a string text entry (a mapping of two answers), a float
// one (an equal with an absolute tolerance in the response processing,
// 2 points) and an inline choice, in one paragraph.
var clozeItem = fmt.Sprintf(qti21Head, "isian", "Isian") + `
<responseDeclaration identifier="KOTA" cardinality="single" baseType="string">
  <correctResponse><value>Jakarta</value></correctResponse>
  <mapping defaultValue="0"><mapEntry mapKey="Jakarta" mappedValue="1"/><mapEntry mapKey="DKI Jakarta" mappedValue="1"/></mapping>
</responseDeclaration>
<responseDeclaration identifier="SISI" cardinality="single" baseType="float">
  <correctResponse><value>128.3</value></correctResponse>
</responseDeclaration>
<responseDeclaration identifier="ARAH" cardinality="single" baseType="identifier">
  <correctResponse><value>S</value></correctResponse>
</responseDeclaration>
<outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>
<itemBody>
  <p>Ibu kota Indonesia adalah <textEntryInteraction responseIdentifier="KOTA" expectedLength="15"/>, panjang sisi
  <textEntryInteraction responseIdentifier="SISI"/> cm, arah <inlineChoiceInteraction responseIdentifier="ARAH" shuffle="false">
  <inlineChoice identifier="S">selatan</inlineChoice><inlineChoice identifier="U">utara</inlineChoice></inlineChoiceInteraction>.</p>
</itemBody>
<responseProcessing>
  <setOutcomeValue identifier="SCORE"><sum><mapResponse identifier="KOTA"/></sum></setOutcomeValue>
  <responseCondition><responseIf>
    <equal toleranceMode="absolute" tolerance="0.5 0.5"><variable identifier="SISI"/><correct identifier="SISI"/></equal>
    <setOutcomeValue identifier="SCORE"><sum><variable identifier="SCORE"/><baseValue baseType="float">2</baseValue></sum></setOutcomeValue>
  </responseIf></responseCondition>
  <responseCondition><responseIf>
    <match><variable identifier="ARAH"/><correct identifier="ARAH"/></match>
    <setOutcomeValue identifier="SCORE"><sum><variable identifier="SCORE"/><baseValue baseType="float">1</baseValue></sum></setOutcomeValue>
  </responseIf></responseCondition>
</responseProcessing>
</assessmentItem>`

// gapItem is a gapMatchInteraction of two gaps sharing three words, 4
// points (MAXSCORE) in all.
var gapItem = fmt.Sprintf(qti21Head, "celah", "Celah") + `
<responseDeclaration identifier="RESPONSE" cardinality="multiple" baseType="directedPair">
  <correctResponse><value>W1 G1</value><value>W2 G2</value></correctResponse>
</responseDeclaration>
<outcomeDeclaration identifier="MAXSCORE" cardinality="single" baseType="float"><defaultValue><value>4</value></defaultValue></outcomeDeclaration>
<itemBody>
  <gapMatchInteraction responseIdentifier="RESPONSE" shuffle="false">
    <prompt>Lengkapi.</prompt>
    <gapText identifier="W1" matchMax="1">timur</gapText><gapText identifier="W2" matchMax="1">barat</gapText>
    <gapText identifier="W3" matchMax="1">utara</gapText>
    <p>Matahari terbit di <gap identifier="G1"/> dan terbenam di <gap identifier="G2"/>.</p>
  </gapMatchInteraction>
</itemBody>
<responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/map_response"/>
</assessmentItem>`

// numericItem has one float text entry with a relative tolerance.
var numericItem = fmt.Sprintf(qti21Head, "angka", "Angka") + `
<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="float">
  <correctResponse><value>9.8</value></correctResponse>
</responseDeclaration>
<outcomeDeclaration identifier="MAXSCORE" cardinality="single" baseType="float"><defaultValue><value>3</value></defaultValue></outcomeDeclaration>
<itemBody><p>Percepatan gravitasi: <textEntryInteraction responseIdentifier="RESPONSE"/> m/s².</p></itemBody>
<responseProcessing><responseCondition><responseIf>
  <equal toleranceMode="relative" tolerance="5"><variable identifier="RESPONSE"/><correct identifier="RESPONSE"/></equal>
  <setOutcomeValue identifier="SCORE"><baseValue baseType="float">3</baseValue></setOutcomeValue>
</responseIf></responseCondition></responseProcessing>
</assessmentItem>`

// mixedItem mixes a choice interaction with a text entry.
var mixedItem = fmt.Sprintf(qti21Head, "campur", "Campur") + `
<responseDeclaration identifier="A" cardinality="single" baseType="identifier"><correctResponse><value>x</value></correctResponse></responseDeclaration>
<responseDeclaration identifier="B" cardinality="single" baseType="string"><correctResponse><value>y</value></correctResponse></responseDeclaration>
<itemBody><choiceInteraction responseIdentifier="A" maxChoices="1"><simpleChoice identifier="x">x</simpleChoice><simpleChoice identifier="z">z</simpleChoice></choiceInteraction>
<p>Isi: <textEntryInteraction responseIdentifier="B"/></p></itemBody>
</assessmentItem>`

// TestImportCloze: QTI 2.1 items of several inline interactions, a gap
// match and a float text entry become cloze and numeric questions the
// exam takes and scores; an item mixing a choice interaction is refused.
func TestImportCloze(t *testing.T) {
	svc := MustService(t)
	data := MustZip(t, "imsmanifest.xml", manifestOf("a.xml", "b.xml", "c.xml", "d.xml"),
		"a.xml", clozeItem, "b.xml", gapItem, "c.xml", numericItem, "d.xml", mixedItem)
	b := MustImport(t, svc, data)
	checkReport(t, b, []want{
		{"imported", "", "isian", "textEntryInteraction,textEntryInteraction,inlineChoiceInteraction", ""},
		{"changed", "", "celah", "gapMatchInteraction", "drop-down lists"},
		{"imported", "", "angka", "textEntryInteraction", ""},
		{"refused", "UNSUPPORTED_ITEM", "", "choiceInteraction,textEntryInteraction", ""},
	})
	e := exam.Exam{Title: "t", NPSNs: []string{"12345678"}, StartsAt: time.Unix(0, 0), EndsAt: time.Unix(7200, 0), DurationMinutes: 60,
		Questions: b.Questions}
	if err := exam.ValidateExam(&e); err != nil {
		t.Fatal(err)
	}
	q := b.Questions[0]
	if q.Type != exam.Cloze || q.Format != "markdown" || q.Points != 4 ||
		q.Text != "Ibu kota Indonesia adalah [[KOTA]], panjang sisi [[SISI]] cm, arah [[ARAH]]." {
		t.Fatalf("cloze %+v", q)
	}
	want := []exam.Blank{
		{ID: "KOTA", Kind: exam.BlankText, Answer: []string{"Jakarta", "DKI Jakarta"}, Points: 1},
		{ID: "SISI", Kind: exam.BlankNumber, Answer: []string{"128.3"}, Tolerance: 0.5, Points: 2},
		{ID: "ARAH", Kind: exam.BlankChoice, Options: []exam.Option{{ID: "S", Text: "selatan"}, {ID: "U", Text: "utara"}}, Answer: []string{"S"}, Points: 1},
	}
	if !reflect.DeepEqual(q.Blanks, want) {
		t.Errorf("blanks\n got %+v\nwant %+v", q.Blanks, want)
	}
	for answer, points := range map[string]float64{
		`{"KOTA":"dki jakarta","SISI":"128,7","ARAH":"S"}`: 4,
		`{"KOTA":"Bandung","SISI":"127.8","ARAH":"U"}`:     2,
		`{"SISI":"129"}`: 0,
	} {
		if _, p := exam.Score(q, answer); p != points {
			t.Errorf("Score(%s) = %v, want %v", answer, p, points)
		}
	}
	g := b.Questions[1]
	if g.Type != exam.Cloze || g.Text != "Lengkapi.\n\nMatahari terbit di [[G1]] dan terbenam di [[G2]]." || len(g.Blanks) != 2 || g.Points != 4 {
		t.Fatalf("gap match %+v", g)
	}
	if g2 := g.Blanks[1]; len(g2.Options) != 3 || g2.Options[1].Text != "barat" || !reflect.DeepEqual(g2.Answer, []string{"W2"}) || g2.Points != 2 {
		t.Errorf("gap G2 %+v", g2)
	}
	n := b.Questions[2]
	if n.Type != exam.Numeric || !reflect.DeepEqual(n.Answer, []string{"9.8"}) || n.Tolerance != 5 || n.ToleranceMode != exam.ToleranceRelative || n.Points != 3 {
		t.Fatalf("numeric %+v", n)
	}
	if ok, _ := exam.Score(n, "10,2"); !ok {
		t.Error("10,2 is within 5% of 9.8")
	}
}
