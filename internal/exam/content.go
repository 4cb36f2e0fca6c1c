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
	// Field is "text" or "options[<id>]".
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

// contentProblems renders every text of qs and lists its problems.
func (s *Service) contentProblems(qs []Question) ([]ContentProblem, error) {
	var out []ContentProblem
	add := func(q Question, field, text string) error {
		res, err := s.renderText(q.Format, text)
		if err != nil {
			return err
		}
		for _, p := range res.Problems {
			out = append(out, ContentProblem{QuestionID: q.ID, Field: field, Problem: p})
		}
		return nil
	}
	for _, q := range qs {
		if q.Format == "" {
			continue // plain text renders as typed
		}
		if err := add(q, "text", q.Text); err != nil {
			return nil, err
		}
		for _, o := range q.Options {
			if err := add(q, "options["+o.ID+"]", o.Text); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
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
		res, err := s.renderText("", q.Text)
		if err != nil {
			return PackageQuestion{}, nil, err
		}
		pq.HTML = res.HTML
		for i, o := range q.Options {
			res, err := s.renderText("", o.Text)
			if err != nil {
				return PackageQuestion{}, nil, err
			}
			pq.Options[i].HTML = res.HTML
		}
	}
	problems, err := s.contentProblems([]Question{q})
	if err != nil {
		return PackageQuestion{}, nil, err
	}
	return pq, problems, nil
}
