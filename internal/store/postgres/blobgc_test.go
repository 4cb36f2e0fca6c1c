package postgres_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/blobgc"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres"
	"github.com/seedhq/portal/internal/store/postgres/postgrestest"
	"github.com/seedhq/portal/internal/store/storetest"
)

var _ blobgc.MarkStore = (*postgres.Store)(nil)

// openMigrated opens and migrates a store on url, closed at the test's end.
func openMigrated(t *testing.T, url string) *postgres.Store { return postgrestest.OpenURL(t, url) }

// TestBlobGCConformance runs the conformance suite of the garbage
// collection's marks and lock against fresh databases.
func TestBlobGCConformance(t *testing.T) {
	storetest.RunBlobGC(t, func(t *testing.T) blobgc.MarkStore {
		return openMigrated(t, pgtest.NewDatabase(t))
	})
}

// TestBlobGCLockAcrossInstances: two stores on one database (two portal
// instances) never hold the collection's lock at once; a store closed
// while holding it (an instance gone) releases it.
func TestBlobGCLockAcrossInstances(t *testing.T) {
	ctx := t.Context()
	url := pgtest.NewDatabase(t)
	a, b := openMigrated(t, url), openMigrated(t, url)
	unlockA, ok, err := a.TryLockBlobGC(ctx)
	if err != nil || !ok {
		t.Fatalf("TryLockBlobGC on A: %v, %v", ok, err)
	}
	if _, ok, err := b.TryLockBlobGC(ctx); err != nil || ok {
		t.Fatalf("TryLockBlobGC on B while A holds it: taken=%v, %v", ok, err)
	}
	unlockA()
	unlockB, ok, err := b.TryLockBlobGC(ctx)
	if err != nil || !ok {
		t.Fatalf("TryLockBlobGC on B after A unlocked: %v, %v", ok, err)
	}
	if _, ok, _ := a.TryLockBlobGC(ctx); ok {
		t.Fatal("TryLockBlobGC on A while B holds it: taken")
	}
	// B's session ends without unlocking (its instance died, or the
	// connection broke): the lock is free.
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("terminate the session holding the lock: %d sessions, %v", n, err)
	}
	var again bool
	for range 100 {
		var u func()
		if u, again, err = a.TryLockBlobGC(ctx); err != nil {
			t.Fatalf("TryLockBlobGC on A after B's session ended: %v", err)
		}
		if again {
			u()
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !again {
		t.Fatal("TryLockBlobGC on A after B's session ended: not taken")
	}
	unlockB() // its connection is broken: closed and returned to the pool
}
