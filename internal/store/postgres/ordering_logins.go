package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/ordering"
)

const loginColumns = `hash, messenger_number, address, status, created_at, expires_at, coalesce(user_id, ''), verified_at`

func scanLogin(row pgx.Row) (ordering.LoginToken, error) {
	var t ordering.LoginToken
	err := row.Scan(&t.Hash, &t.Number, &t.Address, &t.Status, &t.CreatedAt, &t.ExpiresAt, &t.UserID, &t.VerifiedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, ordering.ErrTokenNotFound
	}
	t.CreatedAt, t.ExpiresAt, t.VerifiedAt = t.CreatedAt.UTC(), t.ExpiresAt.UTC(), utcPtr(t.VerifiedAt)
	return t, err
}

// CreateLoginToken stores a new login token.
func (s *Store) CreateLoginToken(ctx context.Context, t ordering.LoginToken) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO ordering_logins (hash, messenger_number, address, status, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, t.Hash, t.Number, t.Address, t.Status, t.CreatedAt, t.ExpiresAt)
	if err != nil {
		return ordErr("create login token", err)
	}
	return nil
}

// GetLoginToken returns the login token with the hash.
func (s *Store) GetLoginToken(ctx context.Context, hash string) (ordering.LoginToken, error) {
	t, err := scanLogin(s.pool.QueryRow(ctx, `SELECT `+loginColumns+` FROM ordering_logins WHERE hash = $1`, hash))
	if err != nil {
		return t, ordErr("get login token", err)
	}
	return t, nil
}

// UpdateLogin loads the token (locked) and its number's user (locked, with
// the number itself, so that two logins of a new number create one user),
// calls fn and saves both.
func (s *Store) UpdateLogin(ctx context.Context, hash string, fn func(*ordering.LoginToken, *ordering.User) error) (ordering.LoginToken, ordering.User, error) {
	var t ordering.LoginToken
	var u ordering.User
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if t, err = scanLogin(tx.QueryRow(ctx, `SELECT `+loginColumns+` FROM ordering_logins WHERE hash = $1 FOR UPDATE`, hash)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('ordering-number:' || $1, 0))`, t.Number); err != nil {
			return fmt.Errorf("lock number: %w", err)
		}
		u, err = scanOrdUser(tx.QueryRow(ctx, `SELECT `+ordUserColumns+` FROM ordering_users WHERE messenger_number = $1 FOR UPDATE`, t.Number))
		if err != nil && !errors.Is(err, ordering.ErrUserNotFound) {
			return err
		}
		if err := fn(&t, &u); err != nil {
			return err
		}
		if u.ID != "" {
			if err := upsertOrdUser(ctx, tx, u); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `UPDATE ordering_logins SET status = $2, user_id = nullif($3, ''), verified_at = $4 WHERE hash = $1`,
			hash, t.Status, t.UserID, t.VerifiedAt)
		return err
	})
	if err != nil {
		return t, u, ordErr("update login", err)
	}
	return t, u, nil
}

// PruneLogins removes expired login tokens and spent keys kept until
// before.
func (s *Store) PruneLogins(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	for _, q := range []string{`DELETE FROM ordering_logins WHERE expires_at < $1`, `DELETE FROM ordering_spent WHERE until < $1`} {
		tag, err := s.pool.Exec(ctx, q, before)
		if err != nil {
			return n, ordErr("prune logins", err)
		}
		n += tag.RowsAffected()
	}
	return n, nil
}
