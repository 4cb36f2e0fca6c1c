// Package ordering is the domain of the ordering service
// (docs/api/ordering.md): passwordless messenger login with its ban ladder,
// users and roles, and, built on them, the menu, orders, payments and the
// outbound message gate.
//
// The rules live here; the stores (internal/store/bolt, postgres) keep the
// records and make each operation atomic, and the HTTP edge
// (internal/httpapi) decodes requests and maps *apperr.Error to statuses.
package ordering

import (
	"time"

	"github.com/seedhq/portal/internal/apperr"
)

// Role is a user's role. The zero value is not a role.
type Role string

// The roles, from the least to the most privileged.
const (
	RoleCustomer Role = "CUSTOMER"
	RoleStaff    Role = "STAFF"
	RoleAdmin    Role = "ADMIN"
	RoleOwner    Role = "OWNER"
)

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool {
	switch r {
	case RoleCustomer, RoleStaff, RoleAdmin, RoleOwner:
		return true
	}
	return false
}

// User is a customer or a member of the shop's staff. A user is created by
// its first verified login, as a CUSTOMER (or OWNER for the configured
// owner number); the owner sets roles.
type User struct {
	ID              string    `json:"id"`
	Name            string    `json:"name"`
	MessengerNumber string    `json:"messengerNumber"`
	Role            Role      `json:"role"`
	AllowedMenus    []string  `json:"allowedMenus"`
	CreatedAt       time.Time `json:"createdAt"`
	LastLoginAt     time.Time `json:"lastLoginAt"`
}

// Errors of the login flow. Codes are stable (docs/api/ordering.md).
var (
	ErrInvalidNumber     = apperr.New(apperr.Invalid, "INVALID_NUMBER", "messengerNumber is not a valid phone number: use the digits 0-9 (spaces, dashes, dots, parentheses and a leading + are allowed)")
	ErrBanned            = apperr.New(apperr.RateLimited, "BAN_ACTIVE", "too many unverified logins from this number or address")
	ErrBannedPermanently = apperr.New(apperr.RateLimited, "BAN_PERMANENT", "logins from this number or address are blocked pending review by the shop")
	ErrTokenNotFound     = apperr.New(apperr.NotFound, "TOKEN_NOT_FOUND", "no such login token")
	ErrTokenExpired      = apperr.New(apperr.Unprocessable, "TOKEN_EXPIRED", "the login token has expired: log in again")
	ErrTokenUsed         = apperr.New(apperr.Conflict, "TOKEN_USED", "this login was completed and its JWT already handed out: log in again")
	ErrNumberMismatch    = apperr.New(apperr.Unprocessable, "NUMBER_MISMATCH", "the message does not come from the number the login token was issued for")
	ErrTooManyPolls      = apperr.New(apperr.RateLimited, "TOO_MANY_POLLS", "polling too fast: poll every 2 seconds")
	ErrUserNotFound      = apperr.New(apperr.NotFound, "USER_NOT_FOUND", "no such user")
	ErrBanNotFound       = apperr.New(apperr.NotFound, "BAN_NOT_FOUND", "no such ban")
	ErrUnauthorized      = apperr.New(apperr.Unauthorized, "UNAUTHORIZED", "a valid ordering JWT is required (Authorization: Bearer <token>)")
	ErrForbidden         = apperr.New(apperr.Forbidden, "FORBIDDEN", "your role may not do this")
)
