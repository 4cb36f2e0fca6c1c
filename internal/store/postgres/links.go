package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seedhq/portal/internal/links"
)

// This file holds the helpers shared by the link domain's files, one per
// resource (links_users.go, links_domains.go, ...). The tables are those of
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
