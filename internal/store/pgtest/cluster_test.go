package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestCluster starts a cluster of the test's own, writes, restarts it and
// reads the row back.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("runs initdb; skipped with -short")
	}
	c := NewCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE t (v int); INSERT INTO t VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	c.Stop()
	if _, err := pgx.Connect(ctx, c.URL()); err == nil {
		t.Fatal("connected to a stopped cluster")
	}
	c.Start()
	conn, err = pgx.Connect(ctx, c.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v int
	if err := conn.QueryRow(ctx, `SELECT v FROM t`).Scan(&v); err != nil || v != 42 {
		t.Fatalf("after the restart: %d, %v", v, err)
	}
}
