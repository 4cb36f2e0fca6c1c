package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/ordering"
)

var _ ordering.Store = (*Store)(nil)

// This file holds ordering.Store: the tables of
// migrations/0005_ordering_login.sql.

// ordErr wraps the error of the ordering-store operation op.
func ordErr(op string, err error) error { return fmt.Errorf("postgres: %s: %w", op, err) }

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

// UpdateBans creates the missing ban records of keys, locks them all in the
// order given, calls fn and saves them.
func (s *Store) UpdateBans(ctx context.Context, keys []ordering.BanKey, now time.Time, newID func() string, fn func([]*ordering.Ban) error) ([]ordering.Ban, error) {
	var out []ordering.Ban
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		bans := make([]*ordering.Ban, len(keys))
		for i, k := range keys {
			if _, err := tx.Exec(ctx, `INSERT INTO ordering_bans (id, kind, value, attempts, level, last_attempt_at, created_at)
				VALUES ($1, $2, $3, 0, 0, $4, $4) ON CONFLICT (kind, value) DO NOTHING`, newID(), k.Kind, k.Value, now); err != nil {
				return fmt.Errorf("create ban record: %w", err)
			}
			b := &ordering.Ban{}
			if err := tx.QueryRow(ctx, `SELECT id, kind, value, attempts, level, ban_until, last_attempt_at, created_at
				FROM ordering_bans WHERE kind = $1 AND value = $2 FOR UPDATE`, k.Kind, k.Value).Scan(
				&b.ID, &b.Kind, &b.Value, &b.Attempts, &b.Level, &b.BanUntil, &b.LastAttemptAt, &b.CreatedAt); err != nil {
				return fmt.Errorf("read ban record: %w", err)
			}
			b.BanUntil, b.LastAttemptAt, b.CreatedAt = utcPtr(b.BanUntil), b.LastAttemptAt.UTC(), b.CreatedAt.UTC()
			bans[i] = b
		}
		if err := fn(bans); err != nil {
			return err
		}
		out = make([]ordering.Ban, len(bans))
		for i, b := range bans {
			if _, err := tx.Exec(ctx, `UPDATE ordering_bans SET attempts = $2, level = $3, ban_until = $4, last_attempt_at = $5
				WHERE id = $1`, b.ID, b.Attempts, b.Level, b.BanUntil, b.LastAttemptAt); err != nil {
				return fmt.Errorf("save ban record: %w", err)
			}
			out[i] = *b
		}
		return nil
	})
	if err != nil {
		return nil, ordErr("update bans", err)
	}
	return out, nil
}

// ListBans returns the ban records with a level or attempts, most recent
// attempt first.
func (s *Store) ListBans(ctx context.Context) ([]ordering.Ban, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, kind, value, attempts, level, ban_until, last_attempt_at, created_at
		FROM ordering_bans WHERE level > 0 OR attempts > 0 ORDER BY last_attempt_at DESC, id`)
	if err != nil {
		return nil, ordErr("list bans", err)
	}
	var b ordering.Ban
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ordering.Ban, error) {
		err := row.Scan(&b.ID, &b.Kind, &b.Value, &b.Attempts, &b.Level, &b.BanUntil, &b.LastAttemptAt, &b.CreatedAt)
		b.BanUntil, b.LastAttemptAt, b.CreatedAt = utcPtr(b.BanUntil), b.LastAttemptAt.UTC(), b.CreatedAt.UTC()
		return b, err
	})
	if err != nil {
		return nil, ordErr("list bans", err)
	}
	return out, nil
}

// RecordConsent records or refreshes the consent of a number.
func (s *Store) RecordConsent(ctx context.Context, c ordering.Consent) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO ordering_consents AS c (messenger_number, source, first_at, last_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (messenger_number) DO UPDATE SET last_at = excluded.last_at`,
		c.Number, c.Source, c.FirstAt, c.LastAt)
	if err != nil {
		return ordErr("record consent", err)
	}
	return nil
}

// GetConsent returns the consent of a number.
func (s *Store) GetConsent(ctx context.Context, number string) (ordering.Consent, bool, error) {
	var c ordering.Consent
	err := s.pool.QueryRow(ctx, `SELECT messenger_number, source, first_at, last_at FROM ordering_consents
		WHERE messenger_number = $1`, number).Scan(&c.Number, &c.Source, &c.FirstAt, &c.LastAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, ordErr("get consent", err)
	}
	c.FirstAt, c.LastAt = c.FirstAt.UTC(), c.LastAt.UTC()
	return c, true, nil
}

// MarkSpent records key until until and reports whether it was new.
func (s *Store) MarkSpent(ctx context.Context, key string, until time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, `INSERT INTO ordering_spent (key, until) VALUES ($1, $2)
		ON CONFLICT (key) DO NOTHING`, key, until)
	if err != nil {
		return false, ordErr("mark spent", err)
	}
	return tag.RowsAffected() == 1, nil
}

// UnmarkSpent forgets key.
func (s *Store) UnmarkSpent(ctx context.Context, key string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM ordering_spent WHERE key = $1`, key); err != nil {
		return ordErr("unmark spent", err)
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

// utcPtr returns *t in UTC, or nil.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
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
