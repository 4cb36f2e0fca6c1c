package moodle

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/exam"
)

func TestExport(t *testing.T) {
	svc := mustService(t)
	img := pngBytes(t, 4, 4)
	m, err := svc.UploadMedia(t.Context(), "grafik.png", bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	e := exam.Exam{Title: "Matematika / IPA", Stimuli: []exam.Stimulus{{ID: "bacaan", Title: "Bacaan 1", Format: "markdown", Text: "Sebuah *mobil*."}},
		Questions: []exam.Question{
			{ID: "q1", Type: exam.SingleChoice, Format: "markdown", Stimulus: "bacaan",
				Text:    "Hitung $\\frac{1}{2} < x$ dan $$\\int_0^1 x\\,dx$$ harga \\$5 `$kode$`\n\n![Grafik suhu](media:" + m.SHA256 + ")",
				Options: []exam.Option{{ID: "a", Text: "**satu**"}, {ID: "b", Text: "dua"}}, Answer: []string{"b"}, Points: 2},
			{ID: "q2", Type: exam.StatementGrid, Text: "Benar atau salah?", Statements: []exam.Option{{ID: "s1", Text: "2 > 1"}, {ID: "s2", Text: "1 > 2"}},
				Answer: []string{"s1=true", "s2=false"}, Points: 1},
			{ID: "q3", Type: exam.ShortAnswer, Text: "2 * 3 = ?", Answer: []string{"6", "2*3"}, Points: 1},
		}}
	var buf bytes.Buffer
	if err := Export(t.Context(), &buf, e, svc); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`<text>$course$/top/Matematika - IPA</text>`,
		`<question type="description">`, `<name><text>Bacaan 1</text></name>`,
		`Hitung \(\frac{1}{2} &amp;lt; x\) dan \[\int_0^1 x\,dx\] harga $5 &lt;code&gt;$kode$&lt;/code&gt;`,
		`&lt;img src=&#34;@@PLUGINFILE@@/` + m.SHA256[:16] + `.png&#34; alt=&#34;Grafik suhu&#34;/&gt;`,
		`<file name="` + m.SHA256[:16] + `.png" path="/" encoding="base64">` + base64.StdEncoding.EncodeToString(img) + `</file>`,
		`<answer fraction="0" format="html">`, `<text>&lt;p&gt;&lt;strong&gt;satu&lt;/strong&gt;&lt;/p&gt;</text>`,
		`<answer fraction="100" format="html">`, `<defaultgrade>2</defaultgrade>`,
		`<question type="matching">`, `<tag><text>portal-statement-grid</text></tag>`,
		`<answer><text>Benar</text></answer>`,
		`<text>2\*3</text>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the export lacks %s\n%.1500s", want, out)
		}
	}
	if strings.Contains(out, "<math") || strings.Contains(out, "&lt;math") || strings.Contains(out, "data-media") {
		t.Errorf("the export holds MathML or the renderer's attributes:\n%s", out)
	}
	// A category before q2 ends the description's questions.
	if i, j := strings.Index(out, "<name><text>q1</text>"), strings.Index(out, "<name><text>q2</text>"); !strings.Contains(out[i:j], `<question type="category">`) {
		t.Errorf("no category between q1 and q2:\n%s", out[i:j])
	}
}

func TestExportRefusesMissingMedia(t *testing.T) {
	e := exam.Exam{Title: "x", Questions: []exam.Question{{ID: "q1", Type: exam.Essay, Format: "markdown",
		Text: "![g](media:" + strings.Repeat("c", 64) + ")"}}}
	if err := Export(t.Context(), &bytes.Buffer{}, e, mustService(t)); err == nil || !strings.Contains(err.Error(), strings.Repeat("c", 64)) {
		t.Fatalf("Export: %v, want the missing file named", err)
	}
}
