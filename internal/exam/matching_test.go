package exam

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// matchingQuestion pairs three provinces with their capitals, from four
// capitals (one a distractor).
func matchingQuestion(scoring string, reuse bool) Question {
	return Question{ID: "m", Type: Matching, Text: "Jodohkan provinsi dengan ibu kotanya.", Points: 3, Scoring: scoring,
		ReuseResponses: reuse,
		Premises:       []Option{{"p1", "Jawa Barat"}, {"p2", "Jawa Timur"}, {"p3", "Bali"}},
		Responses:      []Option{{"r1", "Surabaya"}, {"r2", "Denpasar"}, {"r3", "Bandung"}, {"r4", "Semarang"}},
		Answer:         []string{"p3=r2", "p1=r3", "p2=r1"}}
}

func TestValidateMatching(t *testing.T) {
	q := matchingQuestion("", false)
	if err := validateQuestion(&q); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q.Answer, []string{"p1=r3", "p2=r1", "p3=r2"}) {
		t.Fatalf("key not in the premises' order: %v", q.Answer)
	}
	many := func(prefix string, n int) []Option {
		out := make([]Option, n)
		for i := range out {
			out[i] = Option{ID: prefix + strings.Repeat("x", i+1), Text: "t"}
		}
		return out
	}
	for name, tc := range map[string]struct {
		change func(q *Question)
		want   string
	}{
		"no premises":                   {func(q *Question) { q.Premises, q.Answer = nil, nil }, "1 to 26 premises"},
		"27 premises":                   {func(q *Question) { q.Premises = many("p", 27) }, "1 to 26 premises"},
		"one response":                  {func(q *Question) { q.Responses = q.Responses[:1] }, "2 to 26 responses"},
		"27 responses":                  {func(q *Question) { q.Responses = many("r", 27) }, "2 to 26 responses"},
		"fewer responses than premises": {func(q *Question) { q.Responses = q.Responses[:2]; q.Answer = []string{"p1=r1", "p2=r2", "p3=r1"} }, "at least as many responses"},
		"a premise unanswered":          {func(q *Question) { q.Answer = q.Answer[:2] }, "every premise"},
		"a premise twice":               {func(q *Question) { q.Answer = append(q.Answer, "p1=r4") }, "answered twice"},
		"a response twice":              {func(q *Question) { q.Answer[0] = "p3=r3" }, `response "r3" is given to premise`},
		"an unknown response":           {func(q *Question) { q.Answer[0] = "p3=r9" }, `"r9" is not a response`},
		"an unknown premise":            {func(q *Question) { q.Answer[0] = "p9=r2" }, `"p9" is not a premise`},
		"not a pair":                    {func(q *Question) { q.Answer[0] = "p3" }, "is not premise=response"},
		"duplicate response id":         {func(q *Question) { q.Responses[1].ID = "r1" }, `duplicate response id "r1"`},
		"a premise without text":        {func(q *Question) { q.Premises[0].Text = " " }, `premise "p1" needs a text`},
		"an id with a comma":            {func(q *Question) { q.Responses[0].ID = "a,b" }, `response id "a,b"`},
		"options":                       {func(q *Question) { q.Options = []Option{{"a", "A"}} }, "no options"},
		"statements":                    {func(q *Question) { q.Statements = []Option{{"s1", "x"}} }, "only a statement_grid"},
		"another scoring":               {func(q *Question) { q.Scoring = "half" }, `scoring must be "partial"`},
	} {
		q := matchingQuestion("", false)
		tc.change(&q)
		if err := validateQuestion(&q); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.want)
		}
	}
	// With reuse_responses, a response may be the key of several premises,
	// and there may be fewer responses than premises.
	r := matchingQuestion("", true)
	r.Responses = []Option{{"r1", "Pulau Jawa"}, {"r2", "Pulau Bali"}}
	r.Answer = []string{"p1=r1", "p2=r1", "p3=r2"}
	if err := validateQuestion(&r); err != nil {
		t.Errorf("a reused response with reuse_responses: %v", err)
	}
	// Premises and reuse_responses belong to a matching question only.
	sc := Question{ID: "q", Type: SingleChoice, Text: "?", Options: []Option{{"a", "A"}, {"b", "B"}}, Answer: []string{"a"},
		ReuseResponses: true}
	if err := validateQuestion(&sc); err == nil || !strings.Contains(err.Error(), "only a matching question") {
		t.Errorf("a single choice with reuse_responses: %v", err)
	}
}

func TestScoreMatching(t *testing.T) {
	for _, tc := range []struct {
		scoring string
		reuse   bool
		answer  string
		correct bool
		points  float64
	}{
		{"", false, "p1=r3,p2=r1,p3=r2", true, 3},
		{"", false, " p3 = r2 , p2=r1,p1=r3 ", true, 3},
		{"", false, "p1=r3,p2=r1,p3=r4", false, 0},
		{"", false, "p1=r3,p2=r1", false, 0},
		{ScoringPartial, false, "p1=r3,p2=r4,p3=r2", false, 2},
		{ScoringPartial, false, "p1=r3", false, 1},
		{ScoringPartial, false, "p1=r3,p2=r1,p3=r2", true, 3},
		// A response used twice where it may be used once: nothing.
		{ScoringPartial, false, "p1=r3,p2=r1,p3=r1", false, 0},
		// Allowed with reuse_responses: the two right pairs count.
		{ScoringPartial, true, "p1=r3,p2=r1,p3=r1", false, 2},
		{ScoringPartial, false, "p1=r9", false, 0},
		{ScoringPartial, false, "p1=r3,p1=r3", false, 0},
		{ScoringPartial, false, "p1", false, 0},
		{ScoringPartial, false, ",,,", false, 0},
		{ScoringPartial, false, "=", false, 0},
		{ScoringPartial, false, "p1=r3=r3", false, 0},
		{ScoringPartial, false, "", false, 0},
	} {
		q := matchingQuestion(tc.scoring, tc.reuse)
		if err := validateQuestion(&q); err != nil {
			t.Fatal(err)
		}
		correct, points := Score(q, tc.answer)
		if correct != tc.correct || math.Abs(points-tc.points) > 1e-9 {
			t.Errorf("scoring %q reuse %v, answer %q: %v %v, want %v %v", tc.scoring, tc.reuse, tc.answer, correct, points, tc.correct, tc.points)
		}
	}
}

// FuzzScoreMatching: any answer scores without panicking, between 0 and the
// points, and correct only with all the points.
func FuzzScoreMatching(f *testing.F) {
	for _, s := range []string{"p1=r3,p2=r1,p3=r2", "p1=r3,p1=r3", "=,=", "p1==r3", "\x00", "p1=r3,,p2=r1"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, answer string, partial bool) {
		scoring := ""
		if partial {
			scoring = ScoringPartial
		}
		q := matchingQuestion(scoring, false)
		if err := validateQuestion(&q); err != nil {
			t.Fatal(err)
		}
		correct, points := Score(q, answer)
		if points < 0 || points > q.Points || correct != (points == q.Points) {
			t.Fatalf("Score(%q) = %v %v", answer, correct, points)
		}
	})
}
