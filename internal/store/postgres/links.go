package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seedhq/portal/internal/links"
)

// This file holds the link domain's shared helpers, its users and API keys,
// domains, overlays, splash pages and the rate limit. The tables are those of
// migrations/0002_links.sql.

var _ links.Store = (*Store)(nil)

// querier is what both the pool and a transaction offer.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// linkErr wraps the error of the link-store operation op.
func linkErr(op string, err error) error {
	return fmt.Errorf("postgres: %s: %w", op, err)
}

// foreignKeyViolation returns the name of the foreign key err violates, and
// whether it is a foreign-key violation at all.
func foreignKeyViolation(err error) (constraint string, ok bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23503" {
		return pgErr.ConstraintName, true
	}
	return "", false
}

// ownerErr maps the violation of a record's user_id foreign key, on insert,
// to the NOT_FOUND error of the missing user.
func ownerErr(err error, owner int64) error {
	if c, ok := foreignKeyViolation(err); ok && strings.HasSuffix(c, "_user_id_fkey") {
		return links.NotFound("user", owner)
	}
	return err
}

// nullID returns nil for the id 0, so that it is stored as NULL.
func nullID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// ownedTable is one owned record type of the link domain: its table, the
// word naming it in errors, its column list and how to scan a row of it.
type ownedTable[T any] struct {
	name, what, cols string
	scan             func(pgx.Row) (T, error)
}

// get reads the owner's record id, locking it FOR UPDATE when lock is set;
// links.NotFound when it is missing or another user's.
func (t ownedTable[T]) get(ctx context.Context, q querier, owner, id int64, lock bool) (T, error) {
	sql := `SELECT ` + t.cols + ` FROM ` + t.name + ` WHERE id = $1 AND user_id = $2`
	if lock {
		sql += ` FOR UPDATE`
	}
	v, err := t.scan(q.QueryRow(ctx, sql, id, owner))
	if errors.Is(err, pgx.ErrNoRows) {
		return v, links.NotFound(t.what, id)
	}
	return v, err
}

// getAny reads the record id whoever owns it; links.NotFound when it is
// missing.
func (t ownedTable[T]) getAny(ctx context.Context, q querier, id int64) (T, error) {
	v, err := t.scan(q.QueryRow(ctx, `SELECT `+t.cols+` FROM `+t.name+` WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return v, links.NotFound(t.what, id)
	}
	return v, err
}

// list returns one page of the owner's records, newest first, and their count.
func (t ownedTable[T]) list(ctx context.Context, s *Store, owner int64, p links.Page) (links.List[T], error) {
	l, err := readPage(ctx, s.pool, p,
		`SELECT count(*) FROM `+t.name+` WHERE user_id = $1`,
		`SELECT `+t.cols+`, `+pageTotal+` FROM `+t.name+` WHERE user_id = $1 ORDER BY id DESC`,
		[]any{owner}, t.scan)
	if err != nil {
		return l, linkErr("list "+t.what+"s", err)
	}
	return l, nil
}

// remove deletes the owner's record id; links.NotFound when it is missing or
// another user's.
func (t ownedTable[T]) remove(ctx context.Context, q querier, owner, id int64) error {
	tag, err := q.Exec(ctx, `DELETE FROM `+t.name+` WHERE id = $1 AND user_id = $2`, id, owner)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return links.NotFound(t.what, id)
	}
	return nil
}

// mustOwn returns links.NotFound unless id is a record of the owner in the
// table named name.
func mustOwn(ctx context.Context, q querier, name, what string, owner, id int64) error {
	var ok bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+name+` WHERE id = $1 AND user_id = $2)`,
		id, owner).Scan(&ok); err != nil {
		return fmt.Errorf("check %s %d: %w", what, id, err)
	}
	if !ok {
		return links.NotFound(what, id)
	}
	return nil
}

// pageTotal is the last column of every listSQL of readPage: the number of
// rows the query matches before LIMIT and OFFSET, so that a page and its
// total come from one statement (one snapshot, one round trip).
const pageTotal = `count(*) OVER () AS page_total`

// pagePlaceholder, in the listSQL of readPage, marks where LIMIT and OFFSET
// go when not at the end: in an inner query that picks the page's rows
// before costly columns are computed for them only.
const pagePlaceholder = "{{page}}"

// readPage reads page p with listSQL (LIMIT and OFFSET appended, or put in
// place of pagePlaceholder), whose last column is pageTotal; args are the
// arguments of listSQL and of countSQL, which counts the rows and answers
// for a page past the end, where no row carries the total.
func readPage[T any](ctx context.Context, q querier, p links.Page, countSQL, listSQL string, args []any,
	scan func(pgx.Row) (T, error)) (links.List[T], error) {
	l := links.List[T]{Page: p, Items: []T{}}
	if limit, offset := max(p.Limit, 0), max(p.Offset(), 0); limit > 0 {
		l.Items = make([]T, 0, min(limit, links.MaxLimit))
		n := len(args)
		page := fmt.Sprintf(`LIMIT $%d OFFSET $%d`, n+1, n+2)
		query := listSQL + " " + page
		if strings.Contains(listSQL, pagePlaceholder) {
			query = strings.Replace(listSQL, pagePlaceholder, page, 1)
		}
		rows, err := q.Query(ctx, query, slices.Concat(args, []any{limit, offset})...)
		if err != nil {
			return l, err
		}
		defer rows.Close()
		row := &totalRow{Row: rows, total: &l.Total}
		for rows.Next() {
			v, err := scan(row)
			if err != nil {
				return l, err
			}
			l.Items = append(l.Items, v)
		}
		if err := rows.Err(); err != nil || len(l.Items) > 0 {
			return l, err
		}
	}
	if err := q.QueryRow(ctx, countSQL, args...).Scan(&l.Total); err != nil {
		return l, fmt.Errorf("count: %w", err)
	}
	return l, nil
}

// totalRow is the current row of readPage: its last column, pageTotal, goes
// to total after the columns the record's scan function asks for.
type totalRow struct {
	pgx.Row
	total *int
	dest  []any // reused from row to row
}

// Scan scans the record's columns and the total.
func (r *totalRow) Scan(dest ...any) error {
	r.dest = append(append(r.dest[:0], dest...), r.total)
	return r.Row.Scan(r.dest...)
}

// Users and API keys.

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

// Domains.

var tDomains = ownedTable[links.Domain]{
	name: "links_domains", what: "domain",
	cols: `id, user_id, url, host, redirect_root, redirect_404, created_at`,
	scan: func(row pgx.Row) (links.Domain, error) {
		var d links.Domain
		err := row.Scan(&d.ID, &d.UserID, &d.URL, &d.Host, &d.RedirectRoot, &d.Redirect404, &d.CreatedAt)
		return d, err
	},
}

// CreateDomain stores d; links.ErrDomainTaken when any user has a domain
// with d.Host.
func (s *Store) CreateDomain(ctx context.Context, d links.Domain) (links.Domain, error) {
	out, err := tDomains.scan(s.pool.QueryRow(ctx, `INSERT INTO links_domains
		(user_id, url, host, redirect_root, redirect_404, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING `+tDomains.cols,
		d.UserID, d.URL, d.Host, d.RedirectRoot, d.Redirect404, d.CreatedAt))
	if c, ok := uniqueViolation(err); ok && c == "links_domains_host_key" {
		err = links.ErrDomainTaken
	}
	if err != nil {
		return links.Domain{}, linkErr("create domain", ownerErr(err, d.UserID))
	}
	return out, nil
}

// GetDomain returns the owner's domain.
func (s *Store) GetDomain(ctx context.Context, owner, id int64) (links.Domain, error) {
	d, err := tDomains.get(ctx, s.pool, owner, id, false)
	if err != nil {
		return links.Domain{}, linkErr("get domain", err)
	}
	return d, nil
}

// GetDomainByHost returns the domain with the host, whoever owns it.
func (s *Store) GetDomainByHost(ctx context.Context, host string) (links.Domain, error) {
	d, err := tDomains.scan(s.pool.QueryRow(ctx, `SELECT `+tDomains.cols+` FROM links_domains WHERE host = $1`, host))
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("domain %q: %w", host, links.ErrNotFound)
	}
	if err != nil {
		return links.Domain{}, linkErr("get domain by host", err)
	}
	return d, nil
}

// ListDomains returns one page of the owner's domains, newest first.
func (s *Store) ListDomains(ctx context.Context, owner int64, p links.Page) (links.List[links.Domain], error) {
	return tDomains.list(ctx, s, owner, p)
}

// UpdateDomain applies fn to the owner's domain, keeping its host and URL.
func (s *Store) UpdateDomain(ctx context.Context, owner, id int64, fn func(*links.Domain) error) (links.Domain, error) {
	var d links.Domain
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		old, err := tDomains.get(ctx, tx, owner, id, true)
		if err != nil {
			return err
		}
		d = old
		if err := fn(&d); err != nil {
			return err
		}
		d, err = tDomains.scan(tx.QueryRow(ctx, `UPDATE links_domains SET redirect_root = $2, redirect_404 = $3
			WHERE id = $1 RETURNING `+tDomains.cols, id, d.RedirectRoot, d.Redirect404))
		return err
	})
	if err != nil {
		return links.Domain{}, linkErr("update domain", err)
	}
	return d, nil
}

// DeleteDomain removes the owner's domain; links.ErrDomainInUse while short
// links use it.
func (s *Store) DeleteDomain(ctx context.Context, owner, id int64) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tDomains.get(ctx, tx, owner, id, true); err != nil {
			return err
		}
		var used bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM links_links WHERE domain_id = $1)`, id).Scan(&used); err != nil {
			return err
		}
		if used {
			return links.ErrDomainInUse
		}
		err := tDomains.remove(ctx, tx, owner, id)
		if _, ok := foreignKeyViolation(err); ok { // a link created meanwhile
			return links.ErrDomainInUse
		}
		return err
	})
	if err != nil {
		return linkErr("delete domain", err)
	}
	return nil
}

// Overlays and splash pages.

var tOverlays = ownedTable[links.Overlay]{
	name: "links_overlays", what: "overlay",
	cols: `id, user_id, type, name, created_at`,
	scan: func(row pgx.Row) (links.Overlay, error) {
		var o links.Overlay
		err := row.Scan(&o.ID, &o.UserID, &o.Type, &o.Name, &o.CreatedAt)
		return o, err
	},
}

// CreateOverlay stores o for o.UserID; links.ErrNotFound when the user does
// not exist.
func (s *Store) CreateOverlay(ctx context.Context, o links.Overlay) (links.Overlay, error) {
	out, err := tOverlays.scan(s.pool.QueryRow(ctx, `INSERT INTO links_overlays (user_id, type, name, created_at)
		VALUES ($1, $2, $3, $4) RETURNING `+tOverlays.cols, o.UserID, o.Type, o.Name, o.CreatedAt))
	if err != nil {
		return links.Overlay{}, linkErr("create overlay", ownerErr(err, o.UserID))
	}
	return out, nil
}

// ListOverlays returns one page of the owner's overlays, newest first.
func (s *Store) ListOverlays(ctx context.Context, owner int64, p links.Page) (links.List[links.Overlay], error) {
	return tOverlays.list(ctx, s, owner, p)
}

var tSplashes = ownedTable[links.Splash]{
	name: "links_splashes", what: "splash page",
	cols: `id, user_id, name, created_at`,
	scan: func(row pgx.Row) (links.Splash, error) {
		var sp links.Splash
		err := row.Scan(&sp.ID, &sp.UserID, &sp.Name, &sp.CreatedAt)
		return sp, err
	},
}

// CreateSplash stores sp for sp.UserID; links.ErrNotFound when the user does
// not exist.
func (s *Store) CreateSplash(ctx context.Context, sp links.Splash) (links.Splash, error) {
	out, err := tSplashes.scan(s.pool.QueryRow(ctx, `INSERT INTO links_splashes (user_id, name, created_at)
		VALUES ($1, $2, $3) RETURNING `+tSplashes.cols, sp.UserID, sp.Name, sp.CreatedAt))
	if err != nil {
		return links.Splash{}, linkErr("create splash page", ownerErr(err, sp.UserID))
	}
	return out, nil
}

// ListSplashes returns one page of the owner's splash pages, newest first.
func (s *Store) ListSplashes(ctx context.Context, owner int64, p links.Page) (links.List[links.Splash], error) {
	return tSplashes.list(ctx, s, owner, p)
}

// Rate limit.

// hitRateLimitSQL counts one request in the window and removes the key's
// earlier windows, in one statement.
const hitRateLimitSQL = `WITH stale AS (
	DELETE FROM links_rate_limits WHERE key = $1 AND window_start < $2
)
INSERT INTO links_rate_limits AS r (key, window_start, count) VALUES ($1, $2, LEAST(1, $3::integer + 1))
ON CONFLICT (key, window_start) DO UPDATE SET count = LEAST(r.count + 1, $3::integer + 1)
RETURNING count`

// HitRateLimit counts one request of key in the window starting at window
// (truncated to the second) and returns the window's count, capped at
// limit+1. The key's earlier windows are removed. The counters live in the
// database, so every portal instance sharing it shares them.
//
// Every API request makes this write, so it does not wait for the WAL to
// reach the disk (lazyCommit): a crash of the database may forget the last
// counts of a window, which only lets a few more requests through.
func (s *Store) HitRateLimit(ctx context.Context, key string, window time.Time, limit int) (int, error) {
	var n int
	err := s.lazyCommit(ctx, hitRateLimitSQL, []any{key, window.Truncate(time.Second), limit}, func(row pgx.Row) error { return row.Scan(&n) })
	if err != nil {
		return 0, linkErr("hit rate limit", err)
	}
	return n, nil
}
