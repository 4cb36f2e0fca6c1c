package storetest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/ordering"
)

func init() {
	orderingSuite = append(orderingSuite,
		orderingTest{"MessageQueue", testMessageQueue},
		orderingTest{"MessageClaimedOnce", testMessageClaimedOnce},
		orderingTest{"Gate", testGate},
	)
}

func msg(id string, notBefore time.Time) ordering.OutboundMessage {
	return ordering.OutboundMessage{ID: id, Channel: "shop", To: "6281234567890", Text: "Order " + id, Status: ordering.MessageQueued,
		CreatedAt: notBefore, NotBefore: notBefore}
}

func testMessageQueue(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	mustOK(t, "EnqueueMessage", s.EnqueueMessage(ctx, msg("m2", ordT0.Add(time.Second))))
	mustOK(t, "EnqueueMessage", s.EnqueueMessage(ctx, msg("m1", ordT0)))
	mustOK(t, "EnqueueMessage", s.EnqueueMessage(ctx, msg("m3", ordT0.Add(time.Hour))))
	if _, ok, err := s.ClaimMessage(ctx, ordT0.Add(-time.Second), time.Minute, "a"); err != nil || ok {
		t.Fatalf("claim before anything is due: %v %v", ok, err)
	}
	m, ok, err := s.ClaimMessage(ctx, ordT0.Add(2*time.Second), time.Minute, "a")
	if err != nil || !ok || m.ID != "m1" || m.Status != ordering.MessageSending || m.LeaseOwner != "a" {
		t.Fatalf("first claim: %+v %v %v", m, ok, err)
	}
	if _, err := s.FinishMessage(ctx, "m1", "b", func(*ordering.OutboundMessage) error { return nil }); err == nil {
		t.Fatal("FinishMessage by another owner succeeded")
	}
	sent := ordT0.Add(3 * time.Second)
	m, err = s.FinishMessage(ctx, "m1", "a", func(x *ordering.OutboundMessage) error {
		x.Status, x.SentAt, x.Attempts, x.LeaseOwner, x.LeaseUntil = ordering.MessageSent, &sent, 1, "", nil
		return nil
	})
	mustOK(t, "FinishMessage", err)
	// m2 is claimed, then its sender dies: after the lease it is FAILED,
	// never claimed again.
	m, ok, err = s.ClaimMessage(ctx, ordT0.Add(2*time.Second), time.Minute, "a")
	if err != nil || !ok || m.ID != "m2" {
		t.Fatalf("second claim: %+v %v %v", m, ok, err)
	}
	if _, ok, err := s.ClaimMessage(ctx, ordT0.Add(2*time.Minute), time.Minute, "b"); err != nil || ok {
		t.Fatalf("claim after the lease: %v %v, want nothing (m3 is not due, m2 is not resent)", ok, err)
	}
	list, err := s.ListMessages(ctx, 10)
	mustOK(t, "ListMessages", err)
	byID := map[string]ordering.OutboundMessage{}
	for _, x := range list {
		byID[x.ID] = x
	}
	if len(list) != 3 || byID["m1"].Status != ordering.MessageSent || byID["m2"].Status != ordering.MessageFailed ||
		byID["m3"].Status != ordering.MessageQueued || byID["m2"].Reason == "" {
		t.Fatalf("messages: %+v", list)
	}
	if list, _ := s.ListMessages(ctx, 1); len(list) != 1 {
		t.Fatalf("ListMessages limit 1: %d", len(list))
	}
	// A message put back with a later NotBefore is claimed then.
	m, ok, err = s.ClaimMessage(ctx, ordT0.Add(2*time.Hour), time.Minute, "a")
	if err != nil || !ok || m.ID != "m3" {
		t.Fatalf("claim m3: %+v %v %v", m, ok, err)
	}
	later := ordT0.Add(3 * time.Hour)
	_, err = s.FinishMessage(ctx, "m3", "a", func(x *ordering.OutboundMessage) error {
		x.Status, x.NotBefore, x.LeaseOwner, x.LeaseUntil = ordering.MessageQueued, later, "", nil
		return nil
	})
	mustOK(t, "FinishMessage requeue", err)
	if _, ok, _ := s.ClaimMessage(ctx, ordT0.Add(2*time.Hour+time.Minute), time.Minute, "a"); ok {
		t.Fatal("a requeued message was claimed before its time")
	}
	if m, ok, _ := s.ClaimMessage(ctx, later, time.Minute, "a"); !ok || m.ID != "m3" {
		t.Fatalf("requeued message at its time: %+v %v", m, ok)
	}
	// Pruning keeps messages still waiting or being sent (m3 is SENDING).
	n, err := s.PruneMessages(ctx, ordT0.Add(24*time.Hour))
	mustOK(t, "PruneMessages", err)
	if n != 2 {
		t.Fatalf("PruneMessages removed %d, want the SENT and the FAILED one", n)
	}
	if list, _ := s.ListMessages(ctx, 0); len(list) != 1 || list[0].ID != "m3" {
		t.Fatalf("after pruning: %+v", list)
	}
}

// testMessageClaimedOnce: many claimers at once, each message goes to one.
func testMessageClaimedOnce(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	const n = 30
	for i := range n {
		mustOK(t, "EnqueueMessage", s.EnqueueMessage(ctx, msg(fmt.Sprintf("m%02d", i), ordT0)))
	}
	var claimed sync.Map
	var count atomic.Int32
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			for {
				m, ok, err := s.ClaimMessage(ctx, ordT0.Add(time.Second), time.Minute, fmt.Sprint("w", w))
				if err != nil {
					t.Errorf("ClaimMessage: %v", err)
					return
				}
				if !ok {
					return
				}
				if _, dup := claimed.LoadOrStore(m.ID, w); dup {
					t.Errorf("message %s claimed twice", m.ID)
				}
				count.Add(1)
			}
		})
	}
	wg.Wait()
	if count.Load() != n {
		t.Fatalf("%d messages claimed, want %d", count.Load(), n)
	}
}
