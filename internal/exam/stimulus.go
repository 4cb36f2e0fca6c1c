package exam

import (
	"context"
	"fmt"
	"strings"

	"github.com/seedhq/portal/internal/richtext"
	"github.com/seedhq/portal/pkg/labwire"
)

// Stimulus is what several questions of an exam share: a passage, a table,
// an image or an audio, all written as rich text (docs/exam-content.md) in
// its Format. A question names it by ID (Question.Stimulus); students see
// it beside the question.
type Stimulus struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	// Format is how Text is written: "" (plain) or "markdown".
	Format string `json:"format,omitempty"`
	Text   string `json:"text"`
}

// Limits of an exam's stimuli.
const (
	maxStimuli       = 200
	maxStimulusTitle = 200
)

// validateStimuli checks e's stimuli (ids, titles, formats, texts) and
// that every question's stimulus is one of them, and normalises them
// (trimmed ids, titles and texts; "" for the plain format).
func validateStimuli(e *Exam) error {
	if len(e.Stimuli) > maxStimuli {
		return invalid("an exam has at most %d stimuli", maxStimuli)
	}
	ids := map[string]bool{}
	for i := range e.Stimuli {
		st := &e.Stimuli[i]
		if err := validateStimulus(st); err != nil {
			return invalid("stimuli[%d]: %v", i, err)
		}
		if ids[st.ID] {
			return invalid("stimuli[%d]: duplicate id %q", i, st.ID)
		}
		ids[st.ID] = true
	}
	for i := range e.Questions {
		q := &e.Questions[i]
		q.Stimulus = strings.TrimSpace(q.Stimulus)
		if q.Stimulus != "" && !ids[q.Stimulus] {
			return invalid("questions[%d]: stimulus %q is not one of the exam's stimuli", i, q.Stimulus)
		}
	}
	return nil
}

func validateStimulus(st *Stimulus) error {
	st.ID, st.Title, st.Text = strings.TrimSpace(st.ID), strings.TrimSpace(st.Title), strings.TrimSpace(st.Text)
	format, err := richtext.ParseFormat(st.Format)
	if err != nil {
		return err
	}
	if format == richtext.Plain {
		st.Format = ""
	}
	switch {
	case !labwire.ValidServerCode(st.ID):
		return fmt.Errorf("id must be 1 to 64 letters, digits, dots, dashes or underscores")
	case len(st.Title) > maxStimulusTitle:
		return fmt.Errorf("title must be at most %d characters", maxStimulusTitle)
	case st.Text == "" || len(st.Text) > maxQuestionBytes:
		return fmt.Errorf("text is required (at most 8 MiB)")
	case format == richtext.Markdown && len(st.Text) > richtext.MaxSource:
		return fmt.Errorf("a markdown text is at most %d KiB", richtext.MaxSource>>10)
	}
	return nil
}

// packageStimulus is st as a package ships it.
func (s *Service) packageStimulus(ctx context.Context, st Stimulus) (labwire.PackageStimulus, error) {
	h, err := s.packageHTML(ctx, st.Format, st.Text)
	if err != nil {
		return labwire.PackageStimulus{}, err
	}
	return labwire.PackageStimulus{ID: st.ID, Title: st.Title, Format: st.Format, Text: st.Text, HTML: h}, nil
}

// RenderStimulus renders st as a student's page shows it, with its
// problems: the console's preview. A plain stimulus's HTML is its text as
// text.
func (s *Service) RenderStimulus(ctx context.Context, st Stimulus) (labwire.PackageStimulus, []ContentProblem, error) {
	ps, err := s.packageStimulus(ctx, st)
	if err != nil {
		return labwire.PackageStimulus{}, nil, err
	}
	if st.Format == "" {
		res, _ := richtext.Render(richtext.Plain, st.Text, richtext.Options{})
		ps.HTML = res.HTML
	}
	rep, err := s.checkContent(ctx, nil, []Stimulus{st})
	if err != nil {
		return labwire.PackageStimulus{}, nil, err
	}
	return ps, rep.Problems, nil
}
