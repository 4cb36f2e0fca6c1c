package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/identity"
)

var _ identity.Store = (*Store)(nil)

// This file holds the portal's secrets and its operator accounts.

// GetOrCreateSecret returns the value stored under name, storing value first
// when there is none. It is race-free across instances: INSERT ... ON
// CONFLICT DO NOTHING waits for a concurrent insert of the same name and
// yields to it, then a fresh statement reads the one stored value.
func (s *Store) GetOrCreateSecret(ctx context.Context, name string, value []byte) ([]byte, error) {
	if value == nil {
		value = []byte{} // NULL is not a value
	}
	var stored []byte
	err := s.pool.QueryRow(ctx, `INSERT INTO secrets (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO NOTHING RETURNING value`, name, value).Scan(&stored)
	if errors.Is(err, pgx.ErrNoRows) {
		err = s.pool.QueryRow(ctx, `SELECT value FROM secrets WHERE name = $1`, name).Scan(&stored)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: get or create secret %s: %w", name, err)
	}
	if stored == nil {
		stored = []byte{}
	}
	return stored, nil
}

const userColumns = `id, username, name, role, password_hash, created_at`

func scanUser(row pgx.Row) (identity.User, error) {
	var u identity.User
	err := row.Scan(&u.ID, &u.Username, &u.Name, &u.Role, &u.PasswordHash, &u.CreatedAt)
	return u, err
}

// CreateUser stores u; identity.ErrUsernameTaken when the username exists,
// compared case-insensitively.
func (s *Store) CreateUser(ctx context.Context, u identity.User) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO users (id, username, username_key, name, role, password_hash, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		u.ID, u.Username, strings.ToLower(u.Username), u.Name, string(u.Role), u.PasswordHash, u.CreatedAt)
	if c, ok := uniqueViolation(err); ok && c == "users_username_key" {
		err = identity.ErrUsernameTaken
	}
	if err != nil {
		return fmt.Errorf("postgres: create user: %w", err)
	}
	return nil
}

// GetUser returns the user with the id.
func (s *Store) GetUser(ctx context.Context, id string) (identity.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	if err != nil {
		return identity.User{}, fmt.Errorf("postgres: get user: %w", notFound(err))
	}
	return u, nil
}

// GetUserByUsername returns the user with the username, compared
// case-insensitively.
func (s *Store) GetUserByUsername(ctx context.Context, username string) (identity.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE username_key = $1`,
		strings.ToLower(username)))
	if err != nil {
		return identity.User{}, fmt.Errorf("postgres: get user by username: %w", notFound(err))
	}
	return u, nil
}

// CountUsers returns the number of operator accounts.
func (s *Store) CountUsers(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM users`).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count users: %w", err)
	}
	return n, nil
}

// ListUsers returns every account, ordered by username.
func (s *Store) ListUsers(ctx context.Context) ([]identity.User, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+userColumns+` FROM users ORDER BY username_key`)
	us, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (identity.User, error) { return scanUser(row) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list users: %w", err)
	}
	return us, nil
}
