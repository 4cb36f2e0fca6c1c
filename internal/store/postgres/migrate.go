package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// migrationFS holds the SQL migrations, applied in the order of their names
// (0001_init.sql, 0002_....sql, ...). A migration, once released, is never
// edited: changes go into a new file.
//
//go:embed migrations/*.sql
var migrationFS embed.FS

// migration is one embedded SQL migration.
type migration struct {
	version string // the file name without .sql, e.g. "0001_init"
	sql     string
}

// migrations returns the embedded migrations in the order to apply them.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	ms := make([]migration, 0, len(names))
	for _, name := range names {
		b, err := migrationFS.ReadFile(name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: strings.TrimSuffix(path.Base(name), ".sql"), sql: string(b)})
	}
	return ms, nil
}

// Migrate applies the embedded migrations that the database lacks, in order,
// each in its own transaction together with its row in schema_migrations.
// Every transaction first takes a transaction-level advisory lock, so that
// portal instances starting together apply each migration exactly once; the
// others wait and then find it applied. Applying them again is harmless.
func (s *Store) Migrate(ctx context.Context) error {
	return s.migrate(ctx, "")
}

// MigrateTo applies, as Migrate does, the embedded migrations up to and
// including version (a file name without .sql, e.g.
// "0008_monitor_pending_answers") and none after it: the schema of an
// earlier release, which upgrade tests fill and then Migrate. Migrations
// are forward only: a database past version is left as it is.
func (s *Store) MigrateTo(ctx context.Context, version string) error {
	if version == "" {
		return fmt.Errorf("postgres: migrate to: no version")
	}
	return s.migrate(ctx, version)
}

// migrate applies the embedded migrations up to last, every one when last
// is empty.
func (s *Store) migrate(ctx context.Context, last string) error {
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("postgres: migrate: read embedded migrations: %w", err)
	}
	if last != "" {
		i := slices.IndexFunc(ms, func(m migration) bool { return m.version == last })
		if i < 0 {
			return fmt.Errorf("postgres: migrate to %s: no such migration", last)
		}
		ms = ms[:i+1]
	}
	for _, m := range ms {
		if err := s.inTx(ctx, func(tx pgx.Tx) error { return applyMigration(ctx, tx, m) }); err != nil {
			return fmt.Errorf("postgres: migrate: %s: %w", m.version, err)
		}
	}
	return nil
}

func applyMigration(ctx context.Context, tx pgx.Tx, m migration) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockMigrate); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    text COLLATE "C" PRIMARY KEY,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	var applied bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`,
		m.version).Scan(&applied); err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	if applied {
		return nil
	}
	// Without arguments Exec uses the simple protocol, which runs every
	// statement of the file.
	if _, err := tx.Exec(ctx, m.sql); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, m.version); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}
