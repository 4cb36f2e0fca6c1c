package exam

import (
	"strings"
	"testing"
	"time"
)

func stimulusExam() Exam {
	start := time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC)
	return Exam{ID: "e", Title: "Bahasa Indonesia", NPSNs: []string{"20100001"}, StartsAt: start, EndsAt: start.Add(2 * time.Hour),
		DurationMinutes: 90,
		Stimuli:         []Stimulus{{ID: " toba ", Title: " Danau Toba ", Format: "plain", Text: " Danau Toba di Sumatera Utara. "}},
		Questions: []Question{
			{ID: "q1", Type: Essay, Text: "Di mana Danau Toba?", Stimulus: " toba "},
			{ID: "q2", Type: Essay, Text: "Jelaskan."},
		}}
}

func TestValidateStimuli(t *testing.T) {
	e := stimulusExam()
	if err := ValidateExam(&e); err != nil {
		t.Fatal(err)
	}
	if st := e.Stimuli[0]; st != (Stimulus{ID: "toba", Title: "Danau Toba", Text: "Danau Toba di Sumatera Utara."}) || e.Questions[0].Stimulus != "toba" {
		t.Fatalf("normalised: %+v, %q", st, e.Questions[0].Stimulus)
	}
	for name, tc := range map[string]struct {
		change func(e *Exam)
		want   string
	}{
		"an unknown stimulus": {func(e *Exam) { e.Questions[1].Stimulus = "danau" }, `questions[1]: stimulus "danau" is not one of the exam's stimuli`},
		"a duplicate id":      {func(e *Exam) { e.Stimuli = append(e.Stimuli, e.Stimuli[0]) }, `stimuli[1]: duplicate id "toba"`},
		"no text":             {func(e *Exam) { e.Stimuli[0].Text = "  " }, "stimuli[0]: text is required"},
		"a bad id":            {func(e *Exam) { e.Stimuli[0].ID = "a,b"; e.Questions[0].Stimulus = "a,b" }, "stimuli[0]: id must be"},
		"a long title":        {func(e *Exam) { e.Stimuli[0].Title = strings.Repeat("x", 201) }, "stimuli[0]: title must be at most 200"},
		"another format":      {func(e *Exam) { e.Stimuli[0].Format = "latex" }, "stimuli[0]: "},
		"a long markdown":     {func(e *Exam) { e.Stimuli[0].Format, e.Stimuli[0].Text = "markdown", strings.Repeat("x", 65<<10) }, "a markdown text is at most 64 KiB"},
		"too many":            {func(e *Exam) { e.Stimuli = make([]Stimulus, maxStimuli+1) }, "at most 200 stimuli"},
	} {
		e := stimulusExam()
		tc.change(&e)
		if err := ValidateExam(&e); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.want)
		}
	}
}
