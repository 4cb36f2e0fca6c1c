package moodle

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
)

var testStart = time.Unix(1e9, 0)

// FuzzMoodleImport: whatever a file holds, Import neither panics nor
// fails but with a refusal of the file (never an internal error), and
// what it imports are questions the exam takes, in bounds.
func FuzzMoodleImport(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.xml"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<quiz><question type="matching"><name><text>m</text></name><questiontext format="html"><text>x</text></questiontext>` +
		`<subquestion><text>a</text><answer><text>1</text></answer></subquestion><subquestion><text>b</text><answer><text>1</text></answer></subquestion>` +
		`<tags><tag><text>portal-statement-grid</text></tag></tags></question></quiz>`))
	f.Add([]byte(clozeBank))
	f.Add([]byte(`<?xml version="1.0"?><!DOCTYPE quiz [<!ENTITY e "x">]><quiz>&e;</quiz>`))
	f.Add([]byte(`<quiz><question type="description"><questiontext><text><![CDATA[<img src="@@PLUGINFILE@@/a.png">]]></text>` +
		`<file name="a.png" encoding="base64">iVBORw0KGgo=</file></questiontext></question></quiz>`))
	svc := mustService(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		b, err := Import(t.Context(), bytes.NewReader(data), svc)
		if err != nil {
			if apperr.KindOf(err) == apperr.Internal {
				t.Fatalf("Import: internal error %v", err)
			}
			return
		}
		if len(b.Items) > qbank.MaxItems || len(b.Questions)+len(b.Stimuli) > len(b.Items) {
			t.Fatalf("%d items, %d questions, %d stimuli", len(b.Items), len(b.Questions), len(b.Stimuli))
		}
		if len(b.Questions) == 0 {
			return
		}
		e := exam.Exam{Title: "fuzz", NPSNs: []string{"20100001"}, StartsAt: testStart, EndsAt: testStart.Add(7200e9),
			DurationMinutes: 60, Questions: b.Questions, Stimuli: b.Stimuli}
		if err := exam.ValidateExam(&e); err != nil {
			t.Fatalf("imported questions do not validate: %v", err)
		}
		for _, it := range b.Items {
			if it.Status == qbank.Refused && (it.Code == "" || it.Message == "") || !strings.HasPrefix(it.QuestionID, "q") && !strings.HasPrefix(it.QuestionID, "s") {
				t.Fatalf("item %+v", it)
			}
		}
	})
}
