package challenge

import (
	"context"
	"sync"
	"time"
)

// SpentStore records solved challenges so that each is accepted once, also
// across portal instances. The ordering service implements it on its store
// (bbolt, PostgreSQL); MemorySpent implements it in memory.
type SpentStore interface {
	// MarkSpent records id as spent until until and reports whether it
	// was fresh: false when id is already recorded and not yet past its
	// until. It must be atomic: of two concurrent calls with one id, one
	// at most sees fresh. Records past their until may be forgotten.
	MarkSpent(ctx context.Context, id string, until time.Time) (fresh bool, err error)
}

// sweepEvery is how often MemorySpent drops records past their until.
const sweepEvery = time.Minute

// MemorySpent is a SpentStore in memory, for tests and a single portal
// instance. It holds a record per challenge solved within the expiry, plus
// at most a minute's worth past it: records are dropped once past their
// until, in a sweep at most once a minute.
type MemorySpent struct {
	now func() time.Time

	mu        sync.Mutex
	until     map[string]time.Time
	nextSweep time.Time
}

var _ SpentStore = (*MemorySpent)(nil)

// NewMemorySpent returns an empty MemorySpent.
func NewMemorySpent() *MemorySpent {
	return &MemorySpent{now: time.Now, until: make(map[string]time.Time)}
}

// MarkSpent implements SpentStore. It never fails.
func (m *MemorySpent) MarkSpent(_ context.Context, id string, until time.Time) (bool, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if !now.Before(m.nextSweep) {
		for k, u := range m.until {
			if !u.After(now) {
				delete(m.until, k)
			}
		}
		m.nextSweep = now.Add(sweepEvery)
	}
	if u, ok := m.until[id]; ok && u.After(now) {
		return false, nil
	}
	if until.After(now) {
		m.until[id] = until
	}
	return true, nil
}
