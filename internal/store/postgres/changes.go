package postgres

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/links"
)

// The link API's change notifications: a write publishes
//
//	NOTIFY portal_link_changes 'change:<kind>:<instance>:<seq>'
//
// Every instance listens on a connection of its own named
// "portal-link-changes-<instance>" (application_name). On a change from
// another instance it drops its cached look-ups of the kind, then answers
//
//	NOTIFY portal_link_changes 'ack:<instance of the change>:<seq>:<itself>'
//
// The publisher waits until every instance listening when it published
// has answered (at most ackWait), so that when the write's response leaves,
// no instance still serves what it replaced.
const (
	changesChannel = "portal_link_changes"
	listenerName   = "portal-link-changes-"
	ackWait        = 500 * time.Millisecond
)

var _ links.ChangeFeed = (*Store)(nil)

// changeFeed is the state of a store's change notifications.
type changeFeed struct {
	instance  string
	seq       atomic.Uint64
	listening atomic.Bool
	mu        sync.Mutex
	waiting   map[uint64]chan string // seq -> the instances that acknowledge it
}

// feed returns the store's change feed state, made on first use.
func (s *Store) feed() *changeFeed {
	s.feedOnce.Do(func() {
		s.changes = &changeFeed{instance: strings.ToLower(rand.Text()[:12]), waiting: map[uint64]chan string{}}
	})
	return s.changes
}

// PublishChange notifies every instance listening on the database that
// records of kind c changed, and, while this instance listens too, waits
// until each of them has dropped its cached look-ups of that kind (at most
// ackWait: an instance that does not answer sees the change within its
// cache TTL).
func (s *Store) PublishChange(ctx context.Context, c links.Change) error {
	f := s.feed()
	seq := f.seq.Add(1)
	var acks chan string
	if f.listening.Load() {
		acks = make(chan string, 64)
		f.mu.Lock()
		f.waiting[seq] = acks
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			delete(f.waiting, seq)
			f.mu.Unlock()
		}()
	}
	payload := "change:" + string(c) + ":" + f.instance + ":" + strconv.FormatUint(seq, 10)
	if _, err := s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, changesChannel, payload); err != nil {
		return fmt.Errorf("postgres: publish change %s: %w", c, err)
	}
	if acks == nil {
		return nil
	}
	// The instances listening now on this database (notifications do not
	// cross databases; this instance's own listener answers nothing).
	rows, err := s.pool.Query(ctx, `SELECT substr(application_name, $1) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name LIKE $2 AND application_name <> $3`,
		len(listenerName)+1, listenerName+"%", listenerName+f.instance)
	if err != nil {
		return fmt.Errorf("postgres: publish change %s: list the instances: %w", c, err)
	}
	others, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("postgres: publish change %s: list the instances: %w", c, err)
	}
	pending := map[string]bool{}
	for _, o := range others {
		pending[o] = true
	}
	timeout := time.NewTimer(ackWait)
	defer timeout.Stop()
	for len(pending) > 0 {
		select {
		case from := <-acks:
			delete(pending, from)
		case <-timeout.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}

// ListenChanges calls fn with every change published on the database by
// the other instances until ctx ends, on a connection of its own taken
// from the pool. Each time it starts listening (at first, and on another
// connection after one was lost, backing off up to 5 s) it calls fn with
// every kind, since what was published before is not delivered. A lost
// connection is reported to lost. It returns nil when ctx ends.
func (s *Store) ListenChanges(ctx context.Context, fn func(links.Change), lost func(error)) error {
	wait := 100 * time.Millisecond
	for {
		err := s.listen(ctx, fn)
		if err == nil || ctx.Err() != nil {
			return nil
		}
		lost(err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// listen listens on one connection until it fails.
func (s *Store) listen(ctx context.Context, fn func(links.Change)) error {
	f := s.feed()
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	conn := pc.Hijack() // a listening connection never goes back to the pool
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SET application_name = '"+listenerName+f.instance+"'; LISTEN "+changesChannel); err != nil {
		return err
	}
	f.listening.Store(true)
	defer f.listening.Store(false)
	for _, c := range links.Changes {
		fn(c)
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return errors.Join(errors.New("postgres: listen for changes"), err)
		}
		parts := strings.Split(n.Payload, ":")
		switch {
		case len(parts) == 4 && parts[0] == "change" && parts[2] != f.instance:
			fn(links.Change(parts[1]))
			ack := "ack:" + parts[2] + ":" + parts[3] + ":" + f.instance
			if _, err := s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, changesChannel, ack); err != nil && ctx.Err() == nil {
				return errors.Join(errors.New("postgres: acknowledge a change"), err)
			}
		case len(parts) == 4 && parts[0] == "ack" && parts[1] == f.instance:
			seq, _ := strconv.ParseUint(parts[2], 10, 64)
			f.mu.Lock()
			acks := f.waiting[seq]
			f.mu.Unlock()
			if acks != nil {
				select {
				case acks <- parts[3]:
				default:
				}
			}
		}
	}
}
