package links

import "context"

// Change names the kind of records a write changed, for the caches that
// keep look-ups of them (the redirector's). A Service reports each
// successful write to Config.OnChange.
type Change string

// The kinds of records whose look-ups are cached.
const (
	ChangeDomain   Change = "domain"
	ChangeLink     Change = "link"
	ChangeCampaign Change = "campaign"
	ChangeQR       Change = "qr"
)

// Changes lists every kind, for a listener that may have missed some.
var Changes = []Change{ChangeDomain, ChangeLink, ChangeCampaign, ChangeQR}

// ChangeFeed carries changes to every portal instance that shares a store
// (PostgreSQL's LISTEN/NOTIFY), so that each drops its cached look-ups at
// once. A store used by one process needs none.
type ChangeFeed interface {
	// PublishChange tells every listening instance that records of kind c
	// changed.
	PublishChange(ctx context.Context, c Change) error
	// ListenChanges calls fn with every change published by any instance,
	// until ctx ends. Each time it starts listening (at first, and again
	// after its connection was lost, which it reports to lost), it calls fn
	// with every kind, since what was published before is not delivered.
	ListenChanges(ctx context.Context, fn func(Change), lost func(error)) error
}

// changed reports a write of kind c to Config.OnChange.
func (s *Service) changed(cs ...Change) {
	if s.onChange == nil {
		return
	}
	for _, c := range cs {
		s.onChange(c)
	}
}
