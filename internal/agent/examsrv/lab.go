package examsrv

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/pkg/client"
	"github.com/seedhq/portal/pkg/labwire/sanitize"
)

// lab is an exam package indexed for serving.
type lab struct {
	pkg        *client.Package
	byUsername map[string]*client.PackageStudent // lower-cased username
	byID       map[string]*client.PackageStudent
	exams      map[string]*client.PackageExam
	questions  map[string]map[string]*client.PackageQuestion // exam id -> question id
	media      map[string]labMedia                           // exam id -> its media
}

func newLab(p *client.Package) *lab {
	l := &lab{
		pkg:        p,
		byUsername: make(map[string]*client.PackageStudent, len(p.Students)),
		byID:       make(map[string]*client.PackageStudent, len(p.Students)),
		exams:      make(map[string]*client.PackageExam, len(p.Exams)),
		questions:  make(map[string]map[string]*client.PackageQuestion, len(p.Exams)),
		media:      make(map[string]labMedia, len(p.Exams)),
	}
	for i := range p.Students {
		st := &p.Students[i]
		l.byUsername[strings.ToLower(st.Username)] = st
		l.byID[st.ID] = st
	}
	for i := range p.Exams {
		e := &p.Exams[i]
		l.exams[e.ID] = e
		for k := range e.Stimuli {
			if e.Stimuli[k].HTML != "" {
				e.Stimuli[k].HTML = sanitize.HTML(e.Stimuli[k].HTML)
			}
		}
		qs := make(map[string]*client.PackageQuestion, len(e.Questions))
		for j := range e.Questions {
			q := &e.Questions[j]
			// The portal sanitised the HTML; a lab server checks it
			// against the same allow-list again before any page shows it.
			if q.HTML != "" {
				q.HTML = sanitize.HTML(q.HTML)
			}
			parts := [][]client.QuestionOption{q.Options, q.Statements, q.Columns, q.Premises, q.Responses}
			for _, b := range q.Blanks {
				parts = append(parts, b.Options)
			}
			for _, part := range parts {
				for k := range part {
					if part[k].HTML != "" {
						part[k].HTML = sanitize.HTML(part[k].HTML)
					}
				}
			}
			qs[q.ID] = q
		}
		l.questions[e.ID] = qs
		l.media[e.ID] = indexMedia(e)
	}
	return l
}

// Question types the package carries (see the portal's exam API).
const (
	singleChoice   = "single_choice"
	multipleChoice = "multiple_choice"
	trueFalse      = "true_false"
	statementGrid  = "statement_grid"
	matching       = "matching"
	cloze          = "cloze"
)

// maxTextAnswer bounds a short_answer or essay, in characters, and
// maxBlankAnswer what a cloze question's text or number blank takes.
const (
	maxTextAnswer  = 10_000
	maxBlankAnswer = 200
)

// normaliseAnswer checks answer against question q and returns it in its
// stored form: option ids for choice types (for multiple_choice, distinct and
// in the question's option order, joined by ","), "row=choice" pairs for a
// statement grid or a matching question, a JSON object for a cloze question
// (normaliseCloze), text otherwise. "" clears.
func normaliseAnswer(q *client.PackageQuestion, answer string) (string, error) {
	if answer == "" {
		return "", nil
	}
	invalid := func(msg string) error { return apperr.New(apperr.Invalid, "INVALID_ANSWER", msg) }
	switch q.Type {
	case singleChoice:
		if !hasOption(q, answer) {
			return "", invalid("the answer is not one of the question's options")
		}
		return answer, nil
	case multipleChoice:
		given := strings.Split(answer, ",")
		var out []string
		for _, o := range q.Options {
			if slices.Contains(given, o.ID) {
				out = append(out, o.ID)
			}
		}
		for _, g := range given {
			if !hasOption(q, g) {
				return "", invalid("the answer names an option the question does not have")
			}
		}
		return strings.Join(out, ","), nil
	case trueFalse:
		if answer != "true" && answer != "false" {
			return "", invalid(`the answer of a true/false question is "true" or "false"`)
		}
		return answer, nil
	case statementGrid:
		return normalisePairs(answer, pairRows{q.Statements, q.Columns, "statement", "column", false}, invalid)
	case matching:
		return normalisePairs(answer, pairRows{q.Premises, q.Responses, "premise", "response", !q.ReuseResponses}, invalid)
	case cloze:
		return normaliseCloze(q, answer, invalid)
	default:
		if utf8.RuneCountInString(answer) > maxTextAnswer || !utf8.ValidString(answer) {
			return "", invalid("the answer is longer than 10,000 characters or not valid UTF-8")
		}
		// A NUL (pasted from elsewhere) means nothing in a text, and the
		// portal refuses text holding one (PostgreSQL cannot store it): a
		// batch carrying it would never be accepted.
		return strings.ReplaceAll(answer, "\x00", ""), nil
	}
}

// pairRows is what a question answered in pairs pairs (a statement grid's
// statements and columns, a matching question's premises and responses),
// and what messages call them.
type pairRows struct {
	rows, choices []client.QuestionOption
	row, choice   string
	// choiceOnce: a choice goes with one row at most.
	choiceOnce bool
}

// normalisePairs checks the answer of a question answered in pairs,
// "row=choice" pairs joined by ",", each row at most once (a student may
// leave some unanswered) and, with choiceOnce, each choice at most once,
// and returns it in the rows' order.
func normalisePairs(answer string, p pairRows, invalid func(string) error) (string, error) {
	given := map[string]string{}
	used := map[string]bool{}
	for _, pair := range strings.Split(answer, ",") {
		rid, cid, ok := strings.Cut(pair, "=")
		switch {
		case !ok || !hasID(p.rows, rid) || !hasID(p.choices, cid):
			return "", invalid(fmt.Sprintf("the answer names a %s or a %s the question does not have", p.row, p.choice))
		case given[rid] != "":
			return "", invalid(fmt.Sprintf("the answer names a %s twice", p.row))
		case p.choiceOnce && used[cid]:
			return "", invalid(fmt.Sprintf("the answer gives one %s to two %ss; each %s may be used once", p.choice, p.row, p.choice))
		}
		given[rid], used[cid] = cid, true
	}
	var out []string
	for _, r := range p.rows {
		if c := given[r.ID]; c != "" {
			out = append(out, r.ID+"="+c)
		}
	}
	return strings.Join(out, ","), nil
}

// normaliseCloze checks the answer of a cloze question, a JSON object of
// blank id to what was given (a choice blank's option id), and returns it
// with the blanks in the question's order, those left empty left out ("" when
// none is filled).
func normaliseCloze(q *client.PackageQuestion, answer string, invalid func(string) error) (string, error) {
	var given map[string]string
	if err := json.Unmarshal([]byte(answer), &given); err != nil {
		return "", invalid(`the answer of a cloze question is a JSON object of blank id to text, {"b1": "..."}`)
	}
	var b strings.Builder
	for _, blank := range q.Blanks {
		v, ok := given[blank.ID]
		delete(given, blank.ID)
		v = strings.TrimSpace(strings.ReplaceAll(v, "\x00", ""))
		switch {
		case !ok || v == "":
			continue
		case blank.Kind == client.BlankChoice && !hasID(blank.Options, v):
			return "", invalid(fmt.Sprintf("blank %s has no option %q", blank.ID, v))
		case utf8.RuneCountInString(v) > maxBlankAnswer || !utf8.ValidString(v):
			return "", invalid(fmt.Sprintf("the answer of blank %s is longer than %d characters or not valid UTF-8", blank.ID, maxBlankAnswer))
		}
		k, _ := json.Marshal(blank.ID)
		val, _ := json.Marshal(v)
		if b.Len() == 0 {
			b.WriteByte('{')
		} else {
			b.WriteByte(',')
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	for id := range given {
		return "", invalid(fmt.Sprintf("the question has no blank %q", id))
	}
	if b.Len() == 0 {
		return "", nil
	}
	b.WriteByte('}')
	return b.String(), nil
}

func hasID(opts []client.QuestionOption, id string) bool {
	return slices.ContainsFunc(opts, func(o client.QuestionOption) bool { return o.ID == id })
}

func hasOption(q *client.PackageQuestion, id string) bool {
	return slices.ContainsFunc(q.Options, func(o client.QuestionOption) bool { return o.ID == id })
}

// order returns the exam's questions in the student's own order, each with
// its options (except true/false) and a matching question's responses
// shuffled too, from a seed fixed per student and exam: the same order on
// every reload, on every restart. Questions sharing a stimulus stay
// together, in the exam's order, where the group's first one falls (an
// exam without stimuli is ordered as before stimuli existed).
func order(e *client.PackageExam, memberID string) []client.PackageQuestion {
	sum := sha256.Sum256([]byte("labagent order\x00" + e.ID + "\x00" + memberID))
	rng := rand.New(rand.NewPCG(binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])))
	var units [][]client.PackageQuestion // a question, or a stimulus's group
	group := map[string]int{}            // stimulus id -> its unit
	for _, q := range e.Questions {
		if i, ok := group[q.Stimulus]; ok {
			units[i] = append(units[i], q)
			continue
		}
		if q.Stimulus != "" {
			group[q.Stimulus] = len(units)
		}
		units = append(units, []client.PackageQuestion{q})
	}
	rng.Shuffle(len(units), func(i, j int) { units[i], units[j] = units[j], units[i] })
	qs := make([]client.PackageQuestion, 0, len(e.Questions))
	for _, u := range units {
		qs = append(qs, u...)
	}
	shuffle := func(opts []client.QuestionOption) []client.QuestionOption {
		if len(opts) < 2 {
			return opts
		}
		opts = slices.Clone(opts)
		rng.Shuffle(len(opts), func(a, b int) { opts[a], opts[b] = opts[b], opts[a] })
		return opts
	}
	for i := range qs {
		if qs[i].Type != trueFalse {
			qs[i].Options = shuffle(qs[i].Options)
		}
		qs[i].Responses = shuffle(qs[i].Responses)
	}
	return qs
}
