package identity

import (
	"context"

	"github.com/seedhq/portal/internal/throttle"
)

// UserStore keeps operator accounts. Methods returning one account return
// an error matching ErrNotFound when there is none.
type UserStore interface {
	// CreateUser stores u; ErrUsernameTaken when the username exists.
	CreateUser(ctx context.Context, u User) error
	// GetUser returns the user with the id.
	GetUser(ctx context.Context, id string) (User, error)
	// GetUserByUsername returns the user with the (lower-case) username.
	GetUserByUsername(ctx context.Context, username string) (User, error)
	// CountUsers returns the number of operator accounts.
	CountUsers(ctx context.Context) (int, error)
	// ListUsers returns every account, ordered by username.
	ListUsers(ctx context.Context) ([]User, error)
}

// SecretStore keeps the portal's own secrets, so that every instance
// sharing the store signs with the same ones.
type SecretStore interface {
	// GetOrCreateSecret returns the value stored under name; when there is
	// none it stores value and returns it. Concurrent callers, in this process
	// or another instance, all get the one value that was stored first.
	GetOrCreateSecret(ctx context.Context, name string, value []byte) ([]byte, error)
}

// Store is what the identity service needs from storage: the accounts, the
// token secret and the failed sign-ins, counted in the store so that every
// instance counts the same ones.
type Store interface {
	UserStore
	SecretStore
	throttle.Store
}
