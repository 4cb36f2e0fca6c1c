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

// TestPointsRate: a graded essay of 9.5 of 10 and a partly right grid
// count by their points, where Correct says 0.
func TestPointsRate(t *testing.T) {
	for _, c := range []struct {
		q    QuestionStat
		want float64
	}{
		{QuestionStat{}, 0},
		{QuestionStat{MaxPoints: 10, Answered: 1, Points: 9.5}, 0.95},
		{QuestionStat{MaxPoints: 4, Answered: 3, Pending: 1, Points: 3}, 0.375},
		{QuestionStat{MaxPoints: 4, Answered: 2, Pending: 2, Points: 0}, 0},
	} {
		if got := c.q.PointsRate(); got != c.want {
			t.Errorf("%+v: %v, want %v", c.q, got, c.want)
		}
	}
}
