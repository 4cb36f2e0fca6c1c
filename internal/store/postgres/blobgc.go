package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
)

// The blob names of each package of format 3 (exam.PackageBlobStore) and the
// bookkeeping of the garbage collection of blobs (blobgc.MarkStore).

// savePackageBlobs makes names the blobs the package key names, within the
// package's transaction.
func savePackageBlobs(ctx context.Context, tx pgx.Tx, key string, names []string) error {
	names = slices.Clone(names)
	slices.Sort(names)
	names = slices.Compact(names)
	if names == nil {
		names = []string{}
	}
	if _, err := tx.Exec(ctx, `UPDATE packages SET blob_names_recorded = true WHERE npsn = $1 AND NOT blob_names_recorded`,
		key); err != nil {
		return fmt.Errorf("record the blob names of package %s: %w", key, err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM package_blob_names WHERE npsn = $1 AND name <> ALL($2::text[])`,
		key, names); err != nil {
		return fmt.Errorf("remove the blob names of package %s: %w", key, err)
	}
	if len(names) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `INSERT INTO package_blob_names (npsn, name) SELECT $1, unnest($2::text[])
		ON CONFLICT DO NOTHING`, key, names); err != nil {
		return fmt.Errorf("record the blob names of package %s: %w", key, err)
	}
	return nil
}

// PackageBlobNames returns the names that at least one current package
// names, each once, in byte-wise order.
func (s *Store) PackageBlobNames(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT name FROM package_blob_names ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("postgres: package blob names: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres: package blob names: %w", err)
	}
	return names, nil
}

// PackagesNamingBlobs returns, for each of names that a current package
// names, the keys of those packages in byte-wise order.
func (s *Store) PackagesNamingBlobs(ctx context.Context, names []string) (map[string][]string, error) {
	out := map[string][]string{}
	if len(names) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT name, npsn FROM package_blob_names WHERE name = ANY($1::text[])
		ORDER BY name, npsn`, names)
	if err != nil {
		return nil, fmt.Errorf("postgres: packages naming blobs: %w", err)
	}
	var name, key string
	_, err = pgx.ForEachRow(rows, []any{&name, &key}, func() error {
		out[name] = append(out[name], key)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: packages naming blobs: %w", err)
	}
	return out, nil
}

// PackagesWithoutBlobNames returns the keys of the current packages of
// format 3 whose blob names were never recorded.
func (s *Store) PackagesWithoutBlobNames(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT npsn FROM packages WHERE format >= $1 AND NOT blob_names_recorded
		ORDER BY npsn`, exam.BlobsPackageFormat)
	if err != nil {
		return nil, fmt.Errorf("postgres: packages without blob names: %w", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres: packages without blob names: %w", err)
	}
	return keys, nil
}

// BlobGCMarks returns every mark of the garbage collection of blobs: the
// blob's key and the time since which it has been found unreferenced.
func (s *Store) BlobGCMarks(ctx context.Context) (map[string]time.Time, error) {
	rows, err := s.pool.Query(ctx, `SELECT key, since FROM blob_gc_marks`)
	if err != nil {
		return nil, fmt.Errorf("postgres: blob gc marks: %w", err)
	}
	out := map[string]time.Time{}
	var key string
	var since time.Time
	if _, err := pgx.ForEachRow(rows, []any{&key, &since}, func() error {
		out[key] = since.UTC()
		return nil
	}); err != nil {
		return nil, fmt.Errorf("postgres: blob gc marks: %w", err)
	}
	return out, nil
}

// UpdateBlobGCMarks sets the marks of set (blob key -> since, kept to the
// microsecond) and removes those of clear, in one transaction.
func (s *Store) UpdateBlobGCMarks(ctx context.Context, set map[string]time.Time, clear []string) error {
	if len(set) == 0 && len(clear) == 0 {
		return ctx.Err()
	}
	keys := make([]string, 0, len(set))
	times := make([]time.Time, 0, len(set))
	for k, t := range set {
		if k == "" {
			return fmt.Errorf("postgres: update blob gc marks: a key is empty")
		}
		keys = append(keys, k)
		times = append(times, t.UTC().Truncate(time.Microsecond))
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if len(clear) > 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM blob_gc_marks WHERE key = ANY($1::text[])`, clear); err != nil {
				return fmt.Errorf("clear: %w", err)
			}
		}
		if len(keys) > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO blob_gc_marks (key, since)
				SELECT * FROM unnest($1::text[], $2::timestamptz[])
				ON CONFLICT (key) DO UPDATE SET since = excluded.since`, keys, times); err != nil {
				return fmt.Errorf("mark: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres: update blob gc marks: %w", err)
	}
	return nil
}

// TryLockBlobGC takes the lock of the garbage collection of blobs, a
// session-level advisory lock held on a connection of its own until unlock,
// unless another session (another portal instance) holds it: then ok is
// false. When the connection breaks, PostgreSQL releases the lock.
func (s *Store) TryLockBlobGC(ctx context.Context) (unlock func(), ok bool, err error) {
	return s.tryAdvisoryLock(ctx, "lock blob gc", `$1`, lockBlobGC)
}

// tryAdvisoryLock takes the session-level advisory lock of key (the SQL
// arguments of pg_try_advisory_lock, over args) on a connection of its own,
// held until unlock, unless another session holds it: then ok is false.
// When the connection breaks, PostgreSQL releases the lock. op names the
// operation in errors.
func (s *Store) tryAdvisoryLock(ctx context.Context, op, key string, args ...any) (unlock func(), ok bool, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("postgres: %s: %w", op, err)
	}
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(`+key+`)`, args...).Scan(&ok); err != nil {
		// The lock may have been taken as the call was cancelled: close the
		// session rather than give it back to the pool holding it.
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		conn.Conn().Close(closeCtx)
		cancel()
		conn.Release()
		return nil, false, fmt.Errorf("postgres: %s: %w", op, err)
	}
	if !ok {
		conn.Release()
		return nil, false, nil
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock(`+key+`)`, args...); err != nil {
			// The lock may still be held by the session: close it.
			conn.Conn().Close(ctx)
		}
		conn.Release()
	}, true, nil
}
