// Package moodle reads and writes Moodle's quiz XML (the "Moodle XML
// format" of Moodle's question bank): Import makes a qbank.Bank of a file,
// Export writes an exam as such a file. docs/question-banks.md is the
// operators' reference: what maps to what, what is dropped, the limits.
package moodle

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/richtext"
)

// Tags the portal writes on the questions it exports, so that an import of
// its own export gives back what Moodle cannot say (Moodle keeps and
// ignores them).
const (
	tagGrid        = "portal-statement-grid"
	tagReuse       = "portal-reuse-responses"
	tagScoringAll  = "portal-scoring-all"
	tagScoringPart = "portal-scoring-partial"
)

// Limits of one question of a file (the file's are qbank's).
const (
	// maxElements bounds the elements of one question (its answers,
	// subquestions, feedback, ...).
	maxElements = 10_000
	// maxTextBytes bounds the text of one element: an image the exam
	// takes (5 MiB) fits in it as a data: URI.
	maxTextBytes = 8 << 20
)

// Import reads a Moodle XML file from r: every <question> becomes a
// question, a stimulus (description) or a refusal in the bank's report;
// the files embedded in base64 are stored with media as they are read.
//
// The whole file is never in memory: the XML is read token by token, each
// question is kept until its end, and each embedded file is decoded from
// base64 straight into media (only one file's base64 text is held at a
// time, by encoding/xml, and no token may pass 48 MiB). A file that is not
// XML, holds a DOCTYPE (so no entity is ever defined, nor expanded), nests
// deeper than qbank.MaxXMLDepth, is larger than qbank.MaxFileSize
// (ErrTooLarge) or holds more than qbank.MaxItems items (ErrTooManyItems)
// is refused as a whole; an item the exam cannot hold is refused in the
// report. media must not be nil.
func Import(ctx context.Context, r io.Reader, media qbank.MediaStore) (*qbank.Bank, error) {
	return importLimited(ctx, r, media, qbank.MaxFileSize, maxToken)
}

// importLimited is Import with a file's and a token's largest sizes (the
// tests' are smaller).
func importLimited(ctx context.Context, r io.Reader, media qbank.MediaStore, maxFile, maxTok int64) (*qbank.Bank, error) {
	lr := &limitReader{r: r, left: maxFile}
	text, utf16 := qbank.UTF8Reader(lr) // a file saved as UTF-16 (with its byte-order mark) is decoded
	d := xml.NewDecoder(&tokenLimiter{r: text, lr: lr, max: maxTok})
	d.Strict = true
	d.Entity = nil // only XML's five: encoding/xml defines no other and fetches nothing
	d.CharsetReader = qbank.CharsetReader(utf16)
	im := &importer{ctx: ctx, d: d, lr: lr, media: media, bank: &qbank.Bank{}}
	if err := im.run(); err != nil {
		if lr.over {
			return nil, qbank.ErrTooLarge
		}
		if lr.tokenErr != nil {
			return nil, lr.tokenErr
		}
		return nil, err
	}
	return im.bank, nil
}

// limitReader reads at most left bytes, then fails.
type limitReader struct {
	r    io.Reader
	left int64
	over bool
	// tokenErr is the tokenLimiter's refusal.
	tokenErr error
}

// maxToken bounds one token of the XML (a text, a CDATA section, a
// comment, a tag), which encoding/xml holds whole: the base64 of the
// largest audio file the exam takes (30 MiB) is 40 MiB.
const maxToken = 48 << 20

// tokenLimiter refuses a file whose XML has a token longer than max bytes,
// before encoding/xml has read it whole: it follows the XML's lexical
// states (text, tag with its quoted values, comment, CDATA section) byte by
// byte and counts the bytes of the current one.
type tokenLimiter struct {
	r     io.Reader
	lr    *limitReader
	max   int64
	state lexState
	run   int64
	quote byte
	bang  []byte // what follows "<!" while it is undecided
	tail  [2]byte
}

type lexState int

const (
	lexText lexState = iota
	lexOpen          // just after "<"
	lexBang          // after "<!": a comment, a CDATA section or a directive
	lexTag
	lexComment
	lexCDATA
)

func (t *tokenLimiter) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	for _, c := range p[:n] {
		t.run++
		switch t.state {
		case lexText:
			if c == '<' {
				t.state, t.run = lexOpen, 1
			}
		case lexOpen:
			if c == '!' {
				t.state, t.bang = lexBang, t.bang[:0]
			} else {
				t.state = lexTag
				t.tagByte(c)
			}
		case lexBang:
			t.bang = append(t.bang, c)
			switch b := string(t.bang); {
			case b == "--":
				t.state, t.tail = lexComment, [2]byte{}
			case b == "[CDATA[":
				t.state, t.tail = lexCDATA, [2]byte{}
			case strings.HasPrefix("--", b) || strings.HasPrefix("[CDATA[", b):
			default:
				t.state = lexTag
				t.tagByte(c)
			}
		case lexTag:
			t.tagByte(c)
		case lexComment, lexCDATA:
			end := byte('-')
			if t.state == lexCDATA {
				end = ']'
			}
			if c == '>' && t.tail[0] == end && t.tail[1] == end {
				t.state, t.run = lexText, 0
			}
			t.tail = [2]byte{t.tail[1], c}
		}
		if t.run > t.max {
			t.lr.tokenErr = qbank.Invalid("the XML holds a text, tag or comment of more than %d MiB", t.max>>20)
			return 0, t.lr.tokenErr
		}
	}
	return n, err
}

// tagByte follows a tag (or a directive) to its ">", skipping quoted
// values.
func (t *tokenLimiter) tagByte(c byte) {
	switch {
	case t.quote != 0:
		if c == t.quote {
			t.quote = 0
		}
	case c == '"' || c == '\'':
		t.quote = c
	case c == '>':
		t.state, t.run = lexText, 0
	}
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		l.over = true
		return 0, qbank.ErrTooLarge
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

type importer struct {
	ctx   context.Context
	d     *xml.Decoder
	lr    *limitReader
	media qbank.MediaStore
	bank  *qbank.Bank
	depth int
	// position counts the items (questions and descriptions).
	position int
	// stimulus is the id of the description the next questions go with.
	stimulus string
	// category is the current category path.
	category string
	// fatal is an error that stops the import (the media store's), met
	// where an error cannot be returned.
	fatal error
}

// token reads the next token, keeping the depth and refusing what the
// importer never reads: a DOCTYPE (entities), nesting deeper than
// qbank.MaxXMLDepth.
func (im *importer) token() (xml.Token, error) {
	tok, err := im.d.Token()
	if err != nil {
		if err == io.EOF {
			return nil, err
		}
		if im.lr.over {
			return nil, qbank.ErrTooLarge
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, qbank.Invalid("not a well-formed Moodle XML file: %v", qbank.EncodingError(err))
	}
	switch t := tok.(type) {
	case xml.StartElement:
		im.depth++
		if im.depth > qbank.MaxXMLDepth {
			return nil, qbank.Invalid("the XML nests more than %d elements deep", qbank.MaxXMLDepth)
		}
	case xml.EndElement:
		im.depth--
	case xml.Directive:
		if bytes.HasPrefix(bytes.TrimSpace(bytes.ToUpper(t)), []byte("DOCTYPE")) {
			return nil, qbank.Invalid("the file has a DOCTYPE: Moodle XML has none, and entities are never read")
		}
		return nil, qbank.Invalid("the file has an XML directive <!%s>", clip(string(t), 40))
	}
	return tok, nil
}

func (im *importer) run() error {
	// The root: <quiz>.
	for {
		tok, err := im.token()
		if err == io.EOF {
			return qbank.Invalid("the file is empty: a Moodle XML file is a <quiz>")
		}
		if err != nil {
			return err
		}
		if se, ok := tok.(xml.StartElement); ok {
			if se.Name.Local != "quiz" {
				return qbank.Invalid("the file is a <%s>, not a Moodle XML <quiz>", clip(se.Name.Local, 40))
			}
			break
		}
	}
	for {
		if err := im.ctx.Err(); err != nil {
			return err
		}
		tok, err := im.token()
		if err == io.EOF {
			return qbank.Invalid("the file ends inside its <quiz>")
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.EndElement: // </quiz>
			return im.end()
		case xml.StartElement:
			if t.Name.Local != "question" {
				if err := im.skip(); err != nil {
					return err
				}
				continue
			}
			if err := im.question(t); err != nil {
				return err
			}
		}
	}
}

// end checks that nothing but space, comments and processing instructions
// follows the </quiz>.
func (im *importer) end() error {
	for {
		tok, err := im.token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return qbank.Invalid("the file goes on after its </quiz>")
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return qbank.Invalid("the file goes on after its </quiz>")
			}
		}
	}
}

// skip reads up to the end of the element just started.
func (im *importer) skip() error {
	for depth := 1; depth > 0; {
		tok, err := im.token()
		if err == io.EOF {
			return qbank.Invalid("the file ends inside an element")
		}
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// elem is one element of a question, with its text and children.
type elem struct {
	name string
	attr []xml.Attr
	text strings.Builder
	kids []*elem
}

func (e *elem) attrOf(name string) string {
	for _, a := range e.attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// child is e's first child called name, nil when none.
func (e *elem) child(name string) *elem {
	if e == nil {
		return nil
	}
	for _, k := range e.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

func (e *elem) children(name string) []*elem {
	if e == nil {
		return nil
	}
	var out []*elem
	for _, k := range e.kids {
		if k.name == name {
			out = append(out, k)
		}
	}
	return out
}

// textOf is the text of e's <text> child (or e's own when it has none).
func (e *elem) textOf() string {
	if e == nil {
		return ""
	}
	if t := e.child("text"); t != nil {
		return t.text.String()
	}
	return e.text.String()
}

// value is e's own text, trimmed.
func (e *elem) value() string {
	if e == nil {
		return ""
	}
	return strings.TrimSpace(e.text.String())
}

// upload is one embedded file: stored (sha) or refused (err).
type upload struct {
	sha string
	err error
}

// question reads one <question> and adds what it is to the bank.
func (im *importer) question(start xml.StartElement) error {
	q := &elem{name: "question", attr: start.Attr}
	files := map[string]upload{}
	stack := []*elem{q}
	count := 0
	for len(stack) > 0 {
		tok, err := im.token()
		if err == io.EOF {
			return qbank.Invalid("the file ends inside a <question>")
		}
		if err != nil {
			return err
		}
		top := stack[len(stack)-1]
		switch t := tok.(type) {
		case xml.StartElement:
			if count++; count > maxElements {
				return qbank.Invalid("a question holds more than %d elements", maxElements)
			}
			if t.Name.Local == "file" {
				if err := im.file(t, top.name, files); err != nil {
					return err
				}
				continue
			}
			e := &elem{name: t.Name.Local, attr: t.Attr}
			top.kids = append(top.kids, e)
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if top.text.Len()+len(t) > maxTextBytes {
				return qbank.Invalid("a question's text is longer than %d MiB", maxTextBytes>>20)
			}
			top.text.Write(t)
		}
	}
	typ := q.attrOf("type")
	switch typ {
	case "category":
		im.category = strings.TrimSpace(q.child("category").textOf())
		if im.bank.Title == "" {
			im.bank.Title = categoryTitle(im.category)
		}
		im.stimulus = "" // a category ends the description's questions
		return nil
	}
	im.position++
	if im.position > qbank.MaxItems {
		return qbank.ErrTooManyItems
	}
	it := &item{im: im, q: q, files: files, typ: typ,
		report: qbank.ItemReport{Position: im.position, Title: clip(strings.TrimSpace(q.child("name").textOf()), 200), Kind: clip(typ, 40),
			Category: categoryTitle(im.category)}}
	it.convert()
	if im.fatal != nil {
		return im.fatal
	}
	im.bank.Items = append(im.bank.Items, it.report)
	return nil
}

// file reads one embedded <file>, decoding its base64 into the media
// store as it is read. Files of feedback are not kept (nothing shows
// them).
func (im *importer) file(start xml.StartElement, parent string, files map[string]upload) error {
	fe := &elem{attr: start.Attr}
	name := strings.TrimSpace(fe.attrOf("name"))
	dir := strings.Trim(strings.TrimSpace(fe.attrOf("path")), "/")
	keep := name != "" && fe.attrOf("encoding") == "base64" && shownField[parent]
	if !keep {
		return im.skip()
	}
	key := path.Join(dir, name)
	pr, pw := io.Pipe()
	done := make(chan upload, 1)
	dec := &errReader{r: base64.NewDecoder(base64.StdEncoding, pr)}
	go func() {
		m, err := im.media.UploadMedia(im.ctx, name, dec)
		pr.CloseWithError(errUploadDone) // the rest of the base64 is skipped
		done <- upload{sha: m.SHA256, err: err}
	}()
	var werr error
	for depth := 1; depth > 0; {
		tok, err := im.token()
		if err == nil && depth == 1 {
			if cd, ok := tok.(xml.CharData); ok && werr == nil {
				_, werr = pw.Write(stripSpace(cd))
			}
		}
		if err != nil {
			if err == io.EOF {
				err = qbank.Invalid("the file ends inside a <file>")
			}
			pw.CloseWithError(err)
			<-done
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	pw.Close()
	up := <-done
	if up.err != nil && apperr.KindOf(up.err) == apperr.Internal {
		if dec.err != nil && dec.err != errUploadDone { // the base64 did not decode (or was cut short)
			up.err = apperr.New(apperr.Invalid, "INVALID_BASE64", "the file's base64 does not decode")
		} else {
			return fmt.Errorf("moodle import: store %s: %w", name, up.err)
		}
	}
	files[key] = up
	return nil
}

var errUploadDone = errors.New("upload done")

// errReader keeps the error its reader returned, other than io.EOF.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// shownField are the elements whose files a question shows.
var shownField = map[string]bool{"questiontext": true, "answer": true, "subquestion": true, "graderinfo": true}

// stripSpace removes the whitespace base64.NewDecoder does not skip, in
// place (the token's bytes are the decoder's until its next token).
func stripSpace(b []byte) []byte {
	out := b[:0]
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			out = append(out, c)
		}
	}
	return out
}

// categoryTitle is a category's path without Moodle's context prefix.
func categoryTitle(p string) string {
	for _, prefix := range []string{"$course$", "$system$", "$module$", "$cat1$", "$coursecategory$"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			p = rest
			break
		}
	}
	p = strings.Trim(p, "/ ")
	p = strings.TrimPrefix(p, "top/")
	if p == "top" {
		return ""
	}
	return clip(strings.Join(strings.Fields(p), " "), 190)
}

// item converts one question element.
type item struct {
	im      *importer
	q       *elem
	files   map[string]upload
	typ     string
	report  qbank.ItemReport
	missing []string
	refused bool
	tags    map[string]bool
}

func (it *item) change(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	for _, c := range it.report.Changes {
		if c == s {
			return
		}
	}
	it.report.Changes = append(it.report.Changes, s)
}

// lose notes a figure the item's texts show and the question loses.
func (it *item) lose(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	it.change("%s", s)
	if !slices.Contains(it.report.Lost, s) {
		it.report.Lost = append(it.report.Lost, s)
	}
}

func (it *item) refuse(code, format string, args ...any) {
	if it.refused {
		return
	}
	it.refused = true
	it.report.Status, it.report.Code, it.report.Message = qbank.Refused, code, fmt.Sprintf(format, args...)
	it.report.Changes, it.report.Lost = nil, nil
}

// id is the item's id: q001, q002, ... from its position (names in
// Moodle need not be unique nor fit an id); s001 for a description.
func (it *item) id(prefix string) string {
	return fmt.Sprintf("%s%03d", prefix, it.report.Position)
}

// mediaRef resolves a src of the item's HTML to an uploaded file: an
// embedded file, or the bytes of a data: URI stored. A src it cannot
// resolve is a figure the item loses (Lost), noted.
func (it *item) mediaRef(src string) (string, bool) {
	if qbank.IsDataURI(src) {
		m, err := qbank.StoreDataURI(it.im.ctx, it.im.media, src)
		if err != nil {
			if apperr.KindOf(err) == apperr.Internal {
				it.im.fatal = fmt.Errorf("moodle import: store a data: URI: %w", err)
				return "", false
			}
			it.lose("the image %s cannot be stored: %s", qbank.DataURIShown(src), apperr.From(err).Message)
			return "", false
		}
		return "media:" + m.SHA256, true
	}
	name, ok := strings.CutPrefix(src, "@@PLUGINFILE@@/")
	if !ok {
		it.lose("%s is outside the file (students have no internet)", clip(src, 100))
		return "", false
	}
	if i := strings.IndexAny(name, "?#"); i >= 0 {
		name = name[:i]
	}
	if u, err := url.PathUnescape(name); err == nil {
		name = u
	}
	name = strings.Trim(name, "/")
	up, ok := it.files[name]
	if !ok {
		it.missing = append(it.missing, name)
		return "", false
	}
	if up.err != nil {
		it.lose("dropped the file %s, which the exam cannot show: %s", clip(name, 80), apperr.From(up.err).Message)
		return "", false
	}
	return "media:" + up.sha, true
}

// text converts a text element of the item (format attribute and <text>)
// to the exam's markdown, noting its changes.
func (it *item) text(e *elem) string {
	if e == nil {
		return ""
	}
	raw := e.textOf()
	var md string
	var changes []string
	switch e.attrOf("format") {
	case "plain_text":
		md, changes = qbank.HTMLToMarkdown(plainHTML(raw), it.mediaRef)
	case "markdown":
		md = strings.TrimSpace(raw)
		changes = []string{"a text written in Moodle's Markdown was kept as written: check how it shows"}
	case "moodle_auto_format":
		if !strings.Contains(raw, "<") {
			raw = plainHTML(raw)
		}
		md, changes = qbank.HTMLToMarkdown(raw, it.mediaRef)
	default: // html
		md, changes = qbank.HTMLToMarkdown(raw, it.mediaRef)
	}
	for _, c := range changes {
		it.change("%s", c)
	}
	return md
}

// plainHTML is plain text as HTML: escaped, line breaks kept.
func plainHTML(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return strings.ReplaceAll(b.String(), "&#xA;", "<br>")
}

// plainOf is the text of an element as plain text (short answers, a
// rubric): HTML read as a browser shows it.
func (it *item) plainOf(e *elem) string {
	if e == nil {
		return ""
	}
	raw := e.textOf()
	switch e.attrOf("format") {
	case "plain_text", "markdown":
		return strings.TrimSpace(raw)
	case "moodle_auto_format":
		if !strings.Contains(raw, "<") {
			return strings.TrimSpace(raw)
		}
	}
	return htmlToPlain(raw)
}

// rawOf is the text of an answer Moodle keeps as plain text (a short or
// numerical answer, true or false, a matching answer), trimmed.
func rawOf(e *elem) string {
	if e == nil {
		return ""
	}
	return strings.TrimSpace(e.textOf())
}

func (it *item) convert() {
	defer func() {
		if it.report.Status == "" {
			it.report.Status = qbank.Imported
			if len(it.report.Changes) > 0 {
				it.report.Status = qbank.Changed
			}
		}
	}()
	it.tags = map[string]bool{}
	for _, tg := range it.q.child("tags").children("tag") {
		it.tags[strings.TrimSpace(tg.textOf())] = true
	}
	if it.typ == "description" {
		it.description()
		return
	}
	qu := exam.Question{ID: it.id("q"), Format: string(richtext.Markdown), Category: categoryTitle(it.im.category)}
	it.report.QuestionID = qu.ID
	qu.Text = it.text(it.q.child("questiontext"))
	if g := it.q.child("defaultgrade").value(); g != "" {
		p, err := strconv.ParseFloat(g, 64)
		if err != nil || math.IsNaN(p) || p < 0 || p > 1000 {
			it.refuse("INVALID_ITEM", "defaultgrade %q is not a number of points from 0 to 1000", clip(g, 20))
			return
		}
		qu.Points = p
	} else {
		qu.Points = 1
	}
	if fb := it.q.child("generalfeedback"); fb != nil && strings.TrimSpace(fb.textOf()) != "" {
		it.change("dropped the general feedback (the exam shows none)")
	}
	for _, h := range it.q.children("hint") {
		if strings.TrimSpace(h.textOf()) != "" {
			it.change("dropped the hints")
		}
	}
	for _, name := range []string{"image", "image_base64"} {
		if it.q.child(name).value() != "" {
			it.change("dropped an old-style <%s> (Moodle 1.x)", name)
		}
	}
	var ok bool
	switch it.typ {
	case "multichoice":
		ok = it.multichoice(&qu)
	case "truefalse":
		ok = it.truefalse(&qu)
	case "shortanswer":
		ok = it.shortanswer(&qu)
	case "numerical":
		ok = it.numerical(&qu)
	case "essay":
		ok = it.essay(&qu)
	case "matching":
		ok = it.matching(&qu)
	case "multianswer":
		ok = it.multianswer(&qu)
	case "gapselect", "ddwtos":
		ok = it.gapselect(&qu, it.typ == "ddwtos")
	default:
		it.refuse("UNSUPPORTED_TYPE", "the exam has no question of Moodle's type %q", clip(it.typ, 40))
		return
	}
	if !ok {
		return
	}
	if len(it.missing) > 0 {
		it.refuse("MEDIA_NOT_FOUND", "the text shows @@PLUGINFILE@@/%s, which the file does not hold", clip(it.missing[0], 100))
		return
	}
	qu.Stimulus = it.im.stimulus
	it.irtParameters(&qu)
	if !it.check(&qu) {
		return
	}
	it.im.bank.Questions = append(it.im.bank.Questions, qu)
}

// check refuses a question the exam would not take: a text whose TeX does
// not convert (TEX_ERROR), a question ValidateExam refuses (INVALID_ITEM).
func (it *item) check(q *exam.Question) bool {
	for _, t := range questionTexts(*q) {
		if !it.checkText(t) {
			return false
		}
	}
	e := exam.Exam{Title: "check", NPSNs: []string{"00000000"}, StartsAt: time.Unix(0, 0), EndsAt: time.Unix(3600, 0),
		DurationMinutes: 60, Questions: []exam.Question{*q}}
	if q.Stimulus != "" {
		e.Stimuli = []exam.Stimulus{{ID: q.Stimulus, Text: "x"}}
	}
	if err := exam.ValidateExam(&e); err != nil {
		msg := apperr.From(err).Message
		msg = strings.TrimPrefix(msg, "questions[0]: ")
		it.refuse("INVALID_ITEM", "%s", msg)
		return false
	}
	*q = e.Questions[0]
	return true
}

// checkText refuses a text whose TeX does not convert.
func (it *item) checkText(md string) bool {
	if len(md) > richtext.MaxSource {
		it.refuse("INVALID_ITEM", "a text is longer than %d KiB once converted", richtext.MaxSource>>10)
		return false
	}
	res, err := richtext.Render(richtext.Markdown, md, richtext.Options{Media: anyMedia})
	if err != nil {
		it.refuse("INVALID_ITEM", "%v", err)
		return false
	}
	for _, p := range res.Problems {
		if p.Code == "TEX_ERROR" {
			it.refuse("TEX_ERROR", "the formula %s does not convert: %s", clip(p.Source, 80), p.Message)
			return false
		}
	}
	return true
}

// anyMedia resolves every media reference (the files were uploaded).
func anyMedia(sha string) (richtext.Media, bool) {
	return richtext.Media{URL: "media/" + sha}, true
}

// questionTexts are the rich texts of q.
func questionTexts(q exam.Question) []string {
	out := []string{q.Text}
	for _, set := range [][]exam.Option{q.Options, q.Statements, q.Columns, q.Premises, q.Responses} {
		for _, o := range set {
			out = append(out, o.Text)
		}
	}
	for _, b := range q.Blanks {
		for _, o := range b.Options {
			out = append(out, o.Text)
		}
	}
	return out
}

func (it *item) description() {
	it.im.stimulus = "" // a description refused ends the one before all the same
	st := exam.Stimulus{ID: it.id("s"), Format: string(richtext.Markdown), Title: clip(it.report.Title, 200)}
	it.report.QuestionID = st.ID
	st.Text = it.text(it.q.child("questiontext"))
	if len(it.missing) > 0 {
		it.refuse("MEDIA_NOT_FOUND", "the text shows @@PLUGINFILE@@/%s, which the file does not hold", clip(it.missing[0], 100))
		return
	}
	if strings.TrimSpace(st.Text) == "" {
		it.refuse("INVALID_ITEM", "the description has no text")
		return
	}
	if !it.checkText(st.Text) {
		return
	}
	it.im.bank.Stimuli = append(it.im.bank.Stimuli, st)
	it.im.stimulus = st.ID
}

// fraction reads an answer's fraction (a percentage).
func fraction(a *elem) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(a.attrOf("fraction")), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func optionID(i int) string { return string(rune('a' + i)) }

func (it *item) multichoice(q *exam.Question) bool {
	answers := it.q.children("answer")
	if len(answers) > 26 {
		it.refuse("INVALID_ITEM", "a choice question has at most 26 options (this one has %d)", len(answers))
		return false
	}
	single := it.q.child("single").value() != "false" && it.q.child("single").value() != "0"
	var full, positive []string
	for i, a := range answers {
		o := exam.Option{ID: optionID(i), Text: it.text(a)}
		q.Options = append(q.Options, o)
		f, ok := fraction(a)
		if !ok {
			it.refuse("INVALID_ITEM", "option %s has no fraction", o.ID)
			return false
		}
		switch {
		case f >= 99.99:
			full = append(full, o.ID)
			positive = append(positive, o.ID)
		case f > 0:
			positive = append(positive, o.ID)
		case f < 0 && !it.tags[tagScoringAll]:
			it.change("dropped the penalty of the wrong choices: the exam gives no negative points")
		}
	}
	if single {
		q.Type = exam.SingleChoice
		if len(full) == 0 {
			it.refuse("KEY_NOT_AN_OPTION", "no option is right (none has fraction 100)")
			return false
		}
		if len(full) > 1 {
			it.refuse("INVALID_ITEM", "%d options are fully right; a single choice question has one", len(full))
			return false
		}
		if len(positive) > 1 {
			it.change("dropped the partial points of the options that are partly right: only option %s is right", full[0])
		}
		q.Answer = full
		return true
	}
	q.Type = exam.MultipleChoice
	if len(positive) == 0 {
		it.refuse("KEY_NOT_AN_OPTION", "no option is right (none has a positive fraction)")
		return false
	}
	q.Answer = positive
	if !it.tags[tagScoringAll] {
		it.change("the options with a positive fraction are the key, all of them to be chosen for the points (Moodle gave each its share)")
	}
	return true
}

func (it *item) truefalse(q *exam.Question) bool {
	q.Type = exam.TrueFalse
	for _, a := range it.q.children("answer") {
		f, _ := fraction(a)
		if f < 99.99 {
			continue
		}
		switch v := strings.ToLower(rawOf(a)); v {
		case "true", "false":
			q.Answer = []string{v}
		default:
			it.refuse("KEY_NOT_AN_OPTION", "the right answer %q is neither true nor false", clip(v, 40))
			return false
		}
	}
	if len(q.Answer) == 0 {
		it.refuse("KEY_NOT_AN_OPTION", "neither true nor false is right (fraction 100)")
		return false
	}
	return true
}

func (it *item) shortanswer(q *exam.Question) bool {
	q.Type = exam.ShortAnswer
	for _, a := range it.q.children("answer") {
		f, _ := fraction(a)
		v := rawOf(a)
		if v == "" {
			continue
		}
		if f < 99.99 {
			if f > 0 {
				it.change("dropped the answer %q, which earned part of the points", clip(v, 40))
			}
			continue
		}
		// Moodle reads * as a wildcard and \* as a star.
		if strings.Contains(strings.ReplaceAll(v, `\*`, ""), "*") {
			it.change("the answer %q has Moodle's wildcard *: the exam compares it as written", clip(v, 40))
		}
		q.Answer = append(q.Answer, strings.ReplaceAll(v, `\*`, "*"))
	}
	if len(q.Answer) == 0 {
		it.refuse("KEY_NOT_AN_OPTION", "no answer is accepted (fraction 100)")
		return false
	}
	if it.q.child("usecase").value() == "1" {
		it.change("the answers were case-sensitive in Moodle; the exam compares them without case")
	}
	return true
}

// numerical: the answers at 100% are the accepted numbers, with Moodle's
// absolute tolerance (the largest when they differ); the units are
// dropped.
func (it *item) numerical(q *exam.Question) bool {
	q.Type = exam.Numeric
	var tols []string
	for _, a := range it.q.children("answer") {
		f, _ := fraction(a)
		v := rawOf(a)
		if v == "" {
			continue
		}
		if f < 99.99 {
			if f > 0 {
				it.change("dropped the answer %q, which earned part of the points", clip(v, 40))
			}
			continue
		}
		if v == "*" {
			it.change("dropped the answer * (any number)")
			continue
		}
		n, ok := exam.ParseNumber(v)
		if !ok {
			it.refuse("INVALID_ITEM", "the answer %q is not a number", clip(v, 40))
			return false
		}
		q.Answer = append(q.Answer, exam.FormatNumber(n))
		tols = append(tols, a.child("tolerance").value())
	}
	if len(q.Answer) == 0 {
		it.refuse("KEY_NOT_AN_OPTION", "no answer is accepted (fraction 100)")
		return false
	}
	t, ok := it.tolerance(tols, "the question", it.relativeTagged(tagTolerance))
	if !ok {
		return false
	}
	q.Tolerance = t
	it.blankTags(q)
	if len(it.q.child("units").children("unit")) > 0 {
		it.change("dropped the units: the answer is the number alone")
	}
	return true
}

func (it *item) essay(q *exam.Question) bool {
	q.Type = exam.Essay
	q.Rubric = it.plainOf(it.q.child("graderinfo"))
	if len(q.Rubric) > 8<<10 {
		q.Rubric = clip(q.Rubric, 8<<10-4)
		it.change("the grader information was cut to 8 KiB")
	}
	if t := it.q.child("responsetemplate"); t != nil && strings.TrimSpace(t.textOf()) != "" {
		it.change("dropped the response template")
	}
	return true
}

// matching: subquestions with a text are the premises, every answer text
// a response (those of subquestions without text are distractors).
func (it *item) matching(q *exam.Question) bool {
	q.Type = exam.Matching
	q.Scoring = exam.ScoringPartial // Moodle gives each right pair its share
	if it.tags[tagScoringAll] {
		q.Scoring = exam.ScoringAll
	}
	grid := it.tags[tagGrid]
	respID := map[string]string{}
	var responses []exam.Option
	used := map[string]int{}
	var key []string
	for _, sq := range it.q.children("subquestion") {
		ans := rawOf(sq.child("answer"))
		if ans == "" {
			continue
		}
		rText, _ := qbank.HTMLToMarkdown(plainHTML(ans), nil)
		rid, ok := respID[rText]
		if !ok {
			rid = fmt.Sprintf("r%d", len(responses)+1)
			respID[rText] = rid
			responses = append(responses, exam.Option{ID: rid, Text: rText})
		}
		if strings.TrimSpace(htmlToPlain(sq.textOf())) == "" && !strings.Contains(sq.textOf(), "<img") {
			continue // a distractor
		}
		pid := fmt.Sprintf("p%d", len(q.Premises)+1)
		q.Premises = append(q.Premises, exam.Option{ID: pid, Text: it.text(sq)})
		key = append(key, pid+"="+rid)
		used[rid]++
	}
	if len(q.Premises) == 0 {
		it.refuse("KEY_NOT_AN_OPTION", "no subquestion has both a text and an answer")
		return false
	}
	for _, n := range used {
		if n > 1 {
			q.ReuseResponses = true
		}
	}
	if it.tags[tagReuse] {
		q.ReuseResponses = true
	}
	q.Responses, q.Answer = responses, key
	if grid {
		return it.grid(q)
	}
	return true
}

// grid turns a matching question the portal exported from a statement
// grid back into one.
func (it *item) grid(q *exam.Question) bool {
	q.Type = exam.StatementGrid
	q.Statements, q.Columns = q.Premises, q.Responses
	q.Premises, q.Responses, q.ReuseResponses = nil, nil, false
	ids := map[string]string{}
	if len(q.Columns) == 2 && q.Columns[0].Text == "Benar" && q.Columns[1].Text == "Salah" {
		ids = map[string]string{"r1": "true", "r2": "false"}
		q.Columns = nil
	} else {
		for i := range q.Columns {
			ids[q.Columns[i].ID] = fmt.Sprintf("c%d", i+1)
			q.Columns[i].ID = ids[q.Columns[i].ID]
		}
	}
	for i := range q.Statements {
		q.Statements[i].ID = fmt.Sprintf("s%d", i+1)
	}
	for i, k := range q.Answer {
		_, r, _ := strings.Cut(k, "=")
		q.Answer[i] = fmt.Sprintf("s%d=%s", i+1, ids[r])
	}
	if !it.tags[tagScoringPart] {
		q.Scoring = exam.ScoringAll
	}
	return true
}

// clip shortens s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
