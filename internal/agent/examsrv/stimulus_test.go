package examsrv_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/client"
)

// TestStimulusAttempt: the attempt carries the exam's stimuli, their HTML
// checked against the allow-list again (a compromised portal's raw vectors
// stripped), and each question's stimulus; however a student's questions
// are shuffled, the questions of one stimulus stay together, in the exam's
// order, the same on every reload.
func TestStimulusAttempt(t *testing.T) {
	l := newLab(t, filepath.Join(t.TempDir(), "labagent.db"), 0, testkit.NewClock(t0.Add(time.Minute)))
	l.srv.SetPackage(typesPackage(t))
	type view struct {
		Stimuli   []client.Stimulus
		Questions []struct {
			ID       string
			Stimulus string
		}
	}
	positions := map[string]bool{}
	for n := 1; n <= 5; n++ {
		b := l.signIn(n)
		var a, again view
		b.mustOK("POST", "/api/student/exams/e1/start", nil, &a)
		b.mustOK("GET", "/api/student/exams/e1", nil, &again)
		var ids, againIDs []string
		for i, q := range a.Questions {
			ids = append(ids, q.ID)
			againIDs = append(againIDs, again.Questions[i].ID)
			if want := map[string]string{"s1": "toba", "s2": "toba", "s3": "rusak"}[q.ID]; q.Stimulus != want {
				t.Errorf("question %s has stimulus %q, want %q", q.ID, q.Stimulus, want)
			}
		}
		if !slices.Equal(ids, againIDs) {
			t.Fatalf("student %d: the order moved on reload: %v, %v", n, ids, againIDs)
		}
		i := slices.Index(ids, "s1")
		if i < 0 || i+1 >= len(ids) || ids[i+1] != "s2" {
			t.Errorf("student %d: the questions of stimulus toba are apart: %v", n, ids)
		}
		positions[strings.Join(ids, ",")] = true
		if len(a.Stimuli) != 2 || a.Stimuli[0].ID != "toba" || !strings.Contains(a.Stimuli[0].HTML, "<table>") {
			t.Fatalf("stimuli: %+v", a.Stimuli)
		}
		if h := a.Stimuli[1].HTML; strings.Contains(h, "<script") || strings.Contains(h, "onerror") || strings.Contains(h, "<iframe") ||
			strings.Contains(h, "javascript:") || !strings.Contains(h, "<p>aman</p>") {
			t.Errorf("the compromised stimulus reaches the page as %q", h)
		}
	}
	if len(positions) < 2 {
		t.Errorf("five students got the same order: %v", positions)
	}
}
