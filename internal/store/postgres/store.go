// Package postgres is the PostgreSQL implementation of exam.Store, built on
// pgx and a pgxpool connection pool. Many portal instances may share one
// database: every method is one transaction (or one statement), the schema is
// applied by Migrate from SQL files embedded in the binary, and operations
// that several instances may race on (secrets, pushes, server bindings,
// package blobs, migrations) are safe under concurrency.
//
// Times are stored as timestamptz and come back in UTC, truncated to the
// microsecond. Identifier-like columns use the "C" collation, so lists come
// back in byte-wise order, as Go compares strings.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seedhq/portal/internal/exam"
)

// Store is the PostgreSQL store. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
	// lazy has connections with synchronous_commit off: see lazyCommit.
	lazy *pgxpool.Pool

	// blobGrace is how long an unreferenced package blob is kept before
	// SavePackage removes it, so that downloads in progress can finish.
	blobGrace time.Duration

	// changes are the link API's change notifications (changes.go).
	feedOnce sync.Once
	changes  *changeFeed

	// storedHints picks the statement of a push (sync.go).
	storedHints storedHints
}

var _ exam.Store = (*Store)(nil)

// DefaultBlobGrace is how long a package blob that no school references any
// more is kept before it is removed.
const DefaultBlobGrace = time.Hour

// defaultMaxConns is the pool size when the URL does not set pool_max_conns:
// enough for concurrent requests of one instance, small enough that many
// instances fit within PostgreSQL's default max_connections of 100.
func defaultMaxConns() int32 {
	return int32(min(max(8, 2*runtime.GOMAXPROCS(0)), 32))
}

// Open connects to the PostgreSQL database at url (a postgres:// URL or a
// key=value connection string) and checks that it answers. The pool holds at
// most pool_max_conns connections when the URL sets it, else
// max(8, 2×GOMAXPROCS) capped at 32; a second pool of at most half as many
// (at least 2) serves the writes of lazyCommit. Open does not apply
// migrations: call Migrate. The caller must Close the store.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// The error of ParseConfig may quote the URL, password included.
		return nil, errors.New("postgres: open: invalid database URL")
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = defaultMaxConns()
	}
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		// Scan timestamptz values in UTC rather than in the local zone.
		c.TypeMap().RegisterType(&pgtype.Type{
			Name:  "timestamptz",
			OID:   pgtype.TimestamptzOID,
			Codec: &pgtype.TimestamptzCodec{ScanLocation: time.UTC},
		})
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	lazyCfg := cfg.Copy()
	lazyCfg.ConnConfig.RuntimeParams["synchronous_commit"] = "off"
	lazyCfg.MaxConns = max(2, cfg.MaxConns/2)
	lazy, err := pgxpool.NewWithConfig(ctx, lazyCfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	return &Store{pool: pool, lazy: lazy, blobGrace: DefaultBlobGrace}, nil
}

// Close closes every connection of the pools, waiting for the ones in use to
// be released. It always returns nil; the error is there so that Store
// satisfies the io.Closer-like interface of the portal's wiring.
func (s *Store) Close() error {
	s.pool.Close()
	s.lazy.Close()
	return nil
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: ping: %w", err)
	}
	return nil
}

// inTx runs fn in a read-write transaction (read committed), committing when
// fn returns nil and rolling back otherwise.
func (s *Store) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// lazyCommit runs one statement that returns one row (scanned by scan) on
// a connection with synchronous_commit off: its commit does not wait for
// the WAL to reach the disk. It is for frequent writes of state that the
// next write replaces (a rate-limit count, a lab server's last heartbeat):
// a crash of the database may lose the last fraction of a second of them,
// and never leaves anything half-written.
func (s *Store) lazyCommit(ctx context.Context, sql string, args []any, scan func(pgx.Row) error) error {
	return scan(s.lazy.QueryRow(ctx, sql, args...))
}

// readTx runs fn in a read-only repeatable-read transaction, so that its
// several queries see one snapshot.
func (s *Store) readTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// bumpRevision increments the content revision within tx.
func bumpRevision(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `UPDATE content_revision SET revision = revision + 1`); err != nil {
		return fmt.Errorf("bump content revision: %w", err)
	}
	return nil
}

// uniqueViolation returns the name of the unique constraint err violates,
// and whether it is a unique violation at all.
func uniqueViolation(err error) (constraint string, ok bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return pgErr.ConstraintName, true
	}
	return "", false
}

// notFound maps pgx.ErrNoRows to exam.ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return exam.ErrNotFound
	}
	return err
}

// nullIfEmpty returns nil for the empty string, so that it is stored as NULL.
func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Advisory lock keys of the portal (pg_advisory_xact_lock). Distinct
// constants, ASCII mnemonics, so that they are easy to spot in pg_locks.
const (
	lockMigrate       int64 = 0x706f7274_6d696772 // "portmigr"
	lockAcademicYears int64 = 0x706f7274_61637972 // "portacyr"
	lockMemberImport  int64 = 0x706f7274_6d656d62 // "portmemb"
	lockBlobGC        int64 = 0x706f7274_62626763 // "portbbgc": the garbage collection of blobs (TryLockBlobGC)
)

// calibrationLockNamespace is the first key of the two-key advisory locks
// of calibrations (the second is hashtext of the exam id and model).
const calibrationLockNamespace int32 = 0x636c6272 // "clbr"

// utcPtr returns *t in UTC, or nil.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
