package ordering_test

import (
	"errors"
	"testing"

	"github.com/seedhq/portal/internal/ordering"
)

// TestSetRole: roles and menus are validated, nobody changes its own role,
// the last owner stays one, and STAFF menus decide what Allows grants.
func TestSetRole(t *testing.T) {
	ctx := t.Context()
	svc, _ := newService(t, "628110000001")
	login := func(number string) ordering.User {
		t.Helper()
		ls := mustLogin(t, svc, number, "192.0.2.1")
		_, u, err := svc.Inbound(ctx, number, "VERIFY_"+ls.Token)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	owner, budi := login("628110000001"), login("6281234567890")
	if _, err := svc.SetRole(ctx, &owner, budi.ID, "CHEF", nil); !errors.Is(err, ordering.ErrInvalidRole) {
		t.Fatalf("bad role: %v", err)
	}
	if _, err := svc.SetRole(ctx, &owner, budi.ID, ordering.RoleStaff, []string{"ledger"}); !errors.Is(err, ordering.ErrInvalidMenu) {
		t.Fatalf("bad menu: %v", err)
	}
	if _, err := svc.SetRole(ctx, &owner, owner.ID, ordering.RoleAdmin, nil); !errors.Is(err, ordering.ErrOwnRole) {
		t.Fatalf("own role: %v", err)
	}
	if _, err := svc.SetRole(ctx, nil, owner.ID, ordering.RoleAdmin, nil); !errors.Is(err, ordering.ErrLastOwner) {
		t.Fatalf("last owner: %v", err)
	}
	staff, err := svc.SetRole(ctx, &owner, budi.ID, ordering.RoleStaff, nil)
	if err != nil || staff.Role != ordering.RoleStaff {
		t.Fatalf("staff: %+v %v", staff, err)
	}
	if !staff.Allows(ordering.MenuKitchen) || !staff.Allows(ordering.MenuPOS) || staff.Allows(ordering.MenuPayments) {
		t.Fatalf("default staff menus: %+v", staff)
	}
	staff, err = svc.SetRole(ctx, &owner, budi.ID, ordering.RoleStaff, []string{"payments", "kitchen", "payments"})
	if err != nil || len(staff.AllowedMenus) != 2 || !staff.Allows(ordering.MenuPayments) || staff.Allows(ordering.MenuPOS) {
		t.Fatalf("payments staff: %+v %v", staff, err)
	}
	if _, err := svc.SetRole(ctx, nil, budi.ID, ordering.RoleOwner, nil); err != nil {
		t.Fatal(err)
	}
	if u, err := svc.SetRole(ctx, nil, owner.ID, ordering.RoleCustomer, []string{"kitchen"}); err != nil || u.AllowedMenus != nil || u.Allows(ordering.MenuKitchen) {
		t.Fatalf("demoted former owner: %+v %v", u, err)
	}
	if _, err := svc.SetRole(ctx, nil, "nope", ordering.RoleStaff, nil); !errors.Is(err, ordering.ErrUserNotFound) {
		t.Fatalf("unknown user: %v", err)
	}
}
