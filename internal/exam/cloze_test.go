package exam

import (
	"strings"
	"testing"
)

// clozeQuestion is a cloze question of three blanks: a text, a number with a
// tolerance and a choice, worth 1, 2 and 1 points.
func clozeQuestion() Question {
	return Question{ID: "c1", Type: Cloze, Format: "markdown",
		Text: "Ibu kota Indonesia adalah [[kota]]. Luas Jawa sekitar [[luas]] ribu km² dan pulau itu ada di [[arah]] Kalimantan.",
		Blanks: []Blank{
			{ID: "kota", Kind: BlankText, Answer: []string{"Jakarta", "DKI Jakarta"}},
			{ID: "luas", Kind: BlankNumber, Answer: []string{"128,3"}, Tolerance: 0.5, Points: 2},
			{ID: "arah", Kind: BlankChoice, Options: []Option{{"u", "utara"}, {"s", "selatan"}}, Answer: []string{"s"}},
		}}
}

func TestValidateCloze(t *testing.T) {
	q := clozeQuestion()
	if err := validateQuestion(&q); err != nil {
		t.Fatal(err)
	}
	if q.Points != 4 || q.Blanks[0].Points != 1 || q.Blanks[1].Answer[0] != "128.3" {
		t.Errorf("after validation: points %v, blank points %v, number key %q", q.Points, q.Blanks[0].Points, q.Blanks[1].Answer)
	}
	for name, c := range map[string]struct {
		mutate func(*Question)
		msg    string
	}{
		"plain format":       {func(q *Question) { q.Format = "" }, "markdown"},
		"question key":       {func(q *Question) { q.Answer = []string{"x"} }, "no options and no answer"},
		"no blanks":          {func(q *Question) { q.Blanks = nil }, "1 to 50 blanks"},
		"marker missing":     {func(q *Question) { q.Text = strings.Replace(q.Text, "[[luas]]", "128", 1) }, "it marks [[kota]], [[arah]]"},
		"marker twice":       {func(q *Question) { q.Text += " [[kota]]" }, "every blank once"},
		"marker out of turn": {func(q *Question) { q.Blanks[0], q.Blanks[1] = q.Blanks[1], q.Blanks[0] }, "in the blanks' order"},
		"unknown marker":     {func(q *Question) { q.Text += " [[x9]]" }, "[[x9]], which is not a blank"},
		"duplicate blank":    {func(q *Question) { q.Blanks[2].ID = "kota" }, "duplicate blank id"},
		"bad kind":           {func(q *Question) { q.Blanks[0].Kind = "essay" }, "kind must be"},
		"empty text key":     {func(q *Question) { q.Blanks[0].Answer = []string{" "} }, "at least one accepted answer"},
		"number not number":  {func(q *Question) { q.Blanks[1].Answer = []string{"banyak"} }, "not a number"},
		"choice not option":  {func(q *Question) { q.Blanks[2].Answer = []string{"x"} }, "not an option id"},
		"choice one option":  {func(q *Question) { q.Blanks[2].Options = q.Blanks[2].Options[:1] }, "2 to 26 options"},
		"tolerance on text":  {func(q *Question) { q.Blanks[0].Tolerance = 1 }, "only a number blank"},
		"options on number":  {func(q *Question) { q.Blanks[1].Options = []Option{{"a", "b"}} }, "only a choice blank"},
		"too many points":    {func(q *Question) { q.Blanks[0].Points = 999 }, "add up to at most 1000"},
		"blanks elsewhere":   {func(q *Question) { q.Type = ShortAnswer; q.Answer = []string{"x"} }, "only a cloze question has blanks"},
	} {
		t.Run(name, func(t *testing.T) {
			q := clozeQuestion()
			c.mutate(&q)
			err := validateQuestion(&q)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("validateQuestion = %v, want %q", err, c.msg)
			}
		})
	}
}

func TestScoreClozeAndNumbers(t *testing.T) {
	cloze := clozeQuestion()
	if err := validateQuestion(&cloze); err != nil {
		t.Fatal(err)
	}
	numeric := Question{ID: "n1", Type: Numeric, Text: "2,5 × 2 = ?", Answer: []string{"5"}, Points: 3}
	relative := Question{ID: "n2", Type: Numeric, Text: "π?", Answer: []string{"3.14159"}, Tolerance: 1, ToleranceMode: ToleranceRelative, Points: 1}
	short := Question{ID: "s1", Type: ShortAnswer, Text: "setengah?", Answer: []string{"0.5", "setengah"}, Points: 1}
	for _, c := range []struct {
		q       Question
		answer  string
		correct bool
		points  float64
	}{
		{cloze, `{"kota":"  jakarta ","luas":"128","arah":"s"}`, true, 4},
		{cloze, `{"kota":"dki jakarta","luas":"127,8","arah":"s"}`, true, 4},
		{cloze, `{"kota":"Bandung","luas":"128,3","arah":"s"}`, false, 3},
		{cloze, `{"luas":"128,7"}`, false, 2}, {cloze, `{"luas":"128,9"}`, false, 0},
		{cloze, `{"arah":"u","kota":"Jakarta"}`, false, 1},
		{cloze, `{}`, false, 0},
		{cloze, `not json`, false, 0},
		{cloze, `{"kota":["Jakarta"]}`, false, 0},
		{numeric, "5", true, 3}, {numeric, "5,0", true, 3}, {numeric, " 5.00 ", true, 3}, {numeric, "5,1", false, 0},
		{numeric, "lima", false, 0},
		{relative, "3,14", true, 1}, {relative, "3.12", true, 1}, {relative, "3.1", false, 0}, {relative, "3.2", false, 0},
		{short, "0,5", true, 1}, {short, ",5", true, 1}, {short, "Setengah", true, 1}, {short, "0,6", false, 0},
	} {
		correct, points := Score(c.q, c.answer)
		if correct != c.correct || points != c.points {
			t.Errorf("Score(%s, %s) = %v, %v; want %v, %v", c.q.ID, c.answer, correct, points, c.correct, c.points)
		}
	}
}

func TestValidateNumeric(t *testing.T) {
	q := Question{ID: "n", Type: Numeric, Text: "x?", Answer: []string{"1.234,5"}, Tolerance: 2, ToleranceMode: ToleranceRelative}
	if err := validateQuestion(&q); err != nil || q.Answer[0] != "1234.5" || q.Points != 1 {
		t.Fatalf("validateQuestion: %v, key %q, points %v", err, q.Answer, q.Points)
	}
	for name, mutate := range map[string]func(*Question){
		"no key":        func(q *Question) { q.Answer = nil },
		"not a number":  func(q *Question) { q.Answer = []string{"satu"} },
		"options":       func(q *Question) { q.Options = []Option{{"a", "1"}} },
		"bad mode":      func(q *Question) { q.ToleranceMode = "percent" },
		"tolerance < 0": func(q *Question) { q.Tolerance = -0.1 },
		"tolerance on short answer": func(q *Question) {
			q.Type = ShortAnswer
		},
	} {
		t.Run(name, func(t *testing.T) {
			q := Question{ID: "n", Type: Numeric, Text: "x?", Answer: []string{"1"}, Tolerance: 1}
			mutate(&q)
			if err := validateQuestion(&q); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}
