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

// RunOrdering runs the ordering.Store conformance suite; open returns a
// fresh, empty store for each case.
func RunOrdering(t *testing.T, open func(t *testing.T) ordering.Store) {
	t.Helper()
	for _, tc := range orderingSuite {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t)) })
	}
}

type orderingTest struct {
	name string
	run  func(t *testing.T, s ordering.Store)
}

var orderingSuite = []orderingTest{
	{"LoginTokens", testOrderingLogins},
	{"OneUserPerNumber", testOrderingOneUser},
	{"Bans", testOrderingBans},
	{"Consents", testOrderingConsents},
	{"MarkSpent", testOrderingSpent},
	{"Users", testOrderingUsers},
	{"PruneLogins", testOrderingPrune},
}

// testOrderingPrune: expired login tokens and spent keys before the cut-off
// go, the others stay.
func testOrderingPrune(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	mustToken(t, s, "old", "6281234567890") // expires ordT0 + 90 s
	fresh := ordering.LoginToken{Hash: "fresh", Number: "6281234567890", Status: ordering.LoginPending,
		CreatedAt: ordT0.Add(time.Hour), ExpiresAt: ordT0.Add(time.Hour + ordering.LoginTTL)}
	mustOK(t, "CreateLoginToken", s.CreateLoginToken(ctx, fresh))
	_, err := s.MarkSpent(ctx, "old-key", ordT0)
	mustOK(t, "MarkSpent", err)
	_, err = s.MarkSpent(ctx, "new-key", ordT0.Add(2*time.Hour))
	mustOK(t, "MarkSpent", err)
	n, err := s.PruneLogins(ctx, ordT0.Add(time.Hour))
	mustOK(t, "PruneLogins", err)
	if n != 2 {
		t.Fatalf("PruneLogins removed %d records, want 2", n)
	}
	if _, err := s.GetLoginToken(ctx, "old"); !errors.Is(err, ordering.ErrTokenNotFound) {
		t.Fatalf("old token: %v", err)
	}
	if _, err := s.GetLoginToken(ctx, "fresh"); err != nil {
		t.Fatalf("fresh token: %v", err)
	}
	if ok, _ := s.MarkSpent(ctx, "new-key", ordT0.Add(2*time.Hour)); ok {
		t.Fatal("a kept spent key was pruned")
	}
	if ok, _ := s.MarkSpent(ctx, "old-key", ordT0); !ok {
		t.Fatal("a pruned spent key is still spent")
	}
}

var ordT0 = time.Date(2026, 11, 25, 9, 0, 0, 123456000, time.UTC)

func mustToken(t *testing.T, s ordering.Store, hash, number string) ordering.LoginToken {
	t.Helper()
	tok := ordering.LoginToken{Hash: hash, Number: number, Address: "192.0.2.1", Status: ordering.LoginPending,
		CreatedAt: ordT0, ExpiresAt: ordT0.Add(ordering.LoginTTL)}
	mustOK(t, "CreateLoginToken", s.CreateLoginToken(t.Context(), tok))
	return tok
}

// verify marks the token VERIFIED, creating the number's user as id when new.
func verify(t *testing.T, s ordering.Store, hash, id string) (ordering.LoginToken, ordering.User) {
	t.Helper()
	tok, u, err := s.UpdateLogin(t.Context(), hash, func(tok *ordering.LoginToken, u *ordering.User) error {
		if u.ID == "" {
			u.ID, u.MessengerNumber, u.Role, u.CreatedAt = id, tok.Number, ordering.RoleCustomer, ordT0
		}
		u.LastLoginAt = ordT0.Add(time.Second)
		at := ordT0.Add(time.Second)
		tok.Status, tok.UserID, tok.VerifiedAt = ordering.LoginVerified, u.ID, &at
		return nil
	})
	mustOK(t, "UpdateLogin", err)
	return tok, u
}

func testOrderingLogins(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	want := mustToken(t, s, "h1", "6281234567890")
	got, err := s.GetLoginToken(ctx, "h1")
	mustOK(t, "GetLoginToken", err)
	check(t, "token", got, want)
	if _, err := s.GetLoginToken(ctx, "nope"); !errors.Is(err, ordering.ErrTokenNotFound) {
		t.Fatalf("GetLoginToken unknown: %v, want ErrTokenNotFound", err)
	}
	if _, _, err := s.UpdateLogin(ctx, "nope", func(*ordering.LoginToken, *ordering.User) error { return nil }); !errors.Is(err, ordering.ErrTokenNotFound) {
		t.Fatalf("UpdateLogin unknown: %v, want ErrTokenNotFound", err)
	}
	// fn's error is returned and nothing is saved.
	boom := errors.New("boom")
	_, _, err = s.UpdateLogin(ctx, "h1", func(tok *ordering.LoginToken, u *ordering.User) error {
		tok.Status = ordering.LoginVerified
		u.ID, u.MessengerNumber, u.Role = "u-x", tok.Number, ordering.RoleCustomer
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("UpdateLogin: %v, want fn's error", err)
	}
	got, _ = s.GetLoginToken(ctx, "h1")
	check(t, "token after a failed update", got, want)

	tok, u := verify(t, s, "h1", "u-1")
	got, _ = s.GetLoginToken(ctx, "h1")
	check(t, "verified token", got, tok)
	if got.UserID != "u-1" || got.VerifiedAt == nil {
		t.Fatalf("verified token: %+v", got)
	}
	stored, err := s.GetOrderingUser(ctx, "u-1")
	mustOK(t, "GetOrderingUser", err)
	check(t, "user", stored, u)
	// The next token of the number finds its user.
	mustToken(t, s, "h2", "6281234567890")
	_, _, err = s.UpdateLogin(ctx, "h2", func(tok *ordering.LoginToken, u *ordering.User) error {
		if u.ID != "u-1" || u.Role != ordering.RoleCustomer {
			return fmt.Errorf("the number's user is %+v, want u-1", u)
		}
		return nil
	})
	mustOK(t, "UpdateLogin h2", err)
	// A token whose fn leaves the user empty saves no user.
	mustToken(t, s, "h3", "6289999999999")
	_, _, err = s.UpdateLogin(ctx, "h3", func(tok *ordering.LoginToken, u *ordering.User) error {
		tok.Status = ordering.LoginDelivered
		return nil
	})
	mustOK(t, "UpdateLogin h3", err)
	users, err := s.ListOrderingUsers(ctx)
	mustOK(t, "ListOrderingUsers", err)
	if len(users) != 1 {
		t.Fatalf("%d users, want 1", len(users))
	}
}

// testOrderingOneUser: tokens of a new number verified concurrently create
// one user.
func testOrderingOneUser(t *testing.T, s ordering.Store) {
	const n = 8
	for i := range n {
		mustToken(t, s, fmt.Sprint("c", i), "6281111111111")
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	ids := make([]string, n)
	for i := range n {
		wg.Go(func() {
			_, u, err := s.UpdateLogin(t.Context(), fmt.Sprint("c", i), func(tok *ordering.LoginToken, u *ordering.User) error {
				if u.ID == "" {
					u.ID, u.MessengerNumber, u.Role, u.CreatedAt = fmt.Sprint("u-", i), tok.Number, ordering.RoleCustomer, ordT0
				}
				u.LastLoginAt = ordT0
				tok.Status, tok.UserID = ordering.LoginVerified, u.ID
				return nil
			})
			errs[i], ids[i] = err, u.ID
		})
	}
	wg.Wait()
	for i, err := range errs {
		mustOK(t, fmt.Sprint("UpdateLogin ", i), err)
		if ids[i] != ids[0] {
			t.Fatalf("login %d got user %s, login 0 %s: one number, two users", i, ids[i], ids[0])
		}
	}
	users, err := s.ListOrderingUsers(t.Context())
	mustOK(t, "ListOrderingUsers", err)
	if len(users) != 1 {
		t.Fatalf("%d users, want 1", len(users))
	}
}

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

func testOrderingConsents(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	if _, ok, err := s.GetConsent(ctx, "6281234567890"); err != nil || ok {
		t.Fatalf("GetConsent before: %v %v", ok, err)
	}
	mustOK(t, "RecordConsent", s.RecordConsent(ctx, ordering.Consent{Number: "6281234567890", Source: ordering.ConsentRegistered, FirstAt: ordT0, LastAt: ordT0}))
	later := ordT0.Add(time.Hour)
	mustOK(t, "RecordConsent", s.RecordConsent(ctx, ordering.Consent{Number: "6281234567890", Source: ordering.ConsentInbound, FirstAt: later, LastAt: later}))
	c, ok, err := s.GetConsent(ctx, "6281234567890")
	mustOK(t, "GetConsent", err)
	check(t, "consent", c, ordering.Consent{Number: "6281234567890", Source: ordering.ConsentRegistered, FirstAt: ordT0, LastAt: later})
	if !ok {
		t.Fatal("GetConsent: not found")
	}
}

func testOrderingSpent(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	until := time.Now().Add(time.Hour)
	var fresh atomic.Int32
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			ok, err := s.MarkSpent(ctx, "webhook:msg_1", until)
			if err != nil {
				t.Errorf("MarkSpent: %v", err)
			}
			if ok {
				fresh.Add(1)
			}
		})
	}
	wg.Wait()
	if fresh.Load() != 1 {
		t.Fatalf("%d of 10 concurrent MarkSpent got true, want 1", fresh.Load())
	}
	if ok, err := s.MarkSpent(ctx, "webhook:msg_2", until); err != nil || !ok {
		t.Fatalf("MarkSpent other key: %v %v", ok, err)
	}
	// An unmarked key may be used again.
	mustOK(t, "UnmarkSpent", s.UnmarkSpent(ctx, "webhook:msg_2"))
	if ok, err := s.MarkSpent(ctx, "webhook:msg_2", until); err != nil || !ok {
		t.Fatalf("MarkSpent after UnmarkSpent: %v %v, want true", ok, err)
	}
}

func testOrderingUsers(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	mustToken(t, s, "a", "6281000000001")
	mustToken(t, s, "b", "6281000000002")
	_, ua := verify(t, s, "a", "u-a")
	_, ub := verify(t, s, "b", "u-b")
	got, err := s.UpdateOrderingUser(ctx, "u-b", func(u *ordering.User) error {
		u.Role, u.AllowedMenus, u.Name = ordering.RoleStaff, []string{"kitchen", "payments"}, "Budi"
		return nil
	})
	mustOK(t, "UpdateOrderingUser", err)
	ub.Role, ub.AllowedMenus, ub.Name = ordering.RoleStaff, []string{"kitchen", "payments"}, "Budi"
	check(t, "updated user", got, ub)
	stored, err := s.GetOrderingUser(ctx, "u-b")
	mustOK(t, "GetOrderingUser", err)
	check(t, "stored user", stored, ub)
	if _, err := s.UpdateOrderingUser(ctx, "u-b", func(u *ordering.User) error {
		u.MessengerNumber = "6281000000001"
		return nil
	}); err == nil {
		t.Fatal("UpdateOrderingUser changed a number")
	}
	if _, err := s.UpdateOrderingUser(ctx, "nope", func(*ordering.User) error { return nil }); !errors.Is(err, ordering.ErrUserNotFound) {
		t.Fatalf("UpdateOrderingUser unknown: %v", err)
	}
	if _, err := s.GetOrderingUser(ctx, "nope"); !errors.Is(err, ordering.ErrUserNotFound) {
		t.Fatalf("GetOrderingUser unknown: %v", err)
	}
	users, err := s.ListOrderingUsers(ctx)
	mustOK(t, "ListOrderingUsers", err)
	check(t, "users", users, []ordering.User{ua, ub})
}
