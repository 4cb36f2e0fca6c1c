package console

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
)

// FuzzExamForm: any form body of the exam editor is read (parseExamForm)
// and turned into the service's input or refused as INVALID_FORM (400);
// an accepted form, shown again in the editor (formOfExam), reads back to
// the same input, so that editing an exam and saving it unchanged changes
// nothing.
func FuzzExamForm(f *testing.F) {
	for _, s := range []string{
		"title=Matematika+Akhir&subject=MTK&npsn=20100001%2C+20100002&starts=2026-12-01T07%3A30&ends=2026-12-01T09%3A30&zone=WIB&duration=90" +
			"&q.0.id=q1&q.0.type=single_choice&q.0.text=Berapa+dua+tambah+dua%3F&q.0.options=a%3A+3%0Ab%3A+4&q.0.answer=b&q.0.points=2" +
			"&q.1.id=q2&q.1.type=short_answer&q.1.text=Ibu+kota&q.1.answer=Jakarta%0A+DKI+Jakarta+&q.1.points=1.5" +
			"&q.2.id=q3&q.2.type=essay&q.2.remove=1&q.3.id=q4&q.3.type=multiple_choice&q.3.options=a%3Ax%0Ab%3Ay&q.3.answer=a%2C+b",
		"starts=2026-12-01T07:30&ends=2026-12-01T09:30&zone=WIT&duration=60",
		"starts=2026-12-01T07:30&ends=2026-12-01T09:30&zone=Mars&duration=%2B60&q.0.type=true_false&q.0.answer=true&q.0.points=1e2",
		"starts=2026-12-01&ends=x&duration=90", "starts=2026-12-01T07:30&ends=2026-12-01T09:30&duration=ninety",
		"starts=2026-12-01T07:30&ends=2026-12-01T09:30&duration=1&q.0.type=single_choice&q.0.options=3%0A4",
		"starts=2026-12-01T07:30&ends=2026-12-01T09:30&duration=1&q.0.type=x&q.0.points=NaN",
		"starts=2026-12-01T07:30&ends=2026-12-01T09:30&duration=1&q.1.type=x", "", "%zz", "q.0.type", "a=1&a=2;b",
		"starts=2026-12-01T07:30&ends=2026-12-01T09:30&duration=1&q.0.type=essay&q.0.text=x&q.0.calibrated=2pl+b%3D-0.75123+a%3D1.2+n%3D812+at%3D2026-11-29T10%3A00%3A00.5Z",
		"starts=2026-12-01T07:30&ends=2026-12-01T09:30&duration=1&q.0.type=essay&q.0.text=x&q.0.calibrated=3pl+b%3D0",
		"starts=2026-12-01T07:30&ends=2026-12-01T09:30&duration=1&q.0.type=numeric&q.0.answer=3%2C14%0A1.234%2C5&q.0.tolerance=0%2C5&q.0.tolerance_mode=relative" +
			"&q.1.type=cloze&q.1.format=markdown&q.1.text=a+%5B%5Bb2%5D%5D+b+%5B%5Bb1%5D%5D&q.1.b.0.id=b1&q.1.b.0.kind=choice&q.1.b.0.options=u%3A+x%0As%3Ay&q.1.b.0.answer=s" +
			"&q.1.b.1.id=b2&q.1.b.1.kind=number&q.1.b.1.answer=1e3&q.1.b.1.tolerance=1e-90&q.1.b.1.points=2&q.1.b.2.id=b3&q.1.b.2.kind=text&q.1.b.2.remove=1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		r, err := http.NewRequest("POST", "/console/exams/new", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		form := parseExamForm(r)
		if len(form.Questions) > maxFormQuestions {
			t.Fatalf("%d questions read", len(form.Questions))
		}
		in, err := form.input()
		if err != nil {
			if e := apperr.From(err); e == nil || e.Kind != apperr.Invalid || e.Code != "INVALID_FORM" || e.Message == "" {
				t.Fatalf("refusal %v, want INVALID_FORM", err)
			}
			return
		}
		shown := formOfExam(exam.Exam{Title: in.Title, Subject: in.Subject, NPSNs: in.NPSNs, StartsAt: in.StartsAt, EndsAt: in.EndsAt,
			DurationMinutes: in.DurationMinutes, Questions: in.Questions})
		again, err := shown.input()
		if err != nil {
			t.Fatalf("form %+v of an accepted input is refused: %v", shown, err)
		}
		if !again.StartsAt.Equal(in.StartsAt) || !again.EndsAt.Equal(in.EndsAt) {
			t.Fatalf("times %v–%v read back as %v–%v", in.StartsAt, in.EndsAt, again.StartsAt, again.EndsAt)
		}
		again.StartsAt, again.EndsAt = in.StartsAt, in.EndsAt
		// %#v compares NaN points as equal, and kept item parameters by
		// their pointers: those are compared by value first.
		for i := range in.Questions {
			if p, q := in.Questions[i].Calibrated, again.Questions[i].Calibrated; !reflect.DeepEqual(p, q) {
				t.Fatalf("question %d's item parameters %+v read back as %+v", i, p, q)
			}
			in.Questions[i].Calibrated, again.Questions[i].Calibrated = nil, nil
		}
		if a, b := fmt.Sprintf("%#v", in), fmt.Sprintf("%#v", again); a != b {
			t.Fatalf("input\n%s\nreads back as\n%s", a, b)
		}
	})
}
