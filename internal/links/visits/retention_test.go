package visits

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"
)

func TestVisitorsBefore(t *testing.T) {
	for _, c := range []struct{ now, want string }{
		{"2026-03-16T00:00:00Z", "2026-03-15T00:00:00Z"},
		{"2026-03-16T23:59:59Z", "2026-03-15T00:00:00Z"},
		{"2026-03-16T05:00:00+07:00", "2026-03-14T00:00:00Z"}, // 22:00 UTC on the 15th
	} {
		now, _ := time.Parse(time.RFC3339, c.now)
		if got := VisitorsBefore(now).Format(time.RFC3339); got != c.want {
			t.Errorf("VisitorsBefore(%s) = %s, want %s", c.now, got, c.want)
		}
	}
}

// prunerFunc adapts a function to Pruner.
type prunerFunc func(ctx context.Context, visitsBefore, visitorsBefore time.Time) (int64, error)

func (f prunerFunc) PruneVisits(ctx context.Context, visitsBefore, visitorsBefore time.Time) (int64, error) {
	return f(ctx, visitsBefore, visitorsBefore)
}

// TestRunRetention: RunRetention prunes at once, raw visits older than the
// retention (none with 0) and seen visitors before yesterday, goes on after
// a failure and returns when its context is done.
func TestRunRetention(t *testing.T) {
	for _, retention := range []time.Duration{0, 90 * 24 * time.Hour} {
		ctx, cancel := context.WithCancel(t.Context())
		var gotVisits, gotVisitors time.Time
		start := time.Now()
		done := make(chan struct{})
		go func() {
			defer close(done)
			RunRetention(ctx, prunerFunc(func(_ context.Context, v, u time.Time) (int64, error) {
				gotVisits, gotVisitors = v, u
				cancel()
				return 0, errors.New("store down")
			}), retention, slog.New(slog.NewTextHandler(io.Discard, nil)))
		}()
		<-done
		end := time.Now()
		if retention == 0 && !gotVisits.IsZero() {
			t.Errorf("retention 0: visits before %s, want none (zero time)", gotVisits)
		}
		if retention > 0 && (gotVisits.Before(start.Add(-retention)) || gotVisits.After(end.Add(-retention))) {
			t.Errorf("retention %s: visits before %s, want now - retention", retention, gotVisits)
		}
		if want := VisitorsBefore(start); !gotVisitors.Equal(want) && !gotVisitors.Equal(VisitorsBefore(end)) {
			t.Errorf("visitors before %s, want %s", gotVisitors, want)
		}
	}
}
