package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/ordering"
)

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
