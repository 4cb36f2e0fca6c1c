package examsrv

import (
	"errors"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/pkg/client"
)

// FuzzNormaliseMatching: any answer to a matching question is refused
// with INVALID_ANSWER or normalised to pairs of known ids in the premises'
// order, each premise once and, where each response is used once, each
// response once; normalising that again changes nothing.
func FuzzNormaliseMatching(f *testing.F) {
	for _, s := range []string{"p1=r1,p2=r2", "p2=r1,p1=r1", "p1=r1,p1=r2", "p1", "=", ",", "p1=r1,", " p1=r1", "p1=r1=r2", "p9=r1", "\xff=r1"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, answer string, reuse bool) {
		opts := func(ids ...string) []client.QuestionOption {
			var out []client.QuestionOption
			for _, id := range ids {
				out = append(out, client.QuestionOption{ID: id, Text: id})
			}
			return out
		}
		q := &client.PackageQuestion{ID: "m", Type: matching, Premises: opts("p1", "p2", "p3"), Responses: opts("r1", "r2", "r3", "r4"),
			ReuseResponses: reuse}
		got, err := normaliseAnswer(q, answer)
		if err != nil {
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != "INVALID_ANSWER" {
				t.Fatalf("normaliseAnswer(%q): %v, want INVALID_ANSWER", answer, err)
			}
			return
		}
		if answer != "" && got == "" {
			t.Fatalf("normaliseAnswer(%q) = \"\"", answer)
		}
		again, err := normaliseAnswer(q, got)
		if err != nil || again != got {
			t.Fatalf("normaliseAnswer(%q) = %q, normalised again %q %v", answer, got, again, err)
		}
		used, last := map[string]bool{}, ""
		for _, pair := range strings.Split(got, ",") {
			if got == "" {
				break
			}
			p, r, _ := strings.Cut(pair, "=")
			if p <= last || (!reuse && used[r]) {
				t.Fatalf("normaliseAnswer(%q) = %q: premises out of order or a response twice", answer, got)
			}
			last, used[r] = p, true
		}
	})
}
