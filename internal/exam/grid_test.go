package exam

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func gridQuestion(scoring string) Question {
	return Question{ID: "g", Type: StatementGrid, Text: "Tentukan benar atau salah:", Points: 4, Scoring: scoring,
		Statements: []Option{{"s1", "2 adalah bilangan prima"}, {"s2", "9 adalah bilangan prima"}, {"s3", "1 adalah bilangan prima"},
			{"s4", "11 adalah bilangan prima"}},
		Answer: []string{"s4=true", "s1=true", "s2=false", "s3=false"}}
}

func TestValidateStatementGrid(t *testing.T) {
	q := gridQuestion("")
	if err := validateQuestion(&q); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q.Answer, []string{"s1=true", "s2=false", "s3=false", "s4=true"}) {
		t.Fatalf("key not in the statements' order: %v", q.Answer)
	}
	if len(q.Columns) != 2 || q.Columns[0].ID != "true" || q.Columns[1].Text != "Salah" {
		t.Fatalf("default columns: %+v", q.Columns)
	}
	for name, change := range map[string]func(q *Question){
		"no statements":            func(q *Question) { q.Statements = nil; q.Answer = nil },
		"a statement unanswered":   func(q *Question) { q.Answer = q.Answer[:3] },
		"a statement twice":        func(q *Question) { q.Answer = append(q.Answer, "s1=false") },
		"an unknown column":        func(q *Question) { q.Answer[0] = "s1=maybe" },
		"an unknown statement":     func(q *Question) { q.Answer[0] = "s9=true" },
		"not a pair":               func(q *Question) { q.Answer[0] = "s1" },
		"one column":               func(q *Question) { q.Columns = []Option{{"x", "X"}} },
		"duplicate statement id":   func(q *Question) { q.Statements[1].ID = "s1" },
		"a statement without text": func(q *Question) { q.Statements[0].Text = " " },
		"an id with =":             func(q *Question) { q.Statements[0].ID = "a=b" },
		"options":                  func(q *Question) { q.Options = []Option{{"a", "A"}} },
		"another scoring":          func(q *Question) { q.Scoring = "half" },
	} {
		q := gridQuestion("")
		change(&q)
		if err := validateQuestion(&q); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// Statements and a scoring belong to the grid only.
	sc := Question{ID: "q", Type: SingleChoice, Text: "?", Options: []Option{{"a", "A"}, {"b", "B"}}, Answer: []string{"a"},
		Statements: []Option{{"s1", "x"}}}
	if err := validateQuestion(&sc); err == nil || !strings.Contains(err.Error(), "statement_grid") {
		t.Errorf("a single choice with statements: %v", err)
	}
}

func TestScoreStatementGrid(t *testing.T) {
	for _, tc := range []struct {
		scoring, answer string
		correct         bool
		points          float64
	}{
		{"", "s1=true,s2=false,s3=false,s4=true", true, 4},
		{"", "s4=true,s3=false,s2=false,s1=true", true, 4},
		{"", "s1=true,s2=false,s3=true,s4=true", false, 0},
		{"", "s1=true,s2=false,s3=false", false, 0},
		{ScoringPartial, "s1=true,s2=false,s3=true,s4=true", false, 3},
		{ScoringPartial, "s1=true", false, 1},
		{ScoringPartial, "s1=true,s2=false,s3=false,s4=true", true, 4},
		{ScoringPartial, "s1=maybe", false, 0},
		{ScoringPartial, "s1=true,s1=false", false, 0},
		{ScoringPartial, "", false, 0},
	} {
		q := gridQuestion(tc.scoring)
		if err := validateQuestion(&q); err != nil {
			t.Fatal(err)
		}
		correct, points := Score(q, tc.answer)
		if correct != tc.correct || math.Abs(points-tc.points) > 1e-9 {
			t.Errorf("scoring %q, answer %q: %v %v, want %v %v", tc.scoring, tc.answer, correct, points, tc.correct, tc.points)
		}
	}
}
