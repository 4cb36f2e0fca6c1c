package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/links"
)

const linkUserColumns = `id, email, username, password_hash, avatar, plan, rate_limit, expires_at, registered_at`

func scanLinkUser(row pgx.Row) (links.User, error) {
	var u links.User
	err := row.Scan(&u.ID, &u.Email, &u.Username, &u.PasswordHash, &u.Avatar, &u.Plan, &u.RateLimit,
		&u.ExpiresAt, &u.RegisteredAt)
	return u, err
}

// linkUserErr maps the unique violations of a user's email and username.
func linkUserErr(err error) error {
	switch c, _ := uniqueViolation(err); c {
	case "links_users_email_key":
		return links.ErrEmailTaken
	case "links_users_username_key":
		return links.ErrUsernameTaken
	case "links_api_keys_hash_key":
		return errors.New("an API key with this hash exists")
	}
	return err
}

// CreateLinkUser stores u with an API key of hash keyHash created at
// u.RegisteredAt; links.ErrEmailTaken or links.ErrUsernameTaken when another
// user has the email or username.
func (s *Store) CreateLinkUser(ctx context.Context, u links.User, keyHash string) (links.User, error) {
	var out links.User
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = scanLinkUser(tx.QueryRow(ctx, `INSERT INTO links_users
			(email, username, password_hash, avatar, plan, rate_limit, expires_at, registered_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING `+linkUserColumns,
			u.Email, u.Username, u.PasswordHash, u.Avatar, u.Plan, u.RateLimit, u.ExpiresAt, u.RegisteredAt))
		if err != nil {
			return linkUserErr(err)
		}
		_, err = tx.Exec(ctx, `INSERT INTO links_api_keys (user_id, hash, created_at) VALUES ($1, $2, $3)`,
			out.ID, keyHash, out.RegisteredAt)
		return linkUserErr(err)
	})
	if err != nil {
		return links.User{}, linkErr("create link user", err)
	}
	return out, nil
}

// GetLinkUser returns the user with the id.
func (s *Store) GetLinkUser(ctx context.Context, id int64) (links.User, error) {
	u, err := scanLinkUser(s.pool.QueryRow(ctx, `SELECT `+linkUserColumns+` FROM links_users WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		err = links.NotFound("user", id)
	}
	if err != nil {
		return links.User{}, linkErr("get link user", err)
	}
	return u, nil
}

// ListLinkUsers returns one page of users, newest first.
func (s *Store) ListLinkUsers(ctx context.Context, p links.Page) (links.List[links.User], error) {
	l, err := readPage(ctx, s.pool, p, `SELECT count(*) FROM links_users`,
		`SELECT `+linkUserColumns+`, `+pageTotal+` FROM links_users ORDER BY id DESC`, nil, scanLinkUser)
	if err != nil {
		return l, linkErr("list link users", err)
	}
	return l, nil
}

// UpdateLinkUser applies fn to the user; links.ErrEmailTaken or
// links.ErrUsernameTaken when the new email or username is another user's.
func (s *Store) UpdateLinkUser(ctx context.Context, id int64, fn func(*links.User) error) (links.User, error) {
	var u links.User
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		old, err := scanLinkUser(tx.QueryRow(ctx, `SELECT `+linkUserColumns+` FROM links_users WHERE id = $1 FOR UPDATE`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return links.NotFound("user", id)
		}
		if err != nil {
			return err
		}
		u = old
		if err := fn(&u); err != nil {
			return err
		}
		u, err = scanLinkUser(tx.QueryRow(ctx, `UPDATE links_users SET email = $2, username = $3,
			password_hash = $4, avatar = $5, plan = $6, rate_limit = $7, expires_at = $8
			WHERE id = $1 RETURNING `+linkUserColumns,
			id, u.Email, u.Username, u.PasswordHash, u.Avatar, u.Plan, u.RateLimit, u.ExpiresAt))
		return linkUserErr(err)
	})
	if err != nil {
		return links.User{}, linkErr("update link user", err)
	}
	return u, nil
}

const linkKeyColumns = `user_id, hash, created_at, rotated_at`

func scanLinkKey(row pgx.Row) (links.APIKey, error) {
	var k links.APIKey
	err := row.Scan(&k.UserID, &k.Hash, &k.CreatedAt, &k.RotatedAt)
	return k, err
}

// GetLinkAPIKey returns the user's API key record.
func (s *Store) GetLinkAPIKey(ctx context.Context, userID int64) (links.APIKey, error) {
	k, err := scanLinkKey(s.pool.QueryRow(ctx, `SELECT `+linkKeyColumns+` FROM links_api_keys WHERE user_id = $1`, userID))
	if errors.Is(err, pgx.ErrNoRows) {
		err = links.NotFound("user", userID)
	}
	if err != nil {
		return links.APIKey{}, linkErr("get API key", err)
	}
	return k, nil
}

// GetLinkUserByLogin returns the user whose username or email is login.
func (s *Store) GetLinkUserByLogin(ctx context.Context, login string) (links.User, error) {
	u, err := scanLinkUser(s.pool.QueryRow(ctx, `SELECT `+linkUserColumns+` FROM links_users
		WHERE username = $1 OR email = $1 ORDER BY username = $1 DESC LIMIT 1`, login))
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("login: %w", links.ErrNotFound)
	}
	if err != nil {
		return links.User{}, linkErr("get user by login", err)
	}
	return u, nil
}

// GetLinkUserByKeyHash returns the user whose current API key has the hash.
func (s *Store) GetLinkUserByKeyHash(ctx context.Context, hash string) (links.User, error) {
	u, err := scanLinkUser(s.pool.QueryRow(ctx, `SELECT `+linkUserColumns+` FROM links_users
		WHERE id = (SELECT user_id FROM links_api_keys WHERE hash = $1)`, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("API key: %w", links.ErrNotFound)
	}
	if err != nil {
		return links.User{}, linkErr("get user by API key", err)
	}
	return u, nil
}

// RotateLinkAPIKey replaces the user's key by one of hash newHash, created
// and rotated at the given time.
func (s *Store) RotateLinkAPIKey(ctx context.Context, userID int64, newHash string, at time.Time) (links.APIKey, error) {
	k, err := scanLinkKey(s.pool.QueryRow(ctx, `UPDATE links_api_keys SET hash = $2, created_at = $3, rotated_at = $3
		WHERE user_id = $1 RETURNING `+linkKeyColumns, userID, newHash, at))
	if errors.Is(err, pgx.ErrNoRows) {
		err = links.NotFound("user", userID)
	}
	if err != nil {
		return links.APIKey{}, linkErr("rotate API key", linkUserErr(err))
	}
	return k, nil
}
