package qti

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/richtext"
)

// The namespaces Export writes.
const (
	nsQTI3     = "http://www.imsglobal.org/xsd/imsqtiasi_v3p0"
	nsCP3      = "http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1"
	nsMathML   = "http://www.w3.org/1998/Math/MathML"
	nsLOM      = "http://ltsc.ieee.org/xsd/LOM"
	rpCorrect  = "https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/match_correct.xml"
	rpMap      = "https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/map_response.xml"
	xmlHeader  = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	responseID = "RESPONSE"
)

// mediaRef finds the media a markdown text shows.
var mediaRef = regexp.MustCompile(`media:([0-9a-f]{64})`)

// mediaExt is the file extension of a media type.
var mediaExt = map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp",
	"audio/mpeg": ".mp3", "audio/ogg": ".ogg", "audio/mp4": ".m4a", "audio/aac": ".aac"}

// exporter writes one exam's package.
type exporter struct {
	media map[string]exam.Media // by SHA-256
	// blanks are the interactions of the cloze question being written, by
	// blank id, which the item body has where its text shows the blanks.
	blanks map[string]string
}

// Export writes e as a QTI 3.0 content package to w: imsmanifest.xml, one
// item file per question (items/ID.xml) with its answer key and points,
// one file per stimulus (stimuli/ID.xml) and the media the texts show
// (media/SHA256.ext), read from media. Markdown is written as XHTML and
// its formulas as MathML that carries its TeX (an annotation of encoding
// application/x-tex), which Import reads back.
func Export(ctx context.Context, w io.Writer, e exam.Exam, media qbank.MediaSource) error {
	ex := &exporter{media: map[string]exam.Media{}}
	var shas []string
	addRefs := func(format, s string) {
		if format != string(richtext.Markdown) {
			return
		}
		for _, m := range mediaRef.FindAllStringSubmatch(s, -1) {
			if !slices.Contains(shas, m[1]) {
				shas = append(shas, m[1])
			}
		}
	}
	for _, q := range e.Questions {
		for _, s := range questionTexts(q) {
			addRefs(q.Format, s)
		}
	}
	for _, st := range e.Stimuli {
		addRefs(st.Format, st.Text)
	}
	for _, sha := range shas {
		m, r, err := media.OpenMedia(ctx, sha)
		if err != nil {
			return fmt.Errorf("qti export: media %s: %w", sha, err)
		}
		r.Close()
		ex.media[sha] = m
	}
	modified := e.CreatedAt
	if modified.IsZero() {
		modified = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	zw := zip.NewWriter(w)
	create := func(name string) (io.Writer, error) {
		return zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: modified})
	}
	write := func(name, content string) error {
		f, err := create(name)
		if err != nil {
			return err
		}
		_, err = io.WriteString(f, content)
		return err
	}
	if err := write("imsmanifest.xml", ex.manifest(e, shas)); err != nil {
		return fmt.Errorf("qti export: %w", err)
	}
	stimuli := map[string]exam.Stimulus{}
	for _, st := range e.Stimuli {
		stimuli[st.ID] = st
		s, err := ex.stimulus(st)
		if err != nil {
			return fmt.Errorf("qti export: stimulus %s: %w", st.ID, err)
		}
		if err := write("stimuli/"+st.ID+".xml", s); err != nil {
			return fmt.Errorf("qti export: %w", err)
		}
	}
	for _, q := range e.Questions {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, err := ex.item(q, stimuli)
		if err != nil {
			return fmt.Errorf("qti export: question %s: %w", q.ID, err)
		}
		if err := write("items/"+q.ID+".xml", s); err != nil {
			return fmt.Errorf("qti export: %w", err)
		}
	}
	for _, sha := range shas {
		f, err := create(ex.mediaPath(sha))
		if err != nil {
			return fmt.Errorf("qti export: %w", err)
		}
		_, r, err := media.OpenMedia(ctx, sha)
		if err != nil {
			return fmt.Errorf("qti export: media %s: %w", sha, err)
		}
		_, err = io.Copy(f, r)
		r.Close()
		if err != nil {
			return fmt.Errorf("qti export: media %s: %w", sha, err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("qti export: %w", err)
	}
	return nil
}

// questionTexts are every text of q written in its format.
func questionTexts(q exam.Question) []string {
	out := []string{q.Text}
	parts := [][]exam.Option{q.Options, q.Statements, q.Columns, q.Premises, q.Responses}
	for _, b := range q.Blanks {
		parts = append(parts, b.Options)
	}
	for _, os := range parts {
		for _, o := range os {
			out = append(out, o.Text)
		}
	}
	return out
}

func (ex *exporter) mediaPath(sha string) string {
	return "media/" + sha + mediaExt[ex.media[sha].Type]
}

// xmlID is an exam id as an XML name (QTI's identifiers are NCNames): an
// id that cannot start one gets a "_" before it, which Import takes off.
func xmlID(id string) string {
	if id == "" || !isNameStart(id[0]) {
		return "_" + id
	}
	return id
}

// esc is s escaped for XML text and attributes.
func esc(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&apos;")
		case '\t', '\n', '\r':
			b.WriteRune(r)
		default:
			if r < 0x20 || r == 0xFFFE || r == 0xFFFF {
				continue // not a character XML can hold
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (ex *exporter) manifest(e exam.Exam, shas []string) string {
	var b strings.Builder
	b.WriteString(xmlHeader)
	fmt.Fprintf(&b, `<manifest xmlns="%s" identifier="%s">`+"\n", nsCP3, esc(xmlID("exam-"+e.ID)))
	fmt.Fprintf(&b, `<metadata><schema>QTI Package</schema><schemaversion>3.0.0</schemaversion>`+
		`<lom xmlns="%s"><general><title><string>%s</string></title></general></lom></metadata>`+"\n", nsLOM, esc(e.Title))
	b.WriteString("<organizations/>\n<resources>\n")
	deps := func(format string, texts ...string) {
		var seen []string
		for _, s := range texts {
			if format != string(richtext.Markdown) {
				continue
			}
			for _, m := range mediaRef.FindAllStringSubmatch(s, -1) {
				if !slices.Contains(seen, m[1]) {
					seen = append(seen, m[1])
					fmt.Fprintf(&b, `<dependency identifierref="media-%s"/>`, m[1])
				}
			}
		}
	}
	for _, q := range e.Questions {
		href := "items/" + q.ID + ".xml"
		fmt.Fprintf(&b, `<resource identifier="%s" type="%s" href="%s"><file href="%s"/>`, esc(xmlID("item-"+q.ID)), typeItem30, esc(href), esc(href))
		if q.Stimulus != "" {
			fmt.Fprintf(&b, `<dependency identifierref="%s"/>`, esc(xmlID("stimulus-"+q.Stimulus)))
		}
		deps(q.Format, questionTexts(q)...)
		b.WriteString("</resource>\n")
	}
	for _, st := range e.Stimuli {
		href := "stimuli/" + st.ID + ".xml"
		fmt.Fprintf(&b, `<resource identifier="%s" type="%s" href="%s"><file href="%s"/>`, esc(xmlID("stimulus-"+st.ID)), typeStimulus30, esc(href), esc(href))
		deps(st.Format, st.Text)
		b.WriteString("</resource>\n")
	}
	for _, sha := range shas {
		p := ex.mediaPath(sha)
		fmt.Fprintf(&b, `<resource identifier="media-%s" type="webcontent" href="%s"><file href="%s"/></resource>`+"\n", sha, p, p)
	}
	b.WriteString("</resources>\n</manifest>\n")
	return b.String()
}

func (ex *exporter) stimulus(st exam.Stimulus) (string, error) {
	body, err := ex.xhtml(st.Format, st.Text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(xmlHeader)
	fmt.Fprintf(&b, `<qti-assessment-stimulus xmlns="%s" identifier="%s" title="%s">`+"\n", nsQTI3, esc(xmlID(st.ID)), esc(st.Title))
	fmt.Fprintf(&b, "<qti-stimulus-body>%s</qti-stimulus-body>\n</qti-assessment-stimulus>\n", body)
	return b.String(), nil
}

func fmtPoints(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

func (ex *exporter) item(q exam.Question, stimuli map[string]exam.Stimulus) (string, error) {
	var decl, interaction, rpBody strings.Builder
	if q.Type == exam.Cloze {
		if err := ex.cloze(q, &decl, &rpBody); err != nil {
			return "", err
		}
	}
	text, err := ex.xhtml(q.Format, q.Text)
	ex.blanks = nil
	if err != nil {
		return "", err
	}
	points := q.Points
	if points == 0 && q.Type != exam.Essay {
		points = 1
	}
	rp := rpCorrect
	values := func(vs []string) string {
		var b strings.Builder
		b.WriteString("<qti-correct-response>")
		for _, v := range vs {
			fmt.Fprintf(&b, "<qti-value>%s</qti-value>", esc(v))
		}
		b.WriteString("</qti-correct-response>")
		return b.String()
	}
	choices := func(tag string, opts []exam.Option, extra string) (string, error) {
		var b strings.Builder
		for _, o := range opts {
			t, err := ex.xhtml(q.Format, o.Text)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, `<%s identifier="%s"%s>%s</%s>`, tag, esc(xmlID(o.ID)), extra, t, tag)
		}
		return b.String(), nil
	}
	ids := func(vs []string) []string {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = xmlID(v)
		}
		return out
	}
	switch q.Type {
	case exam.SingleChoice, exam.MultipleChoice, exam.TrueFalse:
		opts, card, maxc := q.Options, "single", 1
		if q.Type == exam.TrueFalse {
			opts = []exam.Option{{ID: "true", Text: "Benar"}, {ID: "false", Text: "Salah"}}
		}
		if q.Type == exam.MultipleChoice {
			card, maxc = "multiple", len(opts)
		}
		fmt.Fprintf(&decl, `<qti-response-declaration identifier="%s" cardinality="%s" base-type="identifier">%s</qti-response-declaration>`,
			responseID, card, values(ids(q.Answer)))
		cs, err := choices("qti-simple-choice", opts, "")
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&interaction, `<qti-choice-interaction response-identifier="%s" max-choices="%d">%s</qti-choice-interaction>`, responseID, maxc, cs)
	case exam.ShortAnswer:
		rp = rpMap
		fmt.Fprintf(&decl, `<qti-response-declaration identifier="%s" cardinality="single" base-type="string">%s<qti-mapping default-value="0">`,
			responseID, values(q.Answer[:min(1, len(q.Answer))]))
		for _, a := range q.Answer {
			fmt.Fprintf(&decl, `<qti-map-entry map-key="%s" mapped-value="%s" case-sensitive="false"/>`, esc(a), fmtPoints(points))
		}
		decl.WriteString("</qti-mapping></qti-response-declaration>")
		fmt.Fprintf(&interaction, `<p><qti-text-entry-interaction response-identifier="%s"/></p>`, responseID)
	case exam.Numeric:
		rp = ""
		ex.numeric(q, points, &decl, &interaction, &rpBody)
	case exam.Cloze:
		rp = ""
	case exam.Essay:
		rp = ""
		fmt.Fprintf(&decl, `<qti-response-declaration identifier="%s" cardinality="single" base-type="string"/>`, responseID)
		fmt.Fprintf(&interaction, `<qti-extended-text-interaction response-identifier="%s"/>`, responseID)
	case exam.StatementGrid, exam.Matching:
		rows, cols, class := q.Premises, q.Responses, ""
		colMax := 1
		if q.ReuseResponses {
			colMax = len(rows)
		}
		if q.Type == exam.StatementGrid {
			rows, cols, class, colMax = q.Statements, q.Columns, ` class="qti-match-tabular"`, len(q.Statements)
			if len(cols) == 0 {
				cols = []exam.Option{{ID: "true", Text: "Benar"}, {ID: "false", Text: "Salah"}}
			}
		}
		var pairs []string
		for _, a := range q.Answer {
			r, c, _ := strings.Cut(a, "=")
			pairs = append(pairs, xmlID(r)+" "+xmlID(c))
		}
		fmt.Fprintf(&decl, `<qti-response-declaration identifier="%s" cardinality="multiple" base-type="directedPair">%s`, responseID, values(pairs))
		if q.Scoring == exam.ScoringPartial {
			rp = rpMap
			decl.WriteString(`<qti-mapping default-value="0">`)
			for _, p := range pairs {
				fmt.Fprintf(&decl, `<qti-map-entry map-key="%s" mapped-value="%s"/>`, esc(p), fmtPoints(points/float64(len(pairs))))
			}
			decl.WriteString("</qti-mapping>")
		}
		decl.WriteString("</qti-response-declaration>")
		rs, err := choices("qti-simple-associable-choice", rows, ` match-max="1"`)
		if err != nil {
			return "", err
		}
		cs, err := choices("qti-simple-associable-choice", cols, fmt.Sprintf(` match-max="%d"`, colMax))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&interaction, `<qti-match-interaction response-identifier="%s" max-associations="%d"%s>`+
			`<qti-simple-match-set>%s</qti-simple-match-set><qti-simple-match-set>%s</qti-simple-match-set></qti-match-interaction>`,
			responseID, len(rows), class, rs, cs)
	default:
		return "", fmt.Errorf("the question type %q has no QTI interaction here", q.Type)
	}
	var b strings.Builder
	b.WriteString(xmlHeader)
	fmt.Fprintf(&b, `<qti-assessment-item xmlns="%s" identifier="%s" title="%s" adaptive="false" time-dependent="false">`+"\n",
		nsQTI3, esc(xmlID(q.ID)), esc(q.ID))
	b.WriteString(decl.String() + "\n")
	b.WriteString(`<qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>` + "\n")
	fmt.Fprintf(&b, `<qti-outcome-declaration identifier="MAXSCORE" cardinality="single" base-type="float"><qti-default-value><qti-value>%s</qti-value></qti-default-value></qti-outcome-declaration>`+"\n", fmtPoints(points))
	if q.Calibrated != nil {
		fmt.Fprintf(&b, `<qti-outcome-declaration identifier="%s" cardinality="single" base-type="string"><qti-default-value><qti-value>%s</qti-value></qti-default-value></qti-outcome-declaration>`+"\n",
			outcomeIRT, esc(q.Calibrated.String()))
	}
	if st, ok := stimuli[q.Stimulus]; ok {
		fmt.Fprintf(&b, `<qti-assessment-stimulus-ref identifier="%s" href="../stimuli/%s.xml" title="%s"/>`+"\n", esc(xmlID(st.ID)), esc(st.ID), esc(st.Title))
	}
	b.WriteString("<qti-item-body>")
	if q.Type == exam.Essay && q.Rubric != "" {
		lines := strings.Split(q.Rubric, "\n")
		for i := range lines {
			lines[i] = esc(lines[i])
		}
		fmt.Fprintf(&b, `<qti-rubric-block view="scorer" use="scoring"><qti-content-body><p>%s</p></qti-content-body></qti-rubric-block>`, strings.Join(lines, "<br/>"))
	}
	b.WriteString(text + interaction.String() + "</qti-item-body>\n")
	if rp != "" {
		fmt.Fprintf(&b, `<qti-response-processing template="%s"/>`+"\n", rp)
	}
	if rpBody.Len() > 0 {
		fmt.Fprintf(&b, "<qti-response-processing>%s</qti-response-processing>\n", rpBody.String())
	}
	b.WriteString("</qti-assessment-item>\n")
	return b.String(), nil
}

// xhtml is a text rendered by richtext as XHTML for an item body: media
// as the package's files (relative to items/ and stimuli/), <u> as QTI's
// underline class, each formula's MathML annotated with its TeX.
func (ex *exporter) xhtml(format, text string) (string, error) {
	f, err := richtext.ParseFormat(format)
	if err != nil {
		return "", err
	}
	res, err := richtext.Render(f, text, richtext.Options{Descriptions: true, Media: func(sha string) (richtext.Media, bool) {
		m, ok := ex.media[sha]
		return richtext.Media{URL: "media/" + sha, Audio: m.Kind == exam.MediaAudio}, ok
	}})
	if err != nil {
		return "", err
	}
	ctx := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(strings.NewReader(res.HTML), ctx)
	if err != nil {
		return "", err
	}
	w := &xhtmlWriter{ex: ex, tex: res.Math}
	for _, n := range nodes {
		w.node(n, false)
	}
	return w.b.String(), nil
}

type xhtmlWriter struct {
	ex  *exporter
	b   strings.Builder
	tex []string // the formulas' TeX, in order
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// keptAttrs are the HTML attributes an item body keeps.
var keptAttrs = map[string]bool{"start": true, "align": true, "alt": true}

func (w *xhtmlWriter) node(n *html.Node, inMath bool) {
	switch n.Type {
	case html.TextNode:
		w.b.WriteString(esc(n.Data))
		return
	case html.ElementNode:
	default:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.node(c, inMath)
		}
		return
	}
	name := n.Data
	switch {
	case name == "math" && !inMath:
		tex := ""
		if len(w.tex) > 0 {
			tex, w.tex = w.tex[0], w.tex[1:]
		}
		fmt.Fprintf(&w.b, `<math xmlns="%s"`, nsMathML)
		if d := attrOf(n, "display"); d != "" {
			fmt.Fprintf(&w.b, ` display="%s"`, esc(d))
		}
		w.b.WriteString("><semantics><mrow>")
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.node(c, true)
		}
		fmt.Fprintf(&w.b, `</mrow><annotation encoding="application/x-tex">%s</annotation></semantics></math>`, esc(tex))
		return
	case inMath:
		w.b.WriteString("<" + name)
		for _, a := range n.Attr {
			if a.Namespace == "" && !strings.ContainsAny(a.Key, ":<>\"'/= ") {
				fmt.Fprintf(&w.b, ` %s="%s"`, a.Key, esc(a.Val))
			}
		}
		w.b.WriteString(">")
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.node(c, true)
		}
		w.b.WriteString("</" + name + ">")
		return
	case name == "img":
		sha := attrOf(n, "data-media")
		fmt.Fprintf(&w.b, `<img src="../%s" alt="%s"/>`, esc(w.ex.mediaPath(sha)), esc(attrOf(n, "alt")))
		return
	case name == "audio":
		sha := attrOf(n, "data-media")
		fmt.Fprintf(&w.b, `<audio src="../%s" controls="controls" title="%s"></audio>`, esc(w.ex.mediaPath(sha)), esc(attrOf(n, "aria-label")))
		return
	case name == "span" && w.ex.blanks[attrOf(n, "data-blank")] != "":
		w.b.WriteString(w.ex.blanks[attrOf(n, "data-blank")])
		return
	case name == "u":
		w.b.WriteString(`<span class="qti-underline">`)
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.node(c, false)
		}
		w.b.WriteString("</span>")
		return
	}
	w.b.WriteString("<" + name)
	for _, a := range n.Attr {
		if keptAttrs[a.Key] {
			fmt.Fprintf(&w.b, ` %s="%s"`, a.Key, esc(a.Val))
		}
	}
	if voidElements[name] {
		w.b.WriteString("/>")
		return
	}
	w.b.WriteString(">")
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c, false)
	}
	w.b.WriteString("</" + name + ">")
}
