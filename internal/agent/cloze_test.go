//go:build !windows

package agent_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/pkg/client"
)

// TestSyncerPullsClozeAndNumeric: a lab server pulls the package of format
// 4 that numeric and cloze questions make, gets the blanks without their
// keys, and the answers it pushes are scored on the portal, each right
// blank earning its points.
func TestSyncerPullsClozeAndNumeric(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	start := time.Now().UTC().Add(-time.Hour)
	e, err := f.svc.CreateExam(context.Background(), exam.ExamInput{
		Title: "Isian", Subject: "Umum", NPSNs: []string{testNPSN},
		StartsAt: start, EndsAt: start.Add(6 * time.Hour), DurationMinutes: 90,
		Questions: []exam.Question{
			{ID: "n1", Type: exam.Numeric, Text: "2,5 + 2,5 = ?", Answer: []string{"5"}, Points: 2},
			{ID: "c1", Type: exam.Cloze, Format: "markdown", Text: "[[a]] + [[b]] = 3",
				Blanks: []exam.Blank{{ID: "a", Kind: exam.BlankNumber, Answer: []string{"1"}},
					{ID: "b", Kind: exam.BlankChoice, Answer: []string{"two"}, Points: 3,
						Options: []exam.Option{{ID: "one", Text: "1"}, {ID: "two", Text: "2"}}}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := f.syncer()
	f.run(s)
	p, _ := f.pkgs.wait(t, 1)
	i := slices.IndexFunc(p.Exams, func(pe client.PackageExam) bool { return pe.ID == e.ID })
	if p.Format != 4 || i < 0 || len(p.Exams[i].Questions) != 2 {
		t.Fatalf("package format %d, exams %+v", p.Format, p.Exams)
	}
	c := p.Exams[i].Questions[1]
	if c.Type != client.Cloze || len(c.Blanks) != 2 || c.Blanks[1].Points != 3 || len(c.Blanks[1].Options) != 2 || c.Points != 4 {
		t.Fatalf("cloze question as pulled: %+v", c)
	}
	saveAnswers(t, f.db, e.ID, f.students[0], map[string]string{"n1": "5,0", "c1": `{"a":"2","b":"two"}`})
	if _, err := s.PushNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	r := memberResults(t, f.svc, e.ID)[f.students[0]]
	if r.Answered != 2 || r.Correct != 1 || r.Score != 5 {
		t.Fatalf("portal results: %+v", r)
	}
}
