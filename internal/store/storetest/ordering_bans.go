package storetest

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/ordering"
)

func testOrderingBans(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	var ids atomic.Int64
	newID := func() string { return fmt.Sprint("ban-", ids.Add(1)) }
	keys := []ordering.BanKey{{Kind: ordering.BanNumber, Value: "6281234567890"}, {Kind: ordering.BanAddress, Value: "192.0.2.1"}}
	bans, err := s.UpdateBans(ctx, keys, ordT0, newID, func(bs []*ordering.Ban) error {
		if len(bs) != 2 || bs[0].BanKey != keys[0] || bs[1].BanKey != keys[1] || bs[0].ID == "" || bs[0].Attempts != 0 ||
			!bs[0].LastAttemptAt.Equal(ordT0) || !bs[0].CreatedAt.Equal(ordT0) {
			return fmt.Errorf("new records: %+v %+v", bs[0], bs[1])
		}
		until := ordT0.Add(time.Hour)
		bs[0].Attempts, bs[0].Level, bs[0].BanUntil = 2, 1, &until
		bs[1].Attempts = 1
		return nil
	})
	mustOK(t, "UpdateBans", err)
	list, err := s.ListBans(ctx)
	mustOK(t, "ListBans", err)
	if len(list) != 2 {
		t.Fatalf("ListBans: %d records, want 2", len(list))
	}
	_, err = s.UpdateBans(ctx, keys[:1], ordT0.Add(time.Minute), newID, func(bs []*ordering.Ban) error {
		check(t, "ban record", *bs[0], bans[0])
		return errors.New("refuse")
	})
	if err == nil {
		t.Fatal("UpdateBans: fn's error was not returned")
	}
	// Concurrent attempts on one record all count.
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			_, err := s.UpdateBans(ctx, keys, ordT0, newID, func(bs []*ordering.Ban) error {
				bs[1].Attempts++
				return nil
			})
			if err != nil {
				t.Errorf("UpdateBans: %v", err)
			}
		})
	}
	wg.Wait()
	bans, err = s.UpdateBans(ctx, keys[1:], ordT0, newID, func([]*ordering.Ban) error { return nil })
	mustOK(t, "UpdateBans", err)
	if bans[0].Attempts != 21 {
		t.Fatalf("address attempts %d after 1 + 20 concurrent, want 21", bans[0].Attempts)
	}
	// A record back at zero is not listed.
	_, err = s.UpdateBans(ctx, keys, ordT0, newID, func(bs []*ordering.Ban) error {
		bs[0].Attempts, bs[0].Level, bs[0].BanUntil = 0, 0, nil
		return nil
	})
	mustOK(t, "UpdateBans", err)
	list, err = s.ListBans(ctx)
	mustOK(t, "ListBans", err)
	if len(list) != 1 || list[0].Kind != ordering.BanAddress {
		t.Fatalf("ListBans: %+v, want the address only", list)
	}
}
