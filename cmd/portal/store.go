package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/seedhq/portal/internal/blobgc"
	"github.com/seedhq/portal/internal/config"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/postgres"
)

// store is what serve needs of a storage backend: the stores of the three
// APIs and of the operator accounts, the Idempotency-Key receipts and the
// marks of the blobs' garbage collection, as bbolt and PostgreSQL both keep
// them.
type store interface {
	exam.Store
	identity.Store
	idempotency.Store
	links.Store
	ordering.Store
	blobgc.MarkStore
	Close() error
}

var (
	_ store = (*bolt.Store)(nil)
	_ store = (*postgres.Store)(nil)
)

// openStore opens PostgreSQL (applying migrations) when o.DatabaseURL is
// set, else the bbolt file in the data directory.
func openStore(ctx context.Context, o serveOptions, logger *slog.Logger) (store, error) {
	if o.DatabaseURL != "" {
		st, err := openPostgres(ctx, o.DatabaseURL)
		if err != nil {
			return nil, err
		}
		if err := st.Migrate(ctx); err != nil {
			st.Close()
			return nil, fmt.Errorf("apply database migrations: %w", err)
		}
		logger.Info("store opened", "kind", "postgres", "migrations", "applied")
		return st, nil
	}
	path := filepath.Join(o.DataDir, boltFileName)
	st, err := bolt.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open bbolt store %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		st.Close()
		return nil, fmt.Errorf("restrict bbolt store %s: %w", path, err)
	}
	logger.Info("store opened", "kind", "bolt", "path", path)
	return st, nil
}

// databaseURL reads a PostgreSQL connection string: a postgres:// URL, or
// a key=value string ("host=db dbname=portal").
func databaseURL(r *config.Reader, key string) string {
	s := r.String(key)
	if s == "" || (!strings.Contains(s, "://") && strings.Contains(s, "=")) {
		return s
	}
	if r.URL(key, "postgres", "postgresql") == nil {
		return ""
	}
	return s
}

// redactDatabaseURL returns the connection string without its password.
func redactDatabaseURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	var out []string
	for _, kv := range strings.Fields(s) {
		if strings.HasPrefix(kv, "password=") {
			kv = "password=xxxxx"
		}
		out = append(out, kv)
	}
	return strings.Join(out, " ")
}

// openPostgres connects to PostgreSQL without ever printing the URL's password.
func openPostgres(ctx context.Context, url string) (*postgres.Store, error) {
	st, err := postgres.Open(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	return st, nil
}
