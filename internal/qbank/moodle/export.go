package moodle

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/richtext"
)

// Export writes e as a Moodle XML file to w, with its answer keys and its
// media embedded in base64 (streamed from media, never held whole).
//
// Texts are written as the HTML Moodle's editor writes: the exam's
// markdown rendered by internal/richtext, but each formula written back
// as its TeX between \( \) or \[ \] (Moodle's MathJax filter draws it),
// never as MathML; images and audio as files of the question
// (@@PLUGINFILE@@). A stimulus becomes a "description" before its
// questions (and a repeat of the category ends its questions). A
// statement grid, which Moodle has not, becomes a "matching" question
// whose answers are the grid's columns, tagged so that Import makes a
// grid of it again; docs/question-banks.md has the whole mapping.
func Export(ctx context.Context, w io.Writer, e exam.Exam, media qbank.MediaSource) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	x := &exporter{ctx: ctx, w: bw, media: media, info: map[string]exam.Media{}}
	if err := x.exam(e); err != nil {
		return err
	}
	if x.err != nil {
		return x.err
	}
	return bw.Flush()
}

type exporter struct {
	ctx   context.Context
	w     *bufio.Writer
	media qbank.MediaSource
	info  map[string]exam.Media
	// blanks are the embedded answers of the cloze question being
	// written, by blank id, which rewrite puts where its text shows them.
	blanks map[string]string
	err    error // the first write error
}

func (x *exporter) printf(format string, args ...any) {
	if x.err == nil {
		_, x.err = fmt.Fprintf(x.w, format, args...)
	}
}

// esc is s escaped as XML text.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func (x *exporter) exam(e exam.Exam) error {
	x.printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<quiz>\n")
	category := "$course$/top/" + strings.ReplaceAll(strings.TrimSpace(e.Title), "/", "-")
	if strings.TrimSpace(e.Title) == "" {
		category = "$course$/top/Portal"
	}
	base := category
	writeCategory := func() {
		x.printf("  <question type=\"category\">\n    <category><text>%s</text></category>\n  </question>\n", esc(category))
	}
	writeCategory()
	stimuli := map[string]exam.Stimulus{}
	for _, st := range e.Stimuli {
		stimuli[st.ID] = st
	}
	current := ""
	for _, q := range e.Questions {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		if c := categoryOf(base, q); c != category {
			category, current = c, "" // a new category ends the description's questions
			writeCategory()
		}
		if q.Stimulus != current {
			if q.Stimulus == "" {
				writeCategory() // ends the description's questions
			} else if err := x.description(stimuli[q.Stimulus], q.Stimulus); err != nil {
				return err
			}
			current = q.Stimulus
		}
		if err := x.question(q); err != nil {
			return fmt.Errorf("question %s: %w", q.ID, err)
		}
	}
	x.printf("</quiz>\n")
	return x.err
}

// categoryOf is the Moodle category of q: its own path under the course's
// top (Question.Category), else the exam's.
func categoryOf(fallback string, q exam.Question) string {
	if q.Category == "" {
		return fallback
	}
	return "$course$/top/" + q.Category
}

func (x *exporter) description(st exam.Stimulus, id string) error {
	name := st.Title
	if name == "" {
		name = id
	}
	x.printf("  <question type=\"description\">\n    <name><text>%s</text></name>\n", esc(name))
	if err := x.field("questiontext", "", st.Format, st.Text); err != nil {
		return fmt.Errorf("stimulus %s: %w", id, err)
	}
	x.printf("    <generalfeedback format=\"html\"><text></text></generalfeedback>\n    <defaultgrade>0</defaultgrade>\n    <penalty>0</penalty>\n    <hidden>0</hidden>\n  </question>\n")
	return nil
}

func points(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

func (x *exporter) question(q exam.Question) error {
	typ := map[exam.QuestionType]string{exam.SingleChoice: "multichoice", exam.MultipleChoice: "multichoice",
		exam.TrueFalse: "truefalse", exam.ShortAnswer: "shortanswer", exam.Essay: "essay",
		exam.Matching: "matching", exam.StatementGrid: "matching", exam.Numeric: "numerical",
		exam.Cloze: "multianswer"}[q.Type]
	if typ == "" {
		return apperr.Errorf(apperr.Invalid, "UNSUPPORTED_TYPE", "Moodle has no question of type %q", q.Type)
	}
	x.printf("  <question type=%q>\n    <name><text>%s</text></name>\n", typ, esc(q.ID))
	var tags []string
	if q.Type == exam.Cloze {
		t, err := x.clozeBlanks(q)
		if err != nil {
			return err
		}
		tags = t
	}
	err := x.field("questiontext", "", q.Format, q.Text)
	x.blanks = nil
	if err != nil {
		return err
	}
	x.printf("    <generalfeedback format=\"html\"><text></text></generalfeedback>\n")
	x.printf("    <defaultgrade>%s</defaultgrade>\n    <penalty>0</penalty>\n    <hidden>0</hidden>\n", points(q.Points))
	switch q.Type {
	case exam.Numeric:
		tags = append(tags, x.numerical(q)...)
	case exam.SingleChoice, exam.MultipleChoice:
		key := map[string]bool{}
		for _, a := range q.Answer {
			key[a] = true
		}
		single := q.Type == exam.SingleChoice
		x.printf("    <single>%t</single>\n    <shuffleanswers>true</shuffleanswers>\n    <answernumbering>abc</answernumbering>\n", single)
		for _, o := range q.Options {
			f := "0"
			switch {
			case key[o.ID] && single:
				f = "100"
			case key[o.ID]:
				f = strconv.FormatFloat(100/float64(len(key)), 'f', 5, 64)
			case !single:
				f = "-100" // any wrong choice loses the points: the exam's all or nothing
			}
			if err := x.field("answer", fmt.Sprintf(" fraction=%q", f), q.Format, o.Text); err != nil {
				return err
			}
		}
		if !single {
			tags = append(tags, tagScoringAll)
		}
	case exam.TrueFalse:
		for _, v := range []string{"true", "false"} {
			f := "0"
			if len(q.Answer) == 1 && q.Answer[0] == v {
				f = "100"
			}
			x.printf("    <answer fraction=%q format=\"moodle_auto_format\">\n      <text>%s</text>\n      <feedback format=\"html\"><text></text></feedback>\n    </answer>\n", f, v)
		}
	case exam.ShortAnswer:
		x.printf("    <usecase>0</usecase>\n")
		for _, a := range q.Answer {
			x.printf("    <answer fraction=\"100\" format=\"moodle_auto_format\">\n      <text>%s</text>\n      <feedback format=\"html\"><text></text></feedback>\n    </answer>\n", esc(strings.ReplaceAll(a, "*", `\*`))) // a star, not Moodle's wildcard
		}
	case exam.Essay:
		x.printf("    <responseformat>editor</responseformat>\n    <responserequired>1</responserequired>\n    <responsefieldlines>15</responsefieldlines>\n    <attachments>0</attachments>\n    <attachmentsrequired>0</attachmentsrequired>\n")
		x.printf("    <graderinfo format=\"plain_text\"><text>%s</text></graderinfo>\n    <responsetemplate format=\"html\"><text></text></responsetemplate>\n", esc(q.Rubric))
	case exam.Matching, exam.StatementGrid:
		premises, responses := q.Premises, q.Responses
		if q.Type == exam.StatementGrid {
			premises, responses = q.Statements, q.Columns
			if len(responses) == 0 {
				responses = []exam.Option{{ID: "true", Text: "Benar"}, {ID: "false", Text: "Salah"}}
			}
			tags = append(tags, tagGrid)
			if q.Scoring == exam.ScoringPartial {
				tags = append(tags, tagScoringPart)
			}
		} else {
			if q.Scoring == exam.ScoringAll {
				tags = append(tags, tagScoringAll)
			}
			if q.ReuseResponses {
				tags = append(tags, tagReuse)
			}
		}
		if err := x.matching(q, premises, responses); err != nil {
			return err
		}
	}
	tags = append(tags, irtTags(q)...)
	if len(tags) > 0 {
		x.printf("    <tags>\n")
		for _, t := range tags {
			x.printf("      <tag><text>%s</text></tag>\n", esc(t))
		}
		x.printf("    </tags>\n")
	}
	x.printf("  </question>\n")
	return x.err
}

// matching writes the subquestions: first every response as a distractor
// (a subquestion without text: Moodle lists the answers in the order it
// first meets them), then each premise with its key's response.
func (x *exporter) matching(q exam.Question, premises, responses []exam.Option) error {
	x.printf("    <shuffleanswers>true</shuffleanswers>\n")
	text := map[string]string{}
	for _, r := range responses {
		t, err := x.plain(q.Format, r.Text)
		if err != nil {
			return err
		}
		text[r.ID] = t
		x.printf("    <subquestion format=\"html\">\n      <text></text>\n      <answer><text>%s</text></answer>\n    </subquestion>\n", esc(t))
	}
	key := map[string]string{}
	for _, k := range q.Answer {
		p, r, _ := strings.Cut(k, "=")
		key[p] = r
	}
	for _, p := range premises {
		x.printf("    <subquestion format=\"html\">\n")
		h, files, err := x.html(q.Format, p.Text)
		if err != nil {
			return err
		}
		x.printf("      <text>%s</text>\n", esc(h))
		if err := x.files(files); err != nil {
			return err
		}
		x.printf("      <answer><text>%s</text></answer>\n    </subquestion>\n", esc(text[key[p.ID]]))
	}
	return nil
}

// field writes <name attrs format="html"><text>HTML</text> files </name>.
func (x *exporter) field(name, attrs, format, text string) error {
	h, files, err := x.html(format, text)
	if err != nil {
		return err
	}
	x.printf("    <%s%s format=\"html\">\n      <text>%s</text>\n", name, attrs, esc(h))
	if err := x.files(files); err != nil {
		return err
	}
	if name == "answer" {
		x.printf("      <feedback format=\"html\"><text></text></feedback>\n")
	}
	x.printf("    </%s>\n", name)
	return x.err
}

// files writes each media file as a <file>, its bytes base64-encoded as
// they are read.
func (x *exporter) files(shas []string) error {
	for _, sha := range shas {
		m, r, err := x.media.OpenMedia(x.ctx, sha)
		if err != nil {
			return fmt.Errorf("media %s: %w", sha, err)
		}
		x.printf("      <file name=%q path=\"/\" encoding=\"base64\">", fileName(m))
		if x.err == nil {
			enc := base64.NewEncoder(base64.StdEncoding, x.w)
			_, err = io.Copy(enc, r)
			if err == nil {
				err = enc.Close()
			}
		}
		r.Close()
		if err != nil {
			return fmt.Errorf("media %s: %w", sha, err)
		}
		x.printf("</file>\n")
	}
	return x.err
}

// fileName is the name a media file has in the export: its SHA-256's
// start and its type's extension.
func fileName(m exam.Media) string {
	ext := map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp", "audio/mpeg": ".mp3",
		"audio/ogg": ".ogg", "audio/mp4": ".m4a", "audio/aac": ".aac"}[m.Type]
	return m.SHA256[:16] + ext
}

// mediaOf is the media record of sha (its type and kind), read once.
func (x *exporter) mediaOf(sha string) (exam.Media, error) {
	if m, ok := x.info[sha]; ok {
		return m, nil
	}
	m, r, err := x.media.OpenMedia(x.ctx, sha)
	if err != nil {
		return exam.Media{}, err
	}
	r.Close()
	x.info[sha] = m
	return m, nil
}

// Math placeholders: private-use characters around the formula's number,
// which markdown leaves as they are.
const mathOpen, mathClose = "\uE000", "\uE001"

var placeholder = regexp.MustCompile(mathOpen + `([0-9]+)` + mathClose)

type formula struct {
	tex     string
	display bool
}

// html is a text of the exam as the HTML Moodle's editor writes, and the
// media files it shows.
func (x *exporter) html(format, text string) (string, []string, error) {
	f, err := richtext.ParseFormat(format)
	if err != nil {
		return "", nil, err
	}
	src, formulas := text, []formula(nil)
	if f == richtext.Markdown {
		src, formulas = extractMath(text)
	}
	var missing error
	res, err := richtext.Render(f, src, richtext.Options{Descriptions: true, Media: func(sha string) (richtext.Media, bool) {
		m, err := x.mediaOf(sha)
		if err != nil {
			if missing == nil {
				missing = fmt.Errorf("media %s: %w", sha, err)
			}
			return richtext.Media{}, false
		}
		return richtext.Media{URL: "media/" + sha, Audio: m.Kind == exam.MediaAudio}, true
	}})
	if err != nil {
		return "", nil, err
	}
	if missing != nil {
		return "", nil, missing
	}
	out, err := x.rewrite(res.HTML, formulas)
	return out, res.Media, err
}

// rewrite turns rendered HTML into Moodle's: formulas back to TeX, media
// to the question's files, the renderer's own attributes dropped.
func (x *exporter) rewrite(h string, formulas []formula) (string, error) {
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(h), body)
	if err != nil {
		return "", err
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			n.Data = placeholder.ReplaceAllStringFunc(n.Data, func(s string) string {
				i, _ := strconv.Atoi(s[len(mathOpen) : len(s)-len(mathClose)])
				if i >= len(formulas) {
					return s
				}
				if formulas[i].display {
					return `\[` + formulas[i].tex + `\]`
				}
				return `\(` + formulas[i].tex + `\)`
			})
			return
		case html.ElementNode:
			var attrs []html.Attribute
			sha := ""
			for _, a := range n.Attr {
				switch a.Key {
				case "dir", "loading", "preload":
				case "data-media":
					sha = a.Val
				default:
					attrs = append(attrs, a)
				}
			}
			n.Attr = attrs
			if id := attrOf(n, "data-blank"); id != "" && x.blanks[id] != "" {
				n.Type, n.Data, n.DataAtom, n.Attr = html.TextNode, x.blanks[id], 0, nil
				return
			}
			if sha != "" {
				m := x.info[sha]
				alt := ""
				for _, a := range n.Attr {
					if a.Key == "alt" || a.Key == "aria-label" {
						alt = a.Val
					}
				}
				src := "@@PLUGINFILE@@/" + fileName(m)
				if n.DataAtom == atom.Audio {
					n.Attr = []html.Attribute{{Key: "controls", Val: "true"}, {Key: "title", Val: alt}}
					n.AppendChild(&html.Node{Type: html.ElementNode, Data: "source", DataAtom: atom.Source,
						Attr: []html.Attribute{{Key: "src", Val: src}, {Key: "type", Val: m.Type}}})
					n.AppendChild(&html.Node{Type: html.TextNode, Data: alt})
				} else {
					n.Attr = []html.Attribute{{Key: "src", Val: src}, {Key: "alt", Val: alt}}
				}
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	var b strings.Builder
	for _, n := range nodes {
		walk(n)
		if err := html.Render(&b, n); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// plain is a text of the exam as plain text (a matching question's
// answers, which Moodle shows in a list): formulas as \( \) TeX, an image
// as its description.
func (x *exporter) plain(format, text string) (string, error) {
	h, _, err := x.html(format, text)
	if err != nil {
		return "", err
	}
	return strings.ReplaceAll(htmlToPlain(h), "\n", " "), nil
}

// extractMath replaces each formula of a markdown text by a placeholder,
// reading the formulas as internal/richtext does (code spans and
// backslash escapes are not math; $…$ on one line, the opening $ not
// before a space, the closing $ not after a space nor before a digit;
// $$…$$ display).
func extractMath(md string) (string, []formula) {
	var b strings.Builder
	var fs []formula
	for i := 0; i < len(md); {
		c := md[i]
		switch {
		case c == '\\' && i+1 < len(md):
			b.WriteString(md[i : i+2])
			i += 2
			continue
		case c == '`':
			n := 0
			for i+n < len(md) && md[i+n] == '`' {
				n++
			}
			run := md[i : i+n]
			if end := closingTicks(md[i+n:], n); end >= 0 {
				b.WriteString(md[i : i+n+end+n])
				i += n + end + n
			} else {
				b.WriteString(run)
				i += n
			}
			continue
		case c == '$' && i+1 < len(md) && md[i+1] == '$':
			if end := closingDollars(md[i+2:]); end >= 0 && strings.TrimSpace(md[i+2:i+2+end]) != "" {
				fs = append(fs, formula{tex: strings.TrimSpace(md[i+2 : i+2+end]), display: true})
				b.WriteString(mathOpen + strconv.Itoa(len(fs)-1) + mathClose)
				i += 2 + end + 2
				continue
			}
			b.WriteString("$$")
			i += 2
			continue
		case c == '$':
			if end := closingDollar(md[i:]); end > 0 {
				fs = append(fs, formula{tex: md[i+1 : i+end]})
				b.WriteString(mathOpen + strconv.Itoa(len(fs)-1) + mathClose)
				i += end + 1
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), fs
}

// closingTicks is the index in s of the next run of exactly n backticks.
func closingTicks(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		k := 0
		for i+k < len(s) && s[i+k] == '`' {
			k++
		}
		if k == n {
			return i
		}
		i += k
	}
	return -1
}

// closingDollars is the index of the first $$ in b not escaped.
func closingDollars(b string) int {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\\' {
			i++
			continue
		}
		if b[i] == '$' && b[i+1] == '$' {
			return i
		}
	}
	return -1
}

// closingDollar is the index in line (which starts with the opening $) of
// the $ that closes an inline formula, or -1.
func closingDollar(line string) int {
	if len(line) < 3 || line[1] == ' ' || line[1] == '\t' || line[1] == '\n' {
		return -1
	}
	for i := 1; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '$':
			prev := line[i-1]
			if prev == ' ' || prev == '\t' || (i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9') {
				continue
			}
			return i
		case '\n', '\r':
			return -1
		}
	}
	return -1
}
