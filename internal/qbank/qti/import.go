// Package qti reads and writes 1EdTech QTI content packages: Import reads
// a QTI 2.1 or 3.0 package (a zip with imsmanifest.xml) into a question
// bank, Export writes an exam as a QTI 3.0 package. docs/question-banks.md ("QTI 2.1 and 3.0 content packages")
// has the mapping, what is dropped, the limits and the safety rules.
package qti

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
)

// The resource types of items and stimuli in a manifest.
const (
	typeItem21     = "imsqti_item_xmlv2p1"
	typeItem22     = "imsqti_item_xmlv2p2"
	typeItem30     = "imsqti_item_xmlv3p0"
	typeStimulus30 = "imsqti_stimulus_xmlv3p0"
)

// The report codes of a refused item.
const (
	codeUnsupportedType = "UNSUPPORTED_TYPE"
	codeUnsupportedItem = "UNSUPPORTED_ITEM"
	codeKeyNotAnOption  = "KEY_NOT_AN_OPTION"
	codeMediaNotFound   = "MEDIA_NOT_FOUND"
	codeTeXError        = "TEX_ERROR"
	codeInvalidItem     = "INVALID_ITEM"
)

// maxFormulas bounds the formulas of one item (each is converted and
// rendered to be checked).
const maxFormulas = 500

// refusal is why one item did not become a question.
type refusal struct{ code, msg string }

func (r *refusal) Error() string { return r.code + ": " + r.msg }

func refuse(code, format string, args ...any) *refusal {
	return &refusal{code: code, msg: fmt.Sprintf(format, args...)}
}

// Import reads a QTI 2.1 or 3.0 content package of size bytes from ra: the
// items its manifest lists, in the manifest's order, each imported,
// changed or refused (Bank.Items), their media stored with media. A file
// that is not a safe, well-formed package is refused whole
// (qbank.Invalid, qbank.ErrTooLarge, qbank.ErrTooManyItems).
func Import(ctx context.Context, ra io.ReaderAt, size int64, media qbank.MediaStore) (*qbank.Bank, error) {
	a, err := openArchive(ra, size)
	if err != nil {
		return nil, err
	}
	data, err := a.read("imsmanifest.xml", maxXMLFile)
	if errors.Is(err, errNoEntry) {
		return nil, qbank.Invalid("the package has no imsmanifest.xml at its top")
	}
	if err != nil {
		return nil, err
	}
	man, err := parseXML(data)
	if err != nil {
		return nil, qbank.Invalid("imsmanifest.xml: %v", err)
	}
	if man.Name != "manifest" {
		return nil, qbank.Invalid("imsmanifest.xml is not an IMS content package manifest (its root is <%s>)", man.Name)
	}
	imp := &importer{ctx: ctx, a: a, media: media, uploads: map[string]upload{}, stimuli: map[string]*stimulusRead{},
		qids: map[string]bool{}, sids: map[string]bool{}}
	bank := &qbank.Bank{Title: manifestTitle(man)}
	type itemRes struct{ href, title string }
	var items []itemRes
	if rs := man.child("resources"); rs != nil {
		base := rs.attr("xml:base")
		for _, r := range rs.children("resource") {
			t := strings.ToLower(r.attr("type"))
			if !strings.HasPrefix(t, typeItem21) && !strings.HasPrefix(t, typeItem22) && !strings.HasPrefix(t, typeItem30) {
				continue
			}
			items = append(items, itemRes{href: base + r.attr("xml:base") + r.attr("href"), title: r.attr("identifier")})
		}
	}
	if len(items) > qbank.MaxItems {
		return nil, qbank.ErrTooManyItems
	}
	if len(items) == 0 {
		return nil, qbank.Invalid("imsmanifest.xml lists no QTI 2.1 or 3.0 item")
	}
	for i, it := range items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rep := qbank.ItemReport{Position: i + 1, Title: it.title}
		q, st, changes, err := imp.item(it.href, &rep)
		if imp.fatal != nil {
			return nil, imp.fatal
		}
		var r *refusal
		switch {
		case errors.As(err, &r):
			rep.Status, rep.Code, rep.Message = qbank.Refused, r.code, r.msg
		case err != nil:
			return nil, err
		default:
			rep.QuestionID = q.ID
			rep.Status = qbank.Imported
			if len(changes) > 0 {
				rep.Status, rep.Changes = qbank.Changed, changes
			}
			if st != nil && !st.added {
				st.added = true
				bank.Stimuli = append(bank.Stimuli, st.st)
			}
			bank.Questions = append(bank.Questions, *q)
		}
		bank.Items = append(bank.Items, rep)
	}
	return bank, nil
}

// manifestTitle is the manifest's LOM title, or its first organisation's.
func manifestTitle(man *node) string {
	var title string
	man.find(func(n *node) bool {
		if title == "" && n.Name == "title" {
			if s := n.child("string"); s != nil {
				title = strings.TrimSpace(s.textContent())
			} else if s := n.child("langstring"); s != nil {
				title = strings.TrimSpace(s.textContent())
			} else {
				title = strings.TrimSpace(n.textContent())
			}
		}
		return false
	})
	return clip(strings.Join(strings.Fields(title), " "), 200)
}

// upload is what became of one media file of the package.
type upload struct {
	m       exam.Media
	refused string // why the portal refused it; "" when stored
}

// stimulusRead is a stimulus file read once, shared by its items.
type stimulusRead struct {
	st      exam.Stimulus
	changes []string
	lost    []string
	err     error
	added   bool
}

type importer struct {
	ctx     context.Context
	a       *archive
	media   qbank.MediaStore
	uploads map[string]upload // by entry name
	stimuli map[string]*stimulusRead
	qids    map[string]bool // question ids given
	sids    map[string]bool // stimulus ids given
	// fatal is an error that stops the import (the store, the context,
	// the unpacked total), met where an error cannot be returned.
	fatal error
}

// item reads the item at href (relative to the manifest) into a question.
func (imp *importer) item(href string, rep *qbank.ItemReport) (*exam.Question, *stimulusRead, []string, error) {
	p, ok := resolve("imsmanifest.xml", href)
	if !ok {
		return nil, nil, nil, refuse(codeInvalidItem, "the manifest's href %q is not a path inside the package", href)
	}
	data, err := imp.a.read(p, maxXMLFile)
	switch {
	case errors.Is(err, errNoEntry):
		return nil, nil, nil, refuse(codeInvalidItem, "the package has no file %s", p)
	case errors.Is(err, errUnpacked):
		imp.fatal = err
		return nil, nil, nil, err
	case err != nil:
		return nil, nil, nil, refuse(codeInvalidItem, "%v", err)
	}
	root, err := parseXML(data)
	if err != nil {
		return nil, nil, nil, refuse(codeInvalidItem, "%s: %v", p, err)
	}
	if root.Name != "assessmentItem" {
		return nil, nil, nil, refuse(codeInvalidItem, "%s is not a QTI item (its root is <%s>)", p, root.Name)
	}
	if t := strings.TrimSpace(root.attr("title")); t != "" {
		rep.Title = clip(t, 200)
	}
	ir := &itemReader{imp: imp, path: p, root: root}
	q, err := ir.read(rep)
	if err != nil {
		return nil, nil, nil, err
	}
	// The exam's own rules, on a throwaway exam holding the question.
	check := exam.Exam{Title: "import", NPSNs: []string{"00000000"}, StartsAt: time.Unix(0, 0),
		EndsAt: time.Unix(3600, 0), DurationMinutes: 60, Questions: []exam.Question{*q}}
	if ir.stimulus != nil {
		check.Stimuli = []exam.Stimulus{ir.stimulus.st}
	}
	if err := exam.ValidateExam(&check); err != nil {
		msg := err.Error()
		if ae := apperr.From(err); ae != nil {
			msg = ae.Message
		}
		return nil, nil, nil, refuse(codeInvalidItem, "%s", strings.TrimPrefix(msg, "questions[0]: "))
	}
	*q = check.Questions[0]
	q.ID = imp.questionID(q.ID)
	rep.Lost = ir.lost
	return q, ir.stimulus, ir.changes, nil
}

// questionID is id made unique among the bank's questions.
func (imp *importer) questionID(id string) string {
	out := id
	for n := 2; imp.qids[out]; n++ {
		suffix := "-" + strconv.Itoa(n)
		out = clip(id, 64-len(suffix)) + suffix
	}
	imp.qids[out] = true
	return out
}

var idChars = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// cleanID is a QTI identifier as an exam id: 1 to 64 letters, digits,
// dots, dashes or underscores. The "_" that Export puts before an id an
// XML name cannot start with ("_1") is taken off.
func cleanID(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 1 && s[0] == '_' && !isNameStart(s[1]) {
		s = s[1:]
	}
	s = idChars.ReplaceAllString(s, "_")
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

func isNameStart(c byte) bool { return isASCIILetter(c) || c == '_' || c >= 0x80 }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// uploadMedia stores the package's file at p once; the portal's refusal
// of a file (type, size) is kept, not returned.
func (imp *importer) uploadMedia(p string) (upload, error) {
	if u, ok := imp.uploads[p]; ok {
		return u, nil
	}
	rc, err := imp.a.open(p)
	if err != nil {
		return upload{}, err
	}
	defer rc.Close()
	m, err := imp.media.UploadMedia(imp.ctx, path.Base(p), rc)
	var u upload
	switch {
	case errors.Is(err, errUnpacked):
		return upload{}, errUnpacked
	case err != nil && (apperr.KindOf(err) == apperr.UnsupportedMedia || apperr.KindOf(err) == apperr.TooLarge ||
		apperr.KindOf(err) == apperr.Invalid):
		u.refused = err.Error()
		if ae := apperr.From(err); ae != nil {
			u.refused = ae.Message
		}
	case err != nil:
		return upload{}, err
	default:
		u.m = m
	}
	imp.uploads[p] = u
	return u, nil
}

// itemReader reads one item.
type itemReader struct {
	imp      *importer
	path     string
	root     *node
	changes  []string
	noted    map[string]bool
	stimulus *stimulusRead
	// lost are the figures its texts lose (qbank.ItemReport.Lost).
	lost []string
}

// lose notes a figure a text shows and loses.
func (ir *itemReader) lose(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	ir.note("%s", s)
	if !slices.Contains(ir.lost, s) {
		ir.lost = append(ir.lost, s)
	}
}

// maxChanges bounds the changes noted for one item.
const maxChanges = 50

func (ir *itemReader) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if ir.noted == nil {
		ir.noted = map[string]bool{}
	}
	switch {
	case ir.noted[s] || len(ir.changes) > maxChanges:
	case len(ir.changes) == maxChanges:
		ir.changes = append(ir.changes, "and more changes")
	default:
		ir.noted[s] = true
		ir.changes = append(ir.changes, s)
	}
}

// interactions are the element names of QTI's interactions.
var interactions = map[string]bool{
	"choiceInteraction": true, "orderInteraction": true, "associateInteraction": true, "matchInteraction": true,
	"gapMatchInteraction": true, "inlineChoiceInteraction": true, "textEntryInteraction": true,
	"extendedTextInteraction": true, "hottextInteraction": true, "hotspotInteraction": true,
	"selectPointInteraction": true, "graphicOrderInteraction": true, "graphicAssociateInteraction": true,
	"graphicGapMatchInteraction": true, "positionObjectInteraction": true, "sliderInteraction": true,
	"mediaInteraction": true, "drawingInteraction": true, "uploadInteraction": true, "customInteraction": true,
	"endAttemptInteraction": true, "portableCustomInteraction": true, "positionObjectStage": true,
}

func (ir *itemReader) read(rep *qbank.ItemReport) (*exam.Question, error) {
	body := ir.root.child("itemBody")
	if body == nil {
		return nil, refuse(codeInvalidItem, "the item has no itemBody")
	}
	if n := len(ir.root.find(func(n *node) bool { return n.Name == "math" })); n > maxFormulas {
		return nil, refuse(codeInvalidItem, "the item has %d formulas; a question has at most %d", n, maxFormulas)
	}
	found := body.find(func(n *node) bool { return interactions[n.Name] })
	if len(found) == 0 {
		return nil, refuse(codeUnsupportedType, "the item has no interaction (an informational item)")
	}
	var kinds []string
	for _, f := range found {
		kinds = append(kinds, f.Name)
	}
	rep.Kind = strings.Join(kinds, ",")
	cloze, err := isCloze(found)
	if err != nil {
		return nil, err
	}
	in := found[0]
	q := &exam.Question{ID: cleanID(ir.root.attr("identifier"))}
	if q.ID == "" {
		q.ID = "item"
	}
	if err := ir.readStimulus(q); err != nil {
		return nil, err
	}
	decl := ir.declaration(in.attr("responseIdentifier"))
	kind := in.Name
	if cloze {
		kind = "cloze"
	}
	switch kind {
	case "cloze":
		err = ir.cloze(q, body, found)
	case "choiceInteraction":
		err = ir.choice(q, body, in, decl)
	case "inlineChoiceInteraction":
		err = ir.inlineChoice(q, body, in, decl)
	case "textEntryInteraction":
		err = ir.textEntry(q, body, in, decl)
	case "extendedTextInteraction":
		err = ir.extendedText(q, body, in)
	case "matchInteraction":
		err = ir.match(q, body, in, decl)
	case "associateInteraction":
		return nil, refuse(codeUnsupportedType, "an associateInteraction pairs the choices of one set with each other; the exam's matching pairs premises with responses")
	default:
		return nil, refuse(codeUnsupportedType, "the exam has no question like a %s", in.Name)
	}
	if err != nil {
		return nil, err
	}
	if q.Type != exam.Essay {
		ir.noteRubric(body)
	}
	if len(ir.root.children("modalFeedback")) > 0 || len(body.find(func(n *node) bool { return n.Name == "feedbackBlock" || n.Name == "feedbackInline" })) > 0 {
		ir.note("dropped the item's feedback: the exam shows none")
	}
	if ir.root.child("templateDeclaration") != nil {
		ir.note("dropped the item's template variables: the exam's questions are fixed")
	}
	ir.irtParameters(q)
	return q, nil
}

// outcomeIRT is the identifier of the outcome whose default value carries
// a question's kept item parameters (exam.ItemParameters, in their
// one-line form): a string outcome no response processing sets, which
// other QTI tools keep and ignore.
const outcomeIRT = "PORTAL_IRT"

// irtParameters sets q's item parameters from the item's outcomeIRT
// declaration; one that does not read as parameters is dropped with a
// note.
func (ir *itemReader) irtParameters(q *exam.Question) {
	for _, o := range ir.root.children("outcomeDeclaration") {
		if o.attr("identifier") != outcomeIRT {
			continue
		}
		dv := o.child("defaultValue")
		if dv == nil || dv.child("value") == nil {
			continue
		}
		p, err := exam.ParseItemParameters(dv.child("value").textContent())
		if err != nil {
			ir.note("dropped the calibration of outcome %s: %v", outcomeIRT, err)
			continue
		}
		q.Calibrated = p
	}
}

// declaration is the item's responseDeclaration of id.
func (ir *itemReader) declaration(id string) *node {
	for _, d := range ir.root.children("responseDeclaration") {
		if d.attr("identifier") == id {
			return d
		}
	}
	return nil
}

// keyOf is a declaration's correct values, and its mapping's entries.
type mapEntry struct {
	key   string
	value float64
}

func correctValues(decl *node) []string {
	if decl == nil || decl.child("correctResponse") == nil {
		return nil
	}
	var out []string
	for _, v := range decl.child("correctResponse").children("value") {
		if s := strings.TrimSpace(v.textContent()); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func mappingOf(decl *node) (entries []mapEntry, upper float64, hasUpper bool) {
	if decl == nil || decl.child("mapping") == nil {
		return nil, 0, false
	}
	m := decl.child("mapping")
	for _, e := range m.children("mapEntry") {
		v, err := strconv.ParseFloat(strings.TrimSpace(e.attr("mappedValue")), 64)
		if err != nil {
			continue
		}
		entries = append(entries, mapEntry{key: strings.TrimSpace(e.attr("mapKey")), value: v})
	}
	if u, err := strconv.ParseFloat(strings.TrimSpace(m.attr("upperBound")), 64); err == nil {
		upper, hasUpper = u, true
	}
	return entries, upper, hasUpper
}

// points are the item's points: its MAXSCORE's default value, else what
// its mapping gives at most, else 1.
func (ir *itemReader) points(decl *node, single bool) float64 {
	for _, o := range ir.root.children("outcomeDeclaration") {
		id := o.attr("identifier")
		if id != "MAXSCORE" && !(id == "SCORE" && o.attr("normalMaximum") != "") {
			continue
		}
		s := ""
		if dv := o.child("defaultValue"); dv != nil && dv.child("value") != nil {
			s = dv.child("value").textContent()
		} else if id == "SCORE" {
			s = o.attr("normalMaximum")
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && v >= 0 && v <= 1000 {
			return v
		}
	}
	entries, upper, hasUpper := mappingOf(decl)
	var sum, best float64
	for _, e := range entries {
		if e.value > 0 {
			sum += e.value
			best = max(best, e.value)
		}
	}
	if single {
		sum = best
	}
	if hasUpper && upper > 0 && upper < sum {
		sum = upper
	}
	if sum > 0 && sum <= 1000 {
		return sum
	}
	return 1
}

// keyFrom is the key of a declaration: its correct values, else the
// entries its mapping gives points.
func keyFrom(decl *node, single bool) []string {
	if vs := correctValues(decl); len(vs) > 0 {
		return vs
	}
	entries, _, _ := mappingOf(decl)
	var out []string
	var best float64
	for _, e := range entries {
		switch {
		case e.value <= 0:
		case single && e.value > best:
			out, best = []string{e.key}, e.value
		case !single:
			out = append(out, e.key)
		}
	}
	return out
}

// partialMapping reports whether a mapping gives other than all or
// nothing: entries with different values, or negative ones.
func partialMapping(decl *node) bool {
	entries, _, _ := mappingOf(decl)
	for _, e := range entries {
		if e.value != entries[0].value || e.value < 0 {
			return true
		}
	}
	return len(entries) > 1
}

func (ir *itemReader) readStimulus(q *exam.Question) error {
	refs := ir.root.children("assessmentStimulusRef")
	if len(refs) == 0 {
		return nil
	}
	if len(refs) > 1 {
		ir.note("kept the first of the item's %d stimuli: a question shows one", len(refs))
	}
	ref := refs[0]
	p, ok := resolve(ir.path, ref.attr("href"))
	if !ok {
		return refuse(codeInvalidItem, "the stimulus href %q is not a path inside the package", ref.attr("href"))
	}
	st := ir.imp.stimuli[p]
	if st == nil {
		st = ir.imp.readStimulus(p, ref)
		ir.imp.stimuli[p] = st
	}
	if st.err != nil {
		return st.err
	}
	for _, c := range st.changes {
		ir.note("stimulus %s: %s", st.st.ID, c)
	}
	for _, l := range st.lost {
		ir.lost = append(ir.lost, "stimulus "+st.st.ID+": "+l)
	}
	ir.stimulus = st
	q.Stimulus = st.st.ID
	return nil
}

// readStimulus reads the stimulus file at p.
func (imp *importer) readStimulus(p string, ref *node) *stimulusRead {
	sr := &stimulusRead{}
	data, err := imp.a.read(p, maxXMLFile)
	switch {
	case errors.Is(err, errNoEntry):
		sr.err = refuse(codeInvalidItem, "the package has no stimulus file %s", p)
		return sr
	case errors.Is(err, errUnpacked):
		imp.fatal = err
		sr.err = err
		return sr
	case err != nil:
		sr.err = refuse(codeInvalidItem, "%v", err)
		return sr
	}
	root, err := parseXML(data)
	if err != nil {
		sr.err = refuse(codeInvalidItem, "the stimulus %s: %v", p, err)
		return sr
	}
	body := root.child("stimulusBody")
	if n := len(root.find(func(n *node) bool { return n.Name == "math" })); n > maxFormulas {
		sr.err = refuse(codeInvalidItem, "the stimulus %s has %d formulas; a text has at most %d", p, n, maxFormulas)
		return sr
	}
	if root.Name != "assessmentStimulus" || body == nil {
		sr.err = refuse(codeInvalidItem, "%s is not a QTI 3.0 stimulus with a stimulus body", p)
		return sr
	}
	id := cleanID(root.attr("identifier"))
	if id == "" {
		id = cleanID(ref.attr("identifier"))
	}
	if id == "" {
		id = "stimulus"
	}
	base := id
	for n := 2; imp.sids[id]; n++ {
		id = clip(base, 60) + "-" + strconv.Itoa(n)
	}
	imp.sids[id] = true
	title := strings.TrimSpace(root.attr("title"))
	if title == "" {
		title = strings.TrimSpace(ref.attr("title"))
	}
	ir := &itemReader{imp: imp, path: p, root: root}
	format, texts, err := ir.texts([]*node{body}, nil)
	if err != nil {
		sr.err = err
		return sr
	}
	sr.st = exam.Stimulus{ID: id, Title: clip(strings.Join(strings.Fields(title), " "), 200), Format: format, Text: texts[0]}
	sr.changes, sr.lost = ir.changes, ir.lost
	return sr
}

// noteRubric notes rubric blocks a question other than an essay drops.
func (ir *itemReader) noteRubric(body *node) {
	if len(body.find(func(n *node) bool { return n.Name == "rubricBlock" })) > 0 {
		ir.note("dropped the item's rubric blocks: only an essay keeps a rubric, for its graders")
	}
}

// escapeText is s as HTML text.
func escapeText(s string) string { return html.EscapeString(s) }
