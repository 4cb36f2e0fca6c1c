package exam

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/singleflight"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/richtext"
	"github.com/seedhq/portal/pkg/labwire"
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
// exam of a school, twice, and schools share exams. A text that refers to
// media not stored yet is rendered again next time, when they may be.
func (s *Service) renderText(ctx context.Context, format, text string) (richtext.Result, error) {
	key := sha256.Sum256([]byte(format + "\x00" + text))
	if v, ok := s.rendered.Load(key); ok {
		return v.(richtext.Result), nil
	}
	var lookupErr error
	res, err := richtext.Render(richtext.Format(format), text, richtext.Options{
		Media: func(sha string) (richtext.Media, bool) {
			m, err := s.GetMedia(ctx, sha)
			if err != nil {
				if !errors.Is(err, ErrNotFound) {
					lookupErr = err
				}
				return richtext.Media{}, false
			}
			return richtext.Media{URL: "media/" + sha, Audio: m.Kind == MediaAudio}, true
		},
	})
	if err == nil {
		err = lookupErr
	}
	if err != nil {
		return richtext.Result{}, fmt.Errorf("render question text: %w", err)
	}
	for _, p := range res.Problems {
		if p.Code == "MEDIA_NOT_FOUND" {
			return res, nil
		}
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

// renderCache is the cache of renderText, and of the media it looks up.
type renderCache struct {
	rendered      sync.Map // sha256 of format and text -> richtext.Result
	renderedCount atomic.Int64
	mediaInfo     sync.Map // media sha256 -> Media, which never change
	schoolMedia   sync.Map // npsn -> schoolMediaSet
	// contentRefs caches the content blobs sealed and stored (contentBlob):
	// kind and plaintext SHA-256 -> labwire.PackageBlob; emptied past
	// maxContentRefs entries.
	contentRefs      sync.Map
	contentRefsCount atomic.Int64
	// blobsSeen holds when each exam blob was last found or put in the
	// blob store (ensureBlob): name -> time.Time.
	blobsSeen sync.Map
	// blobPuts makes concurrent ensureBlob calls of one name one.
	blobPuts singleflight.Group
}

// contentReport is what rendering an exam's texts found.
type contentReport struct {
	Problems []ContentProblem
	// Media lists the media the texts show, each once, in order.
	Media []Media
}

// checkContent renders every text of qs and sts and reports their
// problems and media.
func (s *Service) checkContent(ctx context.Context, qs []Question, sts []Stimulus) (contentReport, error) {
	var rep contentReport
	seen := map[string]bool{}
	add := func(format, text, questionID, field string) error {
		if format == "" {
			return nil // plain text renders as typed
		}
		res, err := s.renderText(ctx, format, text)
		if err != nil {
			return err
		}
		for _, p := range res.Problems {
			rep.Problems = append(rep.Problems, ContentProblem{QuestionID: questionID, Field: field, Problem: p})
		}
		for _, sha := range res.Media {
			if seen[sha] {
				continue
			}
			seen[sha] = true
			m, err := s.GetMedia(ctx, sha)
			if err != nil {
				return err
			}
			rep.Media = append(rep.Media, m)
		}
		return nil
	}
	for _, q := range qs {
		for _, t := range questionTexts(q) {
			if err := add(q.Format, t.text, q.ID, t.field); err != nil {
				return contentReport{}, err
			}
		}
	}
	for _, st := range sts {
		if err := add(st.Format, st.Text, "", "stimuli["+st.ID+"]"); err != nil {
			return contentReport{}, err
		}
	}
	return rep, nil
}

// checkExamContent is checkContent for an exam being saved: it refuses
// media over MaxExamMedia in total.
func (s *Service) checkExamContent(ctx context.Context, e Exam) (contentReport, error) {
	rep, err := s.checkContent(ctx, e.Questions, e.Stimuli)
	if err != nil {
		return contentReport{}, err
	}
	var total int64
	for _, m := range rep.Media {
		total += m.Size
	}
	if total > MaxExamMedia {
		return contentReport{}, apperr.Errorf(apperr.TooLarge, "MEDIA_TOO_LARGE",
			"the exam shows %d MiB of media; an exam shows at most %d MiB", total>>20, MaxExamMedia>>20)
	}
	return rep, nil
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
func (s *Service) RenderQuestion(ctx context.Context, q Question) (labwire.PackageQuestion, []ContentProblem, error) {
	pq, err := s.packageQuestion(ctx, q)
	if err != nil {
		return labwire.PackageQuestion{}, nil, err
	}
	if q.Format == "" {
		plain := func(t string) string {
			res, _ := richtext.Render(richtext.Plain, t, richtext.Options{})
			return res.HTML
		}
		pq.HTML = plain(q.Text)
		for _, part := range [][]labwire.PackageOption{pq.Options, pq.Statements, pq.Columns, pq.Premises, pq.Responses} {
			for i := range part {
				part[i].HTML = plain(part[i].Text)
			}
		}
	}
	rep, err := s.checkContent(ctx, []Question{q}, nil)
	if err != nil {
		return labwire.PackageQuestion{}, nil, err
	}
	return pq, rep.Problems, nil
}
