package storetest

import (
	"errors"
	"testing"

	"github.com/seedhq/portal/internal/ordering"
)

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
