package links_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/internal/store/bolt"
)

// newService is a link service over a fresh bbolt store at a fixed clock.
func newService(t *testing.T, now *time.Time) *links.Service {
	t.Helper()
	password.Cost = 4
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return links.NewService(st, links.Config{Now: func() time.Time { return *now }})
}

// TestPasswordLogin: username or email and the account password sign in;
// a wrong password, an unknown login and a user without a password are
// the same refusal; failures are throttled per address and login without
// locking the user out from another address; an expired account is
// refused; the session stamp changes with the key and the password.
func TestPasswordLogin(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	svc := newService(t, &now)
	ctx := context.Background()
	ana, key, err := svc.CreateUser(ctx, links.NewUser{Email: "Ana@Example.com", Username: "ana", Password: "ana-password"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.CreateUser(ctx, links.NewUser{Email: "budi@example.com", Username: "budi"}); err != nil {
		t.Fatal(err)
	}
	for _, login := range []string{"ana", " ANA ", "ana@example.com"} {
		if u, err := svc.PasswordLogin(ctx, login, "ana-password", "10.0.0.1"); err != nil || u.ID != ana.ID {
			t.Fatalf("PasswordLogin(%q) = %d, %v", login, u.ID, err)
		}
	}
	for _, c := range [][2]string{{"ana", "wrong"}, {"nobody", "ana-password"}, {"budi", ""}, {"", ""}} {
		if _, err := svc.PasswordLogin(ctx, c[0], c[1], "10.0.0.2"); !errors.Is(err, links.ErrBadLogin) {
			t.Fatalf("PasswordLogin(%q, %q) = %v, want ErrBadLogin", c[0], c[1], err)
		}
	}
	if u, err := svc.KeyLogin(ctx, key, "10.0.0.1"); err != nil || u.ID != ana.ID {
		t.Fatalf("KeyLogin = %d, %v", u.ID, err)
	}
	if _, err := svc.KeyLogin(ctx, "lk_not-a-key", "10.0.0.1"); !errors.Is(err, links.ErrBadLogin) {
		t.Fatalf("KeyLogin with a bad key = %v", err)
	}

	// Five failures for ana from one address block ana there, not elsewhere.
	for range 5 {
		svc.PasswordLogin(ctx, "ana", "wrong", "10.0.0.3")
	}
	var ra *apperr.RetryAfterError
	if _, err := svc.PasswordLogin(ctx, "ana", "ana-password", "10.0.0.3"); !errors.As(err, &ra) || ra.RetryAfter <= 0 {
		t.Fatalf("after 5 failures: %v, want a RetryAfterError", err)
	}
	if _, err := svc.PasswordLogin(ctx, "ana", "ana-password", "10.0.0.4"); err != nil {
		t.Fatalf("from another address: %v", err)
	}
	now = now.Add(16 * time.Minute)
	if _, err := svc.PasswordLogin(ctx, "ana", "ana-password", "10.0.0.3"); err != nil {
		t.Fatalf("after the window: %v", err)
	}

	// A success clears the count of the address and login.
	for range 2 {
		for range 4 {
			svc.PasswordLogin(ctx, "ana", "wrong", "10.0.0.7")
		}
		if _, err := svc.PasswordLogin(ctx, "ana", "ana-password", "10.0.0.7"); err != nil {
			t.Fatalf("after 4 failures: %v", err)
		}
	}

	// Wrong keys count per address only: 20 of them block the address.
	for i := range 20 {
		if i == 5 {
			if _, err := svc.KeyLogin(ctx, key, "10.0.0.6"); err != nil {
				t.Fatalf("after 5 wrong keys: %v", err)
			}
		}
		svc.KeyLogin(ctx, "lk_wrong", "10.0.0.6")
	}
	if _, err := svc.PasswordLogin(ctx, "ana", "ana-password", "10.0.0.6"); !errors.As(err, &ra) {
		t.Fatalf("after 20 failures from an address: %v, want a RetryAfterError", err)
	}

	stamp, err := svc.SessionStamp(ctx, ana)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.RotateAPIKey(ctx, ana.ID); err != nil {
		t.Fatal(err)
	}
	ana, _ = svc.Account(ctx, ana.ID)
	rotated, _ := svc.SessionStamp(ctx, ana)
	pw := "new-password"
	ana, err = svc.UpdateAccount(ctx, ana.ID, links.AccountUpdate{Password: &pw})
	if err != nil {
		t.Fatal(err)
	}
	changed, _ := svc.SessionStamp(ctx, ana)
	if stamp == rotated || rotated == changed {
		t.Fatal("the session stamp did not change with the key or the password")
	}

	expires := now.Add(time.Hour)
	if _, _, err := svc.CreateUser(ctx, links.NewUser{Email: "cici@example.com", Username: "cici", Password: "cici-password", ExpiresAt: &expires}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Hour)
	if _, err := svc.PasswordLogin(ctx, "cici", "cici-password", "10.0.0.5"); !errors.Is(err, links.ErrAccountExpired) {
		t.Fatalf("expired account: %v", err)
	}
}
