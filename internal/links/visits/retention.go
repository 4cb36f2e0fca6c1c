package visits

import (
	"context"
	"log/slog"
	"time"
)

// Pruner removes old raw visits and seen visitors; links.VisitStore is one.
type Pruner interface {
	PruneVisits(ctx context.Context, visitsBefore, visitorsBefore time.Time) (int64, error)
}

// PruneInterval is how often RunRetention prunes.
const PruneInterval = time.Hour

// VisitorsBefore returns the cut-off of the seen visitors at now: the start
// of the previous UTC day. A visitor is unique once per target and UTC day
// and its hash changes every day, so only today's seen visitors decide
// anything; yesterday's are kept for visits saved just after midnight.
func VisitorsBefore(now time.Time) time.Time {
	return now.UTC().Truncate(24*time.Hour).AddDate(0, 0, -1)
}

// RunRetention prunes at once and then every PruneInterval until ctx is
// done: the raw visits older than retention (none when retention is 0) and
// the seen visitors before VisitorsBefore. Statistics come from roll-ups
// and stay as they are. Failures are logged and retried at the next round.
func RunRetention(ctx context.Context, p Pruner, retention time.Duration, logger *slog.Logger) {
	t := time.NewTicker(PruneInterval)
	defer t.Stop()
	for {
		now := time.Now()
		var visitsBefore time.Time
		if retention > 0 {
			visitsBefore = now.Add(-retention)
		}
		start := time.Now()
		n, err := p.PruneVisits(ctx, visitsBefore, VisitorsBefore(now))
		switch {
		case err != nil && ctx.Err() == nil:
			logger.Error("visits: pruning old visits failed", "err", err, "removed", n)
		case n > 0:
			logger.Info("visits: old visits pruned", "removed", n, "before", visitsBefore, "took", time.Since(start).Round(time.Millisecond))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
