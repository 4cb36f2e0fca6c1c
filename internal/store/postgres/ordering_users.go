package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/ordering"
)

const ordUserColumns = `id, name, messenger_number, role, allowed_menus, created_at, last_login_at`

func scanOrdUser(row pgx.Row) (ordering.User, error) {
	var u ordering.User
	err := row.Scan(&u.ID, &u.Name, &u.MessengerNumber, &u.Role, &u.AllowedMenus, &u.CreatedAt, &u.LastLoginAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, ordering.ErrUserNotFound
	}
	u.CreatedAt, u.LastLoginAt = u.CreatedAt.UTC(), u.LastLoginAt.UTC()
	if len(u.AllowedMenus) == 0 {
		u.AllowedMenus = nil
	}
	return u, err
}

// upsertOrdUser inserts u or updates the user with its id.
func upsertOrdUser(ctx context.Context, tx pgx.Tx, u ordering.User) error {
	menus := u.AllowedMenus
	if menus == nil {
		menus = []string{}
	}
	_, err := tx.Exec(ctx, `INSERT INTO ordering_users AS u (`+ordUserColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, role = excluded.role, allowed_menus = excluded.allowed_menus,
			last_login_at = excluded.last_login_at`,
		u.ID, u.Name, u.MessengerNumber, u.Role, menus, u.CreatedAt, u.LastLoginAt)
	if err != nil {
		return fmt.Errorf("save user: %w", err)
	}
	return nil
}

// GetOrderingUser returns the user with id.
func (s *Store) GetOrderingUser(ctx context.Context, id string) (ordering.User, error) {
	u, err := scanOrdUser(s.pool.QueryRow(ctx, `SELECT `+ordUserColumns+` FROM ordering_users WHERE id = $1`, id))
	if err != nil {
		return u, ordErr("get user", err)
	}
	return u, nil
}

// ListOrderingUsers returns every user, oldest first.
func (s *Store) ListOrderingUsers(ctx context.Context) ([]ordering.User, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+ordUserColumns+` FROM ordering_users ORDER BY created_at, id`)
	if err != nil {
		return nil, ordErr("list users", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ordering.User, error) { return scanOrdUser(row) })
	if err != nil {
		return nil, ordErr("list users", err)
	}
	return out, nil
}

// UpdateOrderingUser loads the user (locked), calls fn and saves it.
func (s *Store) UpdateOrderingUser(ctx context.Context, id string, fn func(*ordering.User) error) (ordering.User, error) {
	var u ordering.User
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if u, err = scanOrdUser(tx.QueryRow(ctx, `SELECT `+ordUserColumns+` FROM ordering_users WHERE id = $1 FOR UPDATE`, id)); err != nil {
			return err
		}
		number := u.MessengerNumber
		if err := fn(&u); err != nil {
			return err
		}
		if u.ID != id || u.MessengerNumber != number {
			return errors.New("a user's id and number do not change")
		}
		return upsertOrdUser(ctx, tx, u)
	})
	if err != nil {
		return u, ordErr("update user", err)
	}
	return u, nil
}
