package exam

import "testing"

func TestCorrectRate(t *testing.T) {
	for _, c := range []struct {
		q    QuestionStat
		want float64
	}{{QuestionStat{}, 0}, {QuestionStat{Answered: 4, Correct: 3}, 0.75}} {
		if got := c.q.CorrectRate(); got != c.want {
			t.Errorf("%+v: %v, want %v", c.q, got, c.want)
		}
	}
}
