package exam

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/seedhq/portal/internal/richtext"
)

// ContentProblem is something in a question's texts that renders otherwise
// than written (richtext.Problem), with where it is.
type ContentProblem struct {
	QuestionID string `json:"question_id"`
	// Field is "text", or the part and its id: "options[<id>]",
	// "statements[<id>]", "premises[<id>]", "responses[<id>]"; a
	// stimulus's problems have no QuestionID and Field "stimuli[<id>]".
	Field string `json:"field"`
	richtext.Problem
}

// renderText renders one text of a question in the question's format,
// from the service's cache: a package build renders every question of every
// exam of a school, twice, and schools share exams.
func (s *Service) renderText(format, text string) (richtext.Result, error) {
	key := sha256.Sum256([]byte(format + "\x00" + text))
	if v, ok := s.rendered.Load(key); ok {
		return v.(richtext.Result), nil
	}
	res, err := richtext.Render(richtext.Format(format), text, richtext.Options{})
	if err != nil {
		return richtext.Result{}, fmt.Errorf("render question text: %w", err)
	}
	if s.renderedCount.Add(1) > maxRendered {
		s.rendered.Clear()
		s.renderedCount.Store(0)
	}
	s.rendered.Store(key, res)
	return res, nil
}

// maxRendered bounds the cache of rendered texts (a few MiB).
const maxRendered = 20000

// renderCache is the cache of renderText.
type renderCache struct {
	rendered      sync.Map // sha256 of format and text -> richtext.Result
	renderedCount atomic.Int64
}

// examProblems renders every text of e's questions and stimuli and lists
// their problems.
func (s *Service) examProblems(e Exam) ([]ContentProblem, error) {
	qp, err := s.contentProblems(e.Questions)
	if err != nil {
		return nil, err
	}
	sp, err := s.stimulusProblems(e.Stimuli)
	if err != nil {
		return nil, err
	}
	return append(qp, sp...), nil
}

// contentProblems renders every text of qs and lists its problems.
func (s *Service) contentProblems(qs []Question) ([]ContentProblem, error) {
	var out []ContentProblem
	for _, q := range qs {
		if q.Format == "" {
			continue // plain text renders as typed
		}
		for _, t := range questionTexts(q) {
			res, err := s.renderText(q.Format, t.text)
			if err != nil {
				return nil, err
			}
			for _, p := range res.Problems {
				out = append(out, ContentProblem{QuestionID: q.ID, Field: t.field, Problem: p})
			}
		}
	}
	return out, nil
}

// questionText is one text of a question and where it is.
type questionText struct{ field, text string }

// questionTexts lists q's texts: its text, then its options', statements',
// columns', premises' and responses'.
func questionTexts(q Question) []questionText {
	out := []questionText{{"text", q.Text}}
	for _, part := range []struct {
		name string
		opts []Option
	}{{"options", q.Options}, {"statements", q.Statements}, {"columns", q.Columns},
		{"premises", q.Premises}, {"responses", q.Responses}} {
		for _, o := range part.opts {
			out = append(out, questionText{part.name + "[" + o.ID + "]", o.Text})
		}
	}
	return out
}

// RenderQuestion renders q's texts as a student's page shows them, with
// their problems: the console's preview, by the same renderer as the
// packages. A plain question's HTML is its text as text.
func (s *Service) RenderQuestion(q Question) (PackageQuestion, []ContentProblem, error) {
	pq, err := s.packageQuestion(q)
	if err != nil {
		return PackageQuestion{}, nil, err
	}
	if q.Format == "" {
		plain := func(t string) string {
			res, _ := richtext.Render(richtext.Plain, t, richtext.Options{})
			return res.HTML
		}
		pq.HTML = plain(q.Text)
		for _, part := range [][]PackageOption{pq.Options, pq.Statements, pq.Columns, pq.Premises, pq.Responses} {
			for i := range part {
				part[i].HTML = plain(part[i].Text)
			}
		}
	}
	problems, err := s.contentProblems([]Question{q})
	if err != nil {
		return PackageQuestion{}, nil, err
	}
	return pq, problems, nil
}
