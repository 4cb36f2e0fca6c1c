package ordering

import (
	"context"
	"fmt"
	"slices"

	"github.com/seedhq/portal/internal/apperr"
)

// Bans returns the ban records with a level or attempts, most recent
// attempt first (owners review them).
func (s *Service) Bans(ctx context.Context) ([]Ban, error) {
	bans, err := s.store.ListBans(ctx)
	if err != nil {
		return nil, fmt.Errorf("list bans: %w", err)
	}
	return bans, nil
}

// LiftBan ends the ban with id, a permanent one included, and restarts its
// count (an owner's decision).
func (s *Service) LiftBan(ctx context.Context, id string) error {
	bans, err := s.store.ListBans(ctx)
	if err != nil {
		return fmt.Errorf("lift ban: %w", err)
	}
	for _, b := range bans {
		if b.ID != id {
			continue
		}
		_, err := s.store.UpdateBans(ctx, []BanKey{b.BanKey}, s.cfg.Now().UTC(), newID, func(bans []*Ban) error {
			bans[0].lift()
			return nil
		})
		if err != nil {
			return fmt.Errorf("lift ban: %w", err)
		}
		s.log.Info("ordering: ban lifted", "ban", id, "kind", b.Kind, "level", b.Level)
		return nil
	}
	return ErrBanNotFound
}

// Back-office menus a STAFF user may be given (allowedMenus): the kitchen
// display, the point of sale and the verification of payment receipts.
const (
	MenuKitchen  = "kitchen"
	MenuPOS      = "pos"
	MenuPayments = "payments"
)

// Menus is the fixed set of allowedMenus values, in display order.
var Menus = []string{MenuKitchen, MenuPOS, MenuPayments}

// DefaultStaffMenus are the menus of a STAFF user whose allowedMenus is
// empty: the kitchen display and the point of sale, as the role matrix
// gives every STAFF user. Payment verification must be granted.
var DefaultStaffMenus = []string{MenuKitchen, MenuPOS}

// Allows reports whether u may use the back-office menu: ADMIN and OWNER
// every menu, STAFF those of its allowedMenus (DefaultStaffMenus when
// empty), CUSTOMER none.
func (u User) Allows(menu string) bool {
	switch u.Role {
	case RoleAdmin, RoleOwner:
		return true
	case RoleStaff:
		menus := u.AllowedMenus
		if len(menus) == 0 {
			menus = DefaultStaffMenus
		}
		return slices.Contains(menus, menu)
	}
	return false
}

// Errors of user administration.
var (
	ErrInvalidRole = apperr.New(apperr.Invalid, "INVALID_ROLE", "role must be CUSTOMER, STAFF, ADMIN or OWNER")
	ErrInvalidMenu = apperr.New(apperr.Invalid, "INVALID_MENU", "allowedMenus may hold kitchen, pos and payments only")
	ErrOwnRole     = apperr.New(apperr.Forbidden, "CANNOT_CHANGE_OWN_ROLE", "a user cannot change its own role or menus")
	ErrLastOwner   = apperr.New(apperr.Conflict, "LAST_OWNER", "the shop's last OWNER cannot be given another role: make another user OWNER first")
)

// Users returns every user, oldest first.
func (s *Service) Users(ctx context.Context) ([]User, error) {
	us, err := s.store.ListOrderingUsers(ctx)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return us, nil
}

// SetRole gives the user id a role and, for STAFF, its allowedMenus (nil
// keeps them; other roles keep none). actor is the owner making the change,
// nil for the portal's operator: a user never changes its own role. The
// last OWNER keeps its role.
func (s *Service) SetRole(ctx context.Context, actor *User, id string, role Role, menus []string) (User, error) {
	if !role.Valid() {
		return User{}, ErrInvalidRole
	}
	for _, m := range menus {
		if !slices.Contains(Menus, m) {
			return User{}, ErrInvalidMenu
		}
	}
	if actor != nil && actor.ID == id {
		return User{}, ErrOwnRole
	}
	if role != RoleOwner {
		users, err := s.store.ListOrderingUsers(ctx)
		if err != nil {
			return User{}, fmt.Errorf("set role: %w", err)
		}
		owners := 0
		for _, u := range users {
			if u.Role == RoleOwner && u.ID != id {
				owners++
			}
		}
		for _, u := range users {
			if u.ID == id && u.Role == RoleOwner && owners == 0 {
				return User{}, ErrLastOwner
			}
		}
	}
	u, err := s.store.UpdateOrderingUser(ctx, id, func(u *User) error {
		u.Role = role
		switch {
		case role != RoleStaff:
			u.AllowedMenus = nil
		case menus != nil:
			u.AllowedMenus = slices.Compact(slices.Sorted(slices.Values(menus)))
		}
		return nil
	})
	if err != nil {
		return User{}, err
	}
	by := "operator"
	if actor != nil {
		by = actor.ID
	}
	s.log.Info("ordering: role set", "user", id, "role", role, "menus", u.AllowedMenus, "by", by)
	return u, nil
}

// RegisterConsent records that number agreed to receive the shop's
// messages (registered by the staff, for example at the counter), as an
// inbound message does.
func (s *Service) RegisterConsent(ctx context.Context, number string) (Consent, error) {
	n, err := NormalizeNumber(number, s.cfg.Region)
	if err != nil {
		return Consent{}, err
	}
	now := s.cfg.Now().UTC()
	if err := s.store.RecordConsent(ctx, Consent{Number: n, Source: ConsentRegistered, FirstAt: now, LastAt: now}); err != nil {
		return Consent{}, fmt.Errorf("register consent: %w", err)
	}
	c, _, err := s.store.GetConsent(ctx, n)
	if err != nil {
		return Consent{}, fmt.Errorf("register consent: %w", err)
	}
	return c, nil
}
